/**
 * The network across updates: what a deployed stack has (its last `network` output), and what this update
 * may do with it. Decided before any resource is registered, from these upstream facts:
 * - A VPC's cidr_block is ForceNew (hashicorp/terraform-provider-aws internal/service/ec2/vpc_.go): a new
 *   CIDR replaces the VPC. The internet gateway's vpc_id is not: it is detached from the live VPC and
 *   attached to the new one (internal/service/ec2/vpc_internet_gateway.go, resourceInternetGatewayUpdate),
 *   which AWS refuses while the NAT gateways' Elastic IPs are mapped there ("DependencyViolation: Network
 *   vpc-... has some mapped public address(es)", hashicorp/terraform#1303).
 * - EKS updates a cluster's subnets in place (UpdateClusterConfig; vpc_config.subnet_ids updates in place
 *   since terraform-provider-aws v5.25.0, hashicorp/terraform-provider-aws#34090, and @pulumi/aws 7.x
 *   builds on v6, pulumi/pulumi-aws#5665), but "All subnets that you add must be in the same set of AZs
 *   as originally provided when you created the cluster", with at least one subnet in each of them
 *   (https://docs.aws.amazon.com/eks/latest/userguide/network-reqs.html; no way to add an AZ:
 *   aws/containers-roadmap#2330). pulumi-eks v4.3.0 gives the cluster every public and private subnet
 *   (nodejs/eks/cluster/cluster.ts: clusterSubnetIds = [...publicIds, ...privateIds]).
 * - A managed node group's subnet_ids is ForceNew (internal/service/eks/node_group.go).
 * - An AZ can leave state "available" for a while (DescribeAvailabilityZones State: available |
 *   information | impaired | unavailable | constrained, https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_AvailabilityZone.html),
 *   and the program lists only available ones: a deployed AZ is kept by name, not taken from that list.
 * So an added AZ gets its subnets, route tables and (perAz) NAT gateway, while the cluster and the node
 * groups keep the AZs the cluster was created in; an AZ is never removed and the CIDR never changes on a
 * deployed stack.
 */
import {
  type NetworkLayout,
  type NetworkOutput,
  allocateZones,
  isSound,
  newLayout,
} from "../components/network/layout";
import type { SubnetPair } from "../components/network/subnets";
import { type RegionZones, type ZoneRequest, chooseZones } from "./zones";
import type { ConfigProblem } from "./problems";
import type { PreviousOutputs } from "./previous-outputs";
import { isText } from "./schema/records";

/** Where a change the stack cannot make in place is explained, with the way to make it. */
const HOW_TO = "docs/stacks.md#changing-the-network";

/** The network a deployed stack has. */
export interface DeployedNetwork {
  readonly cidr: string;
  /** Each deployed AZ's subnets, by AZ name, in the order the stack uses them. */
  readonly zones: ReadonlyMap<string, SubnetPair>;
  readonly clusterZones: readonly string[];
}

/**
 * The network the stack's last update left, or undefined for a stack with no network yet (new, or made on
 * a cluster made elsewhere). A stack last updated by 0.1.0 exported its VPC (`vpcId`) but no `network`:
 * refused, since this version does not read that release's layout.
 */
export function deployedNetwork(
  previous: PreviousOutputs,
): DeployedNetwork | undefined | { problem: ConfigProblem } {
  if (previous.network !== undefined) return parseNetworkOutput(previous.network);
  if (previous.vpcId === undefined) return undefined;
  return {
    problem: {
      path: "network",
      value: undefined,
      rule: "cannot be checked against the deployed network: the stack was last updated by 0.1.0 (its outputs have `vpcId` but no `network`), and this version does not read 0.1.0's layout",
      hint: "keep this stack on 0.1.0, or follow CHANGELOG.md (Removed) to bring it to this version",
    },
  };
}

/** The last `network` output read back, or the problem when it is not one this program writes. */
function parseNetworkOutput(value: unknown): DeployedNetwork | { problem: ConfigProblem } {
  const output = (value ?? {}) as Partial<Record<keyof NetworkOutput, unknown>>;
  const clusterZones: unknown[] = Array.isArray(output.clusterZones) ? output.clusterZones : [];
  const entries = zoneEntries(output.zones, clusterZones);
  const pairs = entries.map(([, pair]) => pair);
  const readable =
    isText(output.cidr) &&
    entries.length > 0 &&
    entries.every(([zone, pair]) => isText(zone) && isText(pair.private) && isText(pair.public)) &&
    new Set(entries.map(([zone]) => zone)).size === entries.length &&
    clusterZones.length > 0 &&
    clusterZones.every(isText) &&
    isSound(output.cidr, pairs as unknown as SubnetPair[]);
  if (!readable) {
    return {
      problem: {
        path: "network",
        value,
        rule: "cannot be checked against the deployed network: the stack's last `network` output is not one this program writes",
        hint: "`pulumi stack output network --json` shows it; it must be {cidr, zones: [{zone, private, public}], clusterZones}",
      },
    };
  }
  const zones = new Map(
    entries.map(([zone, pair]) => [
      zone as string,
      { private: pair.private, public: pair.public } as SubnetPair,
    ]),
  );
  return { cidr: output.cidr as string, zones, clusterZones };
}

