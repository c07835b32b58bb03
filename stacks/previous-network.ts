/**
 * The network across updates: what a deployed stack has (its last `network` output, or for a stack last
 * updated before that output existed, the layout that update computed), and what this update may do with
 * it. Decided before any resource is registered, from these upstream facts:
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
import { type SubnetPair, legacySubnetPlan } from "../components/network/subnets";
import type { ConfigProblem } from "./problems";
import type { PreviousOutputs } from "./previous";

/** Where a change the stack cannot make in place is explained, with the way to make it. */
const HOW_TO = "docs/stacks.md#changing-the-network";

/** The network a deployed stack has. */
export interface DeployedNetwork {
  readonly cidr: string;
  /** Each deployed AZ's subnets, by AZ name. */
  readonly zones: ReadonlyMap<string, SubnetPair>;
  readonly clusterZones: readonly string[];
  /** How many AZs are deployed (a stack from before the `network` output may not name them all). */
  readonly count: number;
  /** Read from the last `network` output, or worked out for a stack last updated before it existed. */
  readonly source: "output" | "earlier layout";
}

const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

/**
 * The network the stack's last update left, or undefined for a stack with no network yet (new, or made on
 * a cluster made elsewhere). A stack last updated before the `network` output existed exported only its
 * subnet ids: it has as many AZs as private subnets, the first ones of `zones` (the region's AZs by name,
 * as that update picked them too), laid out by the equal split that update used, in `cidr` (its CIDR is in
 * no output, so the configured one stands for it).
 */
export function deployedNetwork(
  previous: PreviousOutputs,
  cidr: string,
  zones: readonly string[],
): DeployedNetwork | undefined | { problem: ConfigProblem } {
  if (previous.network !== undefined) return parseNetworkOutput(previous.network);
  const ids = previous.privateSubnetIds;
  if (!Array.isArray(ids) || ids.length === 0) return undefined;
  const plan = legacySubnetPlan(cidr, ids.length);
  const named = zones.slice(0, ids.length);
  return {
    cidr,
    zones: new Map(named.map((zone, i) => [zone, { private: plan.private[i], public: plan.public[i] }])),
    clusterZones: named,
    count: ids.length,
    source: "earlier layout",
  };
}

/** The last `network` output read back, or the problem when it is not one this program writes. */
function parseNetworkOutput(value: unknown): DeployedNetwork | { problem: ConfigProblem } {
  const output = (value ?? {}) as Partial<Record<keyof NetworkOutput, unknown>>;
  const entries = Object.entries((output.zones ?? {}) as Record<string, unknown>);
  const pairs = entries.map(([, pair]) => (pair ?? {}) as Record<string, unknown>);
  const readable =
    isText(output.cidr) &&
    typeof output.zones === "object" &&
    pairs.every((pair) => isText(pair.private) && isText(pair.public)) &&
    Array.isArray(output.clusterZones) &&
    output.clusterZones.every(isText) &&
    isSound(output.cidr, pairs as unknown as SubnetPair[]);
  if (!readable) {
    return {
      problem: {
        path: "network",
        value,
        rule: "cannot be checked against the deployed network: the stack's last `network` output is not one this program writes",
        hint: "`pulumi stack output network --json` shows it; it must be {cidr, zones: {<az>: {private, public}}, clusterZones}",
      },
    };
  }
  const zones = new Map(entries.map(([zone], i) => [zone, pairs[i] as unknown as SubnetPair]));
  return {
    cidr: output.cidr as string,
    zones,
    clusterZones: output.clusterZones as string[],
    count: zones.size,
    source: "output",
  };
}

/**
 * This update's network for `zones` (the configured count of the region's AZs, by name) in `cidr`: a new
 * stack's from the slots; a deployed stack's keeping every deployed subnet, with added AZs in free
 * slots. Or every problem that refuses the change, each with its reason and the way to make it.
 */
export function networkLayout(
  cidr: string,
  zones: readonly string[],
  previous: PreviousOutputs,
): { layout: NetworkLayout } | { problems: ConfigProblem[] } {
  const deployed = deployedNetwork(previous, cidr, zones);
  if (deployed === undefined) return { layout: newLayout(cidr, zones) };
  if ("problem" in deployed) return { problems: [deployed.problem] };
  const problems = [...cidrProblems(deployed, cidr), ...removalProblems(deployed, zones)];
  if (problems.length > 0) return { problems };
  const allocation = allocateZones(cidr, zones, deployed.zones);
  if ("noRoom" in allocation) {
    const { zone, kind, prefix, taken } = allocation.noRoom;
    const added = zones.filter((z) => !deployed.zones.has(z));
    return {
      problems: [
        {
          path: "network.availabilityZones",
          value: zones.length,
          rule: `cannot add ${added.join(", ")} to the deployed network: ${cidr} has no free /${prefix} left for ${zone}'s ${kind} subnet`,
          details: [
            `taken: ${taken.join(", ")}`,
            ...(deployed.source === "earlier layout"
              ? ["the stack was deployed with the earlier layout, which split the whole VPC between its AZs"]
              : []),
          ],
          hint: `keep network.availabilityZones at ${deployed.count}; for more AZs create a new stack with a larger network.cidr (see ${HOW_TO})`,
        },
      ],
    };
  }
  return { layout: { cidr, zones: allocation.zones, clusterZones: deployed.clusterZones } };
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

/** AZs the deployed stack has that this update would drop: refused, the cluster cannot leave them. */
function removalProblems(deployed: DeployedNetwork, zones: readonly string[]): ConfigProblem[] {
  const removed = [...deployed.zones.keys()].filter((zone) => !zones.includes(zone));
  const unnamed = deployed.count - deployed.zones.size;
  if (removed.length === 0 && unnamed <= 0) return [];
  const more = unnamed > 0 ? [`${unnamed} more`] : [];
  const dropped = [...removed, ...more].join(", ");
  return [
    {
      path: "network.availabilityZones",
      value: zones.length,
      rule: `cannot remove AZs from a deployed stack: it has ${deployed.count}, this update would drop ${dropped}`,
      details: [
        `EKS keeps the cluster in the AZs it was created in (${[...deployed.clusterZones, ...more].join(", ")}), with a subnet in each, so their subnets cannot go`,
        "a subnet that load balancers' or nodes' network interfaces are in cannot be deleted (DependencyViolation)",
      ],
      hint: `keep network.availabilityZones at ${deployed.count} or more; for fewer AZs create a new stack (see ${HOW_TO})`,
    },
  ];
}
