/**
 * IPv4 CIDR blocks by meaning rather than by spelling: what a set of blocks covers, and the ranges AWS
 * refuses for a VPC. Plain functions, shared by the config schema and the policy pack.
 */

const SPACE = 2 ** 32;

export interface Range {
  readonly start: number;
  /** Exclusive. */
  readonly end: number;
}

/** `a.b.c.d/p` as the addresses it covers, host bits ignored; undefined for anything else. */
export function rangeOf(cidr: string): Range | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  if (match === null) return undefined;
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const start = address - (address % size);
  return { start, end: start + size };
}

/** Whether `cidr` has bits set beyond its prefix (203.0.113.5/24), which AWS refuses. */
export function hasHostBits(cidr: string): boolean {
  const range = rangeOf(cidr);
  if (range === undefined) return false;
  const address = cidr
    .split("/")[0]
    .split(".")
    .reduce((acc, o) => acc * 256 + Number(o), 0);
  return address !== range.start;
}

/** How many addresses the blocks cover together, overlaps counted once. */
export function coveredAddresses(cidrs: readonly string[]): number {
  const ranges = cidrs
    .map(rangeOf)
    .filter((r): r is Range => r !== undefined)
    .sort((a, b) => a.start - b.start);
  let covered = 0;
  let reach = 0;
  for (const { start, end } of ranges) {
    if (end <= reach) continue;
    covered += end - Math.max(start, reach);
    reach = end;
  }
  return covered;
}

/** Whether the blocks together open to every IPv4 address: 0.0.0.0/0, or its pieces (0.0.0.0/1 + 128.0.0.0/1). */
export function coversWholeInternet(cidrs: readonly string[]): boolean {
  return coveredAddresses(cidrs) === SPACE;
}

/**
 * Ranges AWS does not accept for a VPC: "this" network, loopback, link-local, multicast and the reserved
 * class E space. https://docs.aws.amazon.com/vpc/latest/userguide/vpc-cidr-blocks.html
 */
export const VPC_FORBIDDEN_RANGES: readonly { cidr: string; what: string }[] = [
  { cidr: "0.0.0.0/8", what: "the 'this network' range" },
  { cidr: "127.0.0.0/8", what: "loopback" },
  { cidr: "169.254.0.0/16", what: "link-local" },
  { cidr: "224.0.0.0/4", what: "multicast" },
  { cidr: "240.0.0.0/4", what: "reserved (class E)" },
];

/** The forbidden range `cidr` overlaps, if any. */
export function forbiddenVpcRange(cidr: string): { cidr: string; what: string } | undefined {
  const range = rangeOf(cidr);
  if (range === undefined) return undefined;
  return VPC_FORBIDDEN_RANGES.find((f) => {
    const other = rangeOf(f.cidr) as Range;
    return range.start < other.end && other.start < range.end;
  });
}
