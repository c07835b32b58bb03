/**
 * How many VPC addresses one node takes for its pods. With the VPC CNI every pod gets a secondary address
 * of the node's subnet, and ipamd claims them a whole interface at a time, up to the node's max pods; with
 * prefix delegation, a /28 prefix at a time.
 * Plain arithmetic, no Pulumi; each figure's source is beside it.
 */
import { ENI_LIMIT_ROWS, NO_PREFIX_DELEGATION } from "../cluster/eni-limits";
import { vcpusByName } from "../cluster/instance-sizes";

/** AWS keeps the first four addresses and the last one of every subnet. */
export const AWS_RESERVED_PER_SUBNET = 5;

/** Addresses in one of the VPC CNI's IPv4 prefixes, a /28 (ENABLE_PREFIX_DELEGATION). */
export const PREFIX_ADDRESSES = 16;

/**
 * The max pods EKS writes into a managed node's user data when the group uses no custom AMI (as this
 * stack's node groups do): at most 110 for fewer than 30 vCPUs, else at most 250 (EKS User Guide,
 * "Choose an optimal Amazon EC2 node instance type", "How maxPods is determined"). The boundary as
 * awslabs/amazon-eks-ami's max-pods-calculator.sh draws it (commit a92d9fde, `if [ "$CPU_COUNT" -gt 30 ]`):
 * exactly 30 vCPUs gets 110.
 */
export const MANAGED_MAX_PODS = { fewVcpus: 110, manyVcpus: 250, aboveVcpus: 30 } as const;

export interface NodeAddressDemand {
  readonly instanceType: string;
  /** Network interfaces the instance type can attach (EC2's limit). */
  readonly maxInterfaces: number;
  /** IPv4 addresses one interface holds: its primary address and the secondaries ipamd gives pods. */
  readonly addressesPerInterface: number;
  /** The VPC CNI's max pods, interfaces x (addresses - 1) + 2 (amazon-vpc-cni-k8s misc/eni-max-pods.txt). */
  readonly eniMaxPods: number;
  /** The kubelet's max pods on a managed node: eniMaxPods, capped by EKS. */
  readonly maxPods: number;
  /** Interfaces ipamd attaches before its secondary addresses reach maxPods. */
  readonly interfaces: number;
  /** /28 prefixes ipamd assigns before its addresses reach maxPods; 0 without prefix delegation. */
  readonly prefixes: number;
  /**
   * The subnet addresses one full node takes out of use. Secondary addresses: interfaces x
   * addressesPerInterface, each interface's primary address plus its secondaries. Prefixes: (prefixes +
   * interfaces) x 16, since each prefix is an aligned /28 and each interface's primary address may sit in
   * a /28 of its own, which no prefix can then take.
   */
  readonly addresses: number;
}

const LIMITS = new Map<string, readonly [number, number]>(
  ENI_LIMIT_ROWS.flatMap(([interfaces, perInterface, types]) =>
    types.split(" ").map((type) => [type, [interfaces, perInterface] as const] as const),
  ),
);

/**
 * EKS's cap on a managed node's max pods (MANAGED_MAX_PODS) for an instance type, by the vCPUs its name
 * states (../cluster/instance-sizes.ts), so only the cap's side of 30 matters. A bare metal size reads as
 * many, a size below large as few (at most 4). A type with fewer vCPUs than its name (SMT off) gets the
 * higher cap, so its count errs high, never low.
 */
function managedCap(instanceType: string): number {
  const vcpus = vcpusByName(instanceType) ?? (instanceType.endsWith(".metal") ? Infinity : 0);
  return vcpus > MANAGED_MAX_PODS.aboveVcpus ? MANAGED_MAX_PODS.manyVcpus : MANAGED_MAX_PODS.fewVcpus;
}

/**
 * The interfaces ipamd attaches on a node of `maxPods`, each filled with `perInterface - 1` secondary
 * addresses (amazon-vpc-cni-k8s v1.22.4, the add-on version EKS defaults to for every Kubernetes version
 * this stack offers, offline/world/addon-versions.ts; pkg/ipamd/ipamd.go):
 * - GetIPv4Limit / awsutils GetENIIPv4Limit: an interface's secondaries are its IPv4 limit minus the
 *   primary address, which no pod gets;
 * - tryAssignIPs and GetENIResourcesToAllocate: with neither WARM_IP_TARGET nor MINIMUM_IP_TARGET set
 *   (components/cluster/addons.ts sets neither; ENABLE_PREFIX_DELEGATION only with prefixDemand below), every interface is filled
 *   to that many secondaries before another is attached;
 * - isDatastorePoolTooLow: the pool never grows once `stats.TotalIPs >= c.maxPods`, checked before the
 *   warm target (WARM_ENI_TARGET, default 1: getWarmENITarget), so the warm interface is never added past
 *   max pods; hasRoomForEni stops at the instance's interface limit.
 * So a full node holds min(interfaces, ceil(maxPods / secondaries per interface)) interfaces; c.maxPods is
 * the node's pod capacity (nodeInit reads node.Status.Capacity.Pods), the managed cap above.
 */
