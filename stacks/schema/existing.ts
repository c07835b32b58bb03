/**
 * `cluster.existing`: a Calico-only stack for an EKS cluster made elsewhere (eksctl, Terraform, the
 * console). The stack then creates no VPC, cluster or node groups, so the keys that configure those are
 * refused rather than ignored.
 */
import { z } from "zod";
import type { ConfigProblem } from "../problems";
import { isRecord } from "./records";

/** EKS cluster names: letters, digits, '-' and '_', starting with a letter or digit, at most 100. */
const EKS_CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** EKS's default quota of nodes per cluster across its node groups (30 groups of 450). */
export const MAX_EXISTING_NODES = 13500;

export const existingClusterSchema = z.strictObject({
  /** The EKS cluster's name, in `aws:region`. */
  name: z.string({ error: "is required (the EKS cluster's name)" }).regex(EKS_CLUSTER_NAME, {
    error: "must be an EKS cluster name: 1-100 letters, digits, '-' or '_', starting with a letter or digit",
  }),
  /** The most nodes the cluster runs: the calico-node rollout estimate and derived readiness timeout. */
  maxNodes: z
    .number({ error: "is required (the most nodes the cluster runs, for the readiness timeout)" })
    .int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" })
    .max(MAX_EXISTING_NODES, { error: `must be at most ${MAX_EXISTING_NODES}` }),
  /**
   * A self-managed VPC CNI (no EKS add-on) cannot be configured by this stack: `true` states that aws-node
   * runs with its network-policy agent off and ANNOTATE_POD_IP set, as the refusal described.
   */
  vpcCniConfigured: z.boolean({ error: "must be true or false" }).default(false),
});

export type ExistingClusterConfig = z.infer<typeof existingClusterSchema>;

/** Keys of a full stack that configure what an existing-cluster stack does not create, and why. */
const NOT_FOR_EXISTING: readonly { path: string[]; why: string }[] = [
  { path: ["network"], why: "the cluster's VPC already exists" },
  { path: ["nodeGroups"], why: "the cluster's nodes are managed where the cluster was made" },
  ...[
    "version",
    "publicAccessCidrs",
    "deploysFromInsideVpc",
    "logTypes",
    "logRetentionDays",
    "addons",
    "access",
  ].map((key) => ({ path: ["cluster", key], why: "this stack does not manage the EKS cluster itself" })),
];

/**
 * Problems of the stack's mode, read from the raw keys (the schema's defaults hide what was set): with
 * `cluster.existing`, every key for what the stack does not create; without it, `nodeGroups` is required.
 */
export function clusterModeProblems(raw: Record<string, unknown>): ConfigProblem[] {
  const cluster = raw.cluster;
  const existing = isRecord(cluster) ? cluster.existing : undefined;
  if (existing === undefined) {
    return raw.nodeGroups === undefined
      ? [
          {
            path: "nodeGroups",
            value: undefined,
            rule: "is required unless cluster.existing names a cluster",
          },
        ]
      : [];
  }
  return NOT_FOR_EXISTING.flatMap(({ path, why }) => {
    const parent =
      path.length === 1 ? raw : isRecord(raw[path[0]]) ? (raw[path[0]] as Record<string, unknown>) : {};
    const value = parent[path[path.length - 1]];
    return value === undefined
      ? []
      : [
          {
            path: path.join("."),
            value,
            rule: `must not be set with cluster.existing: ${why}`,
            hint: "remove it from the stack file: an existing-cluster stack installs Calico only",
          },
        ];
  });
}
