/**
 * `cluster.kubeconfig`: a Calico-only stack for a Kubernetes cluster reached through a kubeconfig file (kops
 * or a self-managed cluster on EC2 running the amazon-vpc-cni, or a local test control plane). The stack
 * makes no AWS call and creates no AWS resource; the file itself is read in stacks/kubeconfig.ts.
 */
import { z } from "zod";
import { SELF_MANAGED_STEPS, maxNodesSchema } from "./existing";

export const kubeconfigClusterSchema = z.strictObject({
  /**
   * The kubeconfig file: `~` is the home directory, a relative path is relative to the project directory.
   * Its contents are the Kubernetes provider's kubeconfig (secret), read again at every run.
   */
  path: z
    .string({ error: "must be a string (the kubeconfig file's path)" })
    .min(1, { error: "must not be empty (the kubeconfig file's path)" }),
  /** The context to use; unset: the file's current-context. */
  context: z
    .string({ error: "must be a string (a context name in the kubeconfig)" })
    .min(1, { error: "must not be empty: remove it to use the file's current-context" })
    .optional(),
  /** The most nodes the cluster runs: the calico-node rollout estimate and derived readiness timeout. */
  maxNodes: maxNodesSchema,
  /**
   * The stack cannot see or configure the cluster's VPC CNI through a kubeconfig: `true` states that aws-node
   * runs with its network-policy agent off and ANNOTATE_POD_IP set (or that the cluster has no aws-node).
   */
  vpcCniConfigured: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .refine((configured) => configured, {
      error:
        "is false, and a kubeconfig stack can neither see nor configure the cluster's VPC CNI (aws-node): it must be stated configured",
      params: {
        hint: `before Calico, ${SELF_MANAGED_STEPS}; then set cluster.kubeconfig.vpcCniConfigured: true`,
      },
    }),
});

export type KubeconfigClusterConfig = z.infer<typeof kubeconfigClusterSchema>;