export function interfacesAttached(maxInterfaces: number, perInterface: number, maxPods: number): number {
  return Math.min(maxInterfaces, Math.ceil(maxPods / (perInterface - 1)));
}

/**
 * The most VPC addresses one node of `instanceType` claims; undefined for a type the table lacks. With
 * `prefixDelegation` (ENABLE_PREFIX_DELEGATION, WARM_PREFIX_TARGET 1, components/cluster/addons.ts) a
 * Nitro or bare metal node takes /28 prefixes instead; any other type falls back to secondary addresses
 * (amazon-vpc-cni-k8s v1.22.4 pkg/ipamd/ipamd.go: "Prefix delegation is not supported on non-nitro
 * instance ... falling back to default (secondary IP) mode").
 */
export function nodeAddressDemand(
  instanceType: string,
  prefixDelegation = false,
): NodeAddressDemand | undefined {
  const limits = LIMITS.get(instanceType);
  if (limits === undefined) return undefined;
  const [maxInterfaces, addressesPerInterface] = limits;
  const fixed = { instanceType, maxInterfaces, addressesPerInterface };
  if (prefixDelegation && !NO_PREFIX_DELEGATION.has(instanceType)) {
    return { ...fixed, ...prefixDemand(instanceType, maxInterfaces, addressesPerInterface) };
  }
  // amazon-vpc-cni-k8s misc/eni-max-pods.txt; amazon-eks-ami max-pods-calculator.sh
  // calculate_max_ip_addresses_secondary_ips.
  const eniMaxPods = maxInterfaces * (addressesPerInterface - 1) + 2;
  const maxPods = Math.min(eniMaxPods, managedCap(instanceType));
  const interfaces = interfacesAttached(maxInterfaces, addressesPerInterface, maxPods);
  return {
    ...fixed,
    eniMaxPods,
    maxPods,
    interfaces,
    prefixes: 0,
    addresses: interfaces * addressesPerInterface,
  };
}

/**
 * A node on prefixes. Its max pods: interfaces x ((addresses - 1) x 16) + 2 (amazon-eks-ami
 * max-pods-calculator.sh calculate_max_ip_addresses_prefix_delegation), capped by EKS as without
 * prefixes: managed node groups compute it themselves and apply the 110 or 250 cap "whether prefix
 * delegation is enabled or not" (EKS User Guide, cni-increase-ip-addresses-procedure). The pool stops
 * growing once its addresses reach max pods (isDatastorePoolTooLow, checked before WARM_PREFIX_TARGET), so
 * a full node holds ceil(maxPods / 16) prefixes, each interface taking addresses - 1 of them.
 */
function prefixDemand(instanceType: string, maxInterfaces: number, addressesPerInterface: number) {
  const eniMaxPods = maxInterfaces * ((addressesPerInterface - 1) * PREFIX_ADDRESSES) + 2;
  const maxPods = Math.min(eniMaxPods, managedCap(instanceType));
  const prefixes = Math.ceil(maxPods / PREFIX_ADDRESSES);
  const interfaces = Math.min(maxInterfaces, Math.ceil(prefixes / (addressesPerInterface - 1)));
  return { eniMaxPods, maxPods, interfaces, prefixes, addresses: (prefixes + interfaces) * PREFIX_ADDRESSES };
}

/**
 * What one node's demand is made of, for a rule's message: the interfaces' addresses, or the prefixes and
 * the interfaces' primary addresses.
 */
export function demandExplained(demand: NodeAddressDemand): string {
  return demand.prefixes === 0
    ? `${demand.interfaces} network interfaces x ${demand.addressesPerInterface} addresses = ${demand.addresses} VPC addresses for one node's pods (the interfaces the VPC CNI attaches for its ${demand.maxPods} max pods)`
    : `${demand.prefixes} /28 prefixes for its ${demand.maxPods} max pods and the primary addresses of ${demand.interfaces} network interfaces, each in a /28 of its own at worst: ${demand.prefixes + demand.interfaces} x 16 = ${demand.addresses} VPC addresses for one node`;
}

/**
 * Addresses a /`prefix` subnet gives to instances and pods. With prefixes, whole aligned /28s: AWS's
 * reserved addresses sit in the first and the last (VPC User Guide, "Subnet CIDR blocks"), which no prefix
 * can take.
 */
export function usableSubnetAddresses(prefix: number, prefixDelegation = false): number {
  const size = 2 ** (32 - prefix);
  if (prefixDelegation) return Math.max(0, size - 2 * PREFIX_ADDRESSES);
  return Math.max(0, size - AWS_RESERVED_PER_SUBNET);
}

/** How `usableSubnetAddresses` counts, for a rule's message. */
export function subnetExplained(prefix: number, prefixDelegation = false): string {
  const size = 2 ** (32 - prefix);
  const usable = usableSubnetAddresses(prefix, prefixDelegation);
  return prefixDelegation
    ? `${size / PREFIX_ADDRESSES} /28 blocks - the 2 holding AWS's reserved addresses = ${usable} addresses in prefixes`
    : `${size} - ${AWS_RESERVED_PER_SUBNET} reserved by AWS = ${usable} addresses`;
}
