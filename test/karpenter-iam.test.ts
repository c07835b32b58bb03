/**
 * Karpenter's controller policies against upstream's getting-started CloudFormation
 * (test/fixtures/karpenter/cloudformation.yaml): each of the six managed policies, its `!Sub` filled with
 * one cluster's values, is the document components/karpenter/iam.ts writes.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { type ControllerScope, controllerPolicies } from "../components/karpenter/iam";

const SCOPE: ControllerScope = {
  partition: "aws",
  region: "us-west-2",
  accountId: "111122223333",
  clusterName: "cluster-eksCluster-0123",
  nodeRoleArn: "arn:aws:iam::111122223333:role/cluster-karpenter-node",
  queueArn: "arn:aws:sqs:us-west-2:111122223333:cluster-eksCluster-0123",
};

/** CloudFormation's short tags, read as what they wrap. */
const CFN_TAGS = ["!Sub", "!Ref", "!GetAtt"].map((tag) => ({
  tag,
  resolve: (value: string) => value,
}));

/** `${...}` of a `!Sub` string, filled with SCOPE. */
function fill(template: string): string {
  const values: Record<string, string> = {
    ClusterName: SCOPE.clusterName,
    "AWS::Partition": SCOPE.partition,
    "AWS::Region": SCOPE.region,
    "AWS::AccountId": SCOPE.accountId,
    "KarpenterNodeRole.Arn": SCOPE.nodeRoleArn,
    "KarpenterInterruptionQueue.Arn": SCOPE.queueArn,
  };
  return template.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    assert.ok(name in values, `no value for \${${name}}`);
    return values[name];
  });
}

describe("Karpenter's controller policies, against upstream's CloudFormation", () => {
  const template = YAML.parse(
    fs.readFileSync(path.join(__dirname, "fixtures", "karpenter", "cloudformation.yaml"), "utf8"),
    { customTags: CFN_TAGS },
  ) as { Resources: Record<string, { Type: string; Properties: Record<string, string> }> };
  const upstream = Object.values(template.Resources)
    .filter((resource) => resource.Type === "AWS::IAM::ManagedPolicy")
    .map((resource) => ({
      stem: /^KarpenterController(\w+)Policy-/.exec(resource.Properties.ManagedPolicyName)?.[1],
      document: JSON.parse(fill(resource.Properties.PolicyDocument)) as unknown,
    }));
  const ours = controllerPolicies(SCOPE);

  it("has the same six policies", () => {
    assert.deepEqual(upstream.map((p) => p.stem).sort(), Object.keys(ours).sort());
  });

  for (const stem of Object.keys(controllerPolicies(SCOPE)) as (keyof typeof ours)[]) {
    it(`${stem}: the same statements, scoped the same way`, () => {
      const theirs = upstream.find((p) => p.stem === stem);
      assert.ok(theirs, `upstream has KarpenterController${stem}Policy`);
      assert.deepEqual(ours[stem], theirs.document);
    });
  }
});
