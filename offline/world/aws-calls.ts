/**
 * The AWS data sources the program reads, answered from tables: availability zones per region, the
 * default add-on version per Kubernetes version, and a fixed caller identity; the newest AMI releases, and
 * the add-on versions of a Kubernetes version newer than the table, as marked placeholders. Anything else
 * the tables do not hold is refused with a reason rather than invented.
 */
import { type Partition, partitionOfRegion } from "../../components/cluster/partitions";
import { DEFAULT_ADDON_VERSIONS, EKS_ADDON_NAMES, type EksAddonName } from "./addon-versions";
import { OFFLINE_ACCOUNT_ID, placeholder } from "./placeholders";
import { REGIONS } from "./regions";
import { closestNames, didYouMean } from "../../stacks/suggest";

/** Raised for a call the world refuses to answer; the message says why. */
export class UnanswerableCall extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnanswerableCall";
  }
}

/** The partitions whose regions regions.ts lists. */
const PARTITIONS_SIMULATED: readonly Partition[] = [
  ...new Set(Object.keys(REGIONS).flatMap((region) => partitionOfRegion(region) ?? [])),
];

/**
 * The AZ letters the world gives a region its table lacks: every AWS Region has at least three AZs
 * (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html); which
 * ones, and whether more, only AWS answers.
 */
export const ASSUMED_ZONE_LETTERS: readonly string[] = ["a", "b", "c"];

/**
 * The AZ letters a region the table lacks is given: ASSUMED_ZONE_LETTERS, then those `network` names
 * (`<region>d`, or the zone ID offlineZoneId gives it) and as many more as it asks for.
 */
export function assumedZoneLetters(region: string, network: unknown): string[] {
  const asked = typeof network === "object" && network !== null ? (network as Record<string, unknown>) : {};
  const named = [asked.zones, asked.excludeZones].flatMap((list): unknown[] =>
    Array.isArray(list) ? list : [],
  );
  const letters = new Set(ASSUMED_ZONE_LETTERS);
  for (const entry of named) {
    const byId = /-az(\d+)$/.exec(String(entry));
    if (String(entry).startsWith(region) && /^[a-z]$/.test(String(entry).slice(region.length)))
      letters.add(String(entry).slice(region.length));
    else if (byId !== null && String(entry) === offlineZoneId(region, letterOf(Number(byId[1]))))
      letters.add(letterOf(Number(byId[1])));
  }
  // How many `network` asks for: availabilityZones, else as many as zones lists.
  const count =
    typeof asked.availabilityZones === "number"
      ? asked.availabilityZones
      : Array.isArray(asked.zones)
        ? asked.zones.length
        : 0;
  for (let n = 1; letters.size < Math.min(count, 26); n++) letters.add(letterOf(n));
  return [...letters].sort();
}

const letterOf = (n: number) => String.fromCharCode("a".charCodeAt(0) + n - 1);

/** What the plan says when it gave a region its table lacks the AZ letters it assumed. */
export const ASSUMED_ZONES_NOTE = (region: string, letters: readonly string[]) =>
  `${region} is not in the offline region table (offline/world/regions.ts, botocore 1.43.67 of 2026-08-07, ${Object.keys(REGIONS).length} regions${didYouMean(closestNames(region, Object.keys(REGIONS)))}): the plan assumed its AZs are ${letters.map((l) => region + l).join(", ")} (every AWS Region has at least three; more where \`network\` asks); which AZs it has, \`pulumi preview\` with credentials asks AWS`;

/**
 * aws.getAvailabilityZones, filtered as the program asks (no opt-in): the region's standard AZs, without
 * `unavailable` (AZs AWS does not offer now, left out of those in state available). A region the table
 * lacks gets the `assumed` letters (assumedZoneLetters), and the plan says so.
 */
