/**
 * `deploy`: where the stack's CI jobs run (`pulumi up`, the drift check), and what the cluster's security
 * group admits from there. `pulumi up` installs Calico through the Kubernetes API, so the runner must reach
 * the cluster's endpoint: GitHub-hosted runners reach only a public endpoint open to the whole internet
 * (stacks/deploy-path.ts warns otherwise). Self-hosted runners reach the private endpoint once the cluster
 * security group admits them on 443, from inside the VPC; from a network joined to it (peering, a VPN) only
 * when the public endpoint is off, since only then does the endpoint's name resolve to the private addresses
 * outside the VPC (https://docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html#private-access).
 */
import { canonicalCidr, securityGroupOf, uniqueEntries } from "./lists";
import { z } from "zod";
import { AWS_LIMITS } from "./aws-limits";
import { coversWholeInternet, hasHostBits } from "../../components/network/cidr-ranges";
import { isRecord } from "./records";
import { described } from "./described";

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

/** AWS's default quota "Inbound rules per security group" (aws-limits.ts, with its source). */
export const DEFAULT_INBOUND_RULES_PER_GROUP = AWS_LIMITS.inboundRulesPerSecurityGroup.value;

/**
 * The highest the rules quota can be raised to: rules per group times groups per interface cannot exceed
 * 1,000, and an interface has at least one group (aws-limits.ts).
 */
const RULES_CEILING = AWS_LIMITS.rulesPerSecurityGroupTimesGroupsPerInterface;

/**
 * Inbound rules the control plane's security group has besides the runners': @pulumi/eks's
 * `eksClusterIngressRule` from its node security group (pulumi-eks v4.3.0 nodejs/eks/nodes/securitygroup.ts,
 * created by createCluster unless skipDefaultSecurityGroups, which this program never sets).
 */
export const OTHER_INBOUND_RULES = 1;

export const deploySchema = z
  .strictObject({
    runner: z
      .enum(RUNNERS, { error: `must be one of ${RUNNERS.join(", ")}` })
      .default("github-hosted")
      .meta(
        described(
          `Where the stack's \`pulumi up\` and drift check run (the \`runs-on\` of \`up.yml\` and \`drift.yml\`): \`github-hosted\` (${GITHUB_HOSTED_LABELS.map((label) => `\`${label}\``).join(", ")}) or \`self-hosted\`.`,
          "GitHub-hosted runners reach only a public endpoint open to every address; `npm start` warns when the runner cannot reach the endpoint.",
          "Pull-request previews always run GitHub-hosted.",
          "See [Runners](pull-requests.md#runners).",
        ),
      ),
    labels: z
      .array(
        z.string().regex(/^\S(.*\S)?$/, { error: "must be a runner label (no leading or trailing spaces)" }),
        { error: "must be a list of runner labels" },
      )
      .min(1, { error: "must name at least one label" })
      .optional()
      .meta(
        described(
          "`self-hosted` only, and required there: the runner labels `runs-on` picks the runners by (every one must match), for example `[self-hosted, linux, eks-prod]`.",
        ),
      ),
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
      .superRefine(uniqueEntries(canonicalCidr, "the same block"))
      .default([])
      .meta(
        described(
          "`self-hosted` only: the runners' IPv4 ranges (network addresses, not every address together).",
          "Each gets one ingress rule on 443 on the control plane's own security group (never on nodes), so they reach the private endpoint (from outside the VPC only with the public one off: [Runners](pull-requests.md#runners)).",
          "Refused with `cluster.existing` or `cluster.kubeconfig` (not this stack's group).",
        ),
      ),
    runnerSecurityGroupIds: z
      .array(
        z.string().regex(SECURITY_GROUP_ID, {
          error:
            "must be a security group id such as sg-0123456789abcdef0, or 123456789012/sg-0123456789abcdef0 " +
            "for a peered VPC of another account",
        }),
        { error: "must be a list of security group ids" },
      )
      .superRefine(uniqueEntries(securityGroupOf, "the same group, with or without its account"))
      .default([])
      .meta(
        described(
          "`self-hosted` only: the runners' security groups (`sg-` ids, in the VPC or a peered one in the same region; `<account-id>/sg-...` for another account's), admitted on 443 like `runnerCidrs`, and refused with a cluster made elsewhere alike.",
          "Each group once, with or without its account; each block of `runnerCidrs` once.",
        ),
      ),
    // The runners' rules must fit it: runnerRuleProblem.
    securityGroupRuleQuota: z
      .number({ error: "must be a whole number >= 1" })
      .int({ error: "must be a whole number >= 1" })
      .min(1, { error: "must be a whole number >= 1" })
      .max(RULES_CEILING.value, {
        error: `must be at most ${RULES_CEILING.value.toLocaleString("en-US")}: AWS raises no quota "Inbound rules per security group" past it, since rules per security group times security groups per network interface cannot exceed ${RULES_CEILING.value.toLocaleString("en-US")} (Amazon VPC quotas, Security groups)`,
      })
      .default(DEFAULT_INBOUND_RULES_PER_GROUP)
      .meta(
        described(
          `The account's quota "${AWS_LIMITS.inboundRulesPerSecurityGroup.name}" (Amazon VPC quotas; ${DEFAULT_INBOUND_RULES_PER_GROUP} unless AWS raised it).`,
          "The runners' rules, one per CIDR and per security group, must fit it beside the one rule @pulumi/eks puts on the control plane's group. Otherwise the stack is refused before EC2 refuses the rule.",
          "After AWS raises the quota, set the raised value here.",
          `The most: rules per security group times security groups per network interface cannot exceed ${RULES_CEILING.value.toLocaleString("en-US")}.`,
        ),
      ),
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
      const rules = runnerRuleProblem(deploy);
      if (rules !== undefined) ctx.addIssue({ code: "custom", ...rules });
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

/**
 * The refusal when the runners need more inbound rules (one per CIDR and per security group:
 * components/cluster/runner-access.ts) than the control plane's security group has left under the quota.
 */
function runnerRuleProblem(
  deploy: Record<string, unknown>,
): { path: string[]; input: unknown; message: string; params: { hint: string } } | undefined {
  const count = (key: string) => (Array.isArray(deploy[key]) ? (deploy[key] as unknown[]).length : 0);
  const rules = count("runnerCidrs") + count("runnerSecurityGroupIds");
  const quota = deploy.securityGroupRuleQuota ?? DEFAULT_INBOUND_RULES_PER_GROUP;
  if (typeof quota !== "number" || !Number.isInteger(quota) || rules <= quota - OTHER_INBOUND_RULES)
    return undefined;
  const raised = quota !== DEFAULT_INBOUND_RULES_PER_GROUP;
  return {
    path: [count("runnerCidrs") > 0 ? "runnerCidrs" : "runnerSecurityGroupIds"],
    input: rules,
    message: `with runnerSecurityGroupIds makes ${rules} inbound rules on the control plane's security group, which has ${OTHER_INBOUND_RULES} already (@pulumi/eks's), and ${raised ? `deploy.securityGroupRuleQuota says the quota is ${quota}` : `AWS's default quota "Inbound rules per security group" is ${quota}`}: EC2 refuses the rule past it (RulesPerSecurityGroupLimitExceeded)`,
    params: {
      hint: `admit the runners by fewer, larger ranges or by their security group; or ask AWS to raise the quota (Service Quotas, Amazon VPC, "Inbound rules per security group") and set deploy.securityGroupRuleQuota to the raised value`,
    },
  };
}

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
