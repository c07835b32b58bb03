/**
 * The Region quotas the stacks of one account share: every full stack makes a VPC, and an Elastic IP per
 * NAT gateway (components/network: one for `natGateways: single`, one per AZ for `perAz`, none for `none`). docs/fork.md
 * puts every stack in one account, so the stack files that deploy to a Region count together, the Region's
 * default VPC with them. Where they go past AWS's default quota (aws-limits.ts), the `pulumi up` that goes
 * past it fails part-way (VpcLimitExceeded, AddressLimitExceeded): the plan says so.
 * A warning, never a refusal: the stacks may be in other accounts, or the quota raised.
 */
import { AWS_LIMITS, type PlatformLimit } from "./schema/aws-limits";
import { zoneCount } from "./schema/network";
import { isRecord } from "./schema/records";
import type { SiblingStack } from "./collisions";

/** What one stack uses of the Region's quotas. */
export interface QuotaUse {
  readonly stack: string;
  readonly vpcs: number;
  readonly elasticIps: number;
}

/** A stack's use from its `eks-calico:network` and `eks-calico:cluster` values: none for Calico alone. */
export function quotaUse(stack: string, network: unknown, cluster: unknown): QuotaUse {
  const elsewhere = isRecord(cluster) && (cluster.existing !== undefined || cluster.kubeconfig !== undefined);
  if (elsewhere) return { stack, vpcs: 0, elasticIps: 0 };
  const settings = isRecord(network) ? network : {};
  const zones = zoneCount(settings);
  const perAz = settings.natGateways === "perAz";
  const elasticIps = settings.natGateways === "none" ? 0 : perAz && typeof zones === "number" ? zones : 1;
  return { stack, vpcs: 1, elasticIps };
}

function notice(
  region: string,
  uses: readonly QuotaUse[],
  count: (use: QuotaUse) => number,
  limit: PlatformLimit,
  what: { unit: string; extra: number; also: string; code: string; error: string },
): string | undefined {
  const counted = uses.filter((use) => count(use) > 0);
  const total = counted.reduce((sum, use) => sum + count(use), what.extra);
  if (total <= limit.value) return undefined;
  const each = counted.map((use) => `${use.stack} ${count(use)}`).join(", ");
  return `${region}: the stacks deploying there (${each}${what.also}) use ${total} ${what.unit}, past AWS's default quota "${limit.name}" of ${limit.value}: in one account they cannot all deploy, and the \`pulumi up\` that goes past it fails part-way with ${what.error}, unless the quota was raised (Service Quotas, ${what.code}; docs/fork.md#quotas)`;
}

/** The warnings for the Region's stacks together, `own` (this stack, as configured) among them. */
export function regionQuotaNotices(
  region: string,
  own: QuotaUse,
  siblings: readonly SiblingStack[],
): string[] {
  const others = siblings
    .filter((s) => s.stack !== own.stack && s.region === region && s.config !== undefined)
    .map((s) => quotaUse(s.stack, s.config?.["eks-calico:network"], s.config?.["eks-calico:cluster"]));
  const uses = [own, ...others];
  return [
    notice(region, uses, (u) => u.elasticIps, AWS_LIMITS.elasticIpsPerRegion, {
      unit: "Elastic IPs",
      extra: 0,
      also: "",
      code: "ec2 L-0263D0A3",
      error: "AddressLimitExceeded",
    }),
    notice(region, uses, (u) => u.vpcs, AWS_LIMITS.vpcsPerRegion, {
      unit: "VPCs",
      extra: 1,
      also: ", and the Region's default VPC",
      code: "vpc L-F678F1CE",
      error: "VpcLimitExceeded",
    }),
  ].filter((text): text is string => text !== undefined);
}
