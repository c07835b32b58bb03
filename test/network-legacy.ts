/** A stack last updated before the `network` output: its outputs, and what AWS has for them. */
import { type SubnetPair, legacySubnetPlan } from "../components/network/subnets";
import { placeholder } from "../offline/world";
import type { LegacyNetwork } from "../stacks/previous-network";

/** The ids the earlier program exported for a VPC across `zones`, as the offline world names them. */
export function legacyOutputs(zones: readonly string[]): Record<string, unknown> {
  const ids = (kind: string) => zones.map((zone) => placeholder("subnet-id", `network-${kind}-${zone}`));
  return {
    vpcId: placeholder("vpc-id", "network-vpc"),
    privateSubnetIds: ids("private"),
    publicSubnetIds: ids("public"),
  };
}

/** What AWS has for such a stack in `cidr`: the earlier equal split, one private and public per AZ. */
export function legacyNetwork(cidr: string, zones: readonly string[]): LegacyNetwork {
  const plan = legacySubnetPlan(cidr, zones.length);
  return {
    cidr,
    zones: new Map<string, SubnetPair>(
      zones.map((zone, i) => [zone, { private: plan.private[i], public: plan.public[i] }]),
    ),
  };
}
