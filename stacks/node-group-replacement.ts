/**
 * Node-group settings whose change replaces the EKS node group, and the size the new one starts at.
 *
 * `amiType`, `capacityType` and `instanceTypes` pass unchanged to the aws.eks.NodeGroup
 * (components/cluster/nodes.ts), whose arguments `ami_type`, `capacity_type` and `instance_types` are
 * ForceNew (aws_eks_node_group, hashicorp/terraform-provider-aws internal/service/eks/node_group.go). A new
 * node group is created, then the old one deleted with all its nodes.
 *
 * The new group would not start at the size the old one runs. Under ignoreChanges on the desired size it
 * starts at the desired size in Pulumi's state, the last one an update sent, not an autoscaler's: the
 * engine puts an ignored property back to its state value in a shallow copy of the program's inputs
 * (`processIgnoreChanges`, pulumi/pulumi pkg/v3 v3.248.0 resource/deploy/step_generator.go), and a
 * replacement, checked again from the program's inputs (generateSteps, "recompute the default values"),
 * keeps it for a nested path such as scalingConfig.desiredSize, which the copy shares with them. The real
 * engine shows it (test/cluster/ignore-changes-replace.test.ts). Without it the group would start at the
 * configured `desiredSize`. So a replacing update sends the size the old group runs, moved into the new
 * [minSize, maxSize] only as far as EKS requires.
 */
import type { NodeGroupConfig } from "./schema";

/** The settings of a deployed group that replace it when they change, as AWS shows them. */
export interface ReplacingSettings {
  readonly amiType: string;
  readonly capacityType: string;
  readonly instanceTypes: readonly string[];
}

/** The config keys of a node group that are ForceNew arguments of aws_eks_node_group. */
export const REPLACING_KEYS = ["amiType", "capacityType", "instanceTypes"] as const;

const shown = (value: string | readonly string[]) =>
  typeof value === "string" ? value : `[${value.join(", ")}]`;

/**
 * The replacing settings `group` changes from `deployed`, each as `key before → after`. instance_types is
 * a list in the provider's schema, so a new order is a change too.
 */
export function replacingChanges(group: NodeGroupConfig, deployed: ReplacingSettings): string[] {
  return REPLACING_KEYS.filter((key) => shown(group[key]) !== shown(deployed[key])).map(
    (key) => `${key} ${shown(deployed[key])} → ${shown(group[key])}`,
  );
}

/** What the `nodeGroupScaling` output says a replacing update sent as the new group's desired size. */
export function replacementReason(changes: readonly string[], running: number, sent: number): string {
  const start = `replaced (${changes.join(", ")}: ForceNew), and the new group starts at the ${running} nodes the old one runs`;
  if (sent > running) return `${start}, raised to minSize ${sent}`;
  if (sent < running) return `${start}, lowered to maxSize ${sent}`;
  return start;
}

/** Whether `value` holds a deployed group's replacing settings, as AWS or the last output records them. */
export function isReplacingSettings(value: {
  amiType?: unknown;
  capacityType?: unknown;
  instanceTypes?: unknown;
}): value is ReplacingSettings {
  return (
    typeof value.amiType === "string" &&
    typeof value.capacityType === "string" &&
    Array.isArray(value.instanceTypes) &&
    value.instanceTypes.every((t) => typeof t === "string")
  );
}
