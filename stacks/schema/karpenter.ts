/**
 * `karpenter`: Karpenter beside the managed node groups, off by default, and its NodePools. Each pool's
 * values are held to what the pinned release's CRDs accept (components/karpenter/defaults.ts), so a pool
 * the API server would refuse is refused here, with every problem at once, before any resource exists.
 */
import { z } from "zod";
import {
  AMI_ALIAS,
  ARCHITECTURES,
  BUDGET_DURATION,
  BUDGET_NODES,
  BUDGET_REASONS,
  BUDGET_SCHEDULE,
  CAPACITY_TYPES,
  CONSOLIDATION_POLICIES,
  DEFAULT_NODE_POOL,
  DURATION_OR_NEVER,
  AMI_FAMILIES,
} from "../../components/karpenter/defaults";
import { described } from "./described";
import { isRecord } from "./records";
import { labelsSchema, taintsSchema } from "./node-labels";
import { DISK_SIZE_GIB } from "./node-groups";

/** A NodePool's name: a DNS label, so that it is also a valid label value (`karpenter.sh/nodepool`). */
const POOL_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const DURATION_RULE = 'must be a duration of whole s, m and h such as "720h" or "1m30s", or "Never"';

const setOf = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z
    .array(z.enum(values, { error: `must be one of ${values.join(", ")}` }))
    .min(1, { error: `must name at least one ${what}` })
    .refine((list) => new Set(list).size === list.length, { error: "must not repeat a value" });

const budgetSchema = z
  .strictObject({
    nodes: z
      .string({ error: 'must be a node count or a percentage, as a string: "1", "10%"' })
      .regex(BUDGET_NODES, { error: 'must be a node count or a percentage of at most 100%: "1", "10%"' })
      .meta(described('The most nodes disrupted at once: a count (`"0"` stops disruption) or a percentage.')),
    schedule: z
      .string()
      .regex(BUDGET_SCHEDULE, { error: 'must be a cron expression in UTC or a macro such as "@daily"' })
      .optional()
      .meta(described("When the budget starts to apply (cron, UTC); with `duration`, how long it lasts.")),
    duration: z
      .string()
      .regex(BUDGET_DURATION, { error: 'must be hours and minutes such as "8h" or "1h30m"' })
      .optional()
      .meta(described("How long the budget applies from each `schedule` time.")),
    reasons: setOf(BUDGET_REASONS, "reason")
      .optional()
      .meta(described("The disruption reasons the budget limits; unset, all of them.")),
  })
  .refine((budget) => (budget.schedule === undefined) === (budget.duration === undefined), {
    error: "schedule and duration go together: set both, or neither",
  });

