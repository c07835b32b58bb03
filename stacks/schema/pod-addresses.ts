/**
 * Cross-key rule: every node group's instance types must fit one node's pod addresses into one private
 * subnet. Otherwise the first node that fills up leaves pods Pending with "failed to assign an IP
 * address to container" while the plan and `pulumi up` both looked green.
 */
import { z } from "zod";
import {
  AWS_RESERVED_PER_SUBNET,
  nodeAddressDemand,
  usableSubnetAddresses,
} from "../../components/network/pod-addresses";
import { PRIVATE_SLOT_BITS, parseCidr, slotPrefixes } from "../../components/network/subnets";
import { NETWORK_DEFAULTS } from "./network";
import { isRecord } from "./records";

/**
 * The private subnets' prefix (each AZ's slot, whatever the AZ count: components/network/subnets.ts), or
 * undefined while `network` is not valid (its own problems say why).
 */
function privateSubnetPrefix(network: unknown): { cidr: string; prefix: number } | undefined {
  const cidr = isRecord(network) ? (network.cidr ?? NETWORK_DEFAULTS.cidr) : undefined;
  if (typeof cidr !== "string") return undefined;
  try {
    const prefix = slotPrefixes(parseCidr(cidr).prefix).private;
    return prefix <= 32 ? { cidr, prefix } : undefined;
  } catch {
    return undefined;
  }
}

/** The largest VPC prefix whose private subnets each hold `addresses` usable addresses. */
export function vpcPrefixFor(addresses: number): number {
  const subnetPrefix = 32 - Math.ceil(Math.log2(addresses + AWS_RESERVED_PER_SUBNET));
  // A private subnet is an eighth of the VPC, whatever the AZ count.
  return subnetPrefix - PRIVATE_SLOT_BITS;
}

export function checkPodAddresses(config: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const subnet = privateSubnetPrefix(config.network ?? {});
  if (subnet === undefined || !Array.isArray(config.nodeGroups)) return;
  const usable = usableSubnetAddresses(subnet.prefix);
  config.nodeGroups.forEach((group: unknown, groupIndex) => {
    const types = isRecord(group) ? group.instanceTypes : undefined;
    if (!Array.isArray(types)) return;
    types.forEach((instanceType: unknown, typeIndex) => {
      // A type missing from the table cannot be sized here; its name is checked on its own.
      const demand = typeof instanceType === "string" ? nodeAddressDemand(instanceType) : undefined;
      if (demand === undefined || demand.addresses <= usable) return;
      ctx.addIssue({
        code: "custom",
        path: ["nodeGroups", groupIndex, "instanceTypes", typeIndex],
        input: instanceType,
        message:
          `needs up to ${demand.interfaces} network interfaces x ${demand.addressesPerInterface} addresses = ${demand.addresses} VPC addresses for one node's pods, ` +
          `but each private subnet (an eighth of network.cidr ${subnet.cidr}) is a /${subnet.prefix}: ` +
          `${2 ** (32 - subnet.prefix)} - ${AWS_RESERVED_PER_SUBNET} reserved by AWS = ${usable} addresses; ` +
          `enlarge network.cidr or pick a smaller instance type`,
        params: {
          hint: `make network.cidr a /${vpcPrefixFor(demand.addresses)} or larger, or use instance types that attach fewer interfaces`,
        },
      });
    });
  });
}
