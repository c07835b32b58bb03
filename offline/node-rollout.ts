/**
 * What an update or a replacement of an EKS managed node group does to its nodes, as one line of the diff:
 * how many nodes, how many at a time, and how long against `pulumi up`'s wait. Pure functions over the
 * aws.eks.NodeGroup's inputs and options as resources.json records them.
 */
import {
  EKS_DEFAULT_MAX_UNAVAILABLE,
  EKS_DRAIN_MINUTES,
  rollBatches,
} from "../components/cluster/node-rolls";
import { namesNodeGroup } from "../stacks/scaling-output";
import type { RolloutSide as NodeGroupSide } from "./diff-types";

/**
 * How long `pulumi up` waits for a node group update without a customTimeouts option: aws_eks_node_group's
 * default Update timeout (hashicorp/terraform-provider-aws internal/service/eks/node_group.go, Timeouts).
 */
export const NODE_GROUP_UPDATE_TIMEOUT_MINUTES = 60;

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

/** The configured desired size. */
function configured(side: NodeGroupSide): number {
  const desired = record(side.inputs.scalingConfig).desiredSize;
  return typeof desired === "number" ? desired : 0;
}

/** An autoscaler owns the desired size: the node group ignores changes to it. */
const ignoresDesiredSize = (side: NodeGroupSide) =>
  side.options.ignoreChanges.includes("scalingConfig.desiredSize");

/**
 * The node count with where it comes from: the deployed desired size where the base plan's outputs
 * record it, else the configured one. Under ignoreChanges on scalingConfig.desiredSize an autoscaler may
 * have moved the deployed count since.
 */
export function nodeCount(side: NodeGroupSide, deployed?: number): string {
  const ignored = ignoresDesiredSize(side);
  if (deployed !== undefined) {
    return ignored
      ? `${plural(deployed)} (the desiredSize the last update left, nodeGroupScaling; an autoscaler may have moved it)`
      : `${plural(deployed)} (the deployed desiredSize, nodeGroupScaling)`;
  }
  return ignored
    ? `${plural(configured(side))} (the configured desiredSize; the deployed count may differ: it is ignored)`
    : `${plural(configured(side))} (desiredSize)`;
}

/** How many nodes EKS replaces at a time: the node group's updateConfig, or EKS's default. */
export function updateSettings(side: NodeGroupSide): string {
  const config = record(side.inputs.updateConfig);
  if (typeof config.maxUnavailable === "number")
    return `maxUnavailable ${config.maxUnavailable} (updateConfig)`;
  if (typeof config.maxUnavailablePercentage === "number") {
    return `maxUnavailablePercentage ${config.maxUnavailablePercentage}% (updateConfig)`;
  }
  return `maxUnavailable ${EKS_DEFAULT_MAX_UNAVAILABLE} (EKS default: no updateConfig)`;
}

/** Minutes `pulumi up` waits for the update: the customTimeouts option, or the provider's default. */
function updateTimeoutMinutes(side: NodeGroupSide): number {
  const update = side.options.customTimeouts?.update;
  const minutes = update === undefined ? undefined : /^(\d+)m$/.exec(update)?.[1];
  return minutes === undefined ? NODE_GROUP_UPDATE_TIMEOUT_MINUTES : Number(minutes);
}

/**
 * The roll's length at the drain limit: one batch per `maxUnavailable` nodes of the deployed updateConfig
 * (`before`), each allowed EKS_DRAIN_MINUTES to drain, against the wait this update sets (`after`). Past
 * it, Pulumi records a failure while EKS goes on rolling, and the next `up` would meet the update still in
 * progress.
 */
function rollTime(before: NodeGroupSide, after: NodeGroupSide, deployed?: number): string {
  const nodes = deployed ?? configured(before);
  const config = record(before.inputs.updateConfig);
  const atOnce =
    typeof config.maxUnavailable === "number"
      ? config.maxUnavailable
      : typeof config.maxUnavailablePercentage === "number"
        ? Math.max(1, Math.floor((nodes * config.maxUnavailablePercentage) / 100))
        : EKS_DEFAULT_MAX_UNAVAILABLE;
  if (nodes === 0) return "";
  const batches = rollBatches(nodes, atOnce);
  const longest = batches * EKS_DRAIN_MINUTES;
  const wait = updateTimeoutMinutes(after);
  const within = `; ${batches} batch${batches === 1 ? "" : "es"}, each draining for up to ${EKS_DRAIN_MINUTES} min, within \`pulumi up\`'s ${wait} min wait`;
  if (longest <= wait) return within;
  return `; ${batches} batches, each draining for up to ${EKS_DRAIN_MINUTES} min: up to ${longest} min, past \`pulumi up\`'s ${wait} min node group update timeout. If it times out, EKS keeps rolling: wait for \`aws eks list-updates\` to show it done, then \`pulumi refresh\` before the next \`up\` (docs/upgrades.md)`;
}

/**
 * The rolling update EKS runs for a new version or launch template version (UpdateNodegroupVersion). The
 * AWS provider sends it before UpdateNodegroupConfig (resourceNodeGroupUpdate, "Do any version update
 * first", internal/service/eks/node_group.go), so the deployed updateConfig paces it, not the new one.
 */
export function rollingUpdate(before: NodeGroupSide, after: NodeGroupSide, deployed?: number): string {
  return `rolling update (UpdateNodegroupVersion): EKS replaces all ${nodeCount(before, deployed)}, ${updateSettings(before)} at a time${rollTime(before, after, deployed)}`;
}

/**
 * An update of none of the fields that roll nodes: labels, taints, scaling and updateConfig go to
 * UpdateNodegroupConfig, and "your node group continues to function during the update" (Amazon EKS API
 * Reference, UpdateNodegroupConfig; aws-force-new.ts's aws_eks_node_group row). A NoSchedule taint keeps
 * new pods off a node and evicts none that runs there.
 */
export function inPlaceUpdate(fields: readonly string[]): string {
  const scaling = fields.includes("scalingConfig") ? "; a smaller size removes nodes" : "";
  return `in place (${fields.join(", ")}): EKS replaces no node${scaling}`;
}

/**
 * The nodes a replacing node group starts with: under ignoreChanges on the desired size the engine
 * creates the replacement with the old group's desiredSize from Pulumi's state, not the new one
 * (stacks/node-group-replacement.ts says why; test/cluster/ignore-changes-replace.test.ts shows it).
 */
function replacementStart(before: NodeGroupSide, after: NodeGroupSide): string {
  if (ignoresDesiredSize(after)) {
    return `${plural(configured(before))} (the desiredSize in Pulumi's state, which ignoreChanges keeps on a replacement)`;
  }
  return `${plural(configured(after))} (the desiredSize this update sends)`;
}

/** A new node group in place of the old one (aws_eks_node_group is replaced): every node is new. */
export function replacement(before: NodeGroupSide, after: NodeGroupSide, deployed?: number): string {
  return `replaced by a new node group: all ${nodeCount(before, deployed)} go, ${replacementStart(before, after)} start in the new one`;
}
