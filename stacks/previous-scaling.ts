/**
 * Node-group sizes across updates. After creation a node group's `desiredSize` belongs to autoscalers:
 * the aws.eks.NodeGroup ignores changes to `scalingConfig.desiredSize` (components/cluster/nodes.ts).
 * This module knows what each deployed group runs (the last update's `nodeGroupScaling` output, and the desired size
 * AWS shows now) and decides per group what this update sends EKS:
 * - when a change replaces the group, the size the old one runs, as the new one's desired size
 *   (node-group-replacement.ts says why);
 * - while minSize and maxSize stay as deployed, nothing about the desired size;
 * - when either changes, the whole scaling config. The Terraform provider behind aws.eks.NodeGroup sends
 *   desired, min and max together in UpdateNodegroupConfig whenever `scaling_config` changes
 *   (hashicorp/terraform-provider-aws internal/service/eks/node_group.go, resourceNodeGroupUpdate and
 *   expandNodegroupScalingConfig), and under ignoreChanges the desired size it gets is the one in
 *   Pulumi's state (pulumi/pulumi#2657), stale since an autoscaler last moved it
 *   (https://www.pulumi.com/docs/iac/concepts/options/ignorechanges/). EKS refuses a minSize above it
 *   ("Minimum capacity X can't be greater than desired size Y": hashicorp/terraform-provider-aws#18310,
 *   terraform-aws-modules/terraform-aws-eks#2508) and a maxSize below it ("desiredSize can't be greater
 *   than maxSize": ministryofjustice/cloud-platform-infrastructure#4595), and a stale value below the
 *   autoscaler's removes nodes ("the necessary number of worker nodes are terminated":
 *   https://docs.aws.amazon.com/eks/latest/APIReference/API_NodegroupScalingConfig.html). So that
 *   update stops ignoring it and sends the desired size AWS shows now, moved into
 *   [minSize, maxSize] only as far as EKS requires: the workaround of hashicorp/terraform-provider-aws
 *   #18310, done by the program.
 */
import * as aws from "@pulumi/aws";
import { isReplacingSettings, replacementReason, replacingChanges } from "./node-group-replacement";
import type { ReplacingSettings } from "./node-group-replacement";
import type { ConfigProblem } from "./problems";
import type { PreviousOutputs } from "./previous-outputs";
import type { NodeGroupConfig } from "./schema";
import { type DeployedScaling, isCount, previousNodeGroupScaling } from "./scaling-output";

/**
 * What AWS shows of a deployed group now: its desired size and the settings that replace it when they
 * change (node-group-replacement.ts), or why it showed nothing.
 */
export type CurrentGroup =
  { readonly desiredSize: number; readonly replacing?: ReplacingSettings } | { readonly error: string };

/** How this update sizes one node group. */
export interface NodeGroupSizing {
  /** The desiredSize the node group is given: the configured one, or the one this update sends EKS. */
  readonly desiredSize: number;
  /** This update sends `desiredSize` to EKS (not ignored); otherwise EKS keeps its own. */
  readonly setDesiredSize: boolean;
  /** The nodes the group runs once this update is done (its desired size on AWS). */
  readonly nodes: number;
  /**
   * The nodes the config itself sets: a new group's desiredSize; a deployed group's minSize, below which
   * EKS never takes it (what it runs above that, an autoscaler chose).
   */
  readonly configured: number;
  /** Why this update sends the desired size, when it does (shown in the `nodeGroupScaling` output). */
  readonly reason?: string;
}

/**
 * Each deployed group still configured as AWS shows it now, read with aws.eks.getNodeGroup
 * (DescribeNodegroup): an autoscaler changes the desired size without Pulumi, so the last outputs may be
 * stale. The
 * Terraform data source fails when DescribeNodegroup does (internal/service/eks/node_group_data_source.go):
 * for a group deleted outside Pulumi ("ResourceNotFoundException ... No node group found for name",
 * aws-samples/eks-workshop-v2#915), or a deployer without eks:DescribeNodegroup. Its error is kept.
 */
