/**
 * The stack's mode: a full stack (VPC, EKS cluster, node groups), or Calico alone on a cluster made
 * elsewhere, named in AWS (`cluster.existing`) or reached through a kubeconfig file (`cluster.kubeconfig`).
 * Keys for what a Calico-only stack does not create are refused rather than ignored.
 */
import type { ConfigProblem } from "../problems";
import { isRecord } from "./records";
import { EXISTING_PROTECT } from "./existing";

/** A key of a full stack that configures what a Calico-only stack does not create, and why. */
interface RefusedKey {
  readonly path: string[];
  readonly why: string;
}

/**
 * The keys both Calico-only modes refuse: the network, the node groups, and the cluster's own settings;
 * `network` and `cluster` word the why for the mode.
 */
function notForClusterElsewhere(network: string, cluster: string): RefusedKey[] {
  return [
    { path: ["network"], why: network },
    { path: ["nodeGroups"], why: "the cluster's nodes are managed where the cluster was made" },
    ...[
      "version",
      "upgradePolicy",
      "publicAccessCidrs",
      "deploysFromInsideVpc",
      "logTypes",
      "logRetentionDays",
      "addons",
      "vpcCni",
      "podIdentity",
      "access",
    ].map((key) => ({ path: ["cluster", key], why: `this stack does not manage the ${cluster} itself` })),
  ];
}

/**
 * An existing-cluster stack creates nothing `protect` guards (the VPC, the cluster, its KMS key and log
 * group), and the vpc-cni add-on it takes over is retained on delete: protecting it too would only make
 * `pulumi destroy` refuse (stacks/schema/existing.ts EXISTING_PROTECT).
 */
const NOT_FOR_EXISTING: readonly RefusedKey[] = [
  ...notForClusterElsewhere("the cluster's VPC already exists", "EKS cluster"),
  { path: ["protect"], why: EXISTING_PROTECT },
];

/** A kubeconfig stack has no AWS resource at all: not even the add-on an existing-cluster stack tags. */
const NOT_FOR_KUBECONFIG: readonly RefusedKey[] = [
  ...notForClusterElsewhere("the cluster's network already exists", "cluster"),
  { path: ["tags"], why: "the stack creates no AWS resource to tag" },
  { path: ["protect"], why: "the stack creates no AWS resource to protect" },
];

/** The keys of `refused` that `raw` sets, as problems. */
function refusedKeys(
  raw: Record<string, unknown>,
  refused: readonly RefusedKey[],
  mode: string,
  what: string,
): ConfigProblem[] {
  return refused.flatMap(({ path, why }) => {
    const parent =
      path.length === 1 ? raw : isRecord(raw[path[0]]) ? (raw[path[0]] as Record<string, unknown>) : {};
    const value = parent[path[path.length - 1]];
    return value === undefined
      ? []
      : [
          {
            path: path.join("."),
            value,
            rule: `must not be set with ${mode}: ${why}`,
            hint: `remove it from the stack file: ${what} installs Calico only`,
          },
        ];
  });
}

/** The cluster made elsewhere a stack names (`cluster.kubeconfig`, else `cluster.existing`), as raw keys. */
export function clusterElsewhere(config: Record<string, unknown>): Record<string, unknown> | undefined {
  const cluster = isRecord(config.cluster) ? config.cluster : {};
  const elsewhere = cluster.kubeconfig ?? cluster.existing;
  return isRecord(elsewhere) ? elsewhere : undefined;
}

/** Whether the stack reaches its cluster through a kubeconfig file: then nothing may ask AWS. */
export function isKubeconfigStack(raw: Record<string, unknown>): boolean {
  return isRecord(raw.cluster) && raw.cluster.kubeconfig !== undefined;
}

/**
 * Problems of the stack's mode, read from the raw keys (the schema's defaults hide what was set): on a
 * Calico-only stack, every key for what it does not create; on a full stack, `nodeGroups` is required.
 */
export function clusterModeProblems(raw: Record<string, unknown>): ConfigProblem[] {
  const cluster = isRecord(raw.cluster) ? raw.cluster : {};
  if (cluster.kubeconfig !== undefined) {
    return [
      ...(cluster.existing === undefined
        ? []
        : [
            {
              path: "cluster.kubeconfig",
              value: cluster.kubeconfig,
              rule: "must not be set with cluster.existing: a stack installs Calico on one cluster, named in AWS (cluster.existing) or reached through a kubeconfig file (cluster.kubeconfig)",
              hint: "keep one of the two",
            },
          ]),
      ...refusedKeys(raw, NOT_FOR_KUBECONFIG, "cluster.kubeconfig", "a kubeconfig stack"),
    ];
  }
  if (cluster.existing !== undefined) {
    return refusedKeys(raw, NOT_FOR_EXISTING, "cluster.existing", "an existing-cluster stack");
  }
  return raw.nodeGroups === undefined
    ? [
        {
          path: "nodeGroups",
          value: undefined,
          rule: "is required unless cluster.existing or cluster.kubeconfig names a cluster",
        },
      ]
    : [];
}
