/**
 * Whether the node groups' pods get addresses in the cluster's private subnets (stacks/node-capacity.ts),
 * from the VPC CNI's rule (a full node holds every address of the interfaces ipamd attaches up to its max
 * pods: components/network/pod-addresses.ts) and EC2 Auto Scaling's even spread over AZs. m5.large attaches
 * 3 interfaces of 10 IPv4 addresses (EC2 instance type limits); t3.large 3 of 12. A /25 private subnet has
 * 128 addresses, of which AWS reserves 5.
 */
import * as assert from "node:assert/strict";
import { newLayout } from "../components/network/layout";
import { evaluateStackExpectingError } from "../offline/engine";
import { ConfigError } from "../stacks";
import { nodeCapacity } from "../stacks/node-capacity";
import { evaluatedWith, stackValue, withWarnings } from "./helpers";

// A /22 VPC: each AZ's private slot is an eighth of it, a /25 (docs/stacks.md).
const SMALL = newLayout("10.0.0.0/22", ["us-west-2a", "us-west-2b"]);
/** A group whose config sets `configured` nodes (default: the nodes it runs). */
const general = (nodes: number, maxSize: number, configured = nodes) => ({
  name: "general",
  instanceTypes: ["m5.large"],
  configured,
  nodes,
  maxSize,
});

describe("node capacity against the private subnets", () => {
  it("fits 8 m5.large nodes over two /25s: 4 x 30 = 120 of 123 addresses", () => {
    assert.deepEqual(nodeCapacity([general(8, 8)], SMALL), { problems: [], warnings: [] });
  });

  it("warns when only maxSize does not fit: the autoscaler's headroom", () => {
    const { problems, warnings } = nodeCapacity([general(8, 10)], SMALL);
    assert.deepEqual(problems, []);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0],
      /^nodeGroups: at maxSize one AZ would take 5 x 30 \(general, m5\.large\) = 150 addresses .*the private subnet of us-west-2a \(10\.0\.0\.0\/25\) has 128 - 5 reserved by AWS = 123 addresses/,
    );
  });

  it("refuses the nodes the groups run when they cannot all fill up, adding up every group", () => {
    const [alone] = nodeCapacity([general(10, 10)], SMALL).problems;
    assert.equal(alone.path, "nodeGroups");
    assert.match(alone.rule, /one AZ takes 5 x 30 \(general, m5\.large\) = 150 addresses/);
    const system = {
      name: "system",
      instanceTypes: ["t3.large", "m5.large"],
      configured: 2,
      nodes: 2,
      maxSize: 2,
    };
    const [both] = nodeCapacity([general(6, 6), system], SMALL).problems;
    assert.match(
      both.rule,
      /one AZ takes 3 x 30 \(general, m5\.large\) \+ 1 x 36 \(system, t3\.large\) = 126 addresses/,
    );
  });

  it("only warns when the nodes that do not fit are an autoscaler's: the config sets 4, the group runs 10", () => {
    const { problems, warnings } = nodeCapacity([general(10, 12, 4)], SMALL);
    assert.deepEqual(problems, []);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0],
      /^nodeGroups: the nodes the groups run now \(desired sizes an autoscaler set\) take 5 x 30 \(general, m5\.large\) = 150 addresses in one AZ/,
    );
    assert.equal(
      nodeCapacity([general(10, 12, 9)], SMALL).problems.length,
      1,
      "the config's own 9 do not fit",
    );
  });

  // A /16 VPC over 3 AZs: private subnets of /19, 8,192 - 5 = 8,187 addresses each (docs/stacks.md).
  const WIDE = newLayout("10.0.0.0/16", ["us-west-2a", "us-west-2b", "us-west-2c"]);
  const large = (instanceType: string, nodes: number) => ({
    name: "general",
    instanceTypes: [instanceType],
    configured: nodes,
    nodes,
    maxSize: nodes,
  });

  it("fits 105 m6i.4xlarge nodes on a /16 over 3 AZs: 35 x 120 = 4,200 of 8,187 addresses", () => {
    // m6i.4xlarge: 8 ENIs x 30, 16 vCPUs, so EKS caps max pods at 110; 29 secondaries per ENI reach 110
    // at the fourth ENI (ceil(110 / 29) = 4): 120 addresses a node, not the 8 x 30 = 240 of every ENI
    // (35 x 240 = 8,400 would not fit).
    assert.deepEqual(nodeCapacity([large("m6i.4xlarge", 105)], WIDE), { problems: [], warnings: [] });
  });

  it("still refuses what truly does not fit the /19s", () => {
    // m6i.8xlarge: 32 vCPUs, cap 250 above its 8 x 29 + 2 = 234, so every ENI fills: 35 x 240 = 8,400.
    const [eight] = nodeCapacity([large("m6i.8xlarge", 105)], WIDE).problems;
    assert.match(eight.rule, /one AZ takes 35 x 240 \(general, m6i\.8xlarge\) = 8400 addresses/);
    assert.match(eight.rule, /has 8192 - 5 reserved by AWS = 8187 addresses$/);
    // 210 m6i.4xlarge: 70 a subnet x 120 = 8,400.
    const [twice] = nodeCapacity([large("m6i.4xlarge", 210)], WIDE).problems;
    assert.match(twice.rule, /one AZ takes 70 x 120 \(general, m6i\.4xlarge\) = 8400 addresses/);
  });

  it("counts only the AZs the cluster was created in: nodes never run in an added one", () => {
    const added = { ...newLayout("10.0.0.0/22", ["us-west-2a", "us-west-2b", "us-west-2c"]) };
    const clusterInTwo = { ...added, clusterZones: ["us-west-2a", "us-west-2b"] };
    assert.equal(nodeCapacity([general(9, 9)], added).problems.length, 0, "3 x 30 per AZ over three");
    assert.equal(nodeCapacity([general(9, 9)], clusterInTwo).problems.length, 1, "5 x 30 per AZ over two");
  });
});

