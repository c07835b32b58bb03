/**
 * `cluster.podIdentity`: the VPC CNI's role through EKS Pod Identity. The expected trust is the EKS User
 * Guide's: pod-id-role.html (principal `pods.eks.amazonaws.com`, `sts:AssumeRole` and `sts:TagSession`)
 * and associate-service-account-role.html (IRSA: the issuer's `sub` and `aud`). The add-on's association is
 * the shape update-addon-role.html gives (`serviceAccount`, `roleArn`); the agent's endpoint is EKS Auth
 * (pod-id-agent-setup.html); AWS China has no Pod Identity (the China guide's pod-identities.html).
 */
import * as assert from "node:assert/strict";
import { evaluateStackExpectingError } from "../offline/engine";
import { ConfigError, validateConfig } from "../stacks";
import { evaluatedWith, ofType, one, switchedOn } from "./helpers";

const ON = { "eks-calico:cluster.podIdentity": true };
const ROLE = "arn:aws:iam::000000000000:<role:cluster-vpc-cni>";

interface Statement {
  Effect: string;
  Principal: { Service?: string; Federated?: string };
  Action: string | string[];
  Condition?: { StringEquals: Record<string, string> };
}

function trust(evaluation: Awaited<ReturnType<typeof evaluatedWith>>): Statement[] {
  const role = one(evaluation, "aws:iam/role:Role", "cluster-vpc-cni");
  return (JSON.parse(role.inputs.assumeRolePolicy as string) as { Statement: Statement[] }).Statement;
}

describe("EKS Pod Identity for the VPC CNI (cluster.podIdentity)", () => {
  it("hands aws-node its role through the add-on's association, with the agent on every node", async () => {
    const plan = await evaluatedWith("dev", { config: ON });
    const addon = one(plan, "aws:eks/addon:Addon", "cluster-vpc-cni");
    assert.deepEqual(addon.inputs.podIdentityAssociations, [{ roleArn: ROLE, serviceAccount: "aws-node" }]);
    assert.equal(addon.inputs.serviceAccountRoleArn, undefined, "no IRSA annotation on aws-node");
    const agent = one(plan, "aws:eks/addon:Addon", "cluster-pod-identity-agent");
    assert.equal(agent.inputs.addonName, "eks-pod-identity-agent");
    // The node role's managed policy carries eks-auth:AssumeRoleForPodIdentity for the agent.
    const nodePolicies = ofType(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").map(
      (a) => a.inputs.policyArn,
    );
    assert.ok(nodePolicies.includes("arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy"));
  });

  it("trusts Pod Identity and keeps trusting aws-node's IRSA tokens, for pods started before a switch", async () => {
    const statements = trust(await evaluatedWith("dev", { config: ON }));
    assert.equal(statements.length, 2);
    const [webIdentity, podIdentity] = statements;
    assert.deepEqual(podIdentity, {
      Effect: "Allow",
      Principal: { Service: "pods.eks.amazonaws.com" },
      Action: ["sts:AssumeRole", "sts:TagSession"],
    });
    assert.equal(webIdentity.Action, "sts:AssumeRoleWithWebIdentity");
    const conditions = Object.entries(webIdentity.Condition?.StringEquals ?? {});
    assert.deepEqual(
      conditions.map(([key, value]) => [key.replace(/^.*:/, ""), value]),
      [
        ["sub", "system:serviceaccount:kube-system:aws-node"],
        ["aud", "sts.amazonaws.com"],
      ],
    );
    // Without the key, the role trusts the IRSA statement alone, as every deployed stack's does.
    assert.deepEqual(trust(await evaluatedWith("dev", {})), [webIdentity]);
  });

  it("switches a deployed stack in place: the role, the add-on, and a new agent; nothing replaced", async () => {
    const { steps, added, removed } = await switchedOn("dev", ON);
    assert.deepEqual(steps, [
      ["aws:eks/addon:Addon cluster-vpc-cni", "update"],
      ["aws:iam/role:Role cluster-vpc-cni", "update"],
    ]);
    assert.deepEqual(added, ["aws:eks/addon:Addon cluster-pod-identity-agent"]);
    assert.deepEqual(removed, []);
  });

  it("adds the EKS Auth endpoint where the nodes reach AWS through interface endpoints", async () => {
    const endpoints = { "eks-calico:network.endpoints.interface": true };
    const services = async (config: Record<string, unknown>) =>
      ofType(await evaluatedWith("dev", { config }), "aws:ec2/vpcEndpoint:VpcEndpoint")
        .map((e) => String(e.inputs.serviceName).split(".").slice(3).join("."))
        .sort();
    assert.ok(!(await services(endpoints)).includes("eks-auth"));
    assert.ok((await services({ ...endpoints, ...ON })).includes("eks-auth"));
  });

  it("is refused on a cluster made elsewhere, whose VPC CNI the stack does not configure", () => {
    const result = validateConfig({ cluster: { existing: { name: "team-cluster" }, podIdentity: true } });
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.problems.some((p) => p.path === "cluster.podIdentity"));
  });

  it("is refused in AWS China, with Karpenter, before any resource", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: { ...ON, "eks-calico:karpenter.enabled": true, "aws:region": "cn-north-1" },
    });
    assert.ok(ConfigError.isConfigError(error));
    const problems = error.problems.filter((p) => /Pod Identity/.test(p.rule));
    assert.deepEqual(
      problems.map((p) => p.path),
      ["cluster.podIdentity", "karpenter.enabled"],
    );
    assert.match(problems[0].rule, /cn-north-1 \(aws-cn\) does not offer/);
    assert.deepEqual(
      resources.filter((r) => r.custom),
      [],
    );
  });
});
