/**
 * calico.yaml: the Calico objects of a plan as multi-document YAML, in the order kubectl applies them,
 * under a header with the commands that apply it. The objects carrying TLS material are left to
 * calico-tls.sh (offline/calico-tls.ts), so every value in the file applies as written.
 */
import YAML from "yaml";
import { applySteps, customResources, deployTimeValues, unknownRecords, yamlRecords } from "./calico-apply";
import { calicoObjects, describeObject, tlsRecords } from "./calico-objects";
import type { ResourceRecord, StackEvaluation } from "./engine";
import { CALICO_COMPONENT_TYPE, CALICO_COMPONENT_TYPES, maskedInputs, sortKeys } from "./plan";

export { calicoObjects } from "./calico-objects";

/** An object's manifest: apiVersion, kind and metadata first (as kubectl prints), the rest sorted. */
function manifest(record: ResourceRecord): Record<string, unknown> {
  const body = sortKeys(maskedInputs(record)) as Record<string, unknown>;
  const { apiVersion, kind, metadata, ...rest } = body;
  return { apiVersion, kind, metadata, ...rest };
}

/** The header's line width, as the code's. */
const WIDTH = 110;

/** `text` as comment lines of at most WIDTH characters, continuation lines indented by `indent`. */
function comment(text: string, indent = ""): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(" ")) {
    if (line.length + 1 + word.length > WIDTH && line.trim() !== "#") {
      lines.push(line);
      line = `#${indent}`;
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** calico.yaml: the Calico objects as multi-document YAML for `kubectl apply`, with how to apply them. */
export function renderCalicoYaml(evaluation: StackEvaluation): string {
  const components = evaluation.resources.filter((r) => CALICO_COMPONENT_TYPES.includes(r.type));
  if (components.length === 0) {
    return `# Stack ${evaluation.stack} has no ${CALICO_COMPONENT_TYPE} component: there are no Calico objects to apply.\n`;
  }
  const objects = yamlRecords(evaluation);
  const kinds = new Set(objects.map((r) => String(r.inputs.kind)));
  const operator = components.some((r) => r.type !== CALICO_COMPONENT_TYPE);
  const tls = tlsRecords(evaluation);
  const header = [
    ...comment(
      `Calico (${operator ? "Tigera operator" : "policy-only"}) objects of stack ${evaluation.stack}: ${objects.length} objects` +
        (kinds.has("CustomResourceDefinition") ? ", custom resource definitions first" : "") +
        (customResources(objects).length === 0
          ? "; no custom resource (kubectl maps every kind before it applies anything, so one would fail in " +
            "the run that creates its definition)."
          : ".") +
        (operator
          ? " The operator creates Calico's CRDs, those of its own custom resources here included."
          : ""),
    ),
    ...(tls.length > 0
      ? comment(
          `Not in this file: ${tls.map(describeObject).join(", ")}, the Typha TLS material \`pulumi up\` makes ` +
            "with @pulumi/tls. calico-tls.sh makes it with openssl and creates them.",
        )
      : []),
    ...(unknownRecords(evaluation).length > 0
      ? comment(
          `Not in this file: ${unknownRecords(evaluation).map(describeObject).join(", ")}: known after up ` +
            "(they follow where the scheduler places the probe's anchor pod, which only `pulumi up` sees).",
        )
      : []),
    ...comment(
      "Apply from this directory, in this order (as `pulumi up` creates and awaits the same objects):",
    ),
    ...applySteps(evaluation).map((step) => `#   ${step.command}${step.note ? `  # ${step.note}` : ""}`),
    ...deployTimeValues(evaluation).flatMap((note, i) => [
      ...(i === 0
        ? comment("Values only `pulumi up` knows, which the file holds as the offline plan has them:")
        : []),
      ...comment(`- ${note}`, "  "),
    ]),
  ];
  const documents = objects.map((record) =>
    YAML.stringify(manifest(record), { lineWidth: 0, aliasDuplicateObjects: false }),
  );
  return `${header.join("\n")}\n${documents.map((doc) => `---\n${doc}`).join("")}`;
}

/**
 * Typha replicas the plan sets (the `calico-typha` Deployment's `spec.replicas`), or undefined when the
 * stack has no Calico component.
 */
export function typhaReplicas(evaluation: StackEvaluation): number | undefined {
  const deployment = calicoObjects(evaluation).find(
    (r) =>
      r.type === "kubernetes:apps/v1:Deployment" &&
      (r.inputs.metadata as { name?: unknown } | undefined)?.name === "calico-typha",
  );
  const replicas = (deployment?.inputs.spec as { replicas?: unknown } | undefined)?.replicas;
  return typeof replicas === "number" ? replicas : undefined;
}
