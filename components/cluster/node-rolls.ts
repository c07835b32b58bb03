/**
 * How EKS rolls a managed node group's nodes onto a new version, AMI release or launch template version
 * (UpdateNodegroupVersion), and how long `pulumi up` waits for it. Pure numbers, one copy of each.
 *
 * EKS first adds nodes (the larger of twice the AZ count or maxUnavailable), then drains and replaces up to
 * `maxUnavailable` old nodes at a time, each allowed 15 minutes for its pods to leave, then scales back
 * (EKS User Guide, managed-node-update-behavior.html). Without updateConfig it replaces one at a time.
 */

/**
 * How long EKS waits for pods to leave a node it replaces: "If the pods don't leave the node within 15
 * minutes and there's no force flag, the upgrade phase fails with a PodEvictionFailure error"
 * (managed-node-update-behavior.html, upgrade phase).
 */
export const EKS_DRAIN_MINUTES = 15;

/** EKS's replacement pace without updateConfig: "The default value is one node" (setup phase, step 3). */
export const EKS_DEFAULT_MAX_UNAVAILABLE = 1;

/**
 * A roll takes at most this many batches at any size, so that at the drain limit it ends within the
 * update timeout below, and that within `up.yml`'s 90-minute job.
 */
export const MAX_ROLL_BATCHES = 3;

/** The scale-up phase's new nodes and the scale-down after the last batch. */
export const ROLL_OVERHEAD_MINUTES = 15;

/** EKS takes 1 to 100 nodes for `maxUnavailable` (NodegroupUpdateConfig, Amazon EKS API Reference). */
export const EKS_MAX_UNAVAILABLE_LIMIT = 100;

/** The updateConfig a group of up to `maxSize` nodes gets: a third of it at a time, at least one. */
export function nodeGroupUpdateConfig(maxSize: number): { maxUnavailable: number } {
  return {
    maxUnavailable: Math.min(EKS_MAX_UNAVAILABLE_LIMIT, Math.max(1, Math.ceil(maxSize / MAX_ROLL_BATCHES))),
  };
}

/** Batches of `atOnce` nodes that replace `nodes`. */
export function rollBatches(nodes: number, atOnce: number): number {
  return Math.ceil(nodes / Math.max(1, atOnce));
}

/**
 * Minutes `pulumi up` waits for an update of a group of up to `maxSize` nodes: its batches at the drain
 * limit, plus the scale-up and scale-down. aws_eks_node_group's default is 60 minutes
 * (terraform-provider-aws internal/service/eks/node_group.go, Timeouts).
 */
export function nodeGroupUpdateMinutes(maxSize: number): number {
  const batches = rollBatches(maxSize, nodeGroupUpdateConfig(maxSize).maxUnavailable);
  return batches * EKS_DRAIN_MINUTES + ROLL_OVERHEAD_MINUTES;
}