export function availabilityZones(
  region: string,
  unavailable: readonly string[] = [],
  assumed: readonly string[] = ASSUMED_ZONE_LETTERS,
): Record<string, unknown> {
  const facts = Object.hasOwn(REGIONS, region) ? REGIONS[region] : undefined;
  const partition = partitionOfRegion(region);
  if (facts === undefined && partition !== undefined && !PARTITIONS_SIMULATED.includes(partition)) {
    throw new UnanswerableCall(
      `the offline plan cannot know the availability zones of "${region}": its region data covers the ${PARTITIONS_SIMULATED.join(", ")} partitions, not ${partition}; \`pulumi preview\` with that partition's credentials asks AWS`,
    );
  }
  // Not refused as no region: one launched after the table was read is one, and AWS answers for it.
  const letters = facts?.zones ?? assumed;
  const zones = letters.filter((letter) => !unavailable.includes(`${region}${letter}`));
  const names = zones.map((letter) => `${region}${letter}`);
  const zoneIds = zones.map((letter) => offlineZoneId(region, letter));
  return { id: region, names, zoneIds, state: "available" };
}

/**
 * The zone ID the offline world gives AZ `letter` of `region`: the region's zone-ID prefix (`use1` for
 * us-east-1, https://docs.aws.amazon.com/global-infrastructure/latest/regions/az-ids.html) and the
 * letter's place in the alphabet (a → az1); the prefix takes the initial of each direction word
 * (apne1, usgw1, cnnw1, cac1). AWS maps names to IDs per account, so this is one possible
 * mapping, and the plan says so (OFFLINE_ZONE_IDS_NOTE).
 */
export function offlineZoneId(region: string, letter: string): string {
  const [country, ...rest] = region.split("-");
  const number = rest.pop();
  const words = rest.map((word) =>
    (word.match(/north|south|east|west/g) ?? [word]).map((w) => w[0]).join(""),
  );
  return `${country}${words.join("")}${number}-az${letter.charCodeAt(0) - "a".charCodeAt(0) + 1}`;
}

/** What the plan says of the zone IDs it used. */
export const OFFLINE_ZONE_IDS_NOTE = (region: string, answer: Record<string, unknown>) =>
  `zone IDs of ${region}: ${(answer.names as string[]).map((name, i) => `${name} ${(answer.zoneIds as string[])[i]}`).join(", ")} (AWS maps AZ names to zone IDs per account: AZs chosen or left out by zone ID, network.zones, network.excludeZones and EKS's disallowed zone IDs, may be other names on AWS)`;

/**
 * aws.eks.getAddonVersion. With `mostRecent: false` EKS answers the version it marks default for the
 * Kubernetes version, which the table holds. The most recent version changes whenever AWS publishes one,
 * so the world cannot know it and refuses: the program must never depend on it.
 */
export function addonVersion(args: Record<string, unknown>): Record<string, unknown> {
  const { addonName, kubernetesVersion, mostRecent } = args as {
    addonName?: string;
    kubernetesVersion?: string;
    mostRecent?: boolean;
  };
  if (mostRecent === true) {
    throw new UnanswerableCall(
      `getAddonVersion(${addonName}, mostRecent: true) has no fixed answer: the newest version changes whenever AWS publishes one`,
    );
  }
  if (!(EKS_ADDON_NAMES as readonly string[]).includes(addonName ?? "")) {
    throw new UnanswerableCall(
      `no add-on "${addonName}" in the offline table (${EKS_ADDON_NAMES.join(", ")})`,
    );
  }
  const row = Object.hasOwn(DEFAULT_ADDON_VERSIONS, kubernetesVersion ?? "")
    ? DEFAULT_ADDON_VERSIONS[kubernetesVersion as string]
    : undefined;
  // A version newer than the table (stacks/table-notices.ts warns of it): EKS's answer is not known here.
  const version =
    row === undefined
      ? placeholder("addon-version", `${addonName}:${kubernetesVersion}`)
      : row[addonName as EksAddonName];
  return { id: addonName, addonName, kubernetesVersion, mostRecent: false, version };
}

