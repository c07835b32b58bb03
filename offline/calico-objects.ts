/**
 * The Calico objects of a plan: every Kubernetes object beneath the Calico component in apply order, and
 * which of them carry TLS material (calico.yaml leaves those to calico-tls.sh).
 */
import type { ResourceRecord, StackEvaluation } from "./engine";
import { Hierarchy, compare } from "./hierarchy";
import { CALICO_COMPONENT_TYPES, KNOWN_AFTER_UP } from "./plan";
import { describeRef } from "../components/calico/takeover/run";
import { renderCrds } from "../components/calico/crds";

const CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";

/**
 * A CRD whose versions follow the takeover step (a stricter schema the cluster has is kept,
 * components/calico/typed-resources.ts) is known after up: it stands here with the program's own versions,
 * rendered for the plan's Calico release, which `pulumi up` applies where the cluster has none.
 */
function withOwnVersions(record: ResourceRecord, evaluation: StackEvaluation): ResourceRecord {
  const spec = record.inputs.spec as { versions?: unknown } | undefined;
  if (record.type !== CRD || spec?.versions !== KNOWN_AFTER_UP) return record;
  const version = (evaluation.outputs.calico as { version?: unknown } | undefined)?.version;
  const name = (record.inputs.metadata as { name?: unknown }).name;
  const own =
    typeof version === "string" ? renderCrds(version).find((c) => c.metadata.name === name) : undefined;
  if (own === undefined) return record;
  return { ...record, inputs: { ...record.inputs, spec: { ...spec, versions: own.spec.versions } } };
}

/** Whether any input of `record` is known only after `pulumi up`. */
export function hasUnknownInputs(record: ResourceRecord): boolean {
  const unknown = (value: unknown): boolean =>
    value === KNOWN_AFTER_UP ||
    (Array.isArray(value)
      ? value.some(unknown)
      : typeof value === "object" && value !== null
        ? Object.values(value).some(unknown)
        : false);
  return unknown(record.inputs);
}

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
    .map(({ r }) => withOwnVersions(r, evaluation));
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

/** The fields of a ConfigMap or Secret that hold its data. */
export const DATA_FIELDS = ["data", "stringData"] as const;

/** The Calico objects whose data comes from tls resources: not in calico.yaml, made by calico-tls.sh. */
export function tlsRecords(evaluation: StackEvaluation): ResourceRecord[] {
  const tls = new Set(evaluation.resources.filter((r) => r.type.startsWith("tls:")).map((r) => r.urn));
  return calicoObjects(evaluation).filter((r) =>
    DATA_FIELDS.some((field) => (r.propertyDependencies[field] ?? []).some((urn) => tls.has(urn))),
  );
}

/** `Kind namespace/name`, as the headers and the script name an object; its Pulumi name if that is unknown. */
export function describeObject(record: ResourceRecord): string {
  const metadata = record.inputs.metadata as { name: string; namespace?: string } | string;
  if (typeof metadata !== "object") return `${record.type.split(":").pop() ?? record.type} ${record.name}`;
  return describeRef({ kind: String(record.inputs.kind), ...metadata });
}
