/**
 * The Calico objects of a plan: every Kubernetes object beneath the Calico component in apply order, and
 * which of them carry TLS material (calico.yaml leaves those to calico-tls.sh).
 */
import type { ResourceRecord, StackEvaluation } from "./engine";
import { Hierarchy, compare } from "./hierarchy";
import { CALICO_COMPONENT_TYPES } from "./plan";
import { describeRef } from "../components/calico/takeover/run";

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

/** The fields of a ConfigMap or Secret that hold its data. */
export const DATA_FIELDS = ["data", "stringData"] as const;

/** The Calico objects whose data comes from tls resources: not in calico.yaml, made by calico-tls.sh. */
export function tlsRecords(evaluation: StackEvaluation): ResourceRecord[] {
  const tls = new Set(evaluation.resources.filter((r) => r.type.startsWith("tls:")).map((r) => r.urn));
  return calicoObjects(evaluation).filter((r) =>
    DATA_FIELDS.some((field) => (r.propertyDependencies[field] ?? []).some((urn) => tls.has(urn))),
  );
}

/** `Kind namespace/name`, as the headers and the script name an object. */
export function describeObject(record: ResourceRecord): string {
  const metadata = record.inputs.metadata as { name: string; namespace?: string };
  return describeRef({ kind: String(record.inputs.kind), ...metadata });
}
