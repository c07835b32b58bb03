/** `nodeGroups`: the managed node groups, their instances, AMI, disks, sizes, labels and taints. */
import { uniqueEntries } from "./lists";
import { z } from "zod";
import { AWS_LIMITS } from "./aws-limits";
import {
  AMI_TYPES,
  AMI_TYPE_NAMES,
  type AmiType,
  type Architecture,
  DEFAULT_AMI_TYPE,
  amiTypeRule,
  amiTypesFor,
  instanceArchitecture,
} from "../../components/cluster/ami-types";
import { amiFamilyProblem } from "../../components/cluster/ami-families";
import { INSTANCE_TYPES, instanceTypeProblem } from "./instance-types";
import { labelsSchema, taintsSchema } from "./node-labels";
import { isRecord } from "./records";
import { described } from "./described";

export { TAINT_EFFECTS } from "./node-labels";

/**
 * A node's data volume: at least the 20 GiB of the EKS AMIs' own snapshots (EC2 refuses a smaller
 * volume than its snapshot), at most what gp3 allows (aws-limits.ts, EC2 CreateVolume).
 */
export const DISK_SIZE_GIB = { min: 20, max: AWS_LIMITS.gp3VolumeSizeGiB.value, default: 50 } as const;

// Node-group names: letters, digits, '-' and '_', starting with a letter or digit. EKS takes at most 63
// characters, and the name it gets is `cluster-<name>-<7 hex>` (the component's prefix and Pulumi's
// auto-naming suffix): 63 - 8 - 8 leaves 47 for ours.
const NODE_GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const MAX_NODE_GROUP_NAME = 63 - "cluster-".length - "-abcdef0".length;

/** Instance types a node group on a launch template takes (EKS CreateNodegroup; aws-limits.ts). */
export const MAX_INSTANCE_TYPES = AWS_LIMITS.instanceTypesPerNodeGroup.value;

/** EKS service quotas (adjustable through Service Quotas), named as the console names them (aws-limits.ts). */
export const EKS_QUOTAS = {
  nodeGroupsPerCluster: {
    limit: AWS_LIMITS.nodeGroupsPerCluster.value,
    name: AWS_LIMITS.nodeGroupsPerCluster.name,
  },
  nodesPerNodeGroup: { limit: AWS_LIMITS.nodesPerNodeGroup.value, name: AWS_LIMITS.nodesPerNodeGroup.name },
} as const;

function sizeSchema() {
  return z
    .number({ error: "must be a whole number >= 0" })
    .int({ error: "must be a whole number >= 0" })
    .min(0, { error: "must be >= 0" });
}

const SCALING = "([Scaling](#scaling))";

