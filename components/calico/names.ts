/**
 * In-cluster names and ports. They are what Calico's components look for (Felix finds Typha through the
 * `calico-typha` Service) and what operators type into kubectl, so they are fixed, not derived from the
 * Pulumi resource name.
 */

export const CALICO_NODE = "calico-node";
export const CALICO_TYPHA = "calico-typha";

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
