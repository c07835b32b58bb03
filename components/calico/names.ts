/**
 * In-cluster names and ports. They are what Calico's components look for (Felix finds Typha through the
 * `calico-typha` Service) and what operators type into kubectl, so they are fixed, not derived from the
 * Pulumi resource name.
 */

export const CALICO_NODE = "calico-node";
export const CALICO_TYPHA = "calico-typha";

/** The images of calico-node and Typha under the Calico registry: `<registry>/node:<version>`. */
export const CALICO_NODE_IMAGE = "node";
export const TYPHA_IMAGE = "typha";

/** ClusterRole that lets kube-controller-manager's garbage collector resolve tier owners. */
export const TIER_GETTER = "calico-tier-getter";

/** ClusterRole (and binding) granting the VPC CNI `pods: patch` for ANNOTATE_POD_IP. */
export const AWS_NODE_POD_PATCHER = "eks-calico-aws-node-pod-patch";

/** The VPC CNI's ServiceAccount, always `kube-system:aws-node` on EKS. */
export const AWS_NODE_SERVICE_ACCOUNT = { name: "aws-node", namespace: "kube-system" } as const;

/** Typha's fixed port (host network): Felix connects here. */
export const TYPHA_PORT = 5473;

/** Typha's health port: Felix's default 9099 minus one, as the Tigera operator configures it. */
export const TYPHA_HEALTH_PORT = 9098;

/** The cluster-proportional-autoscaler that scales Typha, its ServiceAccount, roles and ConfigMap. */
export const CALICO_TYPHA_AUTOSCALER = "calico-typha-autoscaler";

/**
 * A Typha as Felix finds it: the name of its Deployment, Service and PodDisruptionBudget (also its pods'
 * `k8s-app` label, so two Typhas never select each other's pods), and its two host ports.
 */
export interface TyphaEndpoint {
  readonly name: string;
  readonly port: number;
  readonly healthPort: number;
}

export const STANDARD_TYPHA: TyphaEndpoint = {
  name: CALICO_TYPHA,
  port: TYPHA_PORT,
  healthPort: TYPHA_HEALTH_PORT,
};

/**
 * The Typha a takeover (`calico.adopt`) runs while an old manifest's `calico-typha` still serves the
 * old calico-node pods. Its own name keeps the two apart: Felix finds Typha through the EndpointSlices of
 * the Service its FELIX_TYPHAK8SSERVICENAME names (typha/pkg/discovery/discovery.go, v3.31.7), so old
 * pods keep the old Typha (no TLS) and new pods get this one (mutual TLS only, which old Felix cannot
 * speak: typha/pkg/config/config_params.go requiringTLS). Its own host ports let both run on one node:
 * both use the host network, and the scheduler places no two pods with the same host port on a node.
 * Felix takes the port from the Service's port named `calico-typha`, so the port needs no Felix setting.
 */
export const TAKEOVER_TYPHA: TyphaEndpoint = {
  name: "calico-typha-takeover",
  port: 5474,
  healthPort: 9097,
};
