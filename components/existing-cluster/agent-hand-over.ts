/**
 * What must hold before the VPC CNI's network-policy agent is turned off on a cluster where it enforces
 * policy, read from the cluster at that moment:
 * - Calico enforces: calico-node is ready and up to date on every node it runs on;
 * - nothing is left for the agent to let go of. AWS: "You must delete all network policies before
 *   disabling network policies" (https://docs.aws.amazon.com/eks/latest/userguide/network-policy-disable.html).
 *   That is every Kubernetes NetworkPolicy, and every object of the agent's own API group
 *   `networking.k8s.aws`: the PolicyEndpoints (and ClusterPolicyEndpoints) its controller derives from
 *   them ("PolicyEndpoint objects ... are managed by Amazon EKS",
 *   https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy.html), and the ClusterNetworkPolicy
 *   and ApplicationNetworkPolicy kinds only the agent enforces, which nothing would enforce once it is off.
 * Calico's own policies (crd.projectcalico.org) are what keeps the cluster's rules enforced meanwhile:
 * `calicoctl convert` writes a Kubernetes NetworkPolicy as one, under the same name (calicoctl/calicoctl/
 * commands/convert.go at v3.31.7 trims the `knp.default.` prefix; the command was removed in v3.32.0).
 */
import { type Credentials, kubeGetOrMissing, kubeRequest } from "../kubernetes/client";

/** The VPC CNI network-policy agent's API group. */
export const AGENT_API_GROUP = "networking.k8s.aws";

/** Where calico-node runs: its DaemonSet. */
export interface CalicoNodeRef {
  readonly namespace: string;
  readonly name: string;
}

/** What the check found: each is a reason not to turn the agent off yet. */
export interface HandOverFindings {
  /** Why Calico does not enforce yet; undefined when calico-node is ready on every node. */
  readonly calicoNotReady?: string;
  /** `Kind namespace/name` of every policy or agent object still in the cluster. */
  readonly remaining: string[];
}

interface Listed {
  items?: { metadata: { name: string; namespace?: string } }[];
}

interface DaemonSetStatus {
  status?: {
    desiredNumberScheduled?: number;
    numberReady?: number;
    updatedNumberScheduled?: number;
  };
}

const named = (kind: string, item: { metadata: { name: string; namespace?: string } }) =>
  `${kind} ${item.metadata.namespace ? `${item.metadata.namespace}/` : ""}${item.metadata.name}`;

/** Why calico-node does not enforce on every node yet, or undefined when it does. */
export function calicoNodeNotReady(ref: CalicoNodeRef, daemonSet: DaemonSetStatus | undefined) {
  if (daemonSet === undefined) return `DaemonSet ${ref.namespace}/${ref.name} does not exist`;
  const desired = daemonSet.status?.desiredNumberScheduled ?? 0;
  const ready = daemonSet.status?.numberReady ?? 0;
  const updated = daemonSet.status?.updatedNumberScheduled ?? 0;
  if (desired === 0) return `DaemonSet ${ref.namespace}/${ref.name} runs on no node`;
  if (ready < desired || updated < desired) {
    return `DaemonSet ${ref.namespace}/${ref.name} has ${ready} ready and ${updated} up-to-date of ${desired} pods`;
  }
  return undefined;
}

/** Every object of the agent's API group, across namespaces; none when the group is not served. */
async function agentObjects(credentials: Credentials): Promise<string[]> {
  const group = await kubeGetOrMissing<{ preferredVersion?: { groupVersion: string } }>(
    credentials,
    `/apis/${AGENT_API_GROUP}`,
  );
  const groupVersion = group?.preferredVersion?.groupVersion;
  if (groupVersion === undefined) return [];
  const served = await kubeRequest<{ resources: { name: string; kind: string; verbs: string[] }[] }>(
    credentials,
    "GET",
    `/apis/${groupVersion}`,
  );
  const found: string[] = [];
  for (const resource of served.resources) {
    if (resource.name.includes("/") || !resource.verbs.includes("list")) continue;
    const listed = await kubeRequest<Listed>(credentials, "GET", `/apis/${groupVersion}/${resource.name}`);
    for (const item of listed.items ?? []) found.push(named(resource.kind, item));
  }
  return found;
}

/** Reads what the hand-over needs from the cluster `credentials` reach. */
export async function handOverFindings(
  credentials: Credentials,
  calicoNode: CalicoNodeRef,
): Promise<HandOverFindings> {
  const daemonSet = await kubeGetOrMissing<DaemonSetStatus>(
    credentials,
    `/apis/apps/v1/namespaces/${encodeURIComponent(calicoNode.namespace)}/daemonsets/${encodeURIComponent(calicoNode.name)}`,
  );
  const policies = await kubeRequest<Listed>(
    credentials,
    "GET",
    "/apis/networking.k8s.io/v1/networkpolicies",
  );
  return {
    calicoNotReady: calicoNodeNotReady(calicoNode, daemonSet),
    remaining: [
      ...(policies.items ?? []).map((item) => named("NetworkPolicy", item)),
      ...(await agentObjects(credentials)),
    ].sort(),
  };
}

/** The steps of the hand-over, in AWS's order, with nothing left unenforced at any point. */
export const HAND_OVER_STEPS = [
  "set cluster.existing.networkPolicyAgent: on and run `pulumi up`: Calico runs beside the agent",
  "copy every NetworkPolicy to a Calico one, which the agent does not read: `kubectl get networkpolicies -A -o yaml > k8s-policies.yaml`, then `calicoctl convert -f k8s-policies.yaml > calico-policies.yaml` (calicoctl v3.31: v3.32 removed `convert`) and `calicoctl apply -f calico-policies.yaml`; write the rules of any ClusterNetworkPolicy or ApplicationNetworkPolicy (networking.k8s.aws) as Calico policies too",
  "delete every NetworkPolicy (`kubectl delete networkpolicies --all -A`) and the agent's ClusterNetworkPolicy and ApplicationNetworkPolicy objects, then wait until `kubectl get policyendpoints,clusterpolicyendpoints -A` lists none",
  "set cluster.existing.networkPolicyAgent: off and run `pulumi up`: the stack checks that nothing is left, turns the agent off, then proves Calico enforces (the probe)",
  "apply k8s-policies.yaml again, then delete the Calico copies (`calicoctl delete -f calico-policies.yaml`)",
] as const;

/** The steps as one numbered sentence, for refusals. */
export function handOverSteps(): string {
  return HAND_OVER_STEPS.map((step, i) => `(${i + 1}) ${step}`).join("; ");
}

/** Why the agent cannot be turned off yet, or undefined when it can. */
export function handOverRefusal(cluster: string, findings: HandOverFindings): string | undefined {
  const reasons = [
    ...(findings.calicoNotReady === undefined
      ? []
      : [`Calico does not enforce yet: ${findings.calicoNotReady}`]),
    ...(findings.remaining.length === 0
      ? []
      : [
          `AWS requires every network policy deleted first, and ${findings.remaining.length} remain: ${findings.remaining.join(", ")}`,
        ]),
  ];
  if (reasons.length === 0) return undefined;
  return (
    `the VPC CNI's network-policy agent on ${cluster} is not turned off (nothing changed in the add-on): ` +
    `${reasons.join("; ")}. The hand-over, in order: ${handOverSteps()}`
  );
}
