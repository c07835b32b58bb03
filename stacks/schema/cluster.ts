/** `cluster`: the EKS control plane, its add-ons' versions and who may reach its API. */
import { canonicalCidr, uniqueEntries } from "./lists";
import { z } from "zod";
import { AWS_LIMITS } from "./aws-limits";
import {
  ACCESS_POLICIES,
  type AccessLevel,
  parsePrincipalArn,
  samePrincipal,
} from "../../components/cluster/access";
import { ADDON_NAMES } from "../../components/cluster/addons";
import { hasHostBits } from "../../components/network/cidr-ranges";
import { isRecord } from "./records";
import { existingClusterSchema } from "./existing";
import { kubeconfigClusterSchema } from "./kubeconfig";
import { described } from "./described";

/**
 * Kubernetes minor versions Amazon EKS offers as of November 2026 (standard or extended support;
 * 1.31 leaves extended support on 26 Nov 2026). https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html
 */
export const SUPPORTED_KUBERNETES_VERSIONS = ["1.32", "1.33", "1.34", "1.35", "1.36"] as const;

/** When SUPPORTED_KUBERNETES_VERSIONS was read: a newer version is warned about, never refused. */
export const KUBERNETES_VERSIONS_READ = "November 2026";

/** The minor of a `1.<minor>` version. */
export const kubernetesMinor = (version: string) => Number(version.split(".")[1]);

const OLDEST_MINOR = kubernetesMinor(SUPPORTED_KUBERNETES_VERSIONS[0]);
const NEWEST = SUPPORTED_KUBERNETES_VERSIONS[SUPPORTED_KUBERNETES_VERSIONS.length - 1];

/** A version newer than every one the table holds: EKS decides at `up` whether it offers it. */
export function newerKubernetesVersion(version: string): boolean {
  return kubernetesMinor(version) > kubernetesMinor(NEWEST);
}

/** In standard support until March 2027; older versions bill extended support per cluster hour. */
const DEFAULT_KUBERNETES_VERSION = "1.35";

/**
 * The last day of EKS standard support per version (the EKS Kubernetes release calendar,
 * docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html, as of November 2026). After it, a
 * cluster with `upgradePolicy: EXTENDED` bills extended support per cluster hour; one with `STANDARD` is
 * upgraded by EKS to the next version. 1.36 is missing: its date was not published in a source at hand,
 * and it is the newest version, in standard support.
 */
export const END_OF_STANDARD_SUPPORT: Readonly<Partial<Record<string, string>>> = {
  "1.32": "2026-03-23",
  "1.33": "2026-07-29",
  "1.34": "2026-12-02",
  "1.35": "2027-03-27",
};

/**
 * EKS's version policy at the end of standard support (`upgradePolicy.supportType`): `EXTENDED` keeps
 * the version and bills extended support; `STANDARD` bills nothing more and lets EKS upgrade the control
 * plane. EKS's own default is EXTENDED (docs: "Extended support is enabled by default"). Unset, the
 * program chooses what EKS accepts for the version on the day (stacks/support.ts upgradePolicyFor).
 */
export const UPGRADE_POLICIES = ["STANDARD", "EXTENDED"] as const;
export type UpgradePolicy = (typeof UPGRADE_POLICIES)[number];

/** Control-plane log types EKS can ship to CloudWatch. */
export const CONTROL_PLANE_LOG_TYPES = [
  "api",
  "audit",
  "authenticator",
  "controllerManager",
  "scheduler",
] as const;

/** Retention periods CloudWatch Logs accepts, in days. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** EKS add-on versions look like v1.20.4-eksbuild.2 (`aws eks describe-addon-versions`). */
const ADDON_VERSION = /^v\d+\.\d+\.\d+-eksbuild\.\d+$/;

/** An add-on's `version` key; `lines` describe it (described.ts). */
function addonSchema(addonName: string, ...lines: string[]) {
  return z
    .strictObject({
      version: z
        .string()
        .regex(ADDON_VERSION, {
          error: `must be an EKS add-on version such as v1.20.4-eksbuild.2 (aws eks describe-addon-versions --addon-name ${addonName})`,
        })
        .optional()
        .meta(described(...lines)),
    })
    .prefault({});
}