export const nodePoolSchema = z.strictObject({
  capacityTypes: setOf(CAPACITY_TYPES, "capacity type")
    .default(["on-demand"])
    .meta(described("`karpenter.sh/capacity-type` values the pool launches.")),
  architectures: setOf(ARCHITECTURES, "architecture")
    .default(["amd64"])
    .meta(described("`kubernetes.io/arch` values the pool launches.")),
  instanceCategories: z
    .array(z.string().regex(/^[a-z]$/, { error: "must be one lowercase letter, as c, m or r" }))
    .min(1, { error: "must name at least one instance category" })
    .default(["c", "m", "r"])
    .meta(described("EC2 instance families by letter (`karpenter.k8s.aws/instance-category`).")),
  minGeneration: z
    .number()
    .int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" })
    .default(5)
    .meta(described("The oldest instance generation launched (`karpenter.k8s.aws/instance-generation`).")),
  minVcpus: z
    .number()
    .int({ error: "must be a whole number" })
    .min(1, { error: "must be at least 1" })
    .default(2)
    .meta(
      described(
        "The fewest vCPUs of an instance launched (`karpenter.k8s.aws/instance-cpu`); with `limits.cpu` it bounds the pool's node count, which Typha's and calico-node's sizing count.",
      ),
    ),
  limits: z
    .strictObject({
      cpu: z
        .number()
        .int({ error: "must be a whole number of vCPUs" })
        .min(1, { error: "must be at least 1" })
        .default(100)
        .meta(
          described("The most vCPUs the pool's nodes may hold together; Karpenter launches no node past it."),
        ),
    })
    .prefault({}),
  consolidationPolicy: z
    .enum(CONSOLIDATION_POLICIES, { error: `must be one of ${CONSOLIDATION_POLICIES.join(", ")}` })
    .default("WhenEmptyOrUnderutilized")
    .meta(described("Which nodes Karpenter may remove or replace to pack pods tighter.")),
  consolidateAfter: z
    .string()
    .regex(DURATION_OR_NEVER, { error: DURATION_RULE })
    .default("1m")
    .meta(described("How long a node stays a consolidation candidate before Karpenter acts.")),
  budgets: z
    .array(budgetSchema)
    .min(1, { error: "must hold at least one budget" })
    .max(50, { error: "must hold at most 50 budgets" })
    .default([{ nodes: "10%" }])
    .meta(described("How many nodes Karpenter may disrupt at once, when and for what reasons.")),
  expireAfter: z
    .string()
    .regex(DURATION_OR_NEVER, { error: DURATION_RULE })
    .default("720h")
    .meta(described("A node's lifetime before Karpenter replaces it, or `Never`.")),
  amiAlias: z
    .string()
    .regex(AMI_ALIAS, { error: 'must be family@version, such as "al2023@latest" or "al2023@v20261120"' })
    .refine((alias) => (AMI_FAMILIES as readonly string[]).includes(alias.split("@")[0]), {
      error: `must name the ${AMI_FAMILIES.join(", ")} family: calico-node runs on Linux only, and the class encrypts that family's root volume`,
    })
    .default("al2023@latest")
    .meta(
      described(
        "The EKS-optimized AMI, as an EC2NodeClass alias. `@latest` follows AWS's newest release, replacing nodes as they drift; a version (`al2023@v20261120`) keeps them until it changes.",
      ),
    ),
  diskSizeGiB: z
    .number()
    .int({ error: "must be a whole number of GiB" })
    .min(DISK_SIZE_GIB.min, { error: `must be at least ${DISK_SIZE_GIB.min}` })
    .max(DISK_SIZE_GIB.max, { error: `must be at most ${DISK_SIZE_GIB.max}, gp3's largest` })
    .default(DISK_SIZE_GIB.default)
    .meta(described("Size of each node's encrypted gp3 root volume, as for node groups.")),
  labels: labelsSchema.default({}),
  taints: taintsSchema.default([]),
});

export const karpenterSchema = z
  .strictObject({
    enabled: z
      .boolean({ error: "must be true or false" })
      .default(false)
      .meta(
        described(
          "Runs Karpenter beside the managed node groups, on them: its nodes carry the Calico startup taint until calico-node is Ready there.",
        ),
      ),
    nodePools: z
      .record(
        z.string().regex(POOL_NAME, { error: "must be a DNS label: lowercase letters, digits and '-'" }),
        nodePoolSchema,
      )
      .refine((pools) => Object.keys(pools).length > 0, { error: "must name at least one pool" })
      .default({ [DEFAULT_NODE_POOL]: nodePoolSchema.parse({}) })
      .meta(
        described(`The NodePools, by name (default: one general-purpose pool, \`${DEFAULT_NODE_POOL}\`).`),
      ),
  })
  .meta(described("Karpenter (github.com/aws/karpenter-provider-aws), off by default."));

export type KarpenterConfig = z.infer<typeof karpenterSchema>;
export type NodePoolConfig = z.infer<typeof nodePoolSchema>;

/**
 * The most nodes Karpenter can run, pool by pool, as groups of that maxSize: each pool's `limits.cpu` over
 * its `minVcpus`. Its node count is unknown before `up`, so calico-node's rollout is sized for its limits.
 * Read from raw or parsed config (the rollout check runs on both); none where Karpenter is off.
 */
export function karpenterNodeBounds(karpenter: unknown): { maxSize: number }[] {
  if (!isRecord(karpenter) || karpenter.enabled !== true) return [];
  const pools = karpenter.nodePools ?? { [DEFAULT_NODE_POOL]: {} };
  if (!isRecord(pools)) return [];
  return Object.values(pools).map((pool) => {
    const parsed = nodePoolSchema.safeParse(pool);
    return { maxSize: parsed.success ? Math.floor(parsed.data.limits.cpu / parsed.data.minVcpus) : 0 };
  });
}
