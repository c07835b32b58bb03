/** calico.yaml: the Calico objects of a plan as multi-document YAML, in the order kubectl applies them. */
import YAML from "yaml";
import type { ResourceRecord, StackEvaluation } from "./engine";
import { Hierarchy, compare } from "./hierarchy";
import { CALICO_COMPONENT_TYPE, CALICO_COMPONENT_TYPES, maskedInputs, sortKeys } from "./plan";

/**
 * Kubernetes objects beneath the Calico component in apply order: by kind (namespaces and CRDs first, a
 * custom resource cannot be applied before its definition), then name. The Kubernetes
 * provider is not an object.
 */
export function calicoObjects(evaluation: StackEvaluation): ResourceRecord[] {
  const tree = new Hierarchy(evaluation.resources);
  const objects = evaluation.resources.filter(
    (r) =>
      r.type.startsWith("kubernetes:") &&
      tree.ancestors(r).some((a) => CALICO_COMPONENT_TYPES.includes(a.type)),
  );
  // Registration order is not stable (objects built from certificates register when those resolve), so
  // order by kind, as kubectl must apply them, then by name (CRDs keep the renderer's order).
  const rank = (r: ResourceRecord) => {
    const kind = r.type.split(":").pop() ?? "";
    const index = APPLY_ORDER.indexOf(kind);
    return index === -1 ? APPLY_ORDER.length : index;
  };
  return objects
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || (rank(a.r) === 1 ? a.i - b.i : compare(a.r.name, b.r.name)))
    .map(({ r }) => r);
}

/** Kinds in the order `kubectl apply` needs them: namespaces and definitions, permissions, then workloads. */
const APPLY_ORDER = [
  "Namespace",
  "CustomResourceDefinition",
  "ServiceAccount",
  "ClusterRole",
  "ClusterRoleBinding",
  "Role",
  "RoleBinding",
  "ConfigMap",
  "Secret",
  "Service",
  "PodDisruptionBudget",
  "Deployment",
  "DaemonSet",
  // The operator's custom resources: their kinds exist once the operator Deployment has created them.
  "Installation",
  "APIServer",
  "Goldmane",
  "Whisker",
  // The enforcement probe: its policies, its anchor, then the client Jobs, which run once everything
  // else exists.
  "NetworkPolicy",
  "Pod",
  "Job",
];

/** An object's manifest: apiVersion, kind and metadata first (as kubectl prints), the rest sorted. */
function manifest(record: ResourceRecord): Record<string, unknown> {
  const body = sortKeys(maskedInputs(record)) as Record<string, unknown>;
  const { apiVersion, kind, metadata, ...rest } = body;
  return { apiVersion, kind, metadata, ...rest };
}

/** calico.yaml: the Calico objects as multi-document YAML for `kubectl apply -f`. */
export function renderCalicoYaml(evaluation: StackEvaluation): string {
  const components = evaluation.resources.filter((r) => CALICO_COMPONENT_TYPES.includes(r.type));
  if (components.length === 0) {
    return `# Stack ${evaluation.stack} has no ${CALICO_COMPONENT_TYPE} component: there are no Calico objects to apply.\n`;
  }
  const objects = calicoObjects(evaluation);
  const operator = components.some((r) => r.type !== CALICO_COMPONENT_TYPE);
  const header = [
    operator
      ? `# Calico (Tigera operator) objects of stack ${evaluation.stack}: ${objects.length} objects; the operator creates the CRDs, so apply the Deployment and wait for it before the custom resources.`
      : `# Calico (policy-only) objects of stack ${evaluation.stack}: ${objects.length} objects, CRDs first.`,
    "# Apply with: kubectl apply --server-side -f calico.yaml",
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
