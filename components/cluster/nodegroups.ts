/** Node-group settings as EKS and EC2 want them: pure mapping, no Pulumi. */
import { type AmiType, nodeBlockDevices } from "./ami-types";

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
  /** EKS-optimized AMI; its architecture matches every instance type. */
  amiType: AmiType;
  /**
   * The release of that AMI the nodes run, sent as the node group's releaseVersion: a new one rolls every
   * node (UpdateNodegroupVersion). @default unset: EKS keeps the release it picked, and picks the newest
   * for a new `version`
   */
  amiReleaseVersion?: string;
  /** Size of the node's encrypted gp3 data volume. */
  diskSizeGiB: number;
  minSize: number;
  /** Nodes at creation; afterwards autoscalers own the desired size and EKS keeps theirs. */
  desiredSize: number;
  maxSize: number;
  /**
   * Send `desiredSize` to EKS on this update instead of keeping the desired size the group runs at: for
   * an update that changes minSize or maxSize (stacks/previous-scaling.ts says why). @default false
   */
  setDesiredSize?: boolean;
  labels: Record<string, string>;
  taints: { key: string; value: string; effect: KubernetesTaintEffect }[];
  /** Cluster add-ons (CoreDNS) tolerate this group's taints and may run here. */
  clusterAddons: boolean;
}

export function toEksTaints(
  taints: NodeGroupSpec["taints"],
): { key: string; value: string; effect: EksTaintEffect }[] {
  return taints.map((t) => ({ key: t.key, value: t.value, effect: EKS_TAINT_EFFECTS[t.effect] }));
}

/**
 * EC2 resources a node's launch creates, each tagged from the launch template: EKS copies only the node
 * group's own tags to the Auto Scaling group, not to instances, volumes or network interfaces.
 * https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html
 */
export const LAUNCH_TAGGED_RESOURCES = ["instance", "volume", "network-interface"] as const;

/** The launch template's tag specifications: the stack's tags plus a Name per node group. */
export function launchTagSpecifications(
  tags: Record<string, string>,
  name: string,
): { resourceType: (typeof LAUNCH_TAGGED_RESOURCES)[number]; tags: Record<string, string> }[] {
  return LAUNCH_TAGGED_RESOURCES.map((resourceType) => ({ resourceType, tags: { ...tags, Name: name } }));
}

/** The launch template's block devices for a group: encrypted gp3, sized by `diskSizeGiB`. */
export function launchBlockDevices(group: Pick<NodeGroupSpec, "amiType" | "diskSizeGiB">) {
  return nodeBlockDevices(group.amiType, group.diskSizeGiB);
}