/**
 * Who runs the offline plan, as AWS would name it: a role session in the simulated account, the shape
 * GetCallerIdentity returns for an assumed role (arn:<partition>:sts::<account>:assumed-role/<role>/<session>,
 * https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html).
 */
export const OFFLINE_CALLER = { role: "offline-deployer", session: "offline-plan" } as const;

/** aws.getCallerIdentity: the fixed {@link OFFLINE_CALLER}, in the region's partition. */
export function callerIdentity(region: string): Record<string, unknown> {
  const arn = `arn:${partitionOfRegion(region) ?? "aws"}:sts::${OFFLINE_ACCOUNT_ID}:assumed-role/${OFFLINE_CALLER.role}/${OFFLINE_CALLER.session}`;
  return {
    id: OFFLINE_ACCOUNT_ID,
    accountId: OFFLINE_ACCOUNT_ID,
    arn,
    userId: `${placeholder("role-id", OFFLINE_CALLER.role)}:${OFFLINE_CALLER.session}`,
  };
}

/**
 * aws.ssm.getParameter, for the public parameters AWS publishes under /aws/service/ (the newest AMI
 * releases, stacks/ami-releases.ts). Their values change whenever AWS publishes a release, so the world
 * cannot know them: it answers a marked placeholder, which the plan says is known only at `up`. A parameter
 * of an account is none of the world's.
 */
export function ssmParameter(args: Record<string, unknown>, region: string): Record<string, unknown> {
  const name = String(args.name);
  if (!name.startsWith("/aws/service/")) {
    throw new UnanswerableCall(`the offline world holds no SSM parameter ${name}: only AWS's public ones`);
  }
  const value = placeholder("ami-release", name);
  const arn = `arn:${partitionOfRegion(region) ?? "aws"}:ssm:${region}::parameter${name}`;
  return {
    id: name,
    name,
    arn,
    type: "String",
    value,
    insecureValue: value,
    version: 0,
    withDecryption: false,
  };
}

/** What the plan says of a public parameter it answered with a placeholder. */
export const OFFLINE_SSM_NOTE = (name: string) =>
  `${name}: the newest AMI release is known only at \`up\` (AWS moves it when it publishes one): shown as ${placeholder("ami-release", name)}`;

/**
 * aws.ec2.getVpcEndpointService for an AWS service: offered in every AZ the world gives the region (EC2
 * answers at `up`, and may leave an AZ out: components/network/endpoints.ts gives such an AZ no subnet).
 */
export function vpcEndpointService(args: Record<string, unknown>, region: string): Record<string, unknown> {
  const serviceName = String(args.serviceName);
  const zones = availabilityZones(region).names as string[];
  return {
    id: serviceName,
    serviceName,
    serviceType: args.serviceType ?? "Interface",
    availabilityZones: zones,
    owner: "amazon",
    privateDnsName: `${serviceName.split(".").slice(3).join(".")}.${region}.amazonaws.com`,
  };
}

/** What the plan says when it put an interface endpoint in every AZ. */
export const OFFLINE_ENDPOINT_ZONES_NOTE =
  "interface endpoints: each is shown in every AZ's private subnet; which AZs EC2 offers each endpoint service in, `pulumi up` asks EC2 (an AZ without it gets no subnet of that endpoint)";

/** The data-source tokens the world answers, and how. */
export const AWS_CALLS: Readonly<
  Record<string, (args: Record<string, unknown>, region: string) => Record<string, unknown>>
> = {
  "aws:eks/getAddonVersion:getAddonVersion": (args) => addonVersion(args),
  "aws:index/getCallerIdentity:getCallerIdentity": (_args, region) => callerIdentity(region),
  "aws:ssm/getParameter:getParameter": (args, region) => ssmParameter(args, region),
};
