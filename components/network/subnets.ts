/**
 * Subnet layout for the VPC: pure IPv4 arithmetic, no Pulumi. The VPC CIDR is cut into 2×AZ equal
 * blocks: private subnets take the first AZ-count blocks (pods get VPC addresses from them through
 * the VPC CNI, so they come first and contiguous), public subnets the next ones.
 */

export interface SubnetPlan {
  /** One CIDR per AZ, in AZ order. */
  readonly private: string[];
  /** One CIDR per AZ, in AZ order. */
  readonly public: string[];
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

/** The prefix of each subnet when a /`vpcPrefix` VPC holds a public and a private subnet per AZ. */
export function subnetPrefixFor(vpcPrefix: number, zoneCount: number): number {
  return vpcPrefix + Math.ceil(Math.log2(2 * zoneCount));
}

/** Splits `vpcCidr` into a private and a public subnet for each of `zoneCount` AZs. */
export function planSubnets(vpcCidr: string, zoneCount: number): SubnetPlan {
  if (!Number.isInteger(zoneCount) || zoneCount < 1)
    throw new Error(`zone count must be a positive integer, got ${zoneCount}`);
  const { network, prefix } = parseCidr(vpcCidr);
  const subnetPrefix = subnetPrefixFor(prefix, zoneCount);
  if (subnetPrefix > 32) throw new Error(`${vpcCidr} cannot hold ${2 * zoneCount} subnets`);
  const blockSize = 2 ** (32 - subnetPrefix);
  const block = (index: number) => formatCidr(network + index * blockSize, subnetPrefix);
  const zones = Array.from({ length: zoneCount }, (_, i) => i);
  return { private: zones.map((i) => block(i)), public: zones.map((i) => block(zoneCount + i)) };
}
