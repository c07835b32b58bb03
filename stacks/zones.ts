/**
 * Which availability zones a stack's network uses: the config's request (`network.availabilityZones`,
 * `network.zones`, `network.excludeZones`) against the AZs the region has, by name and by zone ID, and
 * against what is deployed (stacks/previous-network.ts keeps the subnets). AZ names map to zone IDs per
 * account, so a zone ID is the only way to name the same physical AZ in every account
 * (https://docs.aws.amazon.com/global-infrastructure/latest/regions/az-ids.html).
 */
import type { ConfigProblem } from "./problems";

/**
 * Zone IDs EKS does not create cluster network interfaces in: "The subnets can't reside in the following
 * Availability Zones" (EKS User Guide, "Subnet requirements for clusters",
 * https://docs.aws.amazon.com/eks/latest/userguide/network-reqs.html; awsdocs/amazon-eks-user-guide
 * latest/ug/networking/network-reqs.adoc). CreateCluster fails there (UnsupportedAvailabilityZoneException,
 * pulumi/pulumi-eks#1401 for us-east-1e) once the VPC and NAT gateways exist. eksctl avoids the same IDs
 * (eksctl-io/eksctl pkg/az/az.go, zoneIDsToAvoid, commit 9c23afaa2).
 */
export const EKS_DISALLOWED_ZONE_IDS: Readonly<Record<string, readonly string[]>> = {
  "us-east-1": ["use1-az3"],
  "us-west-1": ["usw1-az2"],
  "ca-central-1": ["cac1-az3"],
};

/** What the config asks for. */
export interface ZoneRequest {
  /** `network.availabilityZones`. */
  readonly count: number;
  /** `network.zones`: exactly these AZs, by name or zone ID. */
  readonly zones?: readonly string[];
  /** `network.excludeZones`: AZs never used, by name or zone ID. */
  readonly exclude: readonly string[];
}

/** The region's AZs that need no opt-in, as aws.getAvailabilityZones lists them. */
export interface RegionZones {
  readonly region: string;
  /** Every such AZ in any state, by name, with its zone ID. */
  readonly all: readonly { readonly name: string; readonly id: string }[];
  /** The names of those AWS offers now (state available). */
  readonly offered: readonly string[];
}

/** What a deployed stack has: its AZs in order, and the ones the cluster was created in. */
export interface DeployedZones {
  readonly zones: readonly string[];
  readonly clusterZones: readonly string[];
}

/** The AZs this update uses, in order (deployed ones first, as deployed), and the deployed ones it removes. */
export interface ZoneChoice {
  readonly zones: readonly string[];
  readonly removed: readonly string[];
}

const HOW_TO = "docs/stacks.md#changing-the-network";

const listed = (region: RegionZones) => region.all.map((z) => `${z.name} (${z.id})`).join(", ");

/** Each entry of a `network.zones` or `network.excludeZones` list as an AZ name, or a problem per unknown one. */
function resolve(
  key: "zones" | "excludeZones",
  entries: readonly string[],
  region: RegionZones,
  problems: ConfigProblem[],
): string[] {
  return entries.flatMap((entry, index) => {
    const zone = region.all.find((z) => z.name === entry || z.id === entry);
    if (zone !== undefined) return [zone.name];
    problems.push({
      path: `network.${key}[${index}]`,
      value: entry,
      rule: `is not an availability zone of ${region.region} by name or zone ID: it has ${listed(region)}`,
      hint: "`aws ec2 describe-availability-zones` lists each AZ's ZoneName and ZoneId for this account",
    });
    return [];
  });
}

/** The names of the region's AZs EKS refuses cluster subnets in. */
function disallowedNames(region: RegionZones): string[] {
  const ids = EKS_DISALLOWED_ZONE_IDS[region.region] ?? [];
  return region.all.filter((z) => ids.includes(z.id)).map((z) => z.name);
}

const idOf = (region: RegionZones, name: string) => region.all.find((z) => z.name === name)?.id ?? "?";

/**
 * The AZs this update uses, or every problem that refuses the request. A new stack's are the listed
 * `zones`, or the first `count` AZs AWS offers now by name, leaving out excluded ones and those EKS
 * refuses. A deployed stack keeps its AZs in their order; it adds AZs as a new stack picks them, and
 * removes an AZ the cluster does not use (dropped from `zones`, excluded, or over `count`). The AZs the
 * cluster was created in cannot go: EKS keeps a cluster in them (previous-network.ts).
 */
