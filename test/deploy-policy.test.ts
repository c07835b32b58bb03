/**
 * A deploy role that cannot take over its account (docs/fork.md, docs/iam/deploy-policy.json): it writes
 * no inline role policy and attaches exactly the managed policies the plans of every stack file attach;
 * it writes only the roles the program creates, never the CI roles; its EKS writes name the stack's
 * cluster; and the page puts each stack in an AWS account of its own.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT, listStacks } from "../offline/engine";
import { clusterNameFor } from "../stacks/collisions";
import { pageLinks, readPage } from "./docs-pages";
import {
  EKS_WITHOUT_RESOURCE,
  ROLE_WRITES,
  type Planned,
  type Statement,
  grants,
  list,
  matches,
  planned,
  policyFile,
  readPolicy,
} from "./iam-policies";

describe("the deploy role cannot take over its account (docs/iam/deploy-policy.json)", function () {
  this.timeout(600_000);
  const page = readPage("docs/fork.md");
  let plan: Planned;
  before(async () => {
    plan = await planned();
  });

  it("the deploy policy writes no inline role policy and attaches exactly the managed policies the plans do", () => {
    const policy = readPolicy(policyFile("deploy", "policy"));
    assert.deepEqual(
      ["iam:PutRolePolicy", "iam:DeleteRolePolicy"].filter((action) => grants(policy, action)),
      [],
    );
    const attaching = policy.Statement.filter(
      (s) => s.Effect === "Allow" && list(s.Action).some((a) => /^iam:(Attach|Detach)RolePolicy$/.test(a)),
    );
    assert.ok(attaching.length > 0 && list(attaching[0].Action).length === 2);
    assert.ok(plan.policies.has("arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"));
    for (const statement of attaching) {
      // iam:PolicyARN: "Filters access by the ARN of an IAM policy", for AttachRolePolicy and
      // DetachRolePolicy (Service Authorization Reference, AWS Identity and Access Management).
      assert.deepEqual(Object.keys(statement.Condition ?? {}), ["ArnEquals"]);
      assert.deepEqual(list(statement.Condition?.ArnEquals?.["iam:PolicyARN"] as string[]).sort(), [
        ...[...plan.policies].sort(),
      ]);
    }
  });

  it("the deploy policy writes only the roles the program creates, and never the CI roles", () => {
    const policy = readPolicy(policyFile("deploy", "policy"));
    const allows = policy.Statement.filter((s) => s.Effect === "Allow");
    const writing = allows.filter((s) => list(s.Action).some((a) => ROLE_WRITES.some((w) => matches(a, w))));
    // Pulumi names a role it creates `<logical name>-<random suffix>` ("Autonaming", Pulumi docs:
    // https://www.pulumi.com/docs/iac/concepts/resources/names/#autonaming), unless Pulumi.yaml sets
    // autonaming; the program names none of its roles (no `name` input).
    assert.doesNotMatch(fs.readFileSync(path.join(PROJECT_ROOT, "Pulumi.yaml"), "utf8"), /autonaming/);
    const arn = (name: string) => `arn:aws:iam::<account-id>:role/${name}`;
    const ours = [...plan.roles].map((role) => arn(`${role}-0a1b2c3`));
    assert.ok(ours.some((role) => role.includes("eksRole-role")) && ours.length >= 3);
    const ci = ["deploy-dev", "preview-prod", "drift"].map((role) => arn(`eks-calico-${role}`));
    for (const statement of writing) {
      const resources = list(statement.Resource);
      assert.ok(!resources.includes("*"), `${statement.Sid ?? ""} writes roles on every resource`);
      if (list(statement.Action).includes("iam:CreateServiceLinkedRole")) continue;
      for (const role of ours)
        assert.ok(
          resources.some((r) => matches(r, role)),
          `${statement.Sid}: ${role}`,
        );
      for (const role of ci) assert.ok(!resources.some((r) => matches(r, role)), `${statement.Sid}: ${role}`);
    }
    const denied = policy.Statement.filter((s) => s.Effect === "Deny");
    for (const role of ci) {
      for (const action of ROLE_WRITES) {
        const covers = (s: Statement) =>
          list(s.Action).some((a) => matches(a, action)) && list(s.Resource).some((r) => matches(r, role));
        assert.ok(denied.some(covers), `no Deny of ${action} on ${role}`);
      }
    }
    // No IAM write at all (roles, OIDC providers, policies, users) on every resource without a condition.
    for (const statement of allows.filter((s) => list(s.Resource).includes("*") && !s.Condition)) {
      for (const action of list(statement.Action)) assert.doesNotMatch(action, /^iam:(?!Get|List)/, action);
    }
  });

  it("the deploy policy's EKS writes name the stack's cluster; the page fills in the name it makes", () => {
    const policy = readPolicy(policyFile("deploy", "policy"));
    for (const statement of policy.Statement.filter((s) => s.Effect === "Allow")) {
      const eks = list(statement.Action).filter((a) => a.startsWith("eks:"));
      if (eks.length === 0) continue;
      if (list(statement.Resource).includes("*")) {
        assert.deepEqual(
          eks.filter((action) => !EKS_WITHOUT_RESOURCE.includes(action)),
          [],
        );
      } else {
        for (const resource of list(statement.Resource)) {
          assert.match(resource, /^arn:aws:eks:\*:<account-id>:[a-z-]+\/<cluster-name>(\/\*)?$/);
        }
      }
    }
    assert.ok(grants(policy, "eks:CreateAccessEntry") && !grants(policy, "eks:*"));
    // fork.md's fill() puts in the name stacks/collisions.ts gives each stack's cluster.
    assert.match(page, /s\|<cluster-name>\|eks-calico-\$2\|g/);
    // The page's stacks (its `stack=dev # then staging, then prod`), in this project (Pulumi.yaml's name).
    const project =
      /^name: (\S+)$/m.exec(fs.readFileSync(path.join(PROJECT_ROOT, "Pulumi.yaml"), "utf8"))?.[1] ?? "";
    assert.equal(project, "eks-calico");
    for (const stack of ["dev", "staging", "prod"]) {
      assert.ok(listStacks().includes(stack), stack);
      assert.equal(clusterNameFor(project, stack), `eks-calico-${stack}`);
    }
    assert.match(page, /fill deploy-policy\.json "\$stack" >policy\.json/);
  });

  it("the page puts each stack in an AWS account of its own", () => {
    const sections = page.split(/^## /m).map((section) => section.split("\n")[0]);
    assert.ok(sections.includes("3. One AWS account per stack"), sections.join(" | "));
    assert.match(page, /^stack=dev # then staging, then prod: each in its own account/m);
    assert.doesNotMatch(page, /for stack in dev staging prod/);
    const linked = new Set(pageLinks(page).map((link) => link.target));
    assert.ok(linked.has("../tools/iam-analyzers/accepted-findings.json"));
  });
});
