/**
 * The network a stack has: its VPC CIDR, each AZ's two subnets, and the AZs the EKS cluster was created
 * in. Laid out from the per-AZ slots (subnets.ts), keeping whatever is deployed. Pure values, no Pulumi;
 * the `network` stack output is this layout as JSON, and the next update reads it back.
 */
import {
  type SubnetPair,
  contains,
  firstFreeBlock,
  overlaps,
  parseCidr,
  slotPrefixes,
  zoneSlot,
} from "./subnets";

/** One AZ's subnets. */
export interface ZoneSubnets extends SubnetPair {
  readonly zone: string;
}

export interface NetworkLayout {
  /** The VPC's IPv4 CIDR. */
  readonly cidr: string;
  /** Each AZ with its subnets, in the order the stack uses them (the first holds the single NAT gateway). */
  readonly zones: readonly ZoneSubnets[];
  /**
   * The AZs the EKS cluster was created in. EKS takes new cluster subnets only in the AZs given at
   * creation, so the cluster keeps these AZs' subnets whatever AZs are added later.
   */
  readonly clusterZones: readonly string[];
}

/**
 * The `network` stack output. The next update reads it back as a protobuf Struct, whose object keys come
 * back sorted (google-protobuf `Struct.toJavaScript`), so the AZs' order (the first holds the single NAT
 * gateway) is kept as a list.
 */
export interface NetworkOutput {
  readonly cidr: string;
  readonly zones: readonly ZoneSubnets[];
  readonly clusterZones: readonly string[];
  /** The default routes are aws.ec2.Route resources of their own, not inline (stacks/inline-routes.ts). */
  readonly routes: typeof OWN_ROUTES;
}

/** The `network` output's `routes` once the default routes are resources of their own. */
export const OWN_ROUTES = "own";

/** Every destination outside the VPC: the one route each route table gets from this program. */
export const DEFAULT_ROUTE = "0.0.0.0/0";

/** The import id of a table's default route: ROUTETABLEID_DESTINATION (vpc_route.go resourceRouteImport). */
export const defaultRouteImportId = (routeTableId: string) => `${routeTableId}_${DEFAULT_ROUTE}`;

/** The names of the route tables the Network `name` makes: the public one, then each AZ's private one. */
export function defaultRouteTables(name: string, zones: readonly string[]): string[] {
  return [`${name}-public`, ...zones.map((zone) => `${name}-private-${zone}`)];
}

/** A new stack's layout: every AZ in its own slot, the cluster in all of them. */
export function newLayout(cidr: string, zones: readonly string[]): NetworkLayout {
  return {
    cidr,
    zones: zones.map((zone, index) => ({ zone, ...zoneSlot(cidr, index) })),
    clusterZones: [...zones],
  };
}

/** Why a new AZ found no room: which subnet, of what size, and what fills the VPC. */
export interface NoRoom {
  readonly zone: string;
  readonly kind: "private" | "public";
  readonly prefix: number;
  /** Every block already taken when it was looked for, in address order. */
  readonly taken: readonly string[];
}

/**
 * Subnets for `zones`: each AZ in `kept` keeps its CIDRs; each other takes its own slot (by its place in
 * `zones`) where that overlaps nothing taken, or else the first free block of the same size. Private
 * subnets are placed before public ones, the larger blocks first. `kept` must lie inside `cidr`.
 */
export function allocateZones(
  cidr: string,
  zones: readonly string[],
  kept: ReadonlyMap<string, SubnetPair>,
): { zones: ZoneSubnets[] } | { noRoom: NoRoom } {
  const sizes = slotPrefixes(parseCidr(cidr).prefix);
  const taken = [...kept.values()].flatMap((pair) => [pair.private, pair.public]);
  const placed = new Map<string, { private?: string; public?: string }>();
  for (const kind of ["private", "public"] as const) {
    for (const [index, zone] of zones.entries()) {
      if (kept.has(zone)) continue;
      const own = zoneSlot(cidr, index)[kind];
      const block = taken.some((t) => overlaps(t, own)) ? firstFreeBlock(cidr, sizes[kind], taken) : own;
      if (block === undefined) {
        return { noRoom: { zone, kind, prefix: sizes[kind], taken: sortByAddress(taken) } };
      }
      taken.push(block);
      placed.set(zone, { ...placed.get(zone), [kind]: block });
    }
  }
  return {
    zones: zones.map((zone) => {
      const pair = kept.get(zone) ?? (placed.get(zone) as SubnetPair);
      return { zone, private: pair.private, public: pair.public };
    }),
  };
}

/** Whether every subnet of `pairs` lies inside `cidr` and no two share an address. */
export function isSound(cidr: string, pairs: readonly SubnetPair[]): boolean {
  const blocks = pairs.flatMap((pair) => [pair.private, pair.public]);
  return (
    blocks.every((block) => contains(cidr, block)) &&
    blocks.every((block, i) => blocks.slice(i + 1).every((other) => !overlaps(block, other)))
  );
}

/** The layout as the `network` stack output. */
export function layoutOutput(layout: NetworkLayout): NetworkOutput {
  return {
    cidr: layout.cidr,
    zones: layout.zones.map(({ zone, private: privateSubnet, public: publicSubnet }) => ({
      zone,
      private: privateSubnet,
      public: publicSubnet,
    })),
    clusterZones: [...layout.clusterZones],
    routes: OWN_ROUTES,
  };
}

function sortByAddress(blocks: readonly string[]): string[] {
  return [...blocks].sort((a, b) => parseCidr(a).network - parseCidr(b).network);
}
