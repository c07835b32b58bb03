/**
 * Secure defaults every stack gets without asking: secrets encryption, control-plane logs with
 * retention, access-entry auth, IMDSv2 on nodes, IRSA for the VPC CNI, protection of stateful resources
 * on protected stacks, no wildcard IAM, and Kubernetes objects only through the cluster's provider.
 */
import * as assert from "node:assert/strict";
import { STACKS, evaluated, ofType, one, providerFor, stackValue } from "./helpers";

/** Every action an IAM policy document allows. */
function allowedActions(document: string): string[] {
  const parsed = JSON.parse(document) as { Statement: { Effect: string; Action: string | string[] }[] };
  return parsed.Statement.filter((s) => s.Effect === "Allow").flatMap((s) =>
    Array.isArray(s.Action) ? s.Action : [s.Action],
  );
}

for (const stack of STACKS) {
  describe(`secure defaults of ${stack}`, () => {
    const protect = stackValue<boolean>(stack, "protect");
    const cluster = stackValue<{ logTypes: string[]; logRetentionDays?: number }>(stack, "cluster");

    it("encrypts Kubernetes secrets with a rotating KMS key", async () => {
      const evaluation = await evaluated(stack);
      const key = one(evaluation, "aws:kms/key:Key", "cluster-secrets");
      assert.equal(key.inputs.enableKeyRotation, true);
      assert.equal(key.inputs.deletionWindowInDays, 30);
      assert.equal(
        one(evaluation, "eks:index:Cluster").inputs.encryptionConfigKeyArn,
        "arn:aws:kms::000000000000:<key:cluster-secrets>",
      );
    });

    it("ships the configured control-plane logs to a log group with a retention period, created first", async () => {
      const evaluation = await evaluated(stack);
      const logGroup = one(evaluation, "aws:cloudwatch/logGroup:LogGroup", "cluster-logs");
      assert.equal(logGroup.inputs.name, `/aws/eks/eks-calico-${stack}/cluster`);
      assert.equal(logGroup.inputs.retentionInDays, cluster.logRetentionDays ?? 90);
      const eks = one(evaluation, "eks:index:Cluster");
      assert.deepEqual(eks.inputs.enabledClusterLogTypes, cluster.logTypes);
      assert.ok(eks.dependencies.includes(logGroup.urn), "EKS would create the group without retention");
    });

    it("authenticates with access entries and an OIDC provider, never the aws-auth ConfigMap", async () => {
      const evaluation = await evaluated(stack);
      const eks = one(evaluation, "eks:index:Cluster");
      assert.equal(eks.inputs.authenticationMode, "API");
      assert.equal(eks.inputs.createOidcProvider, true);
      assert.equal(eks.inputs.roleMappings, undefined);
      assert.equal(eks.inputs.userMappings, undefined);
      const awsAuth = ofType(evaluation, "kubernetes:core/v1:ConfigMap").filter(
        (c) => (c.inputs.metadata as { name?: string }).name === "aws-auth",
      );
      assert.deepEqual(awsAuth, []);
    });

    it("starts every node from a launch template requiring IMDSv2 with hop limit 1", async () => {
      const evaluation = await evaluated(stack);
      const nodeGroups = ofType(evaluation, "aws:eks/nodeGroup:NodeGroup");
      const templates = ofType(evaluation, "aws:ec2/launchTemplate:LaunchTemplate");
      assert.equal(templates.length, nodeGroups.length);
      for (const nodeGroup of nodeGroups) {
        const template = one(evaluation, "aws:ec2/launchTemplate:LaunchTemplate", nodeGroup.name);
        assert.deepEqual(template.inputs.metadataOptions, {
          httpEndpoint: "enabled",
          httpTokens: "required",
          httpPutResponseHopLimit: 1,
        });
        assert.deepEqual(nodeGroup.inputs.launchTemplate, {
          id: `<launchTemplate-id:${nodeGroup.name}>`,
          version: "1",
        });
      }
    });

    it(`${protect ? "protects" : "leaves unprotected"} the VPC, cluster, KMS key and log group`, async () => {
      const evaluation = await evaluated(stack);
      for (const [type, name] of [
        ["aws:ec2/vpc:Vpc", "network-vpc"],
        ["eks:index:Cluster", "cluster-eks"],
        ["aws:kms/key:Key", "cluster-secrets"],
        ["aws:cloudwatch/logGroup:LogGroup", "cluster-logs"],
      ]) {
        assert.equal(one(evaluation, type, name).options.protect, protect, `${type} ${name}`);
      }
    });

    it("grants no wildcard action in any IAM policy of ours", async () => {
      const evaluation = await evaluated(stack);
      const documents = evaluation.resources
        .filter((r) => r.type.startsWith("aws:iam/"))
        .flatMap((r) => [r.inputs.assumeRolePolicy, r.inputs.policy].filter((d) => typeof d === "string"));
      assert.ok(documents.length >= 2);
      for (const document of documents) {
        assert.deepEqual(
          allowedActions(document).filter((a) => a.includes("*")),
          [],
        );
      }
      // Attached policies are AWS-managed ones, never a custom admin policy.
      for (const attachment of ofType(evaluation, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")) {
        assert.match(String(attachment.inputs.policyArn), /^arn:aws:iam::aws:policy\/AmazonE(KS|C2)/);
      }
    });

    it("creates every Kubernetes object through the cluster's provider (ordering: test/ordering.test.ts)", async () => {
      const evaluation = await evaluated(stack);
      const provider = one(evaluation, "pulumi:providers:kubernetes", "cluster-k8s");
      assert.ok(provider.dependencies.includes(one(evaluation, "eks:index:Cluster").urn));
      const objects = evaluation.resources.filter((r) => r.type.startsWith("kubernetes:"));
      assert.ok(objects.length > 0);
      for (const object of objects)
        assert.equal(object.provider, providerFor(evaluation, provider, object), object.name);
    });
  });
}

describe("endpoint exposure", () => {
  it("keeps prod's public endpoint closed to 0.0.0.0/0", async () => {
    const eks = one(await evaluated("prod"), "eks:index:Cluster");
    const cidrs = eks.inputs.publicAccessCidrs as string[];
    assert.ok(cidrs.length > 0);
    assert.ok(!cidrs.includes("0.0.0.0/0"));
  });
});
