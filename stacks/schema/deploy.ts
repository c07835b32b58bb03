/**
 * `deploy`: where the stack's CI jobs run (`pulumi up`, the drift check), and what the cluster's security
 * group admits from there. `pulumi up` installs Calico through the Kubernetes API, so the runner must reach
 * the cluster's endpoint: GitHub-hosted runners reach only a public endpoint open to the whole internet
 * (stacks/deploy-path.ts warns otherwise). Self-hosted runners reach the private endpoint once the cluster
 * security group admits them on 443, from inside the VPC; from a network joined to it (peering, a VPN) only
 * when the public endpoint is off, since only then does the endpoint's name resolve to the private addresses
 * outside the VPC (https://docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html#private-access).
 */
import { z } from "zod";
import { coversWholeInternet, hasHostBits } from "../../components/network/cidr-ranges";
import { isRecord } from "./records";

/** Where the jobs run: GitHub's own runners, or the organization's. */
export const RUNNERS = ["github-hosted", "self-hosted"] as const;
export type Runner = (typeof RUNNERS)[number];

/**
 * The `runs-on` labels of a GitHub-hosted stack's jobs, the image the workflows' other jobs use too
 * (https://docs.github.com/en/actions/using-jobs/choosing-the-runner-for-a-job).
 */
export const GITHUB_HOSTED_LABELS: readonly string[] = ["ubuntu-latest"];

/**
 * EC2 security group ids: sg- and 8 (older) or 17 hexadecimal digits, after `<12-digit account>/` for a group
 * in a peered VPC of another account, the form EC2 takes for it
 * (https://docs.aws.amazon.com/vpc/latest/peering/vpc-peering-security-groups.html) and the provider splits
 * into UserIdGroupPair's UserId and GroupId (terraform-provider-aws
 * internal/service/ec2/vpc_security_group_ingress_rule.go, expandIPPermission: "[UserID/]GroupID").
 */
const SECURITY_GROUP_ID = /^(\d{12}\/)?sg-([0-9a-f]{8}|[0-9a-f]{17})$/;

/** The keys that apply to self-hosted runners only. */
const SELF_HOSTED_ONLY = ["labels", "runnerCidrs", "runnerSecurityGroupIds"] as const;

export const deploySchema = z
  .strictObject({
    /** github-hosted or self-hosted: where `pulumi up` and the drift check of this stack run. */
    runner: z.enum(RUNNERS, { error: `must be one of ${RUNNERS.join(", ")}` }).default("github-hosted"),
    /** self-hosted: the labels `runs-on` picks the runners by (every one must match). */
    labels: z
      .array(
        z.string().regex(/^\S(.*\S)?$/, { error: "must be a runner label (no leading or trailing spaces)" }),
        { error: "must be a list of runner labels" },
      )
      .min(1, { error: "must name at least one label" })
      .optional(),
    /** self-hosted: the runners' IPv4 ranges; the cluster security group admits them on 443. */
    runnerCidrs: z
      .array(
        z
          .cidrv4({ error: "must be an IPv4 CIDR block such as 10.99.0.0/24" })
          .refine((cidr) => !hasHostBits(cidr), {
            error: "has host bits set (AWS refuses it): use the block's network address",
          }),
        { error: "must be a list of IPv4 CIDR blocks" },
      )
      .refine((cidrs) => !coversWholeInternet(cidrs), {
        error: "must name the runners' ranges, not every IPv4 address",
      })
      .default([]),
    /**
     * self-hosted: the runners' security groups, in the cluster's VPC or a peered one in the same region
     * (`<account-id>/sg-...` for another account's); admitted on 443.
     */
    runnerSecurityGroupIds: z
      .array(
        z.string().regex(SECURITY_GROUP_ID, {
          error:
            "must be a security group id such as sg-0123456789abcdef0, or 123456789012/sg-0123456789abcdef0 " +
            "for a peered VPC of another account",
        }),
        { error: "must be a list of security group ids" },
      )
      .default([]),
  })
  .superRefine(
    (deploy: unknown, ctx) => {
      if (!isRecord(deploy)) return;
      const runner = deploy.runner ?? "github-hosted";
      if (runner === "self-hosted" && deploy.labels === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["labels"],
          input: undefined,
          message:
            "is required with runner self-hosted: the labels `runs-on` picks the stack's runners by, for example [self-hosted, linux, eks-prod]",
        });
      }
      if (runner !== "github-hosted") return;
      for (const key of SELF_HOSTED_ONLY) {
        const value = deploy[key];
        if (value === undefined || (Array.isArray(value) && value.length === 0 && key !== "labels")) continue;
        ctx.addIssue({
          code: "custom",
          path: [key],
          input: value,
          message:
            "applies to runner self-hosted only: GitHub-hosted jobs run on " +
            GITHUB_HOSTED_LABELS.join(", "),
        });
      }
    },
    { when: () => true },
  );

export type DeployConfig = z.infer<typeof deploySchema>;

/** The `runs-on` labels of the stack's `pulumi up` and drift jobs. */
export function runnerLabels(deploy: DeployConfig): readonly string[] {
  return deploy.runner === "self-hosted" ? (deploy.labels ?? []) : GITHUB_HOSTED_LABELS;
}

/**
 * Cross-key rule: a cluster made elsewhere (`cluster.existing`, `cluster.kubeconfig`) has a security group
 * this stack does not own, so it admits no runner to it.
 */
export function checkDeploy(config: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const cluster = isRecord(config.cluster) ? config.cluster : {};
  const mode =
    cluster.existing !== undefined ? "existing" : cluster.kubeconfig !== undefined ? "kubeconfig" : "";
  if (mode === "" || !isRecord(config.deploy)) return;
  for (const key of ["runnerCidrs", "runnerSecurityGroupIds"] as const) {
    const value = config.deploy[key];
    if (!Array.isArray(value) || value.length === 0) continue;
    ctx.addIssue({
      code: "custom",
      path: ["deploy", key],
      input: value,
      message: `must be empty with cluster.${mode}: the cluster's security group is not this stack's; admit the runners where the cluster was made`,
    });
  }
}
