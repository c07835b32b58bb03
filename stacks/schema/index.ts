/**
 * The stack configuration contract: every `eks-calico:*` key a stack file may set, its rules and its
 * default. This folder is the single home of every default and description (one file per top-level key);
 * `npm run docs:config` writes docs/config-reference.md from it.
 */
import { z } from "zod";
import { calicoSchema, checkProbeNodes } from "./calico";
import { clusterSchema } from "./cluster";
import { networkSchema } from "./network";
import { type TAINT_EFFECTS, nodeGroupsSchema } from "./node-groups";
import { coversWholeInternet, rangeOf } from "../../components/network/cidr-ranges";
import { isRecord } from "./records";
import { clusterElsewhere } from "./modes";
import { checkPodAddresses } from "./pod-addresses";
import { checkPodCapacity } from "./pod-capacity";
import { checkAmiReleases } from "./ami-release";
import { checkInstaller } from "./installer";
import { tagsSchema } from "./tags";
import { karpenterNodeBounds, karpenterSchema } from "./karpenter";
import { checkDeploy, deploySchema } from "./deploy";
import { described } from "./described";
import {
  MAX_TIMEOUT_MINUTES,
  derivedTimeoutMinutes,
  describeEstimate,
  estimateRollout,
  minutesOf,
} from "../../components/calico/rollout";

export {
  SUPPORTED_KUBERNETES_VERSIONS,
  KUBERNETES_VERSIONS_READ,
  newerKubernetesVersion,
  CONTROL_PLANE_LOG_TYPES,
  LOG_RETENTION_DAYS,
  END_OF_STANDARD_SUPPORT,
  UPGRADE_POLICIES,
  type UpgradePolicy,
} from "./cluster";
export { clusterSchema } from "./cluster";
export { MIN_SUBNET_PREFIX } from "./network";
export { TAINT_EFFECTS, DISK_SIZE_GIB } from "./node-groups";
export { MAX_TAGS, RESERVED_TAG_COUNT } from "./tags";
export { GITHUB_HOSTED_LABELS, RUNNERS, type DeployConfig, runnerLabels } from "./deploy";
export { type ExistingClusterConfig, SELF_MANAGED_STEPS } from "./existing";
export { type KubeconfigClusterConfig } from "./kubeconfig";
export { clusterModeProblems, isKubeconfigStack } from "./modes";
export { registryAddressProblems } from "./registry";

/** The whole `eks-calico:*` namespace. Each field is one stack config key. */
export const stackConfigSchema = z
  .strictObject({
    network: networkSchema.prefault({}),
    cluster: clusterSchema.prefault({}),
    // Required unless `cluster.existing` or `cluster.kubeconfig` names a cluster: stacks/schema/modes.ts.
    nodeGroups: nodeGroupsSchema.optional(),
    calico: calicoSchema.prefault({}),
    karpenter: karpenterSchema.prefault({}),
    tags: tagsSchema.default({}),
    /** Where the stack's CI jobs run, and what the cluster security group admits from there. */
    deploy: deploySchema.prefault({}),
    protect: z
      .boolean({ error: "must be true or false" })
      .default(false)
      .meta(
        described(
          "Marks a production stack: `true` protects the VPC, the EKS cluster, its KMS key and its log group from deletion by Pulumi (`pulumi destroy` refuses until it is `false`).",
          "It also refuses a `cluster.publicAccessCidrs` that opens the API endpoint to the whole internet.",
          "Refused with `cluster.existing` and `cluster.kubeconfig`, which create none of these ([Destroying a stack](destroy.md)).",
        ),
      ),
  })
  .superRefine(
    (config, ctx) => {
      // A cluster made elsewhere has an endpoint not this stack's: the defaults of the cluster keys mean nothing.
      const elsewhere =
        isRecord(config.cluster) && (config.cluster.existing ?? config.cluster.kubeconfig) !== undefined;
      const cidrs: unknown =
        isRecord(config.cluster) && !elsewhere ? config.cluster.publicAccessCidrs : undefined;
      // By meaning, not spelling: 0.0.0.0/1 and 128.0.0.0/1 open the endpoint as wide as 0.0.0.0/0.
      if (config.protect === true && Array.isArray(cidrs)) {
        const valid = cidrs.filter((c): c is string => typeof c === "string" && rangeOf(c) !== undefined);
        const message =
          "must not open the API endpoint to the whole internet on a protected (production) stack; list your ranges, or [] for private only";
        const whole = cidrs.findIndex((c) => typeof c === "string" && coversWholeInternet([c]));
        if (whole >= 0) {
          ctx.addIssue({
            code: "custom",
            path: ["cluster", "publicAccessCidrs", whole],
            input: cidrs[whole],
            message,
          });
        } else if (coversWholeInternet(valid)) {
          ctx.addIssue({
            code: "custom",
            path: ["cluster", "publicAccessCidrs"],
            input: cidrs,
            message: `${message} (together these blocks cover every IPv4 address)`,
          });
        }
      }
      checkRolloutTimeout(config, ctx);
      checkPodAddresses(config, ctx);
      checkPodCapacity(config, ctx);
      checkAmiReleases(config, ctx);
      checkProbeNodes(config, ctx);
      checkInstaller(config, ctx);
      checkDeploy(config, ctx);
      const karpenter: Record<string, unknown> = isRecord(config.karpenter) ? config.karpenter : {};
      if (karpenter.enabled === true && elsewhere) {
        ctx.addIssue({
          code: "custom",
          path: ["karpenter", "enabled"],
          input: true,
          message:
            "applies to a stack that makes its cluster: with cluster.existing or cluster.kubeconfig the node groups, roles and subnets are not this stack's; remove it",
        });
      }
    },
    { when: () => true },
  );

