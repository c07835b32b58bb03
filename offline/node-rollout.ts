/**
 * What an update or a replacement of an EKS managed node group does to its nodes, as one line of the diff:
 * how many nodes, and how many at a time. Pure functions over the node group's inputs as resources.json
 * records them (eks:index:ManagedNodeGroup).
 */
import { namesNodeGroup } from "../stacks/scaling-output";

/**
 * EKS replaces at most this many nodes at a time when the node group sets no updateConfig: "The default
 * value is one node" (EKS User Guide, managed-node-update-behavior.html, setup phase, step 3).
 */
export const EKS_DEFAULT_MAX_UNAVAILABLE = 1;

/**
 * The desired size @pulumi/eks gives a node group without one (`config?.desiredSize ?? 2` in
 * createManagedNodeGroup, nodejs/eks/nodes/nodegroup.ts, pulumi/pulumi-eks v4.3.0).
 */
export const PULUMI_EKS_DEFAULT_DESIRED_SIZE = 2;

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/**
 * The desired size the base plan's update left a node group at: its `nodeGroupScaling` stack output
 * (stacks/scaling-output.ts), keyed by config group name, names the EKS node group, auto-named
 * `<resource name>-<7 characters>` at deploy time and `eksNodeGroupName(<resource name>)` offline.
 */
export function deployedDesiredSize(
  outputs: Record<string, unknown>,
  resourceName: string,
): number | undefined {
  const entry = Object.values(record(outputs.nodeGroupScaling))
    .map(record)
    .find((e) => typeof e.nodeGroupName === "string" && namesNodeGroup(e.nodeGroupName, resourceName));
  return Number.isInteger(entry?.desiredSize) ? (entry?.desiredSize as number) : undefined;
}

function plural(count: number): string {
  return `${count} node${count === 1 ? "" : "s"}`;
}

/** The configured desired size, or @pulumi/eks's default where none is set. */
function configured(inputs: Record<string, unknown>): number {
  const desired = record(inputs.scalingConfig).desiredSize;
  return typeof desired === "number" ? desired : PULUMI_EKS_DEFAULT_DESIRED_SIZE;
}

/**
 * The node count with where it comes from: the deployed desired size where the base plan's outputs
 * record it, else the configured one. With ignoreScalingChanges @pulumi/eks sets ignoreChanges on
 * scalingConfig.desiredSize (nodegroup.ts), so an autoscaler may have moved the deployed count since.
 */
export function nodeCount(inputs: Record<string, unknown>, deployed?: number): string {
  const ignored = inputs.ignoreScalingChanges === true;
  if (deployed !== undefined) {
    return ignored
      ? `${plural(deployed)} (the desiredSize the last update left, nodeGroupScaling; an autoscaler may have moved it)`
      : `${plural(deployed)} (the deployed desiredSize, nodeGroupScaling)`;
  }
  const from =
    typeof record(inputs.scalingConfig).desiredSize === "number"
      ? "desiredSize"
      : "desiredSize unset: @pulumi/eks's default";
  return ignored
    ? `${plural(configured(inputs))} (the configured ${from}; the deployed count may differ: ignoreScalingChanges)`
    : `${plural(configured(inputs))} (${from})`;
}

/** How many nodes EKS replaces at a time: the node group's updateConfig, or EKS's default. */
export function updateSettings(inputs: Record<string, unknown>): string {
  const config = record(inputs.updateConfig);
  if (typeof config.maxUnavailable === "number")
    return `maxUnavailable ${config.maxUnavailable} (updateConfig)`;
  if (typeof config.maxUnavailablePercentage === "number") {
    return `maxUnavailablePercentage ${config.maxUnavailablePercentage}% (updateConfig)`;
  }
  return `maxUnavailable ${EKS_DEFAULT_MAX_UNAVAILABLE} (EKS default: no updateConfig)`;
}

/**
 * The rolling update EKS runs for a new version or launch template version (UpdateNodegroupVersion). The
 * AWS provider sends it before UpdateNodegroupConfig (resourceNodeGroupUpdate, "Do any version update
 * first", internal/service/eks/node_group.go), so the deployed updateConfig paces it, not the new one.
 */
export function rollingUpdate(before: Record<string, unknown>, deployed?: number): string {
  return `rolling update (UpdateNodegroupVersion): EKS replaces all ${nodeCount(before, deployed)}, ${updateSettings(before)} at a time${rollTime(before, deployed)}`;
}

/**
 * How long EKS may wait for pods to leave a node it replaces: "If the pods don't leave the node within 15
 * minutes and there's no force flag, the upgrade phase fails with a PodEvictionFailure error" (EKS User
 * Guide, managed-node-update-behavior.html, upgrade phase).
 */
export const EKS_DRAIN_MINUTES = 15;

/**
 * How long `pulumi up` waits for a node group update: aws_eks_node_group's default Update timeout
 * (hashicorp/terraform-provider-aws internal/service/eks/node_group.go, Timeouts). @pulumi/eks v4.3.0 sets
 * none on its aws.eks.NodeGroup and takes no timeout or updateConfig for it (managedNodeGroup.d.ts).
 */
export const NODE_GROUP_UPDATE_TIMEOUT_MINUTES = 60;

/**
 * The roll's length at the drain limit: one batch per `maxUnavailable` nodes (EKS's default one), each
 * allowed EKS_DRAIN_MINUTES to drain, against the update timeout. Past it, Pulumi records a failure while
 * EKS goes on rolling, and the next `up` would meet the update still in progress.
 */
function rollTime(before: Record<string, unknown>, deployed?: number): string {
  const nodes = deployed ?? configured(before);
  const config = record(before.updateConfig);
  const atOnce =
    typeof config.maxUnavailable === "number"
      ? config.maxUnavailable
      : typeof config.maxUnavailablePercentage === "number"
        ? Math.max(1, Math.floor((nodes * config.maxUnavailablePercentage) / 100))
        : EKS_DEFAULT_MAX_UNAVAILABLE;
  if (nodes === 0) return "";
  const batches = Math.ceil(nodes / atOnce);
  const longest = batches * EKS_DRAIN_MINUTES;
  const within = `; ${batches} batch${batches === 1 ? "" : "es"}, each draining for up to ${EKS_DRAIN_MINUTES} min`;
  if (longest <= NODE_GROUP_UPDATE_TIMEOUT_MINUTES) return within;
  return `${within}: up to ${longest} min, past \`pulumi up\`'s ${NODE_GROUP_UPDATE_TIMEOUT_MINUTES} min node group update timeout. If it times out, EKS keeps rolling: wait for \`aws eks list-updates\` to show it done, then \`pulumi refresh\` before the next \`up\` (docs/upgrades.md)`;
}

/**
 * The nodes a replacing node group starts with: under ignoreScalingChanges the engine creates the
 * replacement with the old group's desiredSize from Pulumi's state, not the new one
 * (stacks/node-group-replacement.ts says why; test/cluster/ignore-changes-replace.test.ts shows it).
 */
function replacementStart(before: Record<string, unknown>, after: Record<string, unknown>): string {
  if (after.ignoreScalingChanges === true) {
    return `${plural(configured(before))} (the desiredSize in Pulumi's state, which ignoreScalingChanges keeps on a replacement)`;
  }
  return `${plural(configured(after))} (the desiredSize this update sends)`;
}

/** A new node group in place of the old one (aws_eks_node_group is replaced): every node is new. */
export function replacement(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  deployed?: number,
): string {
  return `replaced by a new node group: all ${nodeCount(before, deployed)} go, ${replacementStart(before, after)} start in the new one`;
}
