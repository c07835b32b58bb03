/**
 * The scheduling rules that decide where Calico's pods can run: taints against tolerations, the node
 * selector, required node affinity, and one pod per node for required hostname anti-affinity or a host
 * port. https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/,
 * https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/. A rule the world does not
 * model is refused (CannotSimulate) instead of being assumed to pass.
 */
import { selects } from "./network-policy";
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
    podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: unknown[] };
    podAntiAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: {
        labelSelector?: { matchLabels?: Record<string, string> };
        topologyKey: string;
      }[];
    };
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

/** Why `pod` cannot run on `node`, or undefined when it can. */
export function whyNot(pod: PodSpec, node: SimulatedNode): string | undefined {
  if (pod.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length) {
    throw new CannotSimulate("required pod affinity is not simulated");
  }
  if (pod.topologySpreadConstraints?.some((c) => c.whenUnsatisfiable !== "ScheduleAnyway")) {
    throw new CannotSimulate("topology spread constraints that refuse to schedule are not simulated");
  }
  const repelling = node.taints.filter((t) => t.effect !== "PreferNoSchedule");
  const untolerated = repelling.find((t) => !(pod.tolerations ?? []).some((tol) => tolerates(tol, t)));
  if (untolerated !== undefined) {
    return `taint ${untolerated.key}${untolerated.value ? `=${untolerated.value}` : ""}:${untolerated.effect} not tolerated`;
  }
  for (const [key, value] of Object.entries(pod.nodeSelector ?? {})) {
    if (node.labels[key] !== value) return `nodeSelector ${key}=${value} does not match`;
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
    return "required node affinity does not match";
  }
  return undefined;
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