/** The month a date (YYYY-MM-DD) falls in, as the docs write it: March 2027. */
const monthOf = (date: string | undefined) =>
  new Date(`${date}T00:00:00Z`).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });

const accessSchema = z
  .array(
    z.strictObject({
      principalArn: z
        .string({ error: "is required" })
        .superRefine((arn, ctx) => {
          const parsed = parsePrincipalArn(arn);
          if ("problem" in parsed) ctx.addIssue({ code: "custom", input: arn, message: parsed.problem });
        })
        .meta(
          described(
            "An IAM role or user ARN (`arn:<partition>:iam::<12-digit account>:role/<name>`) in the region's partition, not an `sts` assumed-role ARN.",
          ),
        ),
      level: z
        .enum(Object.keys(ACCESS_POLICIES) as [AccessLevel, ...AccessLevel[]], {
          error: `must be one of ${Object.keys(ACCESS_POLICIES).join(", ")}`,
        })
        .meta(
          described(
            `The EKS access policy, cluster-wide: \`admin\` ${ACCESS_POLICIES.admin}, \`adminView\` ${ACCESS_POLICIES.adminView} (reads everything, Secrets and custom resources included, changes nothing), \`view\` ${ACCESS_POLICIES.view}.`,
          ),
        ),
    }),
    { error: "must be a list of {principalArn, level}" },
  )
  .superRefine(
    (grants, ctx) => {
      if (!Array.isArray(grants)) return;
      const arns = grants.map((grant) => (grant as { principalArn?: unknown } | null)?.principalArn);
      arns.forEach((arn, index) => {
        if (typeof arn !== "string") return;
        // One principal, however its ARN is spelt: IAM names ignore case and path (samePrincipal).
        const first = arns.findIndex((other) => typeof other === "string" && samePrincipal(other, arn));
        if (first === index) return;
        const spelt = arns[first] === arn ? "" : ` as ${String(arns[first])}`;
        ctx.addIssue({
          code: "custom",
          path: [index, "principalArn"],
          input: arn,
          message: `must be unique: cluster.access[${first}] names the same IAM principal${spelt} (IAM names ignore case and path; EKS allows one access entry per principal)`,
        });
      });
    },
    { when: () => true },
  );

/** EKS's limit on public access CIDR blocks per cluster (a service quota; aws-limits.ts). */
export const MAX_PUBLIC_ACCESS_CIDRS = AWS_LIMITS.publicAccessCidrsPerCluster.value;

