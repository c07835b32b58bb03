/**
 * How calico.yaml is applied with kubectl, read from its objects: the commands in the order `pulumi up`
 * creates and awaits the same objects, and the values in it that only `pulumi up` knows. calico.yaml's
 * header prints both; the cluster tests run the commands.
 */
import { CERTIFICATE_EXPIRY_ANNOTATION } from "../components/calico/typha-tls";
import { PROBE_LABELS } from "../components/calico/probe/common";
import { CLIENTS } from "../components/calico/probe/clients";
import { TAKEOVER_TYPE } from "../components/calico/takeover";
import { calicoObjects, describeObject, hasUnknownInputs, tlsRecords } from "./calico-objects";
import { shellWord } from "./calico-tls";
import type { ResourceRecord, StackEvaluation } from "./engine";

/** One command, run from the directory holding calico.yaml and calico-tls.sh. */
export interface ApplyStep {
  readonly command: string;
  /** What it does that its exit status does not say. */
  readonly note?: string;
}

/** pulumi-kubernetes awaits these `kubectl wait --for` expressions instead of its own readiness rules. */
const WAIT_FOR_ANNOTATION = "pulumi.com/waitFor";

/** API groups every cluster serves: an object of any other group is a custom resource. */
const BUILT_IN_GROUPS = new Set([
  "",
  "apps",
  "batch",
  "policy",
  "rbac.authorization.k8s.io",
  "networking.k8s.io",
  "apiextensions.k8s.io",
  "admissionregistration.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
  "coordination.k8s.io",
  "autoscaling",
]);

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: {
    suspend?: boolean;
    group?: string;
    names?: { kind?: string; plural?: string };
    template?: { metadata?: { annotations?: Record<string, string> } };
  };
}

const manifestOf = (record: ResourceRecord) => record.inputs as unknown as Manifest;
const groupOf = (m: Manifest) => (m.apiVersion.includes("/") ? m.apiVersion.split("/")[0] : "");

/**
 * The records calico.yaml holds: the Calico objects but those calico-tls.sh creates and those only
 * `pulumi up` can render ({@link unknownRecords}).
 */
export function yamlRecords(evaluation: StackEvaluation): ResourceRecord[] {
  const tls = new Set(tlsRecords(evaluation).map((r) => r.urn));
  return calicoObjects(evaluation).filter((r) => !tls.has(r.urn) && !hasUnknownInputs(r));
}

/**
 * The Calico objects whose inputs are known only after `pulumi up`: the probe's other-node Jobs, which
 * follow where the scheduler places the anchor pod (suspended where it cannot be placed).
 */
export function unknownRecords(evaluation: StackEvaluation): ResourceRecord[] {
  return calicoObjects(evaluation).filter(hasUnknownInputs);
}

/**
 * The custom resources among `records`: kubectl maps every object's kind before it applies any, so these
 * cannot be applied in the run that creates their definitions.
 */
export function customResources(records: readonly ResourceRecord[]): ResourceRecord[] {
  return records.filter((r) => !BUILT_IN_GROUPS.has(groupOf(manifestOf(r))));
}

/** `kind.group/name` and the namespace flag, as kubectl takes an object. */
function reference(m: Manifest): string {
  const group = groupOf(m);
  const resource = `${m.kind.toLowerCase()}${group && !BUILT_IN_GROUPS.has(group) ? `.${group}` : ""}`;
  return `${resource}/${m.metadata.name}${m.metadata.namespace ? ` -n ${m.metadata.namespace}` : ""}`;
}

function timeout(record: ResourceRecord): string {
  const create = record.options.customTimeouts?.create;
  return create ? ` --timeout=${create}` : "";
}

function isClient(m: Manifest): boolean {
  const [key, value] = Object.entries(PROBE_LABELS.client)[0];
  return m.kind === "Job" && m.metadata.labels?.[key] === value;
}