const nodeGroupSchema = z
  .strictObject({
    name: z
      .string({ error: "is required" })
      .regex(NODE_GROUP_NAME, {
        error: "must be letters, digits, '-' or '_', starting with a letter or digit",
      })
      .max(MAX_NODE_GROUP_NAME, {
        error: `must be at most ${MAX_NODE_GROUP_NAME} characters: EKS names it cluster-<name>-<7 characters Pulumi adds>, at most 63`,
      })
      .meta(
        described(
          "Letters, digits, `-` or `_`, starting with a letter or digit, unique among the groups: EKS names the group `cluster-<name>-<7 characters>`, at most 63 characters.",
        ),
      ),
    instanceTypes: z
      .array(
        z
          .string({ error: "must be an EC2 instance type such as t3.large" })
          .superRefine((name, ctx) => {
            // EKS would accept a made-up name and fail at the first node; a well-formed one the table
            // lacks is warned about (stacks/table-notices.ts).
            const problem = instanceTypeProblem(name);
            if (problem === undefined) return;
            ctx.addIssue({ code: "custom", input: name, message: problem.rule });
          })
          .refine((name) => !name.startsWith("mac"), {
            error: "is an EC2 Mac instance, which runs macOS only: EKS nodes need Linux",
          }),
      )
      .min(1, { error: "must list at least one instance type" })
      // "If you specify launchTemplate, then ... you can specify 0-20 instance types for instanceTypes"
      // (EKS API, CreateNodegroup instanceTypes; botocore 1.43.67 data/eks/2017-11-01/service-2.json).
      .max(MAX_INSTANCE_TYPES, {
        error: `must list at most ${MAX_INSTANCE_TYPES} instance types (EKS takes 0-20 with a launch template)`,
      })
      .superRefine(uniqueEntries((type: string) => type))
      .default(["t3.large"])
      .meta(
        described(
          `EC2 instance types, each once (EKS takes up to ${MAX_INSTANCE_TYPES} with a launch template), each a name of family, generation and size; a name that is none is refused with the closest (\`t3.huge\`: \`t3.large\`).`,
          `A type missing from the ${INSTANCE_TYPES.length.toLocaleString("en-US")} types EC2 listed in August 2026 ([\`eni-limits.ts\`](../components/cluster/eni-limits.ts)) is warned about, and EC2 answers at \`up\`; its pods' addresses and max pods are not checked.`,
          "No macOS `mac*` type; all of the AMI type's architecture.",
          "One node's pod addresses must fit a private subnet (its size less the 5 AWS reserves).",
          "The VPC CNI claims whole interfaces until their secondaries reach the node's max pods, which EKS caps at 110 below 30 vCPUs and 250 above: `t3.large` takes 3 × 12 = 36, `m6i.4xlarge` 4 of 8 × 30 = 120.",
          "Each type must hold the stack's own pods that may run on one node of the group, counted in pods against the VPC CNI's max pods: interfaces × (addresses − 1) + 2 (`t3.small`: 11).",
          "Those pods are aws-node, kube-proxy and calico-node everywhere, then what tolerates the group's taints (Typha and its autoscaler, or the operator's pods; CoreDNS × 2; the probe's 3 pods on untainted groups).",
        ),
      ),
    capacityType: z
      .enum(["ON_DEMAND", "SPOT"], { error: "must be ON_DEMAND or SPOT" })
      .default("ON_DEMAND")
      .meta(described("How EC2 sells the nodes: On-Demand, or Spot capacity that EC2 may take back.")),
    amiType: z
      .enum(AMI_TYPE_NAMES, { error: (issue) => amiTypeRule(issue.input) })
      .default(DEFAULT_AMI_TYPE)
      .meta(
        described(
          "The EKS-optimized AMI the nodes boot: every Linux type of EKS's list.",
          "Windows (calico-node is Linux only), Amazon Linux 2 (no AMIs after November 2025) and `CUSTOM` are refused with their reason.",
          "Every instance type must be of its architecture (Graviton types such as `m7g`, `c7g`, `t4g` need an ARM AMI type); one group cannot mix architectures.",
          "Each instance type must be of a family it runs ([Rules across keys](#rules-across-keys)).",
        ),
      ),
    // ami-release.ts has the rules.
    amiReleaseVersion: z
      .string({ error: 'must be "latest" or an EKS AMI release such as 1.35.3-20251120' })
      .optional()
      .meta(
        described(
          "The release of the EKS-optimized AMI the group's nodes run, sent as the node group's `releaseVersion`. A new value rolls every node of the group, PodDisruptionBudgets respected ([Node AMI releases](upgrades.md#node-ami-releases)).",
          "Unset, nothing is sent: EKS keeps the release it picked when it created the group, and picks the newest for a new `cluster.version`.",
          "`latest`: the newest release AWS publishes for the AMI type and Kubernetes version, read from its public SSM parameter at each preview and `up`, and printed. Not for the NVIDIA FIPS Bottlerocket types, which have no documented parameter.",
          "On Amazon Linux 2023, a release such as `1.35.3-20251120` (Kubernetes version, release date) of `cluster.version`'s minor; on Bottlerocket, a Bottlerocket release such as `1.55.0-d93bb1b1`.",
        ),
      ),
    diskSizeGiB: z
      .number({ error: `must be a whole number of GiB from ${DISK_SIZE_GIB.min} to ${DISK_SIZE_GIB.max}` })
      .int({ error: `must be a whole number of GiB from ${DISK_SIZE_GIB.min} to ${DISK_SIZE_GIB.max}` })
      .min(DISK_SIZE_GIB.min, {
        error: `must be at least ${DISK_SIZE_GIB.min} (the EKS AMIs' snapshot size)`,
      })
      .max(DISK_SIZE_GIB.max, {
        error: `must be at most ${DISK_SIZE_GIB.max}, the largest gp3 volume (EC2 CreateVolume: gp3 1 - 65,536 GiB)`,
      })
      .default(DISK_SIZE_GIB.default)
      .meta(
        described(
          "The node's encrypted gp3 data volume, in GiB (the root volume on AL2023, `/dev/xvdb` on Bottlerocket): at least the EKS AMIs' snapshot, at most gp3's largest size (EC2 CreateVolume).",
        ),
      ),
    minSize: sizeSchema()
      .default(2)
      .meta(
        described(
          "At most `desiredSize`.",
          `On a deployed group, raising it above the desired size the group runs at raises that too ${SCALING}.`,
        ),
      ),
    desiredSize: sizeSchema()
      .default(2)
      .meta(
        described(
          "At most `maxSize`.",
          `The size a group is created with; afterwards the group keeps the desired size it runs at (autoscalers own it) and a change is ignored ${SCALING}.`,
        ),
      ),
    maxSize: sizeSchema()
      .default(4)
      // The bounds the group's refinement below adds, which JSON Schema cannot see in a refinement.
      .meta({
        minimum: 1,
        maximum: EKS_QUOTAS.nodesPerNodeGroup.limit,
        ...described(
          `The most is the EKS quota "${EKS_QUOTAS.nodesPerNodeGroup.name}".`,
          "The sum over node groups sizes the readiness timeout.",
          `Lowering it below the desired size a deployed group runs at lowers that too ${SCALING}.`,
        ),
      }),
    // node-labels.ts has the rules of EKS, the kubelet and Kubernetes.
    labels: labelsSchema.default({}),
    taints: taintsSchema.default([]),
    clusterAddons: z
      .boolean({ error: "must be true or false" })
      .default(false)
      .meta(
        described(
          "`true` lets CoreDNS tolerate this group's taints and run there (a tainted `system` group).",
          "At least one group with nodes must be untainted or marked.",
        ),
      ),
  })
  .superRefine(
    (group: unknown, ctx) => {
      if (!isRecord(group)) return;
      const { minSize, desiredSize, maxSize } = group;
      if (typeof maxSize === "number" && maxSize < 1) {
        ctx.addIssue({ code: "custom", path: ["maxSize"], input: maxSize, message: "must be at least 1" });
      }
      const quota = EKS_QUOTAS.nodesPerNodeGroup;
      if (typeof maxSize === "number" && maxSize > quota.limit) {
        ctx.addIssue({
          code: "custom",
          path: ["maxSize"],
          input: maxSize,
          message: `must be at most ${quota.limit}, the EKS quota "${quota.name}" (raise it in Service Quotas first, or split the group)`,
        });
      }
      if (typeof minSize === "number" && typeof desiredSize === "number" && minSize > desiredSize) {
        ctx.addIssue({
          code: "custom",
          path: ["minSize"],
          input: minSize,
          message: `must be <= desiredSize (${desiredSize})`,
        });
      }
      if (typeof desiredSize === "number" && typeof maxSize === "number" && desiredSize > maxSize) {
        ctx.addIssue({
          code: "custom",
          path: ["desiredSize"],
          input: desiredSize,
          message: `must be <= maxSize (${maxSize})`,
        });
      }
      checkArchitecture(group, ctx);
      checkAmiFamilies(group, ctx);
    },
    { when: () => true },
  );