export async function readCurrentGroups(
  clusterName: string,
  deployed: Readonly<Record<string, DeployedScaling>>,
  configured: readonly string[],
): Promise<Record<string, CurrentGroup>> {
  const names = configured.filter((name) => Object.hasOwn(deployed, name));
  const answers = await Promise.all(
    names.map(async (name): Promise<CurrentGroup> => {
      try {
        const group = await aws.eks.getNodeGroup({
          clusterName,
          nodeGroupName: deployed[name].nodeGroupName,
        });
        const desiredSize = group.scalingConfigs?.[0]?.desiredSize;
        if (!isCount(desiredSize)) return { error: "AWS showed no scaling config" };
        const { amiType, capacityType, instanceTypes } = group;
        const replacing = { amiType, capacityType, instanceTypes };
        return isReplacingSettings(replacing) ? { desiredSize, replacing } : { desiredSize };
      } catch (error) {
        return { error: (error as Error).message };
      }
    }),
  );
  return Object.fromEntries(names.map((name, i) => [name, answers[i]]));
}

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/**
 * How this update sizes each configured group (by name), or the problems that refuse it. A new group
 * starts at its configured desiredSize. A deployed group keeps the desired size it runs at; when a
 * replacing setting changes (the group is created anew) or minSize or maxSize changes, this update sends
 * EKS that size moved into the new range, and a range change is refused when AWS could not show it
 * (sending the last update's value could lower what an autoscaler set since).
 */
export function sizeNodeGroups(
  groups: readonly NodeGroupConfig[],
  deployed: Readonly<Record<string, DeployedScaling>>,
  current: Readonly<Record<string, CurrentGroup>>,
  clusterName: string,
): { sizing: Record<string, NodeGroupSizing> } | { problems: ConfigProblem[] } {
  const sizing: Record<string, NodeGroupSizing> = {};
  const problems: ConfigProblem[] = [];
  groups.forEach((group, index) => {
    const before = Object.hasOwn(deployed, group.name) ? deployed[group.name] : undefined;
    if (before === undefined) {
      sizing[group.name] = {
        desiredSize: group.desiredSize,
        setDesiredSize: false,
        nodes: group.desiredSize,
        configured: group.desiredSize,
      };
      return;
    }
    const now = Object.hasOwn(current, group.name) ? current[group.name] : undefined;
    const running = now !== undefined && "desiredSize" in now ? now.desiredSize : undefined;
    const nodes = clamp(running ?? before.desiredSize, group.minSize, group.maxSize);
    const configured = group.minSize;
    const replacing = now !== undefined && "replacing" in now ? now.replacing : undefined;
    const changes =
      running !== undefined && replacing !== undefined ? replacingChanges(group, replacing) : [];
    if (running !== undefined && changes.length > 0) {
      const reason = replacementReason(changes, running, nodes);
      sizing[group.name] = { desiredSize: nodes, setDesiredSize: true, nodes, configured, reason };
      return;
    }
    if (group.minSize === before.minSize && group.maxSize === before.maxSize) {
      sizing[group.name] = { desiredSize: group.desiredSize, setDesiredSize: false, nodes, configured };
      return;
    }
    if (running === undefined) {
      problems.push(unreadableDesiredSize(group, index, before, now, clusterName));
      return;
    }
    sizing[group.name] = {
      desiredSize: nodes,
      setDesiredSize: true,
      nodes,
      configured,
      reason: desiredSizeReason(group, running, nodes),
    };
  });
  return problems.length > 0 ? { problems } : { sizing };
}

