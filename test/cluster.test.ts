import * as assert from "node:assert/strict";
import { toEksTaints } from "../components/cluster/nodegroups";
import { loadStackConfig } from "../offline/engine";
import { STACKS, byUrn, evaluated, ofType, one, stackValue } from "./helpers";

const EKS = "eks:index:Cluster";

interface GroupConfig {
  name: string;
  instanceTypes: string[];
  capacityType: string;
  minSize: number;
  desiredSize: number;
  maxSize: number;
  labels: Record<string, string>;
  taints: { key: string; value: string; effect: string }[];
}

describe("taint mapping", () => {
  it("maps every Kubernetes taint effect to the EKS API spelling", () => {
    assert.deepEqual(
      toEksTaints([
        { key: "a", value: "1", effect: "NoSchedule" },
        { key: "b", value: "", effect: "PreferNoSchedule" },
        { key: "c", value: "3", effect: "NoExecute" },
      ]),
      [
        { key: "a", value: "1", effect: "NO_SCHEDULE" },
        { key: "b", value: "", effect: "PREFER_NO_SCHEDULE" },
        { key: "c", value: "3", effect: "NO_EXECUTE" },
      ],
    );
  });
});

for (const stack of STACKS) {
  describe(`cluster of ${stack}`, () => {
    const clusterConfig = stackValue<{ version: string; publicAccessCidrs: string[]; logTypes: string[] }>(
      stack,
      "cluster",
    );
    const groups = stackValue<GroupConfig[]>(stack, "nodeGroups");
    const protect = stackValue<boolean>(stack, "protect");

    it("creates the EKS cluster in the VPC with both subnet tiers, API auth and no default node group", async () => {
      const evaluation = await evaluated(stack);
      const eks = one(evaluation, EKS, "cluster-eks");
      const subnets = ofType(evaluation, "aws:ec2/subnet:Subnet").map((s) => `<subnet-id:${s.name}>`);
      assert.equal(eks.inputs.name, `eks-calico-${stack}`);
      assert.equal(eks.inputs.vpcId, "<vpc-id:network-vpc>");
      assert.deepEqual(
        eks.inputs.privateSubnetIds,
        subnets.filter((id) => id.includes("network-private-")),
      );
      assert.deepEqual(
        eks.inputs.publicSubnetIds,
        subnets.filter((id) => id.includes("network-public-")),
      );
      assert.equal(eks.inputs.skipDefaultNodeGroup, true);
      assert.equal(eks.inputs.authenticationMode, "API");
      assert.equal(eks.inputs.version, clusterConfig.version);
      assert.equal(eks.remote, true);
    });

    it("keeps the private endpoint on and exposes the public one only to the configured CIDRs", async () => {
      const eks = one(await evaluated(stack), EKS);
      assert.equal(eks.inputs.endpointPrivateAccess, true);
      assert.equal(eks.inputs.endpointPublicAccess, clusterConfig.publicAccessCidrs.length > 0);
      assert.deepEqual(eks.inputs.publicAccessCidrs, clusterConfig.publicAccessCidrs);
      assert.deepEqual(eks.inputs.enabledClusterLogTypes, clusterConfig.logTypes);
    });

    it("gives nodes a role EC2 assumes, with the worker-node and ECR read-only policies only", async () => {
      const evaluation = await evaluated(stack);
      const role = one(evaluation, "aws:iam/role:Role", "cluster-node");
      assert.deepEqual(JSON.parse(String(role.inputs.assumeRolePolicy)), {
        Version: "2012-10-17",
        Statement: [
          { Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" },
        ],
      });
      const attached = ofType(evaluation, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        .filter((a) => a.inputs.role === "<role-name:cluster-node>")
        .map((a) => a.inputs.policyArn)
        .sort();
      assert.deepEqual(attached, [
        "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
        "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
      ]);
    });

    it("runs aws-node on its own IRSA role holding the CNI policy", async () => {
      const evaluation = await evaluated(stack);
      const role = one(evaluation, "aws:iam/role:Role", "cluster-vpc-cni");
      const issuer = `<oidc-issuer:eks-calico-${stack}>`;
      assert.deepEqual(JSON.parse(String(role.inputs.assumeRolePolicy)), {
        Version: "2012-10-17",
        Statement: [
          {
            Effect: "Allow",
            Principal: { Federated: `<oidc-provider-arn:eks-calico-${stack}>` },
            Action: "sts:AssumeRoleWithWebIdentity",
            Condition: {
              StringEquals: {
                [`${issuer}:sub`]: "system:serviceaccount:kube-system:aws-node",
                [`${issuer}:aud`]: "sts.amazonaws.com",
              },
            },
          },
        ],
      });
      const attachment = one(
        evaluation,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        "cluster-vpc-cni",
      );
      assert.deepEqual(attachment.inputs, {
        role: "<role-name:cluster-vpc-cni>",
        policyArn: "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
      });
      const addon = one(evaluation, "aws:eks/addon:Addon", "cluster-vpc-cni");
      assert.equal(addon.inputs.serviceAccountRoleArn, "arn:aws:iam::000000000000:<role:cluster-vpc-cni>");
      assert.ok(addon.dependencies.includes(attachment.urn), "the add-on must wait for its policy");
    });

    it("builds the Kubernetes provider from the cluster's kubeconfig", async () => {
      const evaluation = await evaluated(stack);
      const provider = one(evaluation, "pulumi:providers:kubernetes", "cluster-k8s");
      const kubeconfig = JSON.parse(String(provider.inputs.kubeconfig)) as { clusters: { name: string }[] };
      assert.equal(kubeconfig.clusters[0].name, `eks-calico-${stack}`);
      assert.deepEqual(provider.secretInputs, ["kubeconfig"], "the kubeconfig must be stored as a secret");
      assert.ok(
        provider.dependencies.includes(one(evaluation, EKS).urn),
        "provider must depend on the cluster",
      );
      assert.equal(byUrn(evaluation, provider.parent).type, "eks-calico:cluster:Cluster");
    });

    it(`${protect ? "protects" : "does not protect"} the VPC and the cluster`, async () => {
      const evaluation = await evaluated(stack);
      assert.equal(one(evaluation, "aws:ec2/vpc:Vpc").options.protect, protect);
      assert.equal(one(evaluation, EKS).options.protect, protect);
    });

    it("parents every resource to a component of ours, with names derived from it", async () => {
      const evaluation = await evaluated(stack);
      const stackResource = one(evaluation, "pulumi:pulumi:Stack");
      for (const resource of evaluation.resources) {
        if (resource === stackResource) continue;
        const parent = byUrn(evaluation, resource.parent);
        if (parent === stackResource) {
          assert.match(resource.type, /^eks-calico:/, `${resource.name} sits directly under the stack`);
        } else {
          assert.ok(
            resource.name.startsWith(`${parent.name}-`),
            `${resource.name} is not named after ${parent.name}`,
          );
        }
      }
    });

    it("exports the stack outputs, with the kubeconfig secret", async () => {
      const evaluation = await evaluated(stack);
      const { outputs } = evaluation;
      const subnetIds = (kind: string) =>
        ofType(evaluation, "aws:ec2/subnet:Subnet")
          .filter((s) => s.name.startsWith(`network-${kind}-`))
          .map((s) => `<subnet-id:${s.name}>`);
      assert.equal(outputs.vpcId, "<vpc-id:network-vpc>");
      assert.deepEqual(outputs.publicSubnetIds, subnetIds("public"));
      assert.deepEqual(outputs.privateSubnetIds, subnetIds("private"));
      assert.equal(outputs.clusterName, `eks-calico-${stack}`);
      assert.deepEqual(
        outputs.nodeGroupNames,
        groups.map((g) => `<node-group-name:cluster-${g.name}>`),
      );
      assert.ok(evaluation.secretOutputs.includes("kubeconfig"), "kubeconfig must be a secret output");
      // What application stacks read through a StackReference.
      assert.equal(outputs.region, loadStackConfig(stack).values["aws:region"]);
      assert.equal(outputs.clusterEndpoint, `https://<endpoint:eks-calico-${stack}>`);
      // The group EKS made (on managed nodes), not @pulumi/eks's own unused one.
      assert.equal(outputs.clusterSecurityGroupId, `<security-group-id:eks-calico-${stack}-eks-cluster>`);
      assert.equal(outputs.oidcProviderArn, `<oidc-provider-arn:eks-calico-${stack}>`);
      assert.equal(outputs.oidcIssuerUrl, `https://<oidc-issuer:eks-calico-${stack}>`);
      assert.equal(outputs.nodeRoleArn, "arn:aws:iam::000000000000:<role:cluster-node>");
      assert.equal((JSON.parse(String(outputs.kubeconfig)) as { kind: string }).kind, "Config");
    });
  });
}
