/** Node-group settings as the EKS API wants them: pure mapping, no Pulumi. */

/** Taint effects in Kubernetes spelling. */
export type KubernetesTaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute";
/** The same effects as the EKS API spells them. */
export type EksTaintEffect = "NO_SCHEDULE" | "PREFER_NO_SCHEDULE" | "NO_EXECUTE";

const EKS_TAINT_EFFECTS: Record<KubernetesTaintEffect, EksTaintEffect> = {
  NoSchedule: "NO_SCHEDULE",
  PreferNoSchedule: "PREFER_NO_SCHEDULE",
  NoExecute: "NO_EXECUTE",
};

export interface NodeGroupSpec {
  /** Unique within the cluster; the Pulumi resource name derives from it. */
  name: string;
  instanceTypes: string[];
  capacityType: "ON_DEMAND" | "SPOT";
  minSize: number;
  desiredSize: number;
  maxSize: number;
  labels: Record<string, string>;
  taints: { key: string; value: string; effect: KubernetesTaintEffect }[];
}

export function toEksTaints(
  taints: NodeGroupSpec["taints"],
): { key: string; value: string; effect: EksTaintEffect }[] {
  return taints.map((t) => ({ key: t.key, value: t.value, effect: EKS_TAINT_EFFECTS[t.effect] }));
}

/** The most nodes the node groups can reach: what Typha and per-node add-ons are sized for. */
export function maxNodeCount(groups: readonly Pick<NodeGroupSpec, "maxSize">[]): number {
  return groups.reduce((sum, g) => sum + g.maxSize, 0);
}
