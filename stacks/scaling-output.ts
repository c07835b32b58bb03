/**
 * The `nodeGroupScaling` stack output: per config group name, the EKS node group's name, its sizes and the
 * settings that replace it (node-group-replacement.ts) as deployed. Each update writes it from its node
 * groups' outputs; the next one reads it back (stacks/previous-scaling.ts), and so does the offline
 * world, as the groups AWS has.
 */
import type * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { type ReplacingSettings, isReplacingSettings } from "./node-group-replacement";
import type { PreviousOutputs } from "./previous-outputs";
import type { NodeGroupConfig } from "./schema";

/** A node group's scaling as an update left it: one entry of the `nodeGroupScaling` output. */
export interface DeployedScaling {
  /** The EKS node group's name (AWS auto-names it at creation). */
  readonly nodeGroupName: string;
  readonly minSize: number;
  readonly desiredSize: number;
  readonly maxSize: number;
  /** The settings that replace the group, where the output records them. */
  readonly replacing?: ReplacingSettings;
}

/** The `nodeGroupScaling` output per config group name: each group as deployed by this update. */
export interface NodeGroupScalingOutput extends Omit<DeployedScaling, "replacing">, ReplacingSettings {
  /** Only on an update that sends EKS the desired size: what it sent and why. */
  readonly desiredSizeSet?: string;
}

/**
 * Whether `nodeGroupName` is the EKS name of the aws.eks.NodeGroup `resourceName`. The program passes no
 * name, so Pulumi auto-names it from the resource name and a random suffix (https://www.pulumi.com/docs/iac/concepts/resources/names/#autonaming):
 * `<resourceName>-<7 hex>` (stacks/schema/node-groups.ts). The offline world names it with its
 * placeholder `<node-group-name:<resourceName>>` (offline/world/eks.ts).
 */
export function namesNodeGroup(nodeGroupName: string, resourceName: string): boolean {
  if (nodeGroupName === `<node-group-name:${resourceName}>`) return true;
  const suffix = nodeGroupName.slice(resourceName.length + 1);
  return nodeGroupName.startsWith(`${resourceName}-`) && /^[a-z0-9]{7}$/.test(suffix);
}

/** A whole number of nodes. */
export const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

/**
 * The `nodeGroupScaling` output of the stack's last update, by config group name; empty for a new stack.
 * Malformed entries are left out.
 */
export function previousNodeGroupScaling(outputs: PreviousOutputs): Record<string, DeployedScaling> {
  const raw = outputs.nodeGroupScaling;
  if (raw === null || typeof raw !== "object") return {};
  const deployed: Record<string, DeployedScaling> = {};
  for (const [name, entry] of Object.entries(raw as Record<string, unknown>)) {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.nodeGroupName !== "string" || e.nodeGroupName === "") continue;
    if (!isCount(e.minSize) || !isCount(e.desiredSize) || !isCount(e.maxSize)) continue;
    deployed[name] = {
      nodeGroupName: e.nodeGroupName,
      minSize: e.minSize,
      desiredSize: e.desiredSize,
      maxSize: e.maxSize,
      ...(isReplacingSettings(e)
        ? { replacing: { amiType: e.amiType, capacityType: e.capacityType, instanceTypes: e.instanceTypes } }
        : {}),
    };
  }
  return deployed;
}

/**
 * The `nodeGroupScaling` output: per config group name, the EKS node group's name, its scaling config and
 * its replacing settings as AWS reports them after this update (the aws.eks.NodeGroup's outputs, which the Terraform provider
 * reads back after every create and update), and the reason when this update sent the desired size.
 * The next update reads it back (previousNodeGroupScaling).
 */
export function nodeGroupScalingOutput(
  groups: readonly NodeGroupConfig[],
  /** Per config group name, why this update sent the desired size, when it did. */
  sizing: Readonly<Record<string, { readonly reason?: string }>>,
  nodeGroups: readonly aws.eks.NodeGroup[],
): pulumi.Output<Record<string, NodeGroupScalingOutput>> {
  const deployed = nodeGroups.map((g) =>
    pulumi.all([g.nodeGroupName, g.scalingConfig, g.amiType, g.capacityType, g.instanceTypes]),
  );
  return pulumi.all(deployed).apply((entries) =>
    Object.fromEntries(
      entries.map(([nodeGroupName, scaling, amiType, capacityType, instanceTypes], i) => {
        const reason = sizing[groups[i].name]?.reason;
        const output: NodeGroupScalingOutput = {
          nodeGroupName,
          minSize: scaling.minSize,
          desiredSize: scaling.desiredSize,
          maxSize: scaling.maxSize,
          amiType,
          capacityType,
          instanceTypes,
          ...(reason !== undefined ? { desiredSizeSet: reason } : {}),
        };
        return [groups[i].name, output];
      }),
    ),
  );
}