export const clusterSchema = z
  .strictObject({
    version: z
      .string({ error: 'must be a Kubernetes minor version, quoted ("1.35")' })
      .regex(/^1\.(0|[1-9][0-9]*)$/, { error: 'must be a Kubernetes minor version such as "1.35", quoted' })
      .refine((version) => kubernetesMinor(version) >= OLDEST_MINOR, {
        error: `is older than every version EKS offers (${SUPPORTED_KUBERNETES_VERSIONS.join(", ")} as of ${KUBERNETES_VERSIONS_READ}; older ones have left extended support)`,
      })
      .default(DEFAULT_KUBERNETES_VERSION)
      .meta(
        described(
          `The Kubernetes minor version of the control plane and nodes, quoted. EKS offered ${SUPPORTED_KUBERNETES_VERSIONS.join(", ")} in ${KUBERNETES_VERSIONS_READ}: an older one is refused; a newer one is warned about and left to EKS at \`up\`.`,
          `The default is in standard support until ${monthOf(END_OF_STANDARD_SUPPORT[DEFAULT_KUBERNETES_VERSION])}.`,
        ),
      ),
    // Unset, stacks/support.ts upgradePolicyFor chooses.
    upgradePolicy: z
      .enum(UPGRADE_POLICIES, { error: `must be one of ${UPGRADE_POLICIES.join(", ")}` })
      .optional()
      .meta(
        described(
          "What EKS does at the end of the version's standard support: `STANDARD` upgrades the control plane, nothing billed; `EXTENDED` keeps the version, billed as extended support.",
          "Unset: `STANDARD` while the version is in standard support; past it, the deployed cluster's policy, or `EXTENDED` for a new cluster.",
          "`STANDARD` on a version past standard support is refused, unless the deployed cluster already has it: see [Upgrading Kubernetes](upgrades.md#the-end-of-standard-support).",
        ),
      ),
    publicAccessCidrs: z
      .array(
        z
          .cidrv4({ error: "must be an IPv4 CIDR block such as 203.0.113.0/24" })
          .refine((cidr) => !hasHostBits(cidr), {
            error: "has host bits set (EKS refuses it): use the block's network address",
          }),
        { error: "must be a list of IPv4 CIDR blocks" },
      )
      .max(MAX_PUBLIC_ACCESS_CIDRS, {
        error: `must hold at most ${MAX_PUBLIC_ACCESS_CIDRS} blocks, the EKS quota "Public endpoint access CIDR ranges per cluster"`,
      })
      .superRefine(uniqueEntries(canonicalCidr, "the same block"))
      .default(["0.0.0.0/0"])
      .meta(
        described(
          `The blocks allowed to reach the public API endpoint, each once, as network addresses (no host bits); the most is the EKS quota "${AWS_LIMITS.publicAccessCidrsPerCluster.name}".`,
          "`[]` turns the public endpoint off (private only).",
          "On a protected stack they may not open it to the whole internet: not `0.0.0.0/0`, nor blocks that together cover it (`0.0.0.0/1` and `128.0.0.0/1`).",
        ),
      ),
    deploysFromInsideVpc: z
      .boolean({ error: "must be true or false" })
      .default(false)
      .meta(
        described(
          "`true` declares that deploys reach the private endpoint (a runner in the VPC, a VPN): required for `publicAccessCidrs: []`, since `pulumi up` installs Calico through the Kubernetes API.",
        ),
      ),
    logTypes: z
      .array(
        z.enum(CONTROL_PLANE_LOG_TYPES, { error: `must be one of ${CONTROL_PLANE_LOG_TYPES.join(", ")}` }),
        {
          error: "must be a list of log types",
        },
      )
      .superRefine(uniqueEntries((type: string) => type))
      .default(["api", "audit", "authenticator"])
      .meta(described("The control-plane log types EKS sends to CloudWatch, each once.")),
    logRetentionDays: z
      .number()
      .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), {
        error: `must be a retention CloudWatch accepts: ${LOG_RETENTION_DAYS.join(", ")}`,
      })
      .default(90)
      // The refinement's choices, which JSON Schema cannot see in a refinement.
      .meta({ enum: [...LOG_RETENTION_DAYS], ...described("Days CloudWatch keeps control-plane logs.") }),
    vpcCni: z
      .strictObject({
        prefixDelegation: z
          .boolean({ error: "must be true or false" })
          .default(false)
          .meta(
            described(
              "`true`: the VPC CNI assigns each Nitro node /28 prefixes (`ENABLE_PREFIX_DELEGATION`, `WARM_PREFIX_TARGET: 1`), and EKS raises the managed nodes' max pods to 110 or 250; other instance types keep secondary addresses. The subnet check then counts whole /28 blocks ([Prefix delegation](stacks.md#prefix-delegation)).",
              "On a deployed stack only nodes started afterwards get prefixes and the higher max pods: roll the node groups (replace them) to move the running ones.",
            ),
          ),
        podSecurityGroups: z
          .boolean({ error: "must be true or false" })
          .default(false)
          .meta(
            described(
              "`true`: security groups for pods (`ENABLE_POD_ENI`) in standard mode (`POD_SECURITY_GROUP_ENFORCING_MODE: standard`), where Calico still polices pods with their own security groups; the cluster's role gets `AmazonEKSVPCResourceController` ([Security groups for pods](stacks.md#security-groups-for-pods)).",
              "Only trunking-compatible instance types (no `t` family) hold such pods: the plan warns about the others.",
            ),
          ),
      })
      .prefault({})
      .meta(described("Settings of the VPC CNI add-on the stack owns.")),
    podIdentity: z
      .boolean({ error: "must be true or false" })
      .default(false)
      .meta(
        described(
          "`true`: the VPC CNI takes its role through EKS Pod Identity (the add-on's association, the `eks-pod-identity-agent` add-on on every node) instead of IRSA. Not in the AWS China partition, which has no Pod Identity.",
          "A deployed stack switches in place, and its running aws-node pods keep working: the role still trusts their IRSA tokens. Switching back takes the association away: restart aws-node right after that `up` ([Pod Identity](stacks.md#eks-pod-identity)).",
        ),
      ),
    addons: z
      .strictObject({
        vpcCni: addonSchema(
          ADDON_NAMES.vpcCni,
          "An exact EKS add-on version (`v1.20.4-eksbuild.2`), checked for its form only: which versions EKS offers for `cluster.version` only `aws eks describe-addon-versions` knows. An unknown one fails at `up`, so `npm start` warns about a pin it cannot confirm.",
          "Unset: the version EKS marks as default for `cluster.version` when the cluster is created or its version changes, kept as deployed in between ([Add-on versions](upgrades.md#add-on-versions)).",
        ),
        kubeProxy: addonSchema(
          ADDON_NAMES.kubeProxy,
          "As `cluster.addons.vpcCni.version`, for kube-proxy; must be a build of `cluster.version`'s minor.",
        ),
        coreDns: addonSchema(ADDON_NAMES.coreDns, "As `cluster.addons.vpcCni.version`, for CoreDNS."),
        podIdentityAgent: addonSchema(
          ADDON_NAMES.podIdentityAgent,
          "As `cluster.addons.vpcCni.version`, for the EKS Pod Identity agent, which the stack installs with `cluster.podIdentity` or `karpenter.enabled`.",
        ),
      })
      .prefault({}),
    access: accessSchema
      .default([])
      .meta(
        described(
          "Principals besides the cluster's creator that may use the Kubernetes API. One entry per principal: ARNs that name the same role or user (IAM names ignore case, and a path does not make another role) are refused.",
          "See [Access to the cluster](access.md).",
        ),
      ),
    /** An EKS cluster made elsewhere: the stack installs Calico on it and creates no VPC or cluster. */
    existing: existingClusterSchema.optional(),
    /** A cluster reached through a kubeconfig file: Calico only, and no AWS call or resource. */
    kubeconfig: kubeconfigClusterSchema.optional(),
  })
  .superRefine(
    (cluster: unknown, ctx) => {
      if (!isRecord(cluster)) return;
      if (
        Array.isArray(cluster.publicAccessCidrs) &&
        cluster.publicAccessCidrs.length === 0 &&
        cluster.deploysFromInsideVpc !== true
      ) {
        ctx.addIssue({
          code: "custom",
          path: ["publicAccessCidrs"],
          input: cluster.publicAccessCidrs,
          message:
            "turns the public endpoint off, so `pulumi up` reaches the Kubernetes API (to install Calico) only from inside the VPC or a network joined to it: set cluster.deploysFromInsideVpc: true if deploys run there, or list the CIDRs your deploys come from",
        });
      }
      // kube-proxy ships one build line per Kubernetes minor; EKS refuses any other on the cluster.
      const pinned = (cluster.addons as { kubeProxy?: { version?: unknown } } | undefined)?.kubeProxy
        ?.version;
      const minor = typeof pinned === "string" ? /^v(\d+\.\d+)\./.exec(pinned)?.[1] : undefined;
      if (minor !== undefined && typeof cluster.version === "string" && minor !== cluster.version) {
        ctx.addIssue({
          code: "custom",
          path: ["addons", "kubeProxy", "version"],
          input: pinned,
          message: `is for Kubernetes ${minor}, but cluster.version is ${cluster.version}: kube-proxy must match the cluster's minor version (pin a v${cluster.version}.x build, or remove the pin)`,
        });
      }
    },
    { when: () => true },
  );