/** The commands that apply calico.yaml (and calico-tls.sh before it), in order. */
export function applySteps(evaluation: StackEvaluation): ApplyStep[] {
  const records = yamlRecords(evaluation);
  const clients = records.filter((r) => isClient(manifestOf(r)));
  const [componentKey, clientValue] = Object.entries(PROBE_LABELS.client)[0];
  const apply = (selector?: string) =>
    `kubectl apply --server-side -f calico.yaml${selector ? ` -l ${shellWord(selector)}` : ""}`;
  const first = apply(clients.length > 0 ? `${componentKey}!=${clientValue}` : undefined);
  const custom = customResources(records);
  const steps: ApplyStep[] = [];
  if (tlsRecords(evaluation).length > 0) {
    steps.push({
      command: "sh calico-tls.sh",
      note: "the Typha CA, certificates and the objects carrying them",
    });
  }
  steps.push({
    command: first,
    ...(custom.length > 0
      ? {
          note: `exits 1 the first time, once it has applied everything else: ${custom.map(describeObject).join(", ")} have no kind until their CRDs exist`,
        }
      : clients.length > 0
        ? { note: "everything but the probe's client Jobs" }
        : {}),
  });
  // `pulumi up` awaits every workload's rollout before what depends on it.
  for (const r of records.filter((r) => ["Deployment", "DaemonSet"].includes(manifestOf(r).kind))) {
    steps.push({ command: `kubectl rollout status ${reference(manifestOf(r))}${timeout(r)}` });
  }
  if (custom.length > 0) {
    const crds = [...new Set(custom.map((r) => `crd/${crdName(records, manifestOf(r))}`))].join(" ");
    steps.push(
      { command: `kubectl wait --for=create ${crds} --timeout=5m`, note: "kubectl 1.31 or later" },
      { command: `kubectl wait --for=condition=Established ${crds} --timeout=1m` },
      { command: first },
    );
    for (const r of custom) {
      for (const condition of waitsOf(manifestOf(r))) {
        steps.push({
          command: `kubectl wait ${shellWord(`--for=${condition}`)} ${reference(manifestOf(r))}${timeout(r)}`,
        });
      }
    }
  }
  // The allowed clients first, the denied ones once those connected, the recheck ones once those were
  // blocked: then a blocked connection can only be the policy's doing (components/calico/probe/index.ts).
  // A suspended Job runs no pod: not awaited.
  for (const client of CLIENTS) {
    const jobs = clients.filter((r) => manifestOf(r).metadata.labels?.[PROBE_LABELS.role] === client);
    if (jobs.length === 0) continue;
    steps.push({ command: apply(`${PROBE_LABELS.role}=${client}`) });
    const running = jobs.filter((r) => manifestOf(r).spec?.suspend !== true);
    if (running.length === 0) continue;
    const names = running.map((r) => `job/${manifestOf(r).metadata.name}`).join(" ");
    steps.push({
      command: `kubectl wait --for=condition=Complete ${names} -n ${manifestOf(running[0]).metadata.namespace}${timeout(running[0])}`,
    });
  }
  return steps;
}

/** A custom resource's CRD name: from the CRD in the file, else the kind's plural as Calico's CRDs form it. */
function crdName(records: readonly ResourceRecord[], m: Manifest): string {
  const group = groupOf(m);
  const crd = records
    .map(manifestOf)
    .find(
      (c) =>
        c.kind === "CustomResourceDefinition" && c.spec?.group === group && c.spec.names?.kind === m.kind,
    );
  return crd ? crd.metadata.name : `${m.kind.toLowerCase()}s.${group}`;
}

/** The `kubectl wait --for` expressions of an object's `pulumi.com/waitFor` annotation (one, or a JSON list). */
function waitsOf(m: Manifest): string[] {
  const value = m.metadata.annotations?.[WAIT_FOR_ANNOTATION];
  if (value === undefined) return [];
  return value.startsWith("[") ? (JSON.parse(value) as string[]) : [value];
}

/**
 * The values in calico.yaml that only `pulumi up` knows, each with where it comes from: the inputs of its
 * objects that depend on a resource other than a Kubernetes object (offline, those are simulated).
 */
export function deployTimeValues(evaluation: StackEvaluation): string[] {
  const byUrn = new Map(evaluation.resources.map((r) => [r.urn, r]));
  const notes = new Map<string, string[]>();
  const add = (note: string, object: string) => notes.set(note, [...(notes.get(note) ?? []), object]);
  const records = yamlRecords(evaluation);
  // The run id ends the names of a run's objects (`allowed-client-<id>`); the anchor carries it as a label.
  const runs = records.flatMap((r) => manifestOf(r).metadata.labels?.[PROBE_LABELS.run] ?? []);
  for (const record of records) {
    const m = manifestOf(record);
    const sources = [
      ...new Set(
        Object.values(record.propertyDependencies)
          .flat()
          .map((urn) => byUrn.get(urn)?.type ?? urn),
      ),
    ].filter((type) => !type.startsWith("kubernetes:") && !type.startsWith("pulumi:providers:"));
    const run = runs.find((id) => m.metadata.name.endsWith(`-${id}`));
    const expiry = m.spec?.template?.metadata?.annotations?.[CERTIFICATE_EXPIRY_ANNOTATION];
    if (run !== undefined) {
      // Whatever it is computed from: the run's inputs include values only a deployed cluster has.
      add(
        `the suffix -${run} of the probe's run: the offline plan's fingerprint of what enforcement depends on ` +
          "(Calico's release and pod template, the Typha certificates' expiry, the nodes); `pulumi up` computes it from the deployed " +
          "values. As a name it applies as it is; to run the probe again, delete these first",
        describeObject(record),
      );
    } else if (sources.length === 0) {
      continue;
    } else if (sources.includes(TAKEOVER_TYPE)) {
      add(
        "spec.versions[*].schema: `pulumi up` keeps a stricter schema the cluster already has for these CRDs " +
          "(the takeover step reads it); this file has the program's own, which leaves spec open: over existing " +
          "CRDs, kubectl would put it in place of theirs",
        m.metadata.name,
      );
    } else if (expiry !== undefined) {
      add(
        `spec.template.metadata.annotations["${CERTIFICATE_EXPIRY_ANNOTATION}"] = ${expiry}: the offline plan's ` +
          "leaf certificate expiry; `pulumi up` writes the real one, so a renewal rolls the pods. Any value applies: " +
          "change it (or run kubectl rollout restart) after replacing the certificates",
        describeObject(record),
      );
    } else {
      add(`inputs from ${sources.join(", ")}, which only \`pulumi up\` resolves`, describeObject(record));
    }
  }
  return [...notes].map(([note, objects]) => `${objects.join(", ")}: ${note}.`);
}
