/**
 * docs/fork.md and the IAM policies it links (docs/iam/), held to the program and the workflows: each
 * policy parses as an IAM policy document; the deploy policy names every IAM service the plans of every
 * stack file register resources in, and every policy allows the reads the program makes; the preview and
 * drift policies only read; each trust policy names the subject its job gets; and the page lists exactly
 * the environments, variables and secrets the workflows read.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT, evaluateStack, listStacks } from "../offline/engine";
import { AWS_CALLS } from "../offline/world/aws-calls";
import { READ_STACK_OUTPUTS } from "../stacks/previous-outputs";
import { workflowFiles } from "../scripts/lint-workflows";
import { pageLinks, readPage, tableRows } from "./docs-pages";
import { stepUsing, workflow, workflowText } from "./workflow-files";

/**
 * The IAM service prefixes a resource type's create, update and delete call. @pulumi/eks's components are
 * remote (their children are invisible offline), so theirs are what pulumi-eks creates for the inputs the
 * program gives: the Cluster an aws:eks/cluster with its IAM role, OIDC provider (`createOidcProvider`),
 * security groups and rules, and a grant on the secrets key it is given (EKS CreateCluster's
 * encryptionConfig needs kms:DescribeKey and kms:CreateGrant); a ManagedNodeGroup an aws:eks/nodeGroup and
 * its node role's access entry, passing that role (iam:PassRole) and reading its launch template (ec2).
 */
const TYPE_SERVICES: Readonly<Record<string, readonly string[]>> = {
  "aws:cloudwatch/logGroup:LogGroup": ["logs"],
  "aws:ec2/eip:Eip": ["ec2"],
  "aws:ec2/internetGateway:InternetGateway": ["ec2"],
  "aws:ec2/launchTemplate:LaunchTemplate": ["ec2"],
  "aws:ec2/natGateway:NatGateway": ["ec2"],
  "aws:ec2/routeTable:RouteTable": ["ec2"],
  "aws:ec2/routeTableAssociation:RouteTableAssociation": ["ec2"],
  "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": ["ec2"],
  "aws:ec2/subnet:Subnet": ["ec2"],
  "aws:ec2/vpc:Vpc": ["ec2"],
  "aws:eks/accessEntry:AccessEntry": ["eks"],
  "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": ["eks"],
  "aws:eks/addon:Addon": ["eks"],
  "aws:iam/role:Role": ["iam"],
  "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ["iam"],
  "aws:kms/key:Key": ["kms"],
  "eks:index:Cluster": ["ec2", "eks", "iam", "kms"],
  "eks:index:ManagedNodeGroup": ["ec2", "eks", "iam"],
};

/**
 * Packages whose resources make no AWS call: Kubernetes objects go to the cluster's API (the token from
 * `aws eks get-token` is a presigned sts:GetCallerIdentity, which needs no permission), TLS keys are made
 * where Pulumi runs, the dynamic steps read the cluster, the rest are components and Pulumi's own.
 */
const NO_AWS = ["kubernetes:", "tls:", "eks-calico:", "pulumi-nodejs:dynamic/", "pulumi:"];

/**
 * The actions AWS checks on the caller itself, beyond the service, for a resource type. A managed node
 * group from a launch template: EKS authorizes the caller to launch instances with it (CreateNodegroup's
 * InvalidRequestException "You are not authorized to launch instances with this launch template", as
 * terraform-aws-modules/terraform-aws-eks#3199 shows it in CloudTrail), as EC2 Auto Scaling does ("An IAM
 * user or role that creates or updates an Auto Scaling group using a launch template must have permission
 * to use the ec2:RunInstances action", EC2 Auto Scaling User Guide, "Launch template support"); it reads
 * the template's version (UpdateNodegroupVersion: "You are not authorized to describe the launch template
 * version") and passes the node role.
 */
const CALLER_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  "eks:index:ManagedNodeGroup": ["ec2:RunInstances", "ec2:DescribeLaunchTemplateVersions", "iam:PassRole"],
};

/** The IAM actions each invoke (data source) the program calls needs. */
const CALL_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  "aws:index/getAvailabilityZones:getAvailabilityZones": ["ec2:DescribeAvailabilityZones"],
  "aws:eks/getAddonVersion:getAddonVersion": ["eks:DescribeAddonVersions"],
  "aws:eks/getAddon:getAddon": ["eks:DescribeAddon"],
  "aws:eks/getCluster:getCluster": ["eks:DescribeCluster"],
  "aws:eks/getNodeGroup:getNodeGroup": ["eks:DescribeNodegroup"],
  // "No permissions are required to perform this operation" (STS API reference, GetCallerIdentity).
  "aws:index/getCallerIdentity:getCallerIdentity": [],
  // The stack's own last outputs, from Pulumi's state.
  [READ_STACK_OUTPUTS]: [],
};

interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
  Principal?: { Federated?: string };
}
interface PolicyDocument {
  Version: string;
  Statement: Statement[];
}

const IAM_DIR = path.join(PROJECT_ROOT, "docs", "iam");
const ROLES = ["deploy", "preview", "drift"] as const;
const policyFile = (role: string, kind: "policy" | "trust") => `${role}-${kind}.json`;
const readPolicy = (file: string) =>
  JSON.parse(fs.readFileSync(path.join(IAM_DIR, file), "utf8")) as PolicyDocument;
const list = (value: string | string[]) => (Array.isArray(value) ? value : [value]);
const allowed = (policy: PolicyDocument) =>
  policy.Statement.filter((s) => s.Effect === "Allow").flatMap((s) => list(s.Action));

/** Whether an IAM action pattern (`*` and `?` wildcards, case-insensitive) matches `action`. */
function matches(pattern: string, action: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${regex}$`, "i").test(action);
}
const grants = (policy: PolicyDocument, action: string) =>
  allowed(policy).some((pattern) => matches(pattern, action));
const services = (policy: PolicyDocument) => new Set(allowed(policy).map((a) => a.split(":")[0]));

/** What every stack file's plans register and call, as `pulumi preview` and as `pulumi up` run them. */
async function planned(): Promise<{ types: Set<string>; calls: Set<string> }> {
  const types = new Set<string>();
  const calls = new Set<string>();
  for (const stack of listStacks()) {
    for (const preview of [true, false]) {
      const evaluation = await evaluateStack(stack, { preview, onCall: (token) => calls.add(token) });
      for (const resource of evaluation.resources) types.add(resource.type);
    }
  }
  return { types, calls };
}

/** A workflow's `environment` as the docs write it: `${{ inputs.stack }}` is `<stack>`. */
const environmentName = (expression: string) =>
  expression.replace(/\$\{\{\s*(?:inputs|matrix)\.stack\s*\}\}/g, "<stack>");

/** The `vars.` and `secrets.` names and the environments every workflow reads, as `kind name`. */
function workflowSettings(): string[] {
  const settings = new Set<string>();
  for (const file of workflowFiles()) {
    const name = path.basename(file);
    const code = workflowText(name)
      .split("\n")
      .filter((line) => !/^\s*#/.test(line))
      .join("\n");
    for (const [, kind, key] of code.matchAll(/\b(vars|secrets)\.([A-Za-z_][A-Za-z0-9_]*)/g)) {
      settings.add(`${kind === "vars" ? "variable" : "secret"} ${key}`);
    }
    for (const job of Object.values(workflow(name).jobs)) {
      if (job.environment !== undefined) settings.add(`environment ${environmentName(job.environment)}`);
    }
  }
  return [...settings].sort();
}

/** The rows of fork.md's settings table, as `kind name`. */
const pageSettings = (page: string) =>
  tableRows(page, "Name")
    .map(([name, kind]) => `${kind} ${name.replaceAll("`", "")}`)
    .sort();

describe("a fork that deploys (docs/fork.md, docs/iam/)", function () {
  this.timeout(600_000);
  const page = readPage("docs/fork.md");
  let plan: { types: Set<string>; calls: Set<string> };
  before(async () => {
    plan = await planned();
  });

  it("each policy parses as an IAM policy document", () => {
    const files = fs.readdirSync(IAM_DIR).sort();
    assert.deepEqual(
      files,
      ROLES.flatMap((role) => [policyFile(role, "policy"), policyFile(role, "trust")]).sort(),
    );
    for (const file of files) {
      const policy = readPolicy(file);
      assert.equal(policy.Version, "2012-10-17", file);
      assert.ok(Array.isArray(policy.Statement) && policy.Statement.length > 0, file);
      for (const statement of policy.Statement) {
        assert.ok(["Allow", "Deny"].includes(statement.Effect), `${file}: Effect ${statement.Effect}`);
        for (const action of list(statement.Action)) assert.match(action, /^[a-z0-9-]+:[A-Za-z*?]+$/, file);
        if (file.endsWith("-policy.json")) assert.ok(list(statement.Resource).length > 0, file);
      }
    }
  });

  it("the table of types is complete: every type every stack file registers has its services", () => {
    const unknown = [...plan.types].filter(
      (type) => !Object.hasOwn(TYPE_SERVICES, type) && !NO_AWS.some((p) => type.startsWith(p)),
    );
    assert.deepEqual(unknown, []);
    assert.ok(plan.types.has("aws:ec2/vpc:Vpc") && plan.types.has("eks:index:Cluster"));
  });

  it("the table of calls is complete: every invoke the plans make, and every one the offline world answers", () => {
    const known = [...plan.calls, ...Object.keys(AWS_CALLS)];
    assert.deepEqual(
      known.filter((token) => !Object.hasOwn(CALL_ACTIONS, token)),
      [],
    );
    assert.ok(plan.calls.has("aws:index/getAvailabilityZones:getAvailabilityZones"));
  });

  it("the deploy policy names every IAM service the plans of every stack file need", () => {
    const needed = new Set([...plan.types].flatMap((type) => TYPE_SERVICES[type] ?? []));
    const named = services(readPolicy(policyFile("deploy", "policy")));
    assert.deepEqual(
      [...needed].filter((service) => !named.has(service)),
      [],
    );
    assert.deepEqual([...needed].sort(), ["ec2", "eks", "iam", "kms", "logs"]);
  });

  it("the deploy policy allows what AWS checks on the caller for the types the plans register", () => {
    const policy = readPolicy(policyFile("deploy", "policy"));
    const needed = [...plan.types].flatMap((type) => CALLER_ACTIONS[type] ?? []);
    assert.ok(needed.includes("ec2:RunInstances"), "the plans register managed node groups");
    assert.deepEqual(
      needed.filter((action) => !grants(policy, action)),
      [],
    );
  });

  it("every policy allows each read the program makes, in previews and updates", () => {
    for (const role of ROLES) {
      const policy = readPolicy(policyFile(role, "policy"));
      for (const action of [...plan.calls].flatMap((token) => CALL_ACTIONS[token] ?? [])) {
        assert.ok(grants(policy, action), `${role}-policy.json does not allow ${action}`);
      }
    }
  });

  it("the preview and drift policies only read; the drift policy reads each service the deploy writes", () => {
    const deploy = services(readPolicy(policyFile("deploy", "policy")));
    for (const role of ["preview", "drift"]) {
      const policy = readPolicy(policyFile(role, "policy"));
      for (const statement of policy.Statement) assert.equal(statement.Effect, "Allow");
      for (const action of allowed(policy)) {
        assert.match(action, /^[a-z0-9-]+:(Describe|Get|List)[A-Za-z*]*$/, `${role}: ${action}`);
      }
    }
    const drift = services(readPolicy(policyFile("drift", "policy")));
    assert.deepEqual(
      [...deploy].filter((service) => !drift.has(service)),
      [],
    );
  });

  it("the deploy policy passes roles only to EKS and EC2", () => {
    const statements = readPolicy(policyFile("deploy", "policy")).Statement;
    const passing = statements.filter((s) => list(s.Action).some((a) => matches(a, "iam:PassRole")));
    assert.equal(passing.length, 1);
    assert.deepEqual(passing[0].Condition?.StringEquals?.["iam:PassedToService"], [
      "eks.amazonaws.com",
      "ec2.amazonaws.com",
    ]);
  });

  it("each trust policy names GitHub's provider, the audience and the subject its job gets", () => {
    const up = workflow("up.yml").jobs.up;
    const preview = workflow("pr.yml").jobs.preview;
    const drift = workflow("drift.yml");
    // The drift job names no environment and runs on main (schedule and dispatch): its sub is the ref.
    assert.equal(drift.jobs.drift.environment, undefined);
    const subjects: Record<(typeof ROLES)[number], string> = {
      deploy: `repo:<owner>/<repo>:environment:${environmentName(up.environment ?? "")}`,
      preview: `repo:<owner>/<repo>:environment:${environmentName(preview.environment ?? "")}`,
      drift: "repo:<owner>/<repo>:ref:refs/heads/main",
    };
    for (const role of ROLES) {
      const [statement, ...rest] = readPolicy(policyFile(role, "trust")).Statement;
      assert.equal(rest.length, 0);
      assert.equal(statement.Effect, "Allow");
      assert.equal(statement.Action, "sts:AssumeRoleWithWebIdentity");
      assert.equal(
        statement.Principal?.Federated,
        "arn:aws:iam::<account-id>:oidc-provider/token.actions.githubusercontent.com",
      );
      assert.deepEqual(statement.Condition, {
        StringEquals: {
          "token.actions.githubusercontent.com:aud": "sts.amazonaws.com",
          "token.actions.githubusercontent.com:sub": subjects[role],
        },
      });
    }
  });

  it("the page creates the deploy roles with the session up.yml asks for", () => {
    const seconds = stepUsing(workflow("up.yml").jobs.up, "aws-actions/configure-aws-credentials")?.with?.[
      "role-duration-seconds"
    ];
    assert.match(page, new RegExp(`--max-session-duration ${String(seconds)} `));
  });

  it("the page links each policy file", () => {
    const linked = new Set(pageLinks(page).map((link) => link.target));
    for (const file of fs.readdirSync(IAM_DIR)) assert.ok(linked.has(`iam/${file}`), `no link to ${file}`);
  });

  it("the page lists exactly the environments, variables and secrets the workflows read", () => {
    const read = workflowSettings();
    assert.ok(read.includes("environment <stack>-preview") && read.includes("secret AWS_ROLE_ARN"));
    assert.deepEqual(pageSettings(page), read);
  });
});