type GroupAmi = { instanceTypes?: unknown; amiType?: unknown };

/** A group's instance types and AMI type, when both are of the right kind to check together. */
function groupAmi(group: GroupAmi): { instanceTypes: unknown[]; amiType: AmiType } | undefined {
  const { instanceTypes, amiType } = group;
  if (!Array.isArray(instanceTypes) || typeof amiType !== "string" || !Object.hasOwn(AMI_TYPES, amiType)) {
    return undefined;
  }
  return { instanceTypes, amiType: amiType as AmiType };
}

/**
 * EKS refuses a node group whose instance types do not match its AMI's architecture ("not a valid
 * instance type for requested amiType"), and one group boots one AMI, so it cannot mix architectures.
 */
function checkArchitecture(group: GroupAmi, ctx: z.core.$RefinementCtx): void {
  const checked = groupAmi(group);
  if (checked === undefined) return;
  const { instanceTypes, amiType } = checked;
  const wanted = AMI_TYPES[amiType].architecture;
  const typed = instanceTypes
    .filter((t): t is string => typeof t === "string")
    .map((instanceType) => ({ instanceType, architecture: instanceArchitecture(instanceType) }));
  const arm = typed.filter((t) => t.architecture === "arm64").map((t) => t.instanceType);
  const x86 = typed.filter((t) => t.architecture === "x86_64").map((t) => t.instanceType);
  if (arm.length > 0 && x86.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: ["instanceTypes"],
      input: instanceTypes,
      message: `mixes arm64 (${arm.join(", ")}) and x86_64 (${x86.join(", ")}) instance types; one node group boots one AMI, so split them into two node groups`,
    });
    return;
  }
  typed.forEach(({ instanceType, architecture }, index) => {
    if (architecture === undefined || architecture === wanted) return;
    ctx.addIssue({
      code: "custom",
      path: ["instanceTypes", index],
      input: instanceType,
      message: `is an ${architecture} instance type${architecture === "arm64" ? " (AWS Graviton)" : ""}, but amiType ${amiType} is ${wanted}: ${fix(bootable(architecture, instanceType))}`,
    });
  });
}

