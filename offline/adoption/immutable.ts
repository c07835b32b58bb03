/**
 * Fields the API server refuses to change on an existing object, as far as taking over Calico objects
 * meets them: a workload's selector (apps/v1) and a binding's roleRef (rbac.authorization.k8s.io).
 */
import { isPlainObject } from "../plan";

const WORKLOADS = new Set(["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"]);
const BINDINGS = new Set(["ClusterRoleBinding", "RoleBinding"]);

/**
 * A workload's selector as stored: extensions/v1beta1 and apps/v1beta1 defaulted a missing selector to
 * the pod template's labels (apps/v1 requires one).
 */
function selectorOf(object: Record<string, unknown>): unknown {
  const spec = isPlainObject(object.spec) ? object.spec : {};
  if (spec.selector !== undefined) return spec.selector;
  const template = isPlainObject(spec.template) ? spec.template : {};
  const metadata = isPlainObject(template.metadata) ? template.metadata : {};
  return { matchLabels: metadata.labels };
}

/** Why applying `ours` over `existing` (of `kind`) is refused, or undefined. */
export function immutableConflict(
  kind: string,
  existing: Record<string, unknown>,
  ours: Record<string, unknown>,
): string | undefined {
  if (WORKLOADS.has(kind) && JSON.stringify(selectorOf(existing)) !== JSON.stringify(selectorOf(ours))) {
    return `spec.selector: Invalid value: ${JSON.stringify(selectorOf(ours))}: field is immutable (the existing object selects ${JSON.stringify(selectorOf(existing))})`;
  }
  if (BINDINGS.has(kind) && JSON.stringify(existing.roleRef) !== JSON.stringify(ours.roleRef)) {
    return `roleRef: Invalid value: ${JSON.stringify(ours.roleRef)}: cannot change roleRef (the existing binding refers to ${JSON.stringify(existing.roleRef)})`;
  }
  return undefined;
}
