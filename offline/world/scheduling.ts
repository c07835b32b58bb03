/**
 * The scheduling rules that decide where Calico's pods can run: taints against tolerations, the node
 * selector, required node affinity, one pod per node for required hostname anti-affinity or a host
 * port, and, for a single pod placed among pods already bound (the probe's anchor and clients), required
 * inter-pod affinity and anti-affinity. https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/,
 * https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/. A rule the world does not
 * model is refused (CannotSimulate) instead of being assumed to pass.
 */
import { type LabelSelector, selects } from "./network-policy";
import type { SimulatedNode, Taint } from "./nodes";

/** A pod spec feature the simulation does not model: it cannot say whether the pod would schedule. */
export class CannotSimulate extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CannotSimulate";
  }
}

interface Toleration {
  key?: string;
  operator?: "Exists" | "Equal";
  value?: string;
  effect?: string;
}

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

/** A required pod (anti-)affinity term (core/v1 PodAffinityTerm). */
export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
  topologyKey: string;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
}

export interface PodSpec {
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  hostNetwork?: boolean;
  containers?: { ports?: { containerPort: number; hostPort?: number }[] }[];
  topologySpreadConstraints?: { whenUnsatisfiable?: string }[];
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: {
        nodeSelectorTerms: { matchExpressions?: Requirement[]; matchFields?: unknown[] }[];
      };
    };
    podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
    podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
  };
}

/** Whether a toleration matches a taint (key, operator and value, effect; empty key with Exists: all). */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  const operator = toleration.operator ?? "Equal";
  if (toleration.effect !== undefined && toleration.effect !== "" && toleration.effect !== taint.effect) {
    return false;
  }
  if (toleration.key === undefined || toleration.key === "") return operator === "Exists";
  if (toleration.key !== taint.key) return false;
  return operator === "Exists" || (toleration.value ?? "") === (taint.value ?? "");
}

const SET_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"] as const;

/** A node-affinity requirement, read as a label selector expression (Gt and Lt are not simulated). */
function matches(requirement: Requirement, labels: Record<string, string>): boolean {
  const operator = SET_OPERATORS.find((o) => o === requirement.operator);
  if (operator === undefined) {
    throw new CannotSimulate(`node affinity operator ${requirement.operator} is not simulated`);
  }
  return selects({ matchExpressions: [{ ...requirement, operator }] }, labels);
}

/** A pod bound to a node: what a later pod's inter-pod affinity and anti-affinity are judged against. */
export interface PlacedPod {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  node: SimulatedNode;
  /** Its own required anti-affinity terms: the scheduler keeps incoming pods they select off their reach. */
  antiAffinity: readonly PodAffinityTerm[];
}

/** The pod being placed (its namespace and labels) and the pods already bound. */
export interface PlacementContext {
  namespace: string;
  labels: Record<string, string>;
  placed: readonly PlacedPod[];
}

/**
 * Why a node does not fit: the world's own words, and the reason the scheduler gives for it
 * (pkg/scheduler/framework/plugins: tainttoleration, nodeaffinity, interpodaffinity), in the order the
 * default profile runs those filters.
 */
interface Unfit {
  reason: string;
  scheduler: string;
}

/** Whether a term selects a pod of `namespace` with `labels`; `own` is the namespace of the term's pod. */
function termSelects(term: PodAffinityTerm, own: string, namespace: string, labels: Record<string, string>) {
  if (term.namespaceSelector !== undefined || term.matchLabelKeys?.length || term.mismatchLabelKeys?.length) {
    throw new CannotSimulate("pod affinity terms with namespaceSelector or label keys are not simulated");
  }
  const namespaces = term.namespaces?.length ? term.namespaces : [own];
  // A term without a labelSelector selects no pod (metav1.LabelSelectorAsSelector of nil is Nothing).
  return (
    namespaces.includes(namespace) && term.labelSelector !== undefined && selects(term.labelSelector, labels)
  );
}

/** Whether two nodes share the term's topology domain: both carry the key, with one value. */
function sameDomain(a: SimulatedNode, b: SimulatedNode, key: string): boolean {
  return Object.hasOwn(a.labels, key) && a.labels[key] === b.labels[key];
}

