/**
 * Kubernetes `networking.k8s.io/v1` NetworkPolicy ingress semantics, as documented at
 * https://kubernetes.io/docs/concepts/services-networking/network-policies/: a pod is isolated for ingress
 * by the policies of its own namespace that select it and have Ingress in their policyTypes; an isolated
 * pod admits a connection only if one rule of one of those policies admits both its source and its port.
 * Pure functions. What is not evaluated here (ipBlock peers) or is invalid throws rather than guess.
 */

/** A Kubernetes label selector (metav1.LabelSelector). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    values?: string[];
  }[];
}

/** The parts of a NetworkPolicy this module reads. */
export interface NetworkPolicyObject {
  metadata: { name: string; namespace?: string };
  spec: {
    podSelector: LabelSelector;
    policyTypes?: ("Ingress" | "Egress")[];
    ingress?: {
      from?: {
        podSelector?: LabelSelector;
        namespaceSelector?: LabelSelector;
        ipBlock?: { cidr: string; except?: string[] };
      }[];
      ports?: { protocol?: string; port?: number | string; endPort?: number }[];
    }[];
    egress?: unknown[];
  };
}

/** A pod, as far as policy evaluation needs it. */
export interface PodRef {
  namespace: string;
  labels: Record<string, string>;
  /** named container ports, for policies that give port names */
  namedPorts?: Record<string, number>;
}

/** A namespace and its labels (the automatic `kubernetes.io/metadata.name` label need not be given). */
export interface NamespaceRef {
  name: string;
  labels: Record<string, string>;
}

type IngressRule = NonNullable<NetworkPolicyObject["spec"]["ingress"]>[number];
type Peer = NonNullable<IngressRule["from"]>[number];
type PortSpec = NonNullable<IngressRule["ports"]>[number];

/** The namespace a policy applies in; a manifest without one lands in "default". */
const namespaceOf = (policy: NetworkPolicyObject): string => policy.metadata.namespace ?? "default";

/** Whether `selector` selects `labels`: matchLabels and matchExpressions ANDed; the empty selector selects all. */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  return (
    byLabels &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      const value = Object.hasOwn(labels, key) ? labels[key] : undefined;
      switch (operator) {
        case "In":
          return value !== undefined && values.includes(value);
        case "NotIn":
          return value === undefined || !values.includes(value);
        case "Exists":
          return value !== undefined;
        case "DoesNotExist":
          return value === undefined;
        default:
          throw new Error(`unknown label selector operator ${JSON.stringify(operator)}`);
      }
    })
  );
}

/** policyTypes, defaulted as the API server does when absent or empty: Ingress, plus Egress given egress rules. */
export function policyTypesOf(policy: NetworkPolicyObject): ("Ingress" | "Egress")[] {
  const { policyTypes, egress } = policy.spec;
  if (policyTypes !== undefined && policyTypes.length > 0) return [...policyTypes];
  return egress !== undefined && egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
}

/** The policies in the pod's namespace that select it and have Ingress in policyTypes. */
export function isolatingPolicies(
  policies: readonly NetworkPolicyObject[],
  pod: PodRef,
): NetworkPolicyObject[] {
  return policies.filter(
    (policy) =>
      namespaceOf(policy) === pod.namespace &&
      policyTypesOf(policy).includes("Ingress") &&
      selects(policy.spec.podSelector, pod.labels),
  );
}

function peerAdmits(
  peer: Peer,
  policyNamespace: string,
  client: PodRef,
  namespaces: readonly NamespaceRef[],
): boolean {
  if (peer.ipBlock !== undefined) throw new Error("ipBlock peers are not evaluated");
  if (peer.podSelector === undefined && peer.namespaceSelector === undefined) {
    throw new Error("a NetworkPolicy peer must give podSelector, namespaceSelector or ipBlock");
  }
  if (!selects(peer.podSelector ?? {}, client.labels)) return false;
  // A podSelector alone means pods in the policy's own namespace.
  if (peer.namespaceSelector === undefined) return client.namespace === policyNamespace;
  const known = namespaces.find((namespace) => namespace.name === client.namespace);
  const labels = { ...known?.labels, "kubernetes.io/metadata.name": client.namespace };
  return selects(peer.namespaceSelector, labels);
}

function portAdmits(spec: PortSpec, server: PodRef, port: number, protocol: string): boolean {
  if ((spec.protocol ?? "TCP") !== protocol) return false;
  if (spec.port === undefined) return true;
  if (typeof spec.port === "string") {
    if (spec.endPort !== undefined) throw new Error(`endPort needs a numeric port, not "${spec.port}"`);
    const named = server.namedPorts;
    return named !== undefined && Object.hasOwn(named, spec.port) && named[spec.port] === port;
  }
  return port >= spec.port && port <= (spec.endPort ?? spec.port);
}

function ruleAdmits(
  rule: IngressRule,
  policy: NetworkPolicyObject,
  args: Parameters<typeof ingressAllowed>[0],
): boolean {
  const { from = [], ports = [] } = rule;
  const protocol = args.protocol ?? "TCP";
  // Ports first, so an ipBlock peer is consulted (and throws) only when the answer hangs on it.
  return (
    (ports.length === 0 || ports.some((spec) => portAdmits(spec, args.server, args.port, protocol))) &&
    (from.length === 0 ||
      from.some((peer) => peerAdmits(peer, namespaceOf(policy), args.client, args.namespaces)))
  );
}

/**
 * Whether `client` may connect to `server` on `port`/`protocol` (default TCP), and why. Throws when the
 * answer depends on an ipBlock peer.
 */
export function ingressAllowed(args: {
  policies: readonly NetworkPolicyObject[];
  namespaces: readonly NamespaceRef[];
  server: PodRef;
  client: PodRef;
  port: number;
  protocol?: string;
}): { allowed: boolean; reason: string } {
  const isolating = isolatingPolicies(args.policies, args.server);
  if (isolating.length === 0) {
    return { allowed: true, reason: "the server pod is not isolated for ingress by any policy" };
  }
  for (const policy of isolating) {
    const index = (policy.spec.ingress ?? []).findIndex((rule) => ruleAdmits(rule, policy, args));
    if (index >= 0) {
      const name = `${namespaceOf(policy)}/${policy.metadata.name}`;
      return { allowed: true, reason: `admitted by policy ${name} ingress rule ${index}` };
    }
  }
  const names = isolating.map((policy) => `${namespaceOf(policy)}/${policy.metadata.name}`).join(", ");
  return { allowed: false, reason: `the server pod is isolated by ${names} and no rule admits the client` };
}
