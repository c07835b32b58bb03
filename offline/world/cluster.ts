/**
 * The simulated Kubernetes cluster: objects echo their spec, workloads report the status the cluster
 * would, given the nodes the node groups start with.
 */

/** How the simulated cluster behaves. */
export interface ClusterSimulation {
  /** Nodes whose calico-node pod is not ready (a rollout in progress or a crash loop). @default 0 */
  notReadyNodes?: number;
}

/** An object's id and state as the cluster would return them after apply. */
export function kubernetesObject(
  type: string,
  inputs: Record<string, unknown>,
  nodeCount: number,
  simulation: ClusterSimulation,
): { id: string; state: Record<string, unknown> } {
  const metadata = (inputs.metadata ?? {}) as { name?: string; namespace?: string };
  const id = [metadata.namespace, metadata.name].filter((p) => p !== undefined).join("/");
  const state: Record<string, unknown> = { ...inputs };
  if (type === "kubernetes:apps/v1:DaemonSet") {
    // calico-node tolerates every taint, so every node runs one pod.
    const desired = nodeCount;
    const ready = Math.max(0, desired - (simulation.notReadyNodes ?? 0));
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
    const replicas = (inputs.spec as { replicas?: number } | undefined)?.replicas ?? 1;
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
