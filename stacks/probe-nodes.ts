/**
 * The node changes the enforcement probe runs again for, and only those (docs/probe.md holds the same
 * table, test/probe-nodes.test.ts holds the two together and each row to what the offline diff says EKS
 * does). Each row gives the cluster new nodes, as EKS replaces a node group or rolls every node, or
 * changes on the running nodes which pods they take. Sizes add or remove nodes an autoscaler owns and
 * replace none; `clusterAddons` only moves CoreDNS (components/cluster/addons.ts).
 * How each row reaches the nodes: aws_eks_node_group's ForceNew arguments and in-place updates
 * (offline/aws-force-new.ts), the launch template's new version that the node group rolls to
 * (components/cluster/nodes.ts, offline/node-rollout.ts).
 */
import type { NodeGroupConfig } from "./schema";

export interface NodeChange<K extends string = string> {
  /** The config key, as docs/probe.md writes it. */
  readonly key: K;
  /** What EKS does to the nodes when it changes. */
  readonly eks: string;
}

/** Each node group's settings the probe runs again for. */
export const PROBE_NODE_GROUP_CHANGES = [
  {
    key: "name",
    eks: "a new node group in place of the old: the resource's name and its EKS name derive from it",
  },
  { key: "instanceTypes", eks: "replaces the node group (aws_eks_node_group `instance_types` is ForceNew)" },
  { key: "capacityType", eks: "replaces the node group (`capacity_type` is ForceNew)" },
  { key: "amiType", eks: "replaces the node group (`ami_type` is ForceNew)" },
  {
    key: "amiReleaseVersion",
    eks: "rolls every node of the group onto the AMI release (UpdateNodegroupVersion)",
  },
  {
    key: "diskSizeGiB",
    eks: "a new launch template version (its block device), which EKS rolls every node to",
  },
  { key: "labels", eks: "sets them on the running nodes (UpdateNodegroupConfig)" },
  {
    key: "taints",
    eks: "sets them on the running nodes, changing which pods each takes (UpdateNodegroupConfig)",
  },
] as const satisfies readonly NodeChange<keyof NodeGroupConfig>[];

/** The stack's settings the probe runs again for, as they reach every node group. */
export const PROBE_CLUSTER_CHANGES = [
  {
    key: "cluster.version",
    eks: "rolls every node group to the new version (UpdateNodegroupVersion)",
  },
  {
    key: "tags",
    eks: "a new launch template version (the tags of each node's instance, volumes and network interfaces), which EKS rolls every node to",
  },
] as const satisfies readonly NodeChange[];

/**
 * The nodes as the probe's fingerprint sees them: the Kubernetes version, the tags every node is launched
 * with, and each group's settings of {@link PROBE_NODE_GROUP_CHANGES}, ordered by name (the order of the
 * groups in the config changes no node).
 */
export function probeNodes(
  version: string,
  tags: Readonly<Record<string, string>>,
  groups: readonly NodeGroupConfig[],
): Record<string, unknown> {
  const described = [...groups]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((group) => Object.fromEntries(PROBE_NODE_GROUP_CHANGES.map(({ key }) => [key, group[key]])));
  return { version, tags, groups: described };
}
