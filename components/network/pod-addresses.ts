/**
 * How many VPC addresses one node can take for its pods. With the VPC CNI every pod gets a secondary
 * address of the node's subnet; ipamd claims addresses a whole interface at a time (the add-on keeps its
 * default WARM_ENI_TARGET=1, see components/cluster/addons.ts), so a node that fills up holds every
 * address of every interface its instance type can attach. Plain arithmetic, no Pulumi.
 */
import { ENI_LIMIT_ROWS } from "../cluster/eni-limits";

/** AWS keeps the first four addresses and the last one of every subnet. */
export const AWS_RESERVED_PER_SUBNET = 5;

export interface NodeAddressDemand {
  readonly instanceType: string;
  readonly interfaces: number;
  readonly addressesPerInterface: number;
  /** interfaces x addressesPerInterface: each interface's primary address plus its secondaries. */
  readonly addresses: number;
}

const LIMITS = new Map<string, readonly [number, number]>(
  ENI_LIMIT_ROWS.flatMap(([interfaces, perInterface, types]) =>
    types.split(" ").map((type) => [type, [interfaces, perInterface] as const] as const),
  ),
);

/** The most VPC addresses one node of `instanceType` can claim; undefined for a type the table lacks. */
export function nodeAddressDemand(instanceType: string): NodeAddressDemand | undefined {
  const limits = LIMITS.get(instanceType);
  if (limits === undefined) return undefined;
  const [interfaces, addressesPerInterface] = limits;
  return { instanceType, interfaces, addressesPerInterface, addresses: interfaces * addressesPerInterface };
}

/** Addresses a /`prefix` subnet gives to instances and pods. */
export function usableSubnetAddresses(prefix: number): number {
  return Math.max(0, 2 ** (32 - prefix) - AWS_RESERVED_PER_SUBNET);
}
