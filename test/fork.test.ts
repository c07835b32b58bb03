/**
 * docs/fork.md and the IAM policies it links (docs/iam/), held to the program and the workflows: each
 * policy parses as an IAM policy document; the deploy policy names every IAM service the plans of every
 * stack file register resources in, and every policy allows the reads the program makes; the preview and
 * drift policies only read; each trust policy names the subject its job gets; and the page lists exactly
 * the environments, variables and secrets the workflows read. What keeps the deploy role to its own
 * stack: test/deploy-policy.test.ts.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { AWS_CALLS } from "../offline/world/aws-calls";
import { workflowFiles } from "../scripts/lint-workflows";
import { pageLinks, readPage, tableRows } from "./docs-pages";
import { stepUsing, workflow, workflowText } from "./workflow-files";
import {
  CALLER_ACTIONS,
  CALL_ACTIONS,
  NO_AWS,
  PROVIDER_CALLS,
  TYPE_SERVICES,
  autonamed,
} from "./iam-policies";
import { type Planned, planned } from "./iam-planned";
import {
  IAM_DIR,
  ROLES,
  allowed,
  allows,
  grants,
  list,
  matches,
  policyFile,
  readPolicy,
  services,
} from "./iam-documents";

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
  let plan: Planned;
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
    assert.deepEqual([...needed].sort(), ["ec2", "eks", "events", "iam", "kms", "logs", "sqs"]);
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

  it("the deploy policy passes roles only to EKS and EC2, and Karpenter's controller's to EKS Pod Identity", () => {
    const statements = readPolicy(policyFile("deploy", "policy")).Statement;
    const passing = statements.filter(
      (s) => s.Effect === "Allow" && list(s.Action).some((a) => matches(a, "iam:PassRole")),
    );
    assert.deepEqual(
      passing.map((s) => [
        Object.keys(s.Condition ?? {}),
        s.Condition?.StringEquals?.["iam:PassedToService"],
      ]),
      [
        [["StringEquals"], ["eks.amazonaws.com", "ec2.amazonaws.com"]],
        [["StringEquals"], "pods.eks.amazonaws.com"],
      ],
    );
    // The one to EKS Pod Identity names only the roles the plans pass to it (PASSED_ROLES).
    const passed = [...plan.passes]
      .filter((p) => p.startsWith("pods.eks.amazonaws.com "))
      .map((p) => p.split(" ")[1]);
    assert.deepEqual(passed, ["karpenter-controller"]);
    const role = (name: string) => `arn:aws:iam::<account-id>:role/${autonamed(name)}`;
    for (const name of plan.roles) {
      assert.equal(
        list(passing[1].Resource).some((resource) => matches(resource, role(name))),
        passed.includes(name),
        name,
      );
    }
  });

  it("the drift policy reads Karpenter's queue, rules, policies and association as a refresh does", () => {
    const drift = readPolicy(policyFile("drift", "policy"));
    for (const [type, calls] of Object.entries(PROVIDER_CALLS)) {
      for (const name of plan.names.get(type) ?? []) {
        for (const { resource, refresh } of calls) {
          for (const action of refresh) {
            assert.ok(allows(drift, action, resource(name)), `${action} ${resource(name)}`);
          }
        }
      }
    }
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
