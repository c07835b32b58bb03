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
  PASSED_ROLES,
  POLICY_WRITES,
  PROVIDER_CALLS,
  ROLE_LIFECYCLE,
  ROLE_WRITES,
  autonamed,
} from "./iam-policies";
import { AWS_MANAGED, type Planned, planned } from "./iam-planned";
import { type Statement, allows, grants, list, matches, policyFile, readPolicy } from "./iam-documents";

const roleArn = (name: string) => `arn:aws:iam::<account-id>:role/${name}`;
/**
 * The stack's own customer managed policies: Karpenter's controller's six, whose logical names begin with
 * the component's (`new Karpenter("karpenter", ...)` in index.ts, `${name}-controller-<stem>`).
 */
const OWN_POLICIES = "arn:aws:iam::<account-id>:policy/karpenter-*";

describe("the deploy role cannot take over its account (docs/iam/deploy-policy.json)", function () {
  this.timeout(600_000);
  const page = readPage("docs/fork.md");
  let plan: Planned;
  before(async () => {
    plan = await planned();
  });

  it("the deploy policy writes no inline role policy and attaches exactly the policies the plans do", () => {
    const policy = readPolicy(policyFile("deploy", "policy"));
    assert.deepEqual(
      ["iam:PutRolePolicy", "iam:DeleteRolePolicy"].filter((action) => grants(policy, action)),
      [],
    );
    const attaching = policy.Statement.filter(
      (s) => s.Effect === "Allow" && list(s.Action).some((a) => /^iam:(Attach|Detach)RolePolicy$/.test(a)),
    );
    assert.ok(plan.policies.has("arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"));
    assert.ok(plan.ownPolicies.size > 0, "the dev stack with Karpenter on attaches policies of its own");
    // iam:PolicyARN: "Filters access by the ARN of an IAM policy", for AttachRolePolicy and
    // DetachRolePolicy (Service Authorization Reference, AWS Identity and Access Management). Two
    // statements, one operator each (IAM ANDs the operators of one statement): ArnEquals over exactly the AWS
    // managed policies the plans attach, and ArnLike over exactly the stack's own policies, which Pulumi
    // autonames `<logical name>-<random suffix>` in the stack's account.
    const conditions = attaching.map((statement) => {
      assert.deepEqual([...list(statement.Action)].sort(), ["iam:AttachRolePolicy", "iam:DetachRolePolicy"]);
      const operators = Object.keys(statement.Condition ?? {});
      assert.equal(operators.length, 1, statement.Sid);
      assert.deepEqual(
        Object.keys(statement.Condition?.[operators[0]] ?? {}),
        ["iam:PolicyARN"],
        statement.Sid,
      );
      return [operators[0], list(statement.Condition?.[operators[0]]["iam:PolicyARN"] as string[]).sort()];
    });
    assert.deepEqual(conditions, [
      ["ArnEquals", [...plan.policies].sort()],
      ["ArnLike", [OWN_POLICIES]],
    ]);
    const ours = [...plan.ownPolicies].map((name) => `arn:aws:iam::<account-id>:policy/${autonamed(name)}`);
    for (const arn of ours) assert.ok(matches(OWN_POLICIES, arn), arn);
    // Nothing broader: not an AWS managed policy, not a policy of the account's that is not the stack's.
    for (const arn of [
      "arn:aws:iam::aws:policy/AdministratorAccess",
      "arn:aws:iam::<account-id>:policy/eks-calico-deploy",
      "arn:aws:iam::<account-id>:policy/admin",
    ]) {
      assert.ok(!matches(OWN_POLICIES, arn), arn);
    }
    // And each attachment the plans make, to the role the plans make it to, is allowed, on attach and on detach.
    for (const attachment of plan.attachments) {
      const [role, attached] = attachment.split(" ");
      const policyArn = AWS_MANAGED.test(attached)
        ? attached
        : `arn:aws:iam::<account-id>:policy/${autonamed(attached)}`;
      for (const action of ["iam:AttachRolePolicy", "iam:DetachRolePolicy"]) {
        assert.ok(
          allows(policy, action, roleArn(autonamed(role)), { "iam:PolicyARN": policyArn }),
          `${action} ${attachment}`,
        );
      }
    }
  });

  it("the deploy policy writes only the roles the program creates, and never the CI roles", () => {
    const policy = readPolicy(policyFile("deploy", "policy"));
    const allowing = policy.Statement.filter((s) => s.Effect === "Allow");
    const writing = allowing.filter((s) =>
      list(s.Action).some((a) => ROLE_WRITES.some((w) => matches(a, w))),
    );
    // Pulumi names a role it creates `<logical name>-<random suffix>` ("Autonaming", Pulumi docs:
    // https://www.pulumi.com/docs/iac/concepts/resources/names/#autonaming), unless Pulumi.yaml sets
    // autonaming; the program names none of its roles (no `name` input).
    assert.doesNotMatch(fs.readFileSync(path.join(PROJECT_ROOT, "Pulumi.yaml"), "utf8"), /autonaming/);
    const ours = [...plan.roles].map((role) => roleArn(autonamed(role)));
    assert.ok(ours.some((role) => role.includes("eksRole-role")) && ours.length >= 3);
    assert.ok(
      ours.some((role) => role.includes("karpenter-controller")),
      "the dev stack with Karpenter on",
    );
    const ci = ["deploy-dev", "preview-prod", "drift"].map((role) => roleArn(`eks-calico-${role}`));
    // Each statement that writes roles names only roles the program creates, never on every resource...
    for (const statement of writing) {
      const resources = list(statement.Resource);
      assert.ok(!resources.includes("*"), `${statement.Sid ?? ""} writes roles on every resource`);
      if (list(statement.Action).includes("iam:CreateServiceLinkedRole")) continue;
      for (const resource of resources) {
        assert.ok(
          ours.some((role) => matches(resource, role)),
          `${statement.Sid}: ${resource} names no role the program creates`,
        );
      }
      for (const role of ci) assert.ok(!resources.some((r) => matches(r, role)), `${statement.Sid}: ${role}`);
    }
    // ...and together they create, change, tag and delete each of them. Attaching and passing are held to
    // what the plans attach (above) and pass (PASSED_ROLES): a statement that attaches or passes names only
    // the roles the plans attach such a policy to, or pass to its service.
    const attachedTo = (own: boolean) =>
      new Set(
        [...plan.attachments]
          .map((a) => a.split(" "))
          .filter(([, attached]) => AWS_MANAGED.test(attached) !== own)
          .map(([role]) => role),
      );
    const passedTo = (service: string) =>
      new Set([...plan.passes].filter((p) => p.startsWith(`${service} `)).map((p) => p.split(" ")[1]));
    const tracked = new Set(Object.values(PASSED_ROLES).map((p) => p.service));
    // The roles a statement that attaches or passes names, and no other: those the plans attach its kind of
    // policy to, or pass to its service. None for the rest (the pass to EKS and EC2 is fork.test.ts's).
    const needs = (statement: Statement): Set<string> | undefined => {
      const actions = list(statement.Action);
      if (actions.some((a) => matches(a, "iam:AttachRolePolicy"))) {
        return attachedTo(statement.Condition?.ArnLike !== undefined);
      }
      const services = list((statement.Condition?.StringEquals?.["iam:PassedToService"] ?? []) as string[]);
      const passes = actions.every((a) => matches(a, "iam:PassRole")) && services.length > 0;
      if (!passes || !services.every((service) => tracked.has(service))) return undefined;
      return new Set(services.flatMap((service) => [...passedTo(service)]));
    };
    for (const statement of writing) {
      const needed = needs(statement);
      if (needed === undefined) continue;
      for (const role of [...plan.roles].filter((r) => !needed.has(r))) {
        for (const resource of list(statement.Resource)) {
          assert.ok(
            !matches(resource, roleArn(autonamed(role))),
            `${statement.Sid}: ${resource} names ${role}`,
          );
        }
      }
    }
    for (const role of ours) {
      for (const action of ROLE_LIFECYCLE) assert.ok(allows(policy, action, role), `${action} ${role}`);
    }
    for (const pass of plan.passes) {
      const [service, role] = pass.split(" ");
      assert.ok(
        allows(policy, "iam:PassRole", roleArn(autonamed(role)), { "iam:PassedToService": service }),
        pass,
      );
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
    for (const statement of allowing.filter((s) => list(s.Resource).includes("*") && !s.Condition)) {
      for (const action of list(statement.Action)) assert.doesNotMatch(action, /^iam:(?!Get|List)/, action);
    }
  });

  it("the deploy policy writes only the stack's own customer managed policies", () => {
    const policy = readPolicy(policyFile("deploy", "policy"));
    const writes = policy.Statement.filter(
      (s) => s.Effect === "Allow" && list(s.Action).some((a) => POLICY_WRITES.some((w) => matches(a, w))),
    );
    // A customer managed policy's ARN, arn:aws:iam::<account>:policy/<name> (Service Authorization
    // Reference, AWS Identity and Access Management, resource type `policy`).
    assert.deepEqual(
      writes.map((s) => list(s.Resource)),
      [[OWN_POLICIES]],
    );
    for (const name of plan.ownPolicies) {
      for (const action of POLICY_WRITES) {
        assert.ok(
          allows(policy, action, `arn:aws:iam::<account-id>:policy/${autonamed(name)}`),
          `${action} ${name}`,
        );
      }
    }
  });

  it("the deploy policy makes Karpenter's queue, rules, policies and association, each on its own ARN only", () => {
    const policy = readPolicy(policyFile("deploy", "policy"));
    for (const [type, calls] of Object.entries(PROVIDER_CALLS)) {
      const names = [...(plan.names.get(type) ?? [])];
      assert.ok(names.length > 0, `the dev stack with Karpenter on registers ${type}`);
      for (const { resource, update, refresh } of calls) {
        for (const name of names) {
          for (const action of [...update, ...refresh]) {
            assert.ok(allows(policy, action, resource(name)), `${action} on ${resource(name)}`);
          }
        }
      }
    }
    // SQS and EventBridge actions name their resource (Service Authorization Reference: every SQS action
    // the provider calls names `queue`, arn:aws:sqs:<region>:<account>:<queue name>; every EventBridge one
    // `rule-on-default-event-bus`, arn:aws:events:<region>:<account>:rule/<rule name>): the deploy policy
    // grants them on the stack's own only, whose logical names begin with the component's (`karpenter`).
    const named = (service: string) =>
      policy.Statement.filter(
        (s) => s.Effect === "Allow" && list(s.Action).some((a) => a.startsWith(`${service}:`)),
      );
    assert.deepEqual(
      named("sqs").map((s) => list(s.Resource)),
      [["arn:aws:sqs:*:<account-id>:karpenter-*"]],
    );
    assert.deepEqual(
      named("events").map((s) => list(s.Resource)),
      [["arn:aws:events:*:<account-id>:rule/karpenter-*"]],
    );
    for (const type of ["aws:sqs/queue:Queue", "aws:cloudwatch/eventRule:EventRule"]) {
      for (const name of plan.names.get(type) ?? []) assert.match(name, /^karpenter-/, type);
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