/**
 * The deployed AZs with their subnets, in the order the stack uses them: the output's list. An output
 * written before the list held them as an object keyed by AZ, whose keys come back sorted and so lost the
 * order; its AZs are taken in the order of `clusterZones` (a list, the order the stack created them in),
 * then the AZs added since.
 */
function zoneEntries(zones: unknown, clusterZones: readonly unknown[]): [unknown, Record<string, unknown>][] {
  const record = (item: unknown) => (item ?? {}) as Record<string, unknown>;
  if (Array.isArray(zones)) return zones.map((item) => [record(item).zone, record(item)]);
  if (zones === null || typeof zones !== "object") return [];
  const entries = Object.entries(zones).map(([zone, pair]): [unknown, Record<string, unknown>] => [
    zone,
    record(pair),
  ]);
  const rank = (zone: unknown) => {
    const at = clusterZones.indexOf(zone);
    return at === -1 ? clusterZones.length : at;
  };
  return entries.sort(([a], [b]) => rank(a) - rank(b));
}

/**
 * This update's network: the AZs `request` asks for of the region's (zones.ts) in `cidr`. A new stack's
 * from the slots; a deployed stack's keeping every deployed AZ and subnet it does not remove (offered now
 * or not), with added AZs in free slots. Or every problem that refuses the change, each with its reason
 * and the way to make it. `notices` say what the update goes on with but the user should know.
 */
export function networkLayout(
  cidr: string,
  request: ZoneRequest,
  region: RegionZones,
  previous: PreviousOutputs,
): { layout: NetworkLayout; notices: string[] } | { problems: ConfigProblem[] } {
  const deployed = deployedNetwork(previous);
  if (deployed !== undefined && "problem" in deployed) return { problems: [deployed.problem] };
  const had =
    deployed === undefined
      ? undefined
      : { zones: [...deployed.zones.keys()], clusterZones: deployed.clusterZones };
  const choice = chooseZones(request, region, had);
  const added = "zones" in choice ? choice.zones.filter((zone) => !deployed?.zones.has(zone)) : [];
  const problems = [
    ...(deployed === undefined ? [] : cidrProblems(deployed, cidr)),
    ...("problems" in choice ? choice.problems : []),
  ];
  if (problems.length > 0 || "problems" in choice) return { problems };
  const { zones, removed } = choice;
  const missing = zones.filter(
    (zone) => deployed?.zones.has(zone) === true && !region.offered.includes(zone),
  );
  const notices = [
    ...(missing.length === 0
      ? []
      : [
          `network: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not offered by AWS now (not in state available); the stack keeps ${missing.length === 1 ? "its" : "their"} subnets and the cluster stays in ${missing.length === 1 ? "it" : "them"}`,
        ]),
    ...(removed.length === 0
      ? []
      : [
          `network: removes ${removed.join(", ")}, which the cluster does not use: ${removed.length === 1 ? "its" : "their"} subnets, route tables and NAT gateways go; AWS refuses to delete a subnet that network interfaces are still in (load balancers', endpoints'), so move those first`,
        ]),
  ];
  if (deployed === undefined) return { layout: newLayout(cidr, zones), notices };
  const keptSubnets = new Map([...deployed.zones].filter(([zone]) => zones.includes(zone)));
  const allocation = allocateZones(cidr, zones, keptSubnets);
  if ("noRoom" in allocation) {
    const { zone, kind, prefix, taken } = allocation.noRoom;
    return {
      problems: [
        {
          path: "network.availabilityZones",
          value: zones.length,
          rule: `cannot add ${added.join(", ")} to the deployed network: ${cidr} has no free /${prefix} left for ${zone}'s ${kind} subnet`,
          details: [`taken: ${taken.join(", ")}`],
          hint: `keep network.availabilityZones at ${keptSubnets.size}; for more AZs create a new stack with a larger network.cidr (see ${HOW_TO})`,
        },
      ],
    };
  }
  return { layout: { cidr, zones: allocation.zones, clusterZones: deployed.clusterZones }, notices };
}

/** A new VPC CIDR on a deployed stack: refused, it would replace the VPC. */
function cidrProblems(deployed: DeployedNetwork, cidr: string): ConfigProblem[] {
  if (deployed.cidr === cidr) return [];
  return [
    {
      path: "network.cidr",
      value: cidr,
      rule: `cannot change on a deployed stack (its VPC is ${deployed.cidr}): a new CIDR replaces the VPC, and the update fails midway`,
      details: [
        "the internet gateway is detached from the live VPC to be attached to the new one, which AWS refuses while the NAT gateways' Elastic IPs are mapped in it (DependencyViolation)",
        "the subnets, route tables, NAT gateways and node groups would all be replaced, and an EKS cluster cannot move to another VPC",
      ],
      hint: `set it back to ${deployed.cidr}; for another range create a new stack (see ${HOW_TO})`,
      steps: [
        `copy Pulumi.<stack>.yaml to Pulumi.<new-stack>.yaml and set network.cidr: ${cidr} there`,
        "`pulumi up --stack <new-stack>`, then move the workloads to the new cluster",
        "`pulumi destroy --stack <stack>` (see docs/destroy.md)",
      ],
    },
  ];
}