/** The most nodes calico-node may have to roll over: every group at its maxSize (Karpenter at its limits). */
export function maxRolloutNodes(groups: readonly { maxSize: number }[]): number {
  return groups.reduce((sum, g) => sum + g.maxSize, 0);
}

/**
 * A configured readiness timeout must fit the estimated rollout at the groups' maximum size; a derived one
 * must stay within the longest wait accepted.
 */
function checkRolloutTimeout(config: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  // A cluster made elsewhere has its rollout sized by its maxNodes, as one group of that size.
  const elsewhere = clusterElsewhere(config);
  const groups = elsewhere !== undefined ? [{ maxSize: elsewhere.maxNodes }] : config.nodeGroups;
  const calico = config.calico;
  if (!Array.isArray(groups) || !isRecord(calico)) return;
  const sizes = [...(groups as unknown[]), ...karpenterNodeBounds(config.karpenter)].map((g: unknown) =>
    isRecord(g) ? g.maxSize : undefined,
  );
  const { maxUnavailable, readinessTimeoutMinutes: timeout } = calico;
  const validMax = typeof maxUnavailable === "number" || /^\d+%$/.test(String(maxUnavailable));
  if (!sizes.every((s) => typeof s === "number" && s >= 0) || !validMax) return;
  const estimate = estimateRollout(
    maxRolloutNodes(sizes.map((maxSize) => ({ maxSize: maxSize as number }))),
    maxUnavailable as never,
  );
  const needed = minutesOf(estimate.seconds);
  if (typeof timeout === "number" && timeout < needed) {
    ctx.addIssue({
      code: "custom",
      path: ["calico", "readinessTimeoutMinutes"],
      input: timeout,
      message: `is shorter than the estimated calico-node rollout (${describeEstimate(estimate, maxUnavailable as never)}): raise it to at least ${needed}, raise calico.maxUnavailable, or remove it to use the derived ${derivedTimeoutMinutes(estimate)}`,
    });
  } else if (timeout === undefined && derivedTimeoutMinutes(estimate) > MAX_TIMEOUT_MINUTES) {
    ctx.addIssue({
      code: "custom",
      path: ["calico", "maxUnavailable"],
      input: maxUnavailable,
      message: `makes the calico-node rollout too slow to wait for (${describeEstimate(estimate, maxUnavailable as never)}): raise it, for example to "10%"`,
    });
  }
}

/** What a wrapper (optional, default, a pipe's input) stands for: the schema that checks the value. */
function unwrapped(schema: z.core.$ZodType): z.core.$ZodType {
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodPrefault ||
    schema instanceof z.ZodNullable
  ) {
    return unwrapped(schema.unwrap());
  }
  if (schema instanceof z.ZodPipe) return unwrapped(schema.in);
  if (schema instanceof z.ZodLazy) return unwrapped(schema.unwrap());
  return schema;
}

/**
 * The keys the object at `path` (a zod issue's: keys and list indexes) may hold, in the schema's order; none
 * where the schema has no object.
 */
export function knownKeysAt(
  path: readonly PropertyKey[],
  schema: z.core.$ZodType = stackConfigSchema,
): string[] {
  let node: z.core.$ZodType | undefined = schema;
  for (const part of path) {
    if (node === undefined) return [];
    const at = unwrapped(node);
    node =
      at instanceof z.ZodObject && typeof part === "string"
        ? (at.shape as Record<string, z.core.$ZodType | undefined>)[part]
        : at instanceof z.ZodArray && typeof part === "number"
          ? at.element
          : at instanceof z.ZodRecord && typeof part === "string"
            ? at.valueType
            : undefined;
  }
  const at = node === undefined ? undefined : unwrapped(node);
  return at instanceof z.ZodObject ? Object.keys(at.shape) : [];
}

export type StackConfig = z.infer<typeof stackConfigSchema>;
export type NetworkConfig = StackConfig["network"];
export type ClusterConfig = StackConfig["cluster"];
export type NodeGroupConfig = NonNullable<StackConfig["nodeGroups"]>[number];
export type CalicoConfig = StackConfig["calico"];
export type TaintEffect = (typeof TAINT_EFFECTS)[number];