/** What the update sends EKS as the desired size, and why, in the words of the `nodeGroupScaling` output. */
function desiredSizeReason(group: NodeGroupConfig, running: number, sent: number): string {
  if (sent > running) {
    return `raised from ${running} to ${sent}: minSize ${group.minSize} is above the desired size the group ran at, and EKS refuses a desired size below minSize`;
  }
  if (sent < running) {
    return `lowered from ${running} to ${sent}: maxSize ${group.maxSize} is below the desired size the group ran at, and EKS refuses a desired size above maxSize`;
  }
  return `kept at ${running}: minSize or maxSize changes, so EKS gets the whole scaling config, with the desired size the group runs at`;
}

/**
 * The refusal for a deployed group whose minSize or maxSize changes while AWS did not show its desired
 * size: the update would have to send one without knowing what an autoscaler set.
 */
function unreadableDesiredSize(
  group: NodeGroupConfig,
  index: number,
  before: DeployedScaling,
  now: CurrentGroup | undefined,
  clusterName: string,
): ConfigProblem {
  const key = group.minSize !== before.minSize ? "minSize" : "maxSize";
  const target = `--cluster-name ${clusterName} --nodegroup-name ${before.nodeGroupName}`;
  const lastKnown = clamp(before.desiredSize, group.minSize, group.maxSize);
  const why = now !== undefined && "error" in now ? now.error : "it was not read";
  return {
    path: `nodeGroups[${index}].${key}`,
    value: group[key],
    rule: `changes the deployed node group's size range from ${before.minSize}..${before.maxSize} to ${group.minSize}..${group.maxSize}, so this update must send EKS the group's desired size too, but AWS did not show the current one (${why}); the last update's ${before.desiredSize} may be stale, and sending it could remove nodes an autoscaler added`,
    hint: `fix what stops the read (\`aws eks describe-nodegroup ${target}\` shows the same error), then run the update again; or make the change outside Pulumi`,
    steps: [
      `\`aws eks update-nodegroup-config ${target} --scaling-config minSize=${group.minSize},maxSize=${group.maxSize},desiredSize=${lastKnown}\` (${lastKnown}: the last update's desired size within ${group.minSize}..${group.maxSize}; use the current one if an autoscaler changed it)`,
      `keep nodeGroups[${index}].minSize at ${before.minSize} and maxSize at ${before.maxSize} in the stack's config until AWS answers the read`,
    ],
  };
}

/**
 * How this update sizes the configured groups, from the last update's outputs and what AWS shows now;
 * AWS is asked only about groups the last update deployed and the config still has.
 */
export async function nodeGroupSizing(
  groups: readonly NodeGroupConfig[],
  previous: PreviousOutputs,
  clusterName: string,
): Promise<{ sizing: Record<string, NodeGroupSizing> } | { problems: ConfigProblem[] }> {
  const deployed = previousNodeGroupScaling(previous);
  const names = groups.map((g) => g.name);
  const current = await readCurrentGroups(clusterName, deployed, names);
  return sizeNodeGroups(groups, deployed, current, clusterName);
}

/** Nodes the node groups run once this update is done: what Calico's readiness counts and Typha size for. */
export function runningNodes(sizing: Readonly<Record<string, NodeGroupSizing>>): number {
  return Object.values(sizing).reduce((sum, s) => sum + s.nodes, 0);
}

/** The fewest nodes the groups keep: their minSize summed, below which EKS never takes them. */
export function keptNodes(groups: readonly { readonly minSize: number }[]): number {
  return groups.reduce((sum, group) => sum + group.minSize, 0);
}

/** The configured groups as the Cluster creates them: the desired size and whether this update sends it. */
export function sizedNodeGroups(
  groups: readonly NodeGroupConfig[],
  sizing: Readonly<Record<string, NodeGroupSizing>>,
): (NodeGroupConfig & { setDesiredSize: boolean })[] {
  return groups.map((group) => {
    const sized = sizing[group.name];
    return { ...group, desiredSize: sized.desiredSize, setDesiredSize: sized.setDesiredSize };
  });
}
