/**
 * Access for people and CI: `cluster.access` entries become EKS access entries with cluster-scoped
 * policy associations; ARNs are validated (kind, account, partition); the creator's bootstrap admin is
 * the only access nothing declares, and docs/access.md says so.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  BOOTSTRAP_ADMIN,
  accessPolicyArn,
  accessResourceName,
  parsePrincipalArn,
  partitionOf,
} from "../components/cluster/access";
import { PROJECT_ROOT, evaluateStackExpectingError } from "../offline/engine";
import { diffDocuments } from "../offline/diff";
import { resourcesDocument } from "../offline/plan";
import { ConfigError, validateConfig } from "../stacks";
import { STACKS, evaluated, evaluatedWith, ofType, stackValue } from "./helpers";

const ENTRY = "aws:eks/accessEntry:AccessEntry";
const ASSOCIATION = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation";
const ADMINS = "arn:aws:iam::123456789012:role/platform-admins";
const CI = "arn:aws:iam::210987654321:role/ci/github-deploy";
const AUDITOR = "arn:aws:iam::123456789012:user/auditor";

function withAccess(stack: string, access: unknown[], extra: Record<string, unknown> = {}) {
  return {
    config: { "eks-calico:cluster": { ...stackValue<object>(stack, "cluster"), access }, ...extra },
  };
}

describe("cluster access", () => {
  for (const stack of STACKS) {
    it(`${stack}: declares no access entry beyond its config (the creator's comes from EKS)`, async () => {
      const declared = stackValue<{ access: unknown[] }>(stack, "cluster").access;
      assert.equal(ofType(await evaluated(stack), ENTRY).length, declared.length);
    });
  }

  it("creates an entry and a cluster-wide policy association per principal, the association after its entry", async () => {
    const evaluation = await evaluatedWith(
      "dev",
      withAccess("dev", [
        { principalArn: ADMINS, level: "admin" },
        { principalArn: CI, level: "admin" },
        { principalArn: AUDITOR, level: "view" },
      ]),
    );
    const entries = ofType(evaluation, ENTRY);
    const associations = ofType(evaluation, ASSOCIATION);
    assert.deepEqual(
      entries.map((e) => [e.inputs.principalArn, e.inputs.type, e.inputs.clusterName]),
      [ADMINS, CI, AUDITOR].map((arn) => [arn, "STANDARD", "eks-calico-dev"]),
    );
    assert.deepEqual(
      associations.map((a) => [a.inputs.principalArn, a.inputs.policyArn, a.inputs.accessScope]),
      [
        [ADMINS, "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy", { type: "cluster" }],
        [CI, "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy", { type: "cluster" }],
        [AUDITOR, "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy", { type: "cluster" }],
      ],
    );
    associations.forEach((association, i) => {
      assert.equal(association.name, entries[i].name);
      assert.deepEqual(association.propertyDependencies.principalArn, [entries[i].urn]);
    });
    assert.ok(entries.every((e) => (e.inputs.tags as Record<string, string>)["pulumi:stack"] === "dev"));
  });

  it("exports everyone who can use the API, the creator's bootstrap admin first (by its ARN once recorded)", async () => {
    // As `pulumi up` records it: a preview of a new stack does not know who runs the first `up`.
    const evaluation = await evaluatedWith("dev", {
      ...withAccess("dev", [{ principalArn: AUDITOR, level: "view" }]),
      preview: false,
    });
    assert.deepEqual(evaluation.outputs.clusterAccess, [
      {
        // The offline caller's role: the first `up`'s caller is the creator.
        principal: "arn:aws:iam::000000000000:role/offline-deployer",
        level: "admin",
        grantedBy: BOOTSTRAP_ADMIN.grantedBy,
      },
      { principal: AUDITOR, level: "view", grantedBy: "access entry (cluster.access), AmazonEKSViewPolicy" },
    ]);
  });

  it("grants adminView as AmazonEKSAdminViewPolicy, cluster-wide, and refuses a level EKS has no policy for", async () => {
    const drift = "arn:aws:iam::210987654321:role/github-drift";
    const evaluation = await evaluatedWith(
      "dev",
      withAccess("dev", [{ principalArn: drift, level: "adminView" }]),
    );
    const [association] = ofType(evaluation, ASSOCIATION);
    assert.equal(
      association?.inputs.policyArn,
      "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminViewPolicy",
    );
    assert.deepEqual(association?.inputs.accessScope, { type: "cluster" });
    const refused = validateConfig({
      nodeGroups: [{ name: "general" }],
      cluster: { access: [{ principalArn: drift, level: "edit" }] },
    });
    assert.ok(!refused.ok);
    assert.ok(
      refused.problems.some(
        (p) => p.path === "cluster.access[0].level" && /must be one of admin, adminView, view/.test(p.rule),
      ),
      JSON.stringify(refused.problems),
    );
  });

  it("names each entry after its principal, so reordering or removing one leaves the others alone", () => {
    assert.match(
      accessResourceName("cluster", CI),
      /^cluster-access-210987654321-role-github-deploy-[0-9a-f]{8}$/,
    );
    assert.notEqual(accessResourceName("cluster", ADMINS), accessResourceName("cluster", AUDITOR));
    // One principal however it is spelt (a role's path and the case of its name do not make another).
    assert.equal(
      accessResourceName("cluster", "arn:aws:iam::123456789012:role/Platform-Admins"),
      accessResourceName("cluster", "arn:aws:iam::123456789012:role/teams/platform-admins"),
    );
    assert.notEqual(
      accessResourceName("cluster", "arn:aws:iam::123456789012:role/platform-admins"),
      accessResourceName("cluster", "arn:aws:iam::123456789012:user/platform-admins"),
    );
  });

  it("replaces a re-spelt principal's entry in place, deleting the old before creating the new", async () => {
    const spelt = (arn: string) =>
      evaluatedWith("dev", withAccess("dev", [{ principalArn: arn, level: "admin" }]));
    const before = await spelt("arn:aws:iam::123456789012:role/Platform-Admins");
    const after = await spelt("arn:aws:iam::123456789012:role/teams/platform-admins");
    const diff = diffDocuments(resourcesDocument(before), resourcesDocument(after));
    const access = (heading: string) => heading.startsWith("aws:eks/access");
    assert.deepEqual(
      diff.added.filter((r) => access(r.heading)),
      [],
      "no second entry beside the first",
    );
    assert.deepEqual(
      diff.removed.filter((r) => access(r.heading)),
      [],
    );
    const replaced = diff.changed.filter((r) => access(r.heading));
    assert.deepEqual(
      replaced.map((r) => [r.heading.split(" ")[0], r.op, r.deleteBeforeReplace]),
      [
        [ENTRY, "replace", true],
        [ASSOCIATION, "replace", true],
      ],
    );
  });

  it("uses the region's partition for access policies", async () => {
    assert.equal(partitionOf("cn-north-1"), "aws-cn");
    assert.equal(partitionOf("us-gov-west-1"), "aws-us-gov");
    assert.equal(partitionOf("eu-west-2"), "aws");
    assert.equal(
      accessPolicyArn("aws-cn", "view"),
      "arn:aws-cn:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
    );
    const evaluation = await evaluatedWith(
      "dev",
      withAccess("dev", [{ principalArn: "arn:aws-cn:iam::123456789012:role/ops", level: "view" }], {
        "aws:region": "cn-north-1",
      }),
    );
    assert.equal(
      ofType(evaluation, ASSOCIATION)[0].inputs.policyArn,
      "arn:aws-cn:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
    );
  });

  it("parses IAM role and user ARNs, with paths, and refuses session, group and malformed ARNs", () => {
    assert.deepEqual(parsePrincipalArn(CI), {
      partition: "aws",
      accountId: "210987654321",
      kind: "role",
      name: "github-deploy",
    });
    for (const bad of [
      "arn:aws:sts::123456789012:assumed-role/admins/alice",
      "arn:aws:iam::123456789012:group/admins",
      "arn:aws:iam::12345:role/short-account",
      "arn:aws-eu:iam::123456789012:role/x",
      "123456789012",
      "arn:aws:iam::123456789012:role/",
      "arn:aws:iam::123456789012:role/aws-service-role/emr-containers.amazonaws.com/AWSServiceRoleForAmazonEMRContainers",
    ]) {
      assert.ok("problem" in parsePrincipalArn(bad), bad);
    }
    assert.match(
      (parsePrincipalArn("arn:aws:sts::123456789012:assumed-role/admins/alice") as { problem: string })
        .problem,
      /assumed-role session ARN/,
    );
  });

  it("refuses bad ARNs, unknown levels and duplicates, each at its key path", () => {
    const result = validateConfig({
      nodeGroups: [{ name: "general" }],
      cluster: {
        access: [
          { principalArn: "arn:aws:sts::123456789012:assumed-role/admins/alice", level: "admin" },
          { principalArn: ADMINS, level: "owner" },
          { principalArn: ADMINS, level: "view" },
          { level: "view" },
        ],
      },
    });
    assert.equal(result.ok, false);
    assert.deepEqual(
      (result.ok ? [] : result.problems).map((p) => p.path),
      [
        "cluster.access[0].principalArn",
        "cluster.access[1].level",
        "cluster.access[3].principalArn",
        "cluster.access[2].principalArn",
      ],
    );
  });

  it("refuses a principal of another partition than the region's, before any resource", async () => {
    const { error, resources } = await evaluateStackExpectingError(
      "dev",
      withAccess("dev", [{ principalArn: ADMINS, level: "admin" }], { "aws:region": "cn-north-1" }),
    );
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["cluster.access[0].principalArn"],
    );
    assert.match(error.problems[0].rule, /partition aws, but cn-north-1 is in aws-cn/);
    assert.deepEqual(
      resources.filter((r) => r.custom),
      [],
    );
  });

  it("documents who has access: the creator (bootstrap admin) and cluster.access, and how to add a CI role", () => {
    assert.equal(BOOTSTRAP_ADMIN.level, "admin");
    const section = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "access.md"), "utf8");
    assert.match(section, /bootstrapClusterCreatorAdminPermissions/);
    assert.match(section, /cluster\.access/);
    assert.match(section, /pulumi config set --path/);
  });
});
