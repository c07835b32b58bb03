/**
 * Karpenter's pinned release and the rules its NodePool and EC2NodeClass CRDs hold values to, once, for
 * the config schema (stacks/schema/karpenter.ts) and the objects (node-pools.ts). The patterns and enums
 * are upstream's: sigs.k8s.io/karpenter v1.15.0 pkg/apis/crds/karpenter.sh_nodepools.yaml and
 * github.com/aws/karpenter-provider-aws v1.15.0 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml.
 */

/**
 * The AWS provider's release (github.com/aws/karpenter-provider-aws), paired with the core release
 * tools/karpenter builds (sigs.k8s.io/karpenter v1.15.0, which its go.mod requires; v1.15.2 requires
 * v1.15.1, which the module proxy does not serve). Images are tagged without the `v`.
 */
export const KARPENTER_VERSION = "1.15.0";

/** The pool the stack makes when `karpenter.nodePools` names none. */
export const DEFAULT_NODE_POOL = "general";

/** `karpenter.sh/capacity-type` values (pkg/apis/v1/labels.go CapacityType*). */
export const CAPACITY_TYPES = ["on-demand", "spot", "reserved"] as const;

/** `kubernetes.io/arch` values Karpenter's AWS provider launches (pkg/providers/instancetype). */
export const ARCHITECTURES = ["amd64", "arm64"] as const;

/** disruption.consolidationPolicy's enum. */
export const CONSOLIDATION_POLICIES = ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"] as const;

/** disruption.budgets[].reasons' enum. */
export const BUDGET_REASONS = ["Underutilized", "Empty", "Drifted", "Unhealthy"] as const;

/** expireAfter and disruption.consolidateAfter: a Go duration of s, m and h, or Never. */
export const DURATION_OR_NEVER = /^(([0-9]+(s|m|h))+|Never)$/;

/** disruption.budgets[].nodes: a count or a percentage. */
export const BUDGET_NODES = /^((100|[0-9]{1,2})%|[0-9]+)$/;

/** disruption.budgets[].schedule: a cron expression or macro, in UTC. */
export const BUDGET_SCHEDULE =
  /^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$/;

/** disruption.budgets[].duration: hours and minutes only. */
export const BUDGET_DURATION = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;

/** An EC2NodeClass amiSelectorTerms alias: `family@version` (the CRD's CEL rules). */
export const AMI_ALIAS = /^[a-zA-Z0-9]+@.+$/;

/**
 * The alias families the stack's pools take: Amazon Linux 2023, whose one root volume (/dev/xvda) the
 * class encrypts (karpenter-provider-aws pkg/providers/amifamily/al2023.go). Windows cannot run
 * calico-node; AL2 has no EKS AMI from Kubernetes 1.33; Bottlerocket's two volumes are not written here.
 */
export const AMI_FAMILIES = ["al2023"] as const;
