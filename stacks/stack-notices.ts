/**
 * The warnings every plan of a stack that makes its cluster prints about the whole stack: the Region's
 * quotas its sibling stacks share (region-quotas.ts), extended support (support.ts), values newer than a
 * table (table-notices.ts), what Karpenter does by itself, what a stack without NAT cannot reach
 * (private-network.ts), and node types that cannot hold pods with security groups.
 */
import type { StackConfig, UpgradePolicy } from "./schema";
import type { SiblingStack } from "./collisions";
import { quotaUse, regionQuotaNotices } from "./region-quotas";
import { extendedSupportNotice } from "./support";
import { newerThanTables } from "./table-notices";
import { privateNetworkNotices } from "./private-network";
import { trunkingCompatible } from "../components/cluster/trunking";

export interface StackFacts {
  stack: string;
  region: string;
  siblings: readonly SiblingStack[];
  upgradePolicy: UpgradePolicy;
  today: Date;
}

export function stackNotices(config: StackConfig, facts: StackFacts): string[] {
  const own = quotaUse(facts.stack, config.network, config.cluster);
  return [
    ...regionQuotaNotices(facts.region, own, facts.siblings),
    ...(extendedSupportNotice(config.cluster.version, facts.upgradePolicy, facts.today) ?? []),
    ...newerThanTables(config),
    ...karpenterNotices(config.karpenter),
    ...privateNetworkNotices(config),
    ...podSecurityGroupNotices(config),
  ];
}

/**
 * With security groups for pods, each node group type EKS's VPC resource controller gives no trunk
 * interface (components/cluster/trunking.ts): a pod a SecurityGroupPolicy selects never schedules there.
 */
function podSecurityGroupNotices(config: StackConfig): string[] {
  if (!config.cluster.vpcCni.podSecurityGroups) return [];
  return (config.nodeGroups ?? []).flatMap((group, index) =>
    group.instanceTypes.flatMap((type, i) => {
      const compatible = trunkingCompatible(type);
      if (compatible === true) return [];
      const why =
        compatible === false
          ? "takes no trunk interface (amazon-vpc-resource-controller-k8s limits.go)"
          : "is not in amazon-vpc-resource-controller-k8s limits.go of 2026-03-20, so whether it takes a trunk interface EKS decides";
      return [
        `nodeGroups[${index}].instanceTypes[${i}] is ${type}, which ${why}: with cluster.vpcCni.podSecurityGroups a pod a SecurityGroupPolicy selects never schedules on such a node (docs/stacks.md#security-groups-for-pods)`,
      ];
    }),
  );
}

/**
 * A pool on an AMI alias `@latest` has its nodes replaced whenever AWS publishes a newer AMI (Karpenter's
 * drift, karpenter.sh "Disruption": "Drift"), within the pool's disruption budgets and with no `pulumi up`.
 */
function karpenterNotices(karpenter: StackConfig["karpenter"]): string[] {
  if (!karpenter.enabled) return [];
  return Object.entries(karpenter.nodePools)
    .filter(([, pool]) => pool.amiAlias.endsWith("@latest"))
    .map(
      ([name, pool]) =>
        `karpenter.nodePools.${name}.amiAlias is ${pool.amiAlias}: Karpenter replaces the pool's nodes whenever AWS publishes a newer AMI, as its disruption budgets allow and with no pulumi up; pin a release (${pool.amiAlias.split("@")[0]}@v20261120) to move them only when it changes (docs/karpenter.md#ami-releases)`,
    );
}