describe("node capacity through the program", () => {
  const groups = (desiredSize: number, maxSize: number) =>
    stackValue<Record<string, unknown>[]>("dev", "nodeGroups").map((g, i) =>
      i === 0 ? { ...g, instanceTypes: ["m5.large"], minSize: 1, desiredSize, maxSize } : g,
    );
  const network = { cidr: "10.0.0.0/22" };

  it("refuses before any resource, at nodeGroups", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: { "eks-calico:network": network, "eks-calico:nodeGroups": groups(12, 12) },
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["nodeGroups"],
    );
    assert.equal(resources.filter((r) => r.custom).length, 0);
  });

  it("plans with a warning when only maxSize does not fit", async () => {
    const { result: plan, warnings } = await withWarnings(() =>
      evaluatedWith("dev", {
        config: { "eks-calico:network": network, "eks-calico:nodeGroups": groups(2, 12) },
      }),
    );
    assert.ok(plan.resources.some((r) => r.type === "aws:eks/nodeGroup:NodeGroup"));
    assert.equal(warnings.filter((w) => w.includes("nodeGroups: at maxSize one AZ would take ")).length, 1);
  });

  it("plans a deployed stack whose autoscaler grew a group past the subnets, with a warning", async () => {
    const config = { "eks-calico:network": network, "eks-calico:nodeGroups": groups(2, 12) };
    const deployed = await evaluatedWith("dev", { config });
    const scaling = deployed.outputs.nodeGroupScaling as Record<string, { nodeGroupName: string }>;
    const grown = { [Object.values(scaling)[0].nodeGroupName]: 12 };
    const { result: plan, warnings } = await withWarnings(() =>
      evaluatedWith("dev", {
        config,
        previousOutputs: deployed.outputs,
        simulate: { nodeGroups: { autoscaledDesiredSizes: grown } },
      }),
    );
    assert.ok(plan.resources.some((r) => r.type === "aws:eks/nodeGroup:NodeGroup"));
    assert.equal(warnings.filter((w) => w.includes("nodeGroups: the nodes the groups run now")).length, 1);
  });
});