/** Required inter-pod affinity and anti-affinity of the pod being placed, and the placed pods' anti-affinity. */
function interPodUnfit(pod: PodSpec, node: SimulatedNode, context: PlacementContext): Unfit | undefined {
  const affinity = pod.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  const selected = (term: PodAffinityTerm, p: PlacedPod) =>
    termSelects(term, context.namespace, p.namespace, p.labels);
  // The first pod of a group may go anywhere when no pod matches its terms and it matches them itself.
  const alone =
    context.placed.every((p) => affinity.every((term) => !selected(term, p))) &&
    affinity.every((term) => termSelects(term, context.namespace, context.namespace, context.labels));
  const unmetAffinity = affinity.find(
    (term) => !context.placed.some((p) => selected(term, p) && sameDomain(p.node, node, term.topologyKey)),
  );
  if (unmetAffinity !== undefined && !alone) {
    return {
      reason: `no pod its affinity selects runs in its ${unmetAffinity.topologyKey} domain`,
      scheduler: "node(s) didn't match pod affinity rules",
    };
  }
  const anti = pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  for (const term of anti) {
    const near = context.placed.find((p) => selected(term, p) && sameDomain(p.node, node, term.topologyKey));
    if (near !== undefined) {
      return {
        reason: `${near.name} runs in its ${term.topologyKey} domain and its anti-affinity selects it`,
        scheduler: "node(s) didn't match pod anti-affinity rules",
      };
    }
  }
  for (const p of context.placed) {
    const term = p.antiAffinity.find(
      (t) =>
        termSelects(t, p.namespace, context.namespace, context.labels) &&
        sameDomain(p.node, node, t.topologyKey),
    );
    if (term !== undefined) {
      return {
        reason: `the anti-affinity of ${p.name}, running in its ${term.topologyKey} domain, selects it`,
        scheduler: "node(s) didn't satisfy existing pods anti-affinity rules",
      };
    }
  }
  return undefined;
}

function unfit(pod: PodSpec, node: SimulatedNode, context?: PlacementContext): Unfit | undefined {
  if (
    context === undefined &&
    pod.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length
  ) {
    throw new CannotSimulate("required pod affinity is not simulated for a workload's replicas");
  }
  if (pod.topologySpreadConstraints?.some((c) => c.whenUnsatisfiable !== "ScheduleAnyway")) {
    throw new CannotSimulate("topology spread constraints that refuse to schedule are not simulated");
  }
  const repelling = node.taints.filter((t) => t.effect !== "PreferNoSchedule");
  const untolerated = repelling.find((t) => !(pod.tolerations ?? []).some((tol) => tolerates(tol, t)));
  if (untolerated !== undefined) {
    return {
      reason: `taint ${untolerated.key}${untolerated.value ? `=${untolerated.value}` : ""}:${untolerated.effect} not tolerated`,
      scheduler: "node(s) had untolerated taint(s)",
    };
  }
  const selectorOrAffinity = "node(s) didn't match Pod's node affinity/selector";
  for (const [key, value] of Object.entries(pod.nodeSelector ?? {})) {
    if (node.labels[key] !== value) {
      return { reason: `nodeSelector ${key}=${value} does not match`, scheduler: selectorOrAffinity };
    }
  }
  const terms =
    pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.some((t) => (t.matchFields ?? []).length > 0)) {
    throw new CannotSimulate("node affinity matchFields is not simulated");
  }
  if (
    terms.length > 0 &&
    !terms.some((t) => (t.matchExpressions ?? []).every((r) => matches(r, node.labels)))
  ) {
    return { reason: "required node affinity does not match", scheduler: selectorOrAffinity };
  }
  return context === undefined ? undefined : interPodUnfit(pod, node, context);
}

/**
 * Why `pod` cannot run on `node`, or undefined when it can. Given the pods already bound (`context`), its
 * required inter-pod affinity and anti-affinity count too; without it, required pod affinity is refused
 * and anti-affinity is left to onePerNode (a workload's replicas).
 */
export function whyNot(pod: PodSpec, node: SimulatedNode, context?: PlacementContext): string | undefined {
  return unfit(pod, node, context)?.reason;
}

/**
 * The scheduler's summary when no node fits (its FitError, pkg/scheduler/framework/types.go): each
 * reason with the count of nodes it ruled out, sorted, after `0/<nodes> nodes are available: `. The
 * scheduler adds what preemption found after it; this is its first sentence.
 */
export function unschedulableMessage(
  pod: PodSpec,
  nodes: readonly SimulatedNode[],
  context?: PlacementContext,
): string {
  if (nodes.length === 0) return "no nodes available to schedule pods";
  const counts = new Map<string, number>();
  for (const node of nodes) {
    const reason = unfit(pod, node, context)?.scheduler;
    if (reason !== undefined) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  const reasons = [...counts].map(([reason, count]) => `${count} ${reason}`).sort();
  return `0/${nodes.length} nodes are available: ${reasons.join(", ")}.`;
}

/**
 * Whether replicas must each have a node of their own: required anti-affinity on the hostname against
 * their own labels, or a host port (host network with container ports, or an explicit hostPort).
 */
export function onePerNode(pod: PodSpec, podLabels: Record<string, string>): boolean {
  const antiAffinity = pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  for (const term of antiAffinity) {
    const selector = term.labelSelector?.matchLabels ?? {};
    const selectsItself = Object.entries(selector).every(([k, v]) => podLabels[k] === v);
    if (!selectsItself) throw new CannotSimulate("anti-affinity against other workloads is not simulated");
    if (term.topologyKey !== "kubernetes.io/hostname") {
      throw new CannotSimulate(`required anti-affinity on ${term.topologyKey} is not simulated`);
    }
    return true;
  }
  const ports = (pod.containers ?? []).flatMap((c) => c.ports ?? []);
  return ports.some((p) => p.hostPort !== undefined) || (pod.hostNetwork === true && ports.length > 0);
}
