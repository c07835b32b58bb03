/**
 * The cluster behind a kubeconfig stack's file (`cluster.kubeconfig`). The offline world cannot reach it:
 * it simulates the one the evaluation describes, or else a plain one with the existing-cluster default's
 * nodes, and says so in the plan, naming the context and server the provider was given. It answers no AWS
 * call: a kubeconfig stack makes none.
 */
import { kubeconfigTarget } from "../../components/kubeconfig-cluster/kubeconfig";
import { DEFAULT_EXISTING_CLUSTER } from "./existing";
import { type SimulatedNode, nodesOfGroup } from "./nodes";

export interface KubeconfigClusterSimulation {
  /** Nodes the cluster runs, untainted. */
  readonly nodes?: number;
}

/** The component whose registration says the stack's cluster is behind a kubeconfig. */
export const KUBECONFIG_CLUSTER_TYPE = "eks-calico:cluster:Kubeconfig";

/** The simulated cluster behind the kubeconfig: its nodes, and how the plan describes it. */
export class KubeconfigClusterWorld {
  private readonly count: number;
  private described = false;

  constructor(simulation: KubeconfigClusterSimulation | undefined) {
    this.count = simulation?.nodes ?? DEFAULT_EXISTING_CLUSTER.nodes;
  }

  /**
   * Untainted amd64 nodes with the labels the kubelet sets; none of EKS's (a kops or self-managed cluster
   * has no EKS node group).
   */
  nodes(): SimulatedNode[] {
    return nodesOfGroup("kubeconfig-cluster", { scalingConfig: { desiredSize: this.count } }).map((node) => ({
      ...node,
      labels: Object.fromEntries(
        Object.entries(node.labels).filter(([key]) => !key.startsWith("eks.amazonaws.com/")),
      ),
    }));
  }

  /**
   * How the plan describes the cluster, from the first Kubernetes provider's inputs (the kubeconfig and
   * context it is given); undefined once said.
   */
  describeOnce(providerInputs: Record<string, unknown>): string | undefined {
    if (this.described) return undefined;
    this.described = true;
    const { kubeconfig, context } = providerInputs;
    const read =
      typeof kubeconfig === "string"
        ? kubeconfigTarget(kubeconfig, typeof context === "string" ? context : undefined)
        : undefined;
    const which = read !== undefined ? `context ${read.context} (${read.server})` : "its context";
    const nodes = `${this.count} untainted node${this.count === 1 ? "" : "s"}`;
    return `cluster behind the kubeconfig, ${which}: not reachable offline, simulated as ${nodes}; its Kubernetes version and VPC CNI are not known`;
  }
}
