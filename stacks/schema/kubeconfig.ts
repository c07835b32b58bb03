/**
 * `cluster.kubeconfig`: a Calico-only stack for a Kubernetes cluster reached through a kubeconfig file (kops
 * or a self-managed cluster on EC2 running the amazon-vpc-cni, or a local test control plane). The stack
 * makes no AWS call and creates no AWS resource; the file itself is read in stacks/kubeconfig.ts.
 */
import { z } from "zod";
import { SELF_MANAGED_STEPS, maxNodesSchema, minNodesSchema, minNodesWithinMax } from "./existing";
import { described } from "./described";

export const kubeconfigClusterSchema = z
  .strictObject({
    path: z
      .string({ error: "must be a string (the kubeconfig file's path)" })
      .min(1, { error: "must not be empty (the kubeconfig file's path)" })
      .meta(
        described(
          "With `cluster.kubeconfig`: a kubeconfig file (`~` is the home directory; a relative path is relative to the project directory). It is read before any resource, and on `pulumi preview` and `up` its context must reach its cluster ([What is checked before any resource](kubeconfig-clusters.md#what-is-checked-before-any-resource)).",
          "Its contents are the Kubernetes provider's kubeconfig (secret), read again at every run.",
          "The stack installs only Calico on the cluster it reaches, with no AWS call (see [A cluster reached through a kubeconfig](kubeconfig-clusters.md)); `cluster.existing`, `network`, `nodeGroups`, `tags`, `protect` and every other `cluster` key are refused.",
        ),
      ),
    context: z
      .string({ error: "must be a string (a context name in the kubeconfig)" })
      .min(1, { error: "must not be empty: remove it to use the file's current-context" })
      .optional()
      .meta(
        described(
          "A context of that file; unset: the file's current-context.",
          "Its cluster's server URL is the provider's cluster identifier.",
        ),
      ),
    maxNodes: maxNodesSchema,
    minNodes: minNodesSchema,
    vpcCniConfigured: z
      .boolean({ error: "must be true or false" })
      .default(false)
      .refine((configured) => configured, {
        error:
          "is false, and a kubeconfig stack can neither see nor configure the cluster's VPC CNI (aws-node): it must be stated configured",
        params: {
          hint: `before Calico, ${SELF_MANAGED_STEPS}; then set cluster.kubeconfig.vpcCniConfigured: true`,
        },
      })
      .meta(
        described(
          "The stack cannot see or configure the cluster's VPC CNI: `true` states that aws-node runs with its network-policy agent off and `ANNOTATE_POD_IP=true` (or that there is no aws-node).",
          "Until then the stack refuses to plan.",
        ),
      ),
  })
  .superRefine(minNodesWithinMax);

export type KubeconfigClusterConfig = z.infer<typeof kubeconfigClusterSchema>;
