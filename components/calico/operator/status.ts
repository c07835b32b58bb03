/** What the operator reports, read for the stack's outputs. */

/** A TigeraStatus (cluster-scoped, written by the operator): conditions Available, Progressing, Degraded. */
export interface TigeraStatus {
  status?: { conditions?: { type?: string; status?: string }[] };
}

/** TigeraStatus `calico` says Available: calico-node rolled out everywhere and kube-controllers available. */
export function calicoAvailable(status: TigeraStatus["status"] | undefined): boolean {
  return status?.conditions?.some((c) => c.type === "Available" && c.status === "True") ?? false;
}

/**
 * Typha replicas the operator runs for a node count (tigera/operator `pkg/common/autoscale.go`
 * GetExpectedTyphaScale): one per 200 nodes plus two, but 1 for up to 2 nodes, 2 for 3-4 and at least 3
 * beyond, always one fewer than the nodes where possible so a replica can be rescheduled.
 */
export function operatorTyphaReplicas(nodes: number): number {
  if (nodes <= 2) return 1;
  if (nodes <= 4) return 2;
  return Math.max(3, Math.floor(nodes / 200) + 2);
}
