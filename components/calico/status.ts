/**
 * When calico-node counts as ready: what `kubectl get daemonset calico-node` shows as DESIRED == READY,
 * with at least one node. Zero desired pods means no node runs Felix yet, which is not ready.
 */
import type { Output } from "@pulumi/pulumi";

/** The DaemonSet status counters read here; any of them may be missing before the controller reports. */
export interface DaemonSetCounts {
  desiredNumberScheduled?: number;
  currentNumberScheduled?: number;
  updatedNumberScheduled?: number;
  numberReady?: number;
  numberAvailable?: number;
}

/** A status counter, 0 when the status or the counter is missing. */
export function count(status: DaemonSetCounts | undefined, field: keyof DaemonSetCounts): number {
  return status?.[field] ?? 0;
}

/** Ready when every scheduled calico-node pod is ready and at least one is scheduled. */
export function isDaemonSetReady(status: DaemonSetCounts | undefined): boolean {
  const desired = count(status, "desiredNumberScheduled");
  return desired > 0 && count(status, "numberReady") === desired;
}

/** The DaemonSet's counters as the readiness outputs name them (kubectl's columns). */
export function countOutputs(status: Output<DaemonSetCounts | undefined>) {
  return {
    desired: status.apply((s) => count(s, "desiredNumberScheduled")),
    current: status.apply((s) => count(s, "currentNumberScheduled")),
    updated: status.apply((s) => count(s, "updatedNumberScheduled")),
    ready: status.apply((s) => count(s, "numberReady")),
    available: status.apply((s) => count(s, "numberAvailable")),
  };
}

/** A Deployment's ready replicas, 0 before it reports any. */
export function readyReplicas(status: Output<{ readyReplicas?: number } | undefined>): Output<number> {
  return status.apply((s) => s?.readyReplicas ?? 0);
}

/** Every replica a Deployment asks for is ready, and it asks for at least one. */
export function allReplicasReady(
  spec: { replicas?: number } | undefined,
  status: { readyReplicas?: number } | undefined,
): boolean {
  const wanted = spec?.replicas ?? 0;
  return wanted > 0 && (status?.readyReplicas ?? 0) >= wanted;
}
