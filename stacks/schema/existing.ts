/**
 * `cluster.existing`: a Calico-only stack for an EKS cluster made elsewhere (eksctl, Terraform, the
 * console). The stack then creates no VPC, cluster or node groups, so the keys that configure those are
 * refused rather than ignored.
 */
import { z } from "zod";
import { AWS_LIMITS } from "./aws-limits";
import { described } from "./described";

/** EKS cluster names: letters, digits, '-' and '_', starting with a letter or digit, at most 100. */
const EKS_CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** EKS's default quotas' nodes per cluster across its node groups: 30 groups of 450 (aws-limits.ts). */
export const MAX_EXISTING_NODES = AWS_LIMITS.nodeGroupsPerCluster.value * AWS_LIMITS.nodesPerNodeGroup.value;

/**
 * What to change on a self-managed VPC CNI before Calico runs beside it. The agent's container is
 * `aws-eks-nodeagent` (image aws-network-policy-agent): amazon-vpc-cni-k8s
 * charts/aws-vpc-cni/templates/daemonset.yaml.
 */
export const SELF_MANAGED_STEPS =
  "turn the VPC CNI's network-policy agent off (--enable-network-policy=false on the aws-eks-nodeagent container, or enableNetworkPolicy: false in the aws-vpc-cni Helm values) and set ANNOTATE_POD_IP=true on the aws-node container (this stack grants aws-node `pods: patch` for it)";

/**
 * Why `protect` is refused with `cluster.existing`: the rule docs/destroy.md states. `protect` guards what
 * a full stack creates; an existing-cluster stack creates none of it, and keeps the one thing of the
 * user's it takes over, the vpc-cni add-on, with retainOnDelete, which never deletes it.
 */
export const EXISTING_PROTECT =
  "it protects what a full stack creates (the VPC, the cluster, its KMS key and log group), and an existing-cluster stack creates none of them; the vpc-cni add-on it takes over is retained on delete, so no destroy deletes it";

/**
 * The most nodes a cluster made elsewhere runs (cluster.existing, cluster.kubeconfig): required, since the
 * calico-node rollout estimate and the derived readiness timeout depend on it and no default fits every
 * cluster.
 */
export const maxNodesSchema = z
  .number({ error: "is required (the most nodes the cluster runs, for the readiness timeout)" })
  .int({ error: "must be a whole number" })
  .min(1, { error: "must be at least 1" })
  .max(MAX_EXISTING_NODES, { error: `must be at most ${MAX_EXISTING_NODES}` })
  .meta(
    described(
      "The most nodes the cluster runs: the calico-node rollout estimate and the derived readiness timeout use it.",
      `The most is what EKS's default quotas allow a cluster: ${AWS_LIMITS.nodeGroupsPerCluster.value} node groups of ${AWS_LIMITS.nodesPerNodeGroup.value}.`,
    ),
  );

/**
 * The fewest nodes a cluster made elsewhere keeps, at most `maxNodes`: Typha starts at its size, and from
 * two a Typha rollout starts a new replica before an old one stops (components/calico/typha.ts).
 */
export const minNodesSchema = z
  .number({ error: "must be a number (the fewest nodes the cluster keeps)" })
  .int({ error: "must be a whole number" })
  .min(1, { error: "must be at least 1" })
  .default(1)
  .meta(
    described(
      "At most `maxNodes`: the fewest nodes the cluster keeps. Typha starts with the replicas for it, and from 2 a Typha upgrade starts each new replica before an old one stops ([Operating Calico](operating-calico.md)).",
    ),
  );

/** `minNodes` above `maxNodes`, reported at minNodes. */
export function minNodesWithinMax(cluster: { minNodes: number; maxNodes: number }, ctx: z.RefinementCtx) {
  if (cluster.minNodes <= cluster.maxNodes) return;
  ctx.addIssue({
    code: "custom",
    path: ["minNodes"],
    input: cluster.minNodes,
    message: `must be at most maxNodes (${cluster.maxNodes})`,
  });
}

export const existingClusterSchema = z
  .strictObject({
    name: z
      .string({ error: "is required (the EKS cluster's name)" })
      .regex(EKS_CLUSTER_NAME, {
        error:
          "must be an EKS cluster name: 1-100 letters, digits, '-' or '_', starting with a letter or digit",
      })
      .meta(
        described(
          "With `cluster.existing`: the name of an EKS cluster made elsewhere, in `aws:region`.",
          "The stack installs only Calico on it (see [Bring your own cluster](existing-clusters.md)); `network`, `nodeGroups`, `protect` and every other `cluster` key are refused.",
        ),
      ),
    maxNodes: maxNodesSchema,
    minNodes: minNodesSchema,
    vpcCniConfigured: z
      .boolean({ error: "must be true or false" })
      .default(false)
      .meta(
        described(
          "Only for a self-managed VPC CNI (no `vpc-cni` EKS add-on), which the stack cannot configure: `true` states that aws-node runs with its network-policy agent off and `ANNOTATE_POD_IP=true`.",
          "Until then the stack refuses to plan.",
        ),
      ),
    // Required while the agent is on: stacks/existing.ts reads the add-on's configuration.
    networkPolicyAgent: z
      .enum(["on", "off"], { error: 'must be "on" or "off"' })
      .optional()
      .meta(
        described(
          "Only for a `vpc-cni` EKS add-on: `on` keeps its network-policy agent on beside Calico, `off` turns it off in AWS's order once calico-node is ready and no network policy is left (the [hand-over steps](existing-clusters.md)).",
          "Unset means `off`; required while the agent is on, and `on` is refused where it is off.",
        ),
      ),
  })
  .superRefine(minNodesWithinMax);

export type ExistingClusterConfig = z.infer<typeof existingClusterSchema>;
