/**
 * `cluster.vpcCni.podSecurityGroups`: security groups for pods that Calico still polices. The host
 * interface each enforcing mode gives a branch-ENI pod is upstream's (test/fixtures/vpc-cni-sgpp.json, from
 * amazon-vpc-cni-k8s pkg/sgpp), and the settings are the EKS User Guide's (security-groups-pods-deployment:
 * AmazonEKSVPCResourceController on the cluster role, `ENABLE_POD_ENI`, standard mode beside Calico,
 * `DISABLE_TCP_EARLY_DEMUX` for probes; security-groups-for-pods: m5, c5, r5, m6g, c6g and r6g take trunk
 * interfaces, no `t` family type does).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { trunkingCompatible } from "../components/cluster/trunking";
import { validateConfig } from "../stacks";
import { stackNotices } from "../stacks/stack-notices";
import { evaluatedWith, one, switchedOn } from "./helpers";

const ON = { "eks-calico:cluster.vpcCni.podSecurityGroups": true };
const SGPP = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "vpc-cni-sgpp.json"), "utf8")) as {
  setting: string;
  hostInterfacePrefix: Record<string, string>;
  defaultVethPrefix: string;
};

/** The host interface prefix upstream gives a branch-ENI pod in `mode`, with the default veth prefix. */
function hostPrefix(mode: string | undefined): string {
  const rule = SGPP.hostInterfacePrefix[mode ?? "strict"] ?? SGPP.hostInterfacePrefix.strict;
  return rule.startsWith("the veth prefix") ? SGPP.defaultVethPrefix : rule;
}

describe("security groups for pods (cluster.vpcCni.podSecurityGroups)", () => {
  it("runs them in the mode whose host interfaces Felix's interface prefix matches", async () => {
    const plan = await evaluatedWith("dev", { config: ON });
    const addon = one(plan, "aws:eks/addon:Addon", "cluster-vpc-cni");
    const values = JSON.parse(addon.inputs.configurationValues as string) as {
      env: Record<string, string>;
      init?: { env: Record<string, string> };
    };
    assert.equal(values.env.ENABLE_POD_ENI, "true");
    assert.equal(values.init?.env.DISABLE_TCP_EARLY_DEMUX, "true");
    assert.equal(values.env.AWS_VPC_K8S_CNI_VETHPREFIX, undefined, "the veth prefix stays the default");
    const node = one(plan, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
    const env = (
      node.inputs.spec as {
        template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
      }
    ).template.spec.containers[0].env;
    const felixPrefix = env.find((e) => e.name === "FELIX_INTERFACEPREFIX")?.value;
    assert.equal(hostPrefix(values.env[SGPP.setting]), felixPrefix);
    // The default mode would hide those pods from Felix.
    assert.notEqual(hostPrefix(undefined), felixPrefix);
  });

  it("gives the cluster's role AmazonEKSVPCResourceController before the add-on changes", async () => {
    const plan = await evaluatedWith("dev", { config: ON });
    const attachment = one(
      plan,
      "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
      "cluster-vpc-resource-controller",
    );
    assert.equal(attachment.inputs.policyArn, "arn:aws:iam::aws:policy/AmazonEKSVPCResourceController");
    // The role's name is the last part of the cluster's roleArn, as the guide's `cut -d / -f 2` takes it.
    assert.equal(attachment.inputs.role, "<role-name:cluster-eks-eksRole-role>");
    const addon = one(plan, "aws:eks/addon:Addon", "cluster-vpc-cni");
    assert.ok(addon.dependencies.includes(attachment.urn));
  });

  it("turns on for a deployed stack in place: the add-on updated, the policy attached", async () => {
    const { steps, added, removed } = await switchedOn("dev", ON);
    assert.deepEqual(steps, [["aws:eks/addon:Addon cluster-vpc-cni", "update"]]);
    assert.deepEqual(added, [
      "aws:iam/rolePolicyAttachment:RolePolicyAttachment cluster-vpc-resource-controller",
    ]);
    assert.deepEqual(removed, []);
  });

  it("knows the guide's examples: m5, c5, r5, m6g, c6g, r6g take trunk interfaces, the t family none", () => {
    for (const type of ["m5.large", "c5.xlarge", "r5.2xlarge", "m6g.large", "c6g.xlarge", "r6g.large"]) {
      assert.equal(trunkingCompatible(type), true, type);
    }
    for (const type of ["t3.large", "t3a.medium", "t4g.small", "t2.micro"]) {
      assert.equal(trunkingCompatible(type), false, type);
    }
    assert.equal(trunkingCompatible("m99x.large"), undefined, "a type no table knows");
  });

  it("warns about each node group type that takes no trunk interface, or that the table lacks", () => {
    const result = validateConfig({
      cluster: { vpcCni: { podSecurityGroups: true } },
      nodeGroups: [
        { name: "general", instanceTypes: ["m5.large", "t3.large"] },
        { name: "hpc", instanceTypes: ["c8in.large"] },
      ],
    });
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.problems));
    const facts = { stack: "dev", region: "us-west-2", siblings: [], upgradePolicy: "STANDARD" as const };
    const notices = stackNotices(result.config, { ...facts, today: new Date("2026-12-01") }).filter((n) =>
      n.includes("podSecurityGroups"),
    );
    assert.equal(notices.length, 2);
    assert.match(
      notices[0],
      /^nodeGroups\[0\]\.instanceTypes\[1\] is t3\.large, which takes no trunk interface/,
    );
    assert.match(
      notices[1],
      /^nodeGroups\[1\]\.instanceTypes\[0\] is c8in\.large, which is not in .* EKS decides/,
    );
    const off = validateConfig({ nodeGroups: [{ name: "general", instanceTypes: ["t3.large"] }] });
    assert.ok(off.ok);
    assert.ok(
      !stackNotices(off.config, { ...facts, today: new Date("2026-12-01") }).some((n) =>
        n.includes("podSecurityGroups"),
      ),
    );
  });
});
