/**
 * Whether the node groups' nodes fit the private subnets they run in, address by address: with the VPC
 * CNI every pod takes a secondary address of its node's subnet, and a node that fills up holds every
 * address of the interfaces ipamd attaches until its addresses reach the node's max pods (EKS caps a
 * managed node's at 110 or 250): components/network/pod-addresses.ts, from amazon-vpc-cni-k8s
 * pkg/ipamd/ipamd.go with the add-on's warm-pool settings as this stack leaves them.
 *
 * Every node group spans the private subnets of the cluster's AZs, and its Auto Scaling group keeps the
 * nodes balanced between those AZs ("Amazon EC2 Auto Scaling attempts to distribute instances evenly
 * between the Availability Zones that are enabled for your Auto Scaling group",
 * https://docs.aws.amazon.com/autoscaling/ec2/userguide/auto-scaling-benefits.html), so one AZ holds up
 * to ceil(nodes / AZs) of each group. The smallest of those subnets decides.
 *
 * Refused: the nodes the config itself sets (a new group's desiredSize, a deployed group's minSize, below
 * which EKS never goes) cannot all fill up; pods would stay Pending with "failed to assign an IP address
 * to container". Warned, never refused: the nodes the groups run after this update (a deployed group's
 * desired size, which an autoscaler moves without Pulumi) do not fit, so a group that passed at creation
 * does not block every later update, preview and drift check once its autoscaler grows it; or they fit,
 * but the groups' maxSize does not, so the autoscaler's headroom would leave pods Pending.
 */
import type { NetworkLayout } from "../components/network/layout";
import {
  nodeAddressDemand,
  subnetExplained,
  usableSubnetAddresses,
} from "../components/network/pod-addresses";
import { parseCidr } from "../components/network/subnets";
import type { ConfigProblem } from "./problems";

/** A node group as the check needs it: its instance types, and the node counts to check. */
export interface GroupCapacity {
  readonly name: string;
  readonly instanceTypes: readonly string[];
  /** Nodes the config sets: a new group's desiredSize, a deployed group's minSize. */
  readonly configured: number;
  /** Nodes the group runs after this update (an autoscaler may have set a deployed group's). */
  readonly nodes: number;
  readonly maxSize: number;
}

/** What one AZ needs at a node count per group, and what its smallest subnet has. */
interface AzDemand {
  readonly addresses: number;
  /** Per group: `<nodes in one AZ> x <addresses per node> (<group>, <type>)`. */
  readonly terms: string[];
}

/** The most addresses a node of the group can hold: its largest instance type's. */
function perNode(
  group: GroupCapacity,
  prefixDelegation: boolean,
): { addresses: number; type: string } | undefined {
  const demands = group.instanceTypes.map((type) => nodeAddressDemand(type, prefixDelegation));
  if (demands.some((d) => d === undefined) || demands.length === 0) return undefined;
  const largest = [...demands].sort((a, b) => (b?.addresses ?? 0) - (a?.addresses ?? 0))[0];
  return largest === undefined ? undefined : { addresses: largest.addresses, type: largest.instanceType };
}

function demand(
  groups: readonly GroupCapacity[],
  zones: number,
  count: (g: GroupCapacity) => number,
  prefixDelegation: boolean,
): AzDemand {
  const terms: string[] = [];
  let addresses = 0;
  for (const group of groups) {
    const node = perNode(group, prefixDelegation);
    const inOneAz = Math.ceil(count(group) / zones);
    if (node === undefined || inOneAz === 0) continue;
    addresses += inOneAz * node.addresses;
    terms.push(`${inOneAz} x ${node.addresses} (${group.name}, ${node.type})`);
  }
  return { addresses, terms };
}

/**
 * The refusal when the nodes the config sets cannot hold their pods' addresses in the cluster AZs'
 * private subnets; the warning when the nodes the groups run (an autoscaler's count) cannot, or only the
 * groups' maxSize cannot.
 */
export function nodeCapacity(
  groups: readonly GroupCapacity[],
  layout: NetworkLayout,
  prefixDelegation = false,
): { problems: ConfigProblem[]; warnings: string[] } {
  const subnets = layout.zones.filter((z) => layout.clusterZones.includes(z.zone));
  if (subnets.length === 0) return { problems: [], warnings: [] };
  const smallest = [...subnets].sort((a, b) => parseCidr(b.private).prefix - parseCidr(a.private).prefix)[0];
  const prefix = parseCidr(smallest.private).prefix;
  const usable = usableSubnetAddresses(prefix, prefixDelegation);
  const has = `the private subnet of ${smallest.zone} (${smallest.private}) has ${subnetExplained(prefix, prefixDelegation)}`;
  const holding = prefixDelegation
    ? "the /28 prefixes the VPC CNI assigns for its max pods and a /28 for each interface's primary address"
    : "every address of the interfaces the VPC CNI attaches for its max pods";
  const spread = `the nodes are spread evenly over the cluster's ${subnets.length} AZs, each node holding ${holding}`;
  const set = demand(groups, subnets.length, (g) => g.configured, prefixDelegation);
  if (set.addresses > usable) {
    return {
      problems: [
        {
          path: "nodeGroups",
          value: groups.map((g) => ({ name: g.name, nodes: g.configured, instanceTypes: g.instanceTypes })),
          rule: `runs more nodes than the private subnets can give addresses to: one AZ takes ${set.terms.join(" + ")} = ${set.addresses} addresses when ${spread}, but ${has}`,
          hint: "run fewer or smaller nodes (instance types whose max pods take fewer interfaces), or, on a new stack, enlarge network.cidr or add AZs",
        },
      ],
      warnings: [],
    };
  }
  const now = demand(groups, subnets.length, (g) => g.nodes, prefixDelegation);
  if (now.addresses > usable) {
    return {
      problems: [],
      warnings: [
        `nodeGroups: the nodes the groups run now (desired sizes an autoscaler set) take ${now.terms.join(" + ")} = ${now.addresses} addresses in one AZ when ${spread}, but ${has}: pods on the nodes past ${usable} addresses stay Pending ("failed to assign an IP address to container"); lower maxSize so the autoscaler stops there, or use smaller instance types`,
      ],
    };
  }
  const most = demand(groups, subnets.length, (g) => g.maxSize, prefixDelegation);
  if (most.addresses <= usable) return { problems: [], warnings: [] };
  return {
    problems: [],
    warnings: [
      `nodeGroups: at maxSize one AZ would take ${most.terms.join(" + ")} = ${most.addresses} addresses when ${spread}, but ${has}: pods on the nodes an autoscaler adds past ${usable} addresses stay Pending ("failed to assign an IP address to container"); lower maxSize or use smaller instance types`,
    ],
  };
}
