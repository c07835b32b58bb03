/**
 * Cross-key rule: every node group's instance types must fit one node's pod addresses into one private
 * subnet. Otherwise the first node that fills up leaves pods Pending with "failed to assign an IP
 * address to container" while the plan and `pulumi up` both looked green. The schema refuses what the
 * per-AZ slots cannot fit; on a deployed stack `layoutPodAddressProblems` checks the private subnets the
 * node groups have.
 */
import { z } from "zod";
import {
  AWS_RESERVED_PER_SUBNET,
  PREFIX_ADDRESSES,
  demandExplained,
  nodeAddressDemand,
  subnetExplained,
  usableSubnetAddresses,
} from "../../components/network/pod-addresses";
import type { NetworkLayout } from "../../components/network/layout";
import { PRIVATE_SLOT_BITS, parseCidr, slotPrefixes } from "../../components/network/subnets";
import { MAX_VPC_PREFIX, NETWORK_DEFAULTS } from "./network";
import type { ConfigProblem } from "../problems";
import { isRecord } from "./records";

/** Where a change the stack cannot make in place is explained, with the way to make it. */
const HOW_TO = "docs/stacks.md#changing-the-network";

/** The private subnet a node group's nodes are in, as a rule's message describes it. */
interface PrivateSubnet {
  readonly prefix: number;
  /** The VPC CNI assigns /28 prefixes (`cluster.vpcCni.prefixDelegation`). */
  readonly prefixDelegation: boolean;
  /** What the subnet is: `each private subnet (...)`. */
  readonly what: string;
  /** What the rule ends with: the ways out. */
  readonly remedy: string;
  /** What to do about a type that does not fit, given the addresses it needs. */
  readonly hint: (addresses: number) => string;
}

/** A refusal, with where it is in `nodeGroups`. */
interface Misfit {
  readonly group: number;
  readonly type: number;
  readonly problem: ConfigProblem;
}

/**
 * The private subnet each AZ's slot gives `network` (an eighth of the VPC, whatever the AZ count), or
 * undefined while `network.cidr` is not valid (its own problems say why).
 */
function slotPrivateSubnet(network: unknown, prefixDelegation: boolean): PrivateSubnet | undefined {
  const cidr = isRecord(network) ? (network.cidr ?? NETWORK_DEFAULTS.cidr) : undefined;
  if (typeof cidr !== "string") return undefined;
  try {
    const vpcPrefix = parseCidr(cidr).prefix;
    if (vpcPrefix > MAX_VPC_PREFIX) return undefined;
    const prefix = slotPrefixes(vpcPrefix).private;
    return {
      prefix,
      prefixDelegation,
      what: `each private subnet (an eighth of network.cidr ${cidr}) is a /${prefix}`,
      remedy: "enlarge network.cidr or pick a smaller instance type",
      hint: (addresses) =>
        `make network.cidr a /${vpcPrefixFor(addresses, prefixDelegation)} or larger, or use instance types that attach fewer interfaces`,
    };
  } catch {
    return undefined;
  }
}

/** The largest VPC prefix whose private subnets each hold `addresses` usable addresses. */
export function vpcPrefixFor(addresses: number, prefixDelegation = false): number {
  const reserved = prefixDelegation ? 2 * PREFIX_ADDRESSES : AWS_RESERVED_PER_SUBNET;
  const subnetPrefix = 32 - Math.ceil(Math.log2(addresses + reserved));
  // A private subnet is an eighth of the VPC, whatever the AZ count.
  return subnetPrefix - PRIVATE_SLOT_BITS;
}

/** One refusal per instance type of `nodeGroups` whose node's pod addresses do not fit `subnet`. */
function misfits(nodeGroups: unknown, subnet: PrivateSubnet): Misfit[] {
  if (!Array.isArray(nodeGroups)) return [];
  const usable = usableSubnetAddresses(subnet.prefix, subnet.prefixDelegation);
  const has = subnetExplained(subnet.prefix, subnet.prefixDelegation);
  return nodeGroups.flatMap((group: unknown, groupIndex) => {
    const types = isRecord(group) ? group.instanceTypes : undefined;
    if (!Array.isArray(types)) return [];
    return types.flatMap((instanceType: unknown, typeIndex) => {
      // A type missing from the table cannot be sized here; its name is checked on its own.
      const demand =
        typeof instanceType === "string"
          ? nodeAddressDemand(instanceType, subnet.prefixDelegation)
          : undefined;
      if (demand === undefined || demand.addresses <= usable) return [];
      const problem = {
        path: `nodeGroups[${groupIndex}].instanceTypes[${typeIndex}]`,
        value: instanceType,
        rule: `needs up to ${demandExplained(demand)}, but ${subnet.what}: ${has}; ${subnet.remedy}`,
        hint: subnet.hint(demand.addresses),
      };
      return [{ group: groupIndex, type: typeIndex, problem }];
    });
  });
}

/** The schema's check: a type the private subnets of `network`'s slots cannot fit. */
export function checkPodAddresses(config: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const subnet = slotPrivateSubnet(config.network ?? {}, prefixDelegationOf(config));
  if (subnet === undefined) return;
  for (const { group, type, problem } of misfits(config.nodeGroups, subnet)) {
    ctx.addIssue({
      code: "custom",
      path: ["nodeGroups", group, "instanceTypes", type],
      input: problem.value,
      message: problem.rule,
      params: { hint: problem.hint },
    });
  }
}

/**
 * The check on a deployed stack: the smallest private subnet of the AZs the node groups run in (the
 * cluster's AZs), as deployed. A deployed stack cannot take a larger network.cidr, so its hint is a
 * smaller type.
 */
export function layoutPodAddressProblems(
  nodeGroups: unknown,
  layout: NetworkLayout,
  prefixDelegation: boolean,
): ConfigProblem[] {
  const inCluster = layout.zones.filter((z) => layout.clusterZones.includes(z.zone));
  const smallest = [...inCluster].sort(
    (a, b) => parseCidr(b.private).prefix - parseCidr(a.private).prefix,
  )[0];
  if (smallest === undefined) return [];
  const prefix = parseCidr(smallest.private).prefix;
  const found = misfits(nodeGroups, {
    prefix,
    prefixDelegation,
    remedy: "pick a smaller instance type",
    what: `the deployed private subnet of ${smallest.zone} (${smallest.private}) is a /${prefix}`,
    hint: () =>
      `use instance types that attach fewer interfaces; a larger network.cidr needs a new stack (see ${HOW_TO})`,
  });
  return found.map((misfit) => misfit.problem);
}

/** `cluster.vpcCni.prefixDelegation` of a config whose own keys may still be invalid. */
export function prefixDelegationOf(config: Record<string, unknown>): boolean {
  const cluster = isRecord(config.cluster) ? config.cluster : {};
  return isRecord(cluster.vpcCni) && cluster.vpcCni.prefixDelegation === true;
}
