/**
 * Subnet layout for the VPC: pure IPv4 arithmetic, no Pulumi. Each AZ has a fixed slot, by its place in
 * the AZ list, whose CIDRs do not depend on how many AZs there are: adding an AZ adds subnets and changes
 * none (a subnet's cidr_block is ForceNew in terraform-provider-aws internal/service/ec2/vpc_subnet.go, so
 * a moved subnet is a new one, created before the old goes, overlapping it).
 *
 *   eighths 0-5 of the VPC   private subnet of AZ 0-5: nodes and, through the VPC CNI, their pods
 *   eighth 6, in 8 parts     public subnet of AZ 0-5 (NAT gateways, load balancers); parts 6-7 free
 *   eighth 7                 free
 *
 * A /16 gives /19 private subnets (8,187 usable addresses) and /22 public ones (1,019).
 */
import { rangeOf } from "./cidr-ranges";

/** The most AZs a layout has slots for (the config schema's upper bound). */
export const MAX_ZONES = 6;
/** A private slot is the VPC's prefix plus this: an eighth of the VPC. */
export const PRIVATE_SLOT_BITS = 3;
/** A public slot is the VPC's prefix plus this: an eighth of the eighth that holds them. */
export const PUBLIC_SLOT_BITS = 6;
/** Which eighth of the VPC holds the public slots (the ones before it are the private slots). */
const PUBLIC_EIGHTH = 6;

export interface SubnetPlan {
  /** One CIDR per AZ, in AZ order. */
  readonly private: string[];
  /** One CIDR per AZ, in AZ order. */
  readonly public: string[];
}

/** The two subnets of one AZ. */
export interface SubnetPair {
  readonly private: string;
  readonly public: string;
}

/** Parses `a.b.c.d/p` into a 32-bit network number and prefix; throws on anything else. */
export function parseCidr(cidr: string): { network: number; prefix: number } {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  if (match === null) throw new Error(`"${cidr}" is not an IPv4 CIDR block`);
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) throw new Error(`"${cidr}" is not an IPv4 CIDR block`);
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  if (address % size !== 0) {
    throw new Error(
      `"${cidr}" has host bits set; the network address is ${formatCidr(address - (address % size), prefix)}`,
    );
  }
  return { network: address, prefix };
}

export function formatCidr(network: number, prefix: number): string {
  const octets = [24, 16, 8, 0].map((shift) => Math.floor(network / 2 ** shift) % 256);
  return `${octets.join(".")}/${prefix}`;
}

/** The prefixes of a /`vpcPrefix` VPC's private and public slots, whatever the AZ count. */
export function slotPrefixes(vpcPrefix: number): { private: number; public: number } {
  return { private: vpcPrefix + PRIVATE_SLOT_BITS, public: vpcPrefix + PUBLIC_SLOT_BITS };
}

/** The subnets of the AZ at `index` in the AZ list. */
export function zoneSlot(vpcCidr: string, index: number): SubnetPair {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_ZONES) {
    throw new Error(`an AZ's place must be 0 to ${MAX_ZONES - 1}, got ${index}`);
  }
  const { network, prefix } = parseCidr(vpcCidr);
  const sizes = slotPrefixes(prefix);
  if (sizes.public > 32) throw new Error(`${vpcCidr} is too small for the subnet layout`);
  const eighth = 2 ** (32 - sizes.private);
  return {
    private: formatCidr(network + index * eighth, sizes.private),
    public: formatCidr(network + PUBLIC_EIGHTH * eighth + index * 2 ** (32 - sizes.public), sizes.public),
  };
}

/** A private and a public subnet for each of `zoneCount` AZs, each AZ in its own slot. */
export function planSubnets(vpcCidr: string, zoneCount: number): SubnetPlan {
  if (!Number.isInteger(zoneCount) || zoneCount < 1 || zoneCount > MAX_ZONES) {
    throw new Error(`zone count must be a whole number from 1 to ${MAX_ZONES}, got ${zoneCount}`);
  }
  const slots = Array.from({ length: zoneCount }, (_, i) => zoneSlot(vpcCidr, i));
  return { private: slots.map((s) => s.private), public: slots.map((s) => s.public) };
}

/** Whether two CIDR blocks share an address. */
export function overlaps(a: string, b: string): boolean {
  const x = rangeOf(a);
  const y = rangeOf(b);
  return x !== undefined && y !== undefined && x.start < y.end && y.start < x.end;
}

/** Whether `inner` lies wholly inside `outer`. */
export function contains(outer: string, inner: string): boolean {
  const x = rangeOf(outer);
  const y = rangeOf(inner);
  return x !== undefined && y !== undefined && x.start <= y.start && y.end <= x.end;
}

/** The first /`prefix` block of `vpcCidr`, in address order, that overlaps none of `taken`. */
export function firstFreeBlock(
  vpcCidr: string,
  prefix: number,
  taken: readonly string[],
): string | undefined {
  const vpc = parseCidr(vpcCidr);
  const size = 2 ** (32 - prefix);
  const count = 2 ** (prefix - vpc.prefix);
  for (let i = 0; i < count; i++) {
    const block = formatCidr(vpc.network + i * size, prefix);
    if (!taken.some((t) => overlaps(t, block))) return block;
  }
  return undefined;
}