/** What to do about an instance type that these AMI types boot. */
function fix(amiTypes: readonly AmiType[]): string {
  return amiTypes.length > 0
    ? `set amiType to one of ${amiTypes.join(", ")}`
    : "no AMI type this program offers supports it: pick another instance type";
}

/** The AMI types of an architecture that boot an instance type's family. */
function bootable(architecture: Architecture, instanceType: string): AmiType[] {
  return amiTypesFor(architecture).filter((other) => amiFamilyProblem(other, instanceType) === undefined);
}

/**
 * The AMI type must boot each instance type's family (components/cluster/ami-families.ts, from the EKS
 * User Guide). Types of the other architecture are left to {@link checkArchitecture}.
 */
function checkAmiFamilies(group: GroupAmi, ctx: z.core.$RefinementCtx): void {
  const checked = groupAmi(group);
  if (checked === undefined) return;
  const { instanceTypes, amiType } = checked;
  const wanted = AMI_TYPES[amiType].architecture;
  instanceTypes.forEach((instanceType: unknown, index) => {
    if (typeof instanceType !== "string" || instanceArchitecture(instanceType) !== wanted) return;
    const problem = amiFamilyProblem(amiType, instanceType);
    if (problem === undefined) return;
    const others = bootable(wanted, instanceType);
    ctx.addIssue({
      code: "custom",
      path: ["instanceTypes", index],
      input: instanceType,
      message: `${problem}, so amiType ${amiType} cannot run it`,
      params: { hint: others.length > 0 ? `${fix(others)}, or pick another instance type` : fix(others) },
    });
  });
}

/** Taint effects that keep a pod without a matching toleration off a node. */
const REPELLING = new Set<string>(["NoSchedule", "NoExecute"]);

export const nodeGroupsSchema = z
  .array(nodeGroupSchema, { error: "must be a list of node groups" })
  .min(1, { error: "must define at least one node group" })
  .max(EKS_QUOTAS.nodeGroupsPerCluster.limit, {
    error: `must hold at most ${EKS_QUOTAS.nodeGroupsPerCluster.limit} node groups, the EKS quota "${EKS_QUOTAS.nodeGroupsPerCluster.name}"`,
  })
  .superRefine(
    (groups, ctx) => {
      if (!Array.isArray(groups)) return;
      const seen = new Map<unknown, number>();
      groups.forEach((group: unknown, index) => {
        const name = isRecord(group) ? group.name : undefined;
        if (name === undefined) return;
        const first = seen.get(name);
        if (first !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: [index, "name"],
            input: name,
            message: `must be unique (nodeGroups[${first}] has the same name)`,
          });
        } else {
          seen.set(name, index);
        }
      });
      // The CoreDNS add-on needs a node it may run on, or EKS reports it DEGRADED and `up` times out.
      const hostsCoreDns = groups.some((group: unknown) => {
        if (!isRecord(group)) return true;
        const { taints, clusterAddons } = group;
        const repelled =
          Array.isArray(taints) &&
          taints.some((t: unknown) => isRecord(t) && REPELLING.has(String(t.effect)));
        return clusterAddons === true || !repelled;
      });
      // With no node at creation, calico-node's readiness await has nothing to wait for and Typha no node
      // to run on: the `up` would wait out its timeout and fail.
      const desired = groups.map((g: unknown) => (isRecord(g) ? g.desiredSize : undefined));
      if (groups.length > 0 && desired.every((d) => d === 0)) {
        ctx.addIssue({
          code: "custom",
          input: desired,
          message:
            "must start with at least one node: every group has desiredSize 0, so Calico cannot become ready (calico-node and Typha need a node to run on); give one group desiredSize >= 1",
        });
      }
      if (groups.length > 0 && !hostsCoreDns) {
        ctx.addIssue({
          code: "custom",
          input: groups.map((g: unknown) => (isRecord(g) ? g.name : undefined)),
          message:
            "must include a node group CoreDNS can run on: every group has a NoSchedule or NoExecute taint; set clusterAddons: true on the group meant for cluster add-ons, or add an untainted group",
        });
      }
    },
    { when: () => true },
  )
  .meta(
    described(
      "Required unless `cluster.existing` or `cluster.kubeconfig` is set (then refused).",
      `The most is the EKS quota "${EKS_QUOTAS.nodeGroupsPerCluster.name}". Names are unique; at least one group must be one CoreDNS can run on, and the groups need at least one node in all (\`desiredSize\` summed).`,
      "Each pod the install waits for needs a group with nodes whose taints it tolerates.",
      "A group at 0 nodes hosts nothing (a deployed group counts at the size it runs).",
    ),
  );
