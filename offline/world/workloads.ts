/**
 * What the simulated cluster reports for each Kubernetes object after apply. Workloads are placed on the
 * simulated nodes by the rules of scheduling.ts: a DaemonSet wants a pod on every node its pods can run
 * on; a Deployment is ready only as far as its replicas can be placed. Where pulumi-kubernetes' await
 * would time out (replicas that cannot be scheduled, pods not ready), the apply fails here with the
 * reason, as `pulumi up` would after its timeout.
 */
import type { ExistingClusterSimulation } from "./existing";
import type { KubeconfigClusterSimulation } from "./kubeconfig";
import type { NodeGroupSimulation } from "./node-groups";
import type { NetworkSimulation } from "./vpcs";
import type { ManifestObject } from "../adoption/objects";
import type { SimulatedNode } from "./nodes";
import { type PlacedPod, type PodSpec, onePerNode, whyNot } from "./scheduling";

/** How the simulated cluster behaves beyond what the program decides. */
export interface ClusterSimulation {
  /** The EKS cluster an existing-cluster stack names (offline/world/existing.ts); unset: a default one. */
  existingCluster?: ExistingClusterSimulation;
  /** The cluster behind a kubeconfig stack's file (offline/world/kubeconfig.ts); unset: a default one. */
  kubeconfigCluster?: KubeconfigClusterSimulation;
  /** Objects already in the cluster, applied with kubectl (offline/world/adoption.ts). */
  existingObjects?: readonly ManifestObject[];
  /** Nodes whose calico-node pod never becomes ready (a crash loop, an image that cannot be pulled). */
  notReadyNodes?: number;
  /**
   * calico-node runs and reports ready but Felix does not enforce policy (for example another agent owns
   * the pod interfaces): every connection gets through.
   */
  policyNotEnforced?: boolean;
  /**
   * A policy of the cluster's own, named by `by` (a namespace's default-deny egress, a Calico
   * GlobalNetworkPolicy ordered before the probe's), that blocks the probe clients' DNS (`dns`) or their
   * egress to the probe server.
   */
  probeBlocked?: { by: string; dns: boolean };
  /** When the tls provider issues certificates (ISO time): a renewal; unset: SIMULATED_ISSUE_TIME (tls.ts). */
  certificatesIssuedAt?: string;
  /** The stack's deployed node groups changed outside Pulumi (offline/world/node-groups.ts). */
  nodeGroups?: NodeGroupSimulation;
  /** The stack's VPC and subnets on AWS, and AZs AWS does not offer now (offline/world/vpcs.ts). */
  network?: NetworkSimulation;
  /**
   * Whether AWS has a full stack's own cluster (offline/world/stack-cluster.ts): `true` though the stack
   * has no outputs (a first `up` created it, then failed), `false` though its last outputs name it (it was
   * deleted outside Pulumi); unset, AWS has it exactly when the last outputs name it.
   */
  stackClusterExists?: boolean;
}

/** An apply that `pulumi up` would fail, with what the cluster would show. */
export class SimulatedFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SimulatedFailure";
  }
}

interface Workload {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { replicas?: number; template?: { metadata?: { labels?: Record<string, string> }; spec?: PodSpec } };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** Nodes `pod` can run on, and why the first of the others cannot. */
function placement(pod: PodSpec, nodes: readonly SimulatedNode[]) {
  const eligible: SimulatedNode[] = [];
  let excluded: string | undefined;
  for (const node of nodes) {
    const reason = whyNot(pod, node);
    if (reason === undefined) eligible.push(node);
    else excluded ??= `${node.name}: ${reason}`;
  }
  return { eligible, excluded };
}

/**
 * An object's id and state as the cluster would return them, or a SimulatedFailure. A Deployment's pods
 * join `pods`, each on the first node that fits (one per node where onePerNode says so): which node the
 * scheduler picks among those is not known offline, so only what holds wherever it lands may depend on it.
 */
export function applyObject(
  type: string,
  inputs: Record<string, unknown>,
  nodes: readonly SimulatedNode[],
  simulation: ClusterSimulation,
  notes: string[],
  pods: PlacedPod[] = [],
): { id: string; state: Record<string, unknown> } {
  const workload = inputs as Workload;
  const name = workload.metadata?.name ?? "(unnamed)";
  const id = [workload.metadata?.namespace, workload.metadata?.name].filter((p) => p !== undefined).join("/");
  const state: Record<string, unknown> = { ...inputs };
  const pod = workload.spec?.template?.spec ?? {};

  if (type === "kubernetes:apps/v1:DaemonSet") {
    const { eligible, excluded } = placement(pod, nodes);
    const desired = eligible.length;
    const ready = Math.max(0, desired - (simulation.notReadyNodes ?? 0));
    if (ready < desired) {
      throw new SimulatedFailure(
        `${name}: ${ready} of ${plural(desired, "pod")} ready; \`pulumi up\` fails when the readiness await times out`,
      );
    }
    notes.push(
      `${name}: ${plural(desired, "pod")} desired and ready, one on each of ${desired} of ${plural(nodes.length, "node")}` +
        (excluded !== undefined ? ` (not on ${nodes.length - desired}: ${excluded})` : ""),
    );
    state.status = {
      observedGeneration: 1,
      desiredNumberScheduled: desired,
      currentNumberScheduled: desired,
      updatedNumberScheduled: ready,
      numberReady: ready,
      numberAvailable: ready,
      numberUnavailable: desired - ready,
      numberMisscheduled: 0,
    };
  }

  if (type === "kubernetes:apps/v1:Deployment") {
    const replicas = workload.spec?.replicas ?? 1;
    const { eligible, excluded } = placement(pod, nodes);
    const perNode = onePerNode(pod, workload.spec?.template?.metadata?.labels ?? {});
    const placed = perNode ? Math.min(replicas, eligible.length) : eligible.length > 0 ? replicas : 0;
    if (placed < replicas) {
      throw new SimulatedFailure(
        `${name}: ${replicas - placed} of ${plural(replicas, "replica")} cannot be scheduled: ` +
          `${plural(eligible.length, "node")} ${eligible.length === 1 ? "fits" : "fit"}` +
          (perNode ? ", one replica per node" : "") +
          (excluded !== undefined ? ` (${excluded})` : ""),
      );
    }
    notes.push(
      `${name}: ${plural(replicas, "replica")} scheduled and ready on ${plural(eligible.length, "eligible node")}`,
    );
    const template = workload.spec?.template;
    for (let i = 0; i < replicas; i++) {
      pods.push({
        name: `${name}-${i + 1}`,
        namespace: workload.metadata?.namespace ?? "default",
        labels: template?.metadata?.labels ?? {},
        node: eligible[perNode ? i : 0],
        antiAffinity: pod.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
      });
    }
    state.status = {
      observedGeneration: 1,
      replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      updatedReplicas: replicas,
    };
  }
  return { id, state };
}