export function chooseZones(
  request: ZoneRequest,
  region: RegionZones,
  deployed?: DeployedZones,
): ZoneChoice | { problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const excluded = resolve("excludeZones", request.exclude, region, problems);
  const listedZones =
    request.zones === undefined ? undefined : resolve("zones", request.zones, region, problems);
  // The checks below name entries by index: only with every entry known.
  if (problems.length > 0) return { problems };
  const refused = disallowedNames(region);
  const had = deployed?.zones ?? [];
  const cluster = deployed?.clusterZones ?? [];

  listedZones?.forEach((zone, index) => {
    const at = `network.zones[${index}]`;
    const value = request.zones?.[index];
    const first = listedZones.indexOf(zone);
    if (first < index) {
      problems.push({ path: at, value, rule: `is ${zone}, which network.zones[${first}] names already` });
    } else if (excluded.includes(zone)) {
      problems.push({ path: at, value, rule: `is ${zone}, which network.excludeZones also lists` });
    } else if (!had.includes(zone) && refused.includes(zone) && deployed === undefined) {
      problems.push({
        path: at,
        value,
        rule: `is ${zone} (${idOf(region, zone)}), an AZ EKS does not create cluster subnets in (EKS User Guide, network-reqs.html): CreateCluster would fail after the VPC and NAT gateways exist`,
        hint: `list another AZ; ${region.region}'s others: ${region.offered.filter((z) => !refused.includes(z)).join(", ")}`,
      });
    } else if (!had.includes(zone) && !region.offered.includes(zone)) {
      problems.push({
        path: at,
        value,
        rule: `is ${zone}, which AWS does not offer now (not in state available)`,
        hint: "`aws ec2 describe-availability-zones` shows each AZ's state; retry when it is available, or list another",
      });
    }
  });
  excluded.forEach((zone, index) => {
    if (!cluster.includes(zone)) return;
    problems.push({
      path: `network.excludeZones[${index}]`,
      value: request.exclude[index],
      rule: `is ${zone}, an AZ the cluster was created in: EKS keeps a cluster in the AZs it was created in, with a subnet in each, so its subnets cannot go`,
      hint: `remove it from network.excludeZones; to leave ${zone} create a new stack (see ${HOW_TO})`,
    });
  });
  if (problems.length > 0) return { problems };

  // What this update wants of the deployed AZs, and what it adds.
  let kept = had.filter((zone) => !excluded.includes(zone) && (listedZones?.includes(zone) ?? true));
  let added: string[];
  if (listedZones !== undefined) {
    added = listedZones.filter((zone) => !had.includes(zone));
  } else {
    // Over the count: the AZs the cluster does not use go, those added last first.
    const spare = kept.filter((zone) => !cluster.includes(zone)).reverse();
    const over = Math.min(Math.max(0, kept.length - request.count), spare.length);
    kept = kept.filter((zone) => !spare.slice(0, over).includes(zone));
    if (kept.length > request.count) {
      problems.push({
        path: "network.availabilityZones",
        value: request.count,
        rule: `cannot remove AZs the cluster was created in from a deployed stack: it has ${had.length} (${had.join(", ")}), this update asks for ${request.count}`,
        details: [
          `EKS keeps the cluster in the AZs it was created in (${cluster.join(", ")}), with a subnet in each, so their subnets cannot go`,
          "a subnet that load balancers' or nodes' network interfaces are in cannot be deleted (DependencyViolation)",
        ],
        hint: `keep network.availabilityZones at ${kept.length} or more; for fewer AZs create a new stack (see ${HOW_TO})`,
      });
      return { problems };
    }
    const candidates = region.offered.filter(
      (zone) => !kept.includes(zone) && !excluded.includes(zone) && !refused.includes(zone),
    );
    added = candidates.slice(0, Math.max(0, request.count - kept.length));
    const short = request.count - kept.length - added.length;
    if (short > 0) {
      const left = [
        ...(excluded.length > 0 ? [`network.excludeZones leaves out ${excluded.join(", ")}`] : []),
        ...(refused.length > 0
          ? [
              `EKS does not create cluster subnets in ${refused.map((z) => `${z} (${idOf(region, z)})`).join(", ")}`,
            ]
          : []),
      ];
      problems.push({
        path: "network.availabilityZones",
        value: request.count,
        rule: `needs ${short} more AZ${short === 1 ? "" : "s"} than AWS offers now: ${region.offered.length === 0 ? "none" : region.offered.join(", ")} ${region.offered.length === 1 ? "is" : "are"} in state available${had.length > 0 ? `, besides the deployed ${had.join(", ")}` : ""}${left.length > 0 ? `; ${left.join("; ")}` : ""}`,
        hint: "`aws ec2 describe-availability-zones` shows each AZ's state; retry when the AZ is available, or ask for fewer",
      });
    }
  }
  const removed = had.filter((zone) => !kept.includes(zone));
  const leaving = removed.filter((zone) => cluster.includes(zone));
  if (leaving.length > 0) {
    problems.push({
      path: "network.zones",
      value: request.zones,
      rule: `cannot remove ${leaving.join(", ")} from the deployed stack: ${leaving.length === 1 ? "it is an AZ" : "they are AZs"} the cluster was created in (${cluster.join(", ")})`,
      details: [
        `EKS keeps the cluster in the AZs it was created in (${cluster.join(", ")}), with a subnet in each, so their subnets cannot go`,
        ...(removed.length > leaving.length
          ? [`AZs the cluster does not use can go: ${removed.filter((z) => !leaving.includes(z)).join(", ")}`]
          : []),
      ],
      hint: `keep ${leaving.join(", ")} in network.zones; to leave ${leaving.length === 1 ? "it" : "them"} create a new stack (see ${HOW_TO})`,
    });
  }
  if (problems.length > 0) return { problems };
  return { zones: [...kept, ...added], removed };
}
