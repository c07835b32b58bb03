/**
 * `cluster.vpcCni.prefixDelegation`: the VPC CNI's settings, a node's demand on its subnet in /28
 * prefixes, the subnets' room in whole /28 blocks, and a deployed stack turning it on. Each expected
 * figure is worked out in its comment from upstream's formulas: amazon-eks-ami max-pods-calculator.sh
 * (interfaces x ((addresses - 1) x 16) + 2), EKS's 110 / 250 cap, and ipamd's pool stopping once its
 * addresses reach max pods (amazon-vpc-cni-k8s v1.22.4 pkg/ipamd/ipamd.go isDatastorePoolTooLow).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";
import { newLayout } from "../components/network/layout";
import { nodeAddressDemand, usableSubnetAddresses } from "../components/network/pod-addresses";
import { validateConfig } from "../stacks";
import { nodeCapacity } from "../stacks/node-capacity";
import { vpcPrefixFor } from "../stacks/schema/pod-addresses";
import { evaluatedWith, one, switchedOn } from "./helpers";

const ON = { "eks-calico:cluster.vpcCni.prefixDelegation": true };
const GROUP = { name: "general", minSize: 1, desiredSize: 1, maxSize: 3 };

describe("prefix delegation", () => {
  for (const [instanceType, eniMaxPods, maxPods, prefixes, interfaces, addresses, arithmetic] of [
    // 3 x 10, 2 vCPUs: 3 x (9 x 16) + 2 = 434, capped at 110; ceil(110 / 16) = 7 prefixes on 1 ENI.
    ["m5.large", 434, 110, 7, 1, 128, "(7 + 1) x 16"],
    // 3 x 4: 3 x (3 x 16) + 2 = 146, capped at 110; 7 prefixes, 3 per ENI: 3 ENIs.
    ["t3.small", 146, 110, 7, 3, 160, "(7 + 3) x 16"],
    // 8 x 50, 128 vCPUs: 8 x (49 x 16) + 2 = 6274, capped at 250; ceil(250 / 16) = 16 on 1 ENI.
    ["c6in.32xlarge", 6274, 250, 16, 1, 272, "(16 + 1) x 16"],
  ] as const) {
    it(`${instanceType}: ${prefixes} prefixes, ${maxPods} max pods, ${addresses} addresses (${arithmetic})`, () => {
      const demand = nodeAddressDemand(instanceType, true);
      assert.ok(demand);
      assert.deepEqual(
        [demand.eniMaxPods, demand.maxPods, demand.prefixes, demand.interfaces, demand.addresses],
        [eniMaxPods, maxPods, prefixes, interfaces, addresses],
      );
    });
  }

  it("keeps secondary addresses on a type that is neither Nitro nor bare metal", () => {
    // t2.medium (Xen), 3 x 6: 3 x 5 + 2 = 17 pods; ceil(17 / 5) = 4, at most 3 ENIs: 3 x 6 = 18.
    const demand = nodeAddressDemand("t2.medium", true);
    assert.deepEqual([demand?.prefixes, demand?.maxPods, demand?.addresses], [0, 17, 18]);
  });

  it("counts a subnet's room in whole /28 blocks, less the two holding AWS's reserved addresses", () => {
    assert.equal(usableSubnetAddresses(24, true), 256 - 32);
    assert.equal(usableSubnetAddresses(24, false), 256 - 5);
    // 272 + 32 = 304 needs a /23 private subnet (512), an eighth of a /20.
    assert.equal(vpcPrefixFor(272, true), 20);
  });

  it("refuses a type whose prefixes do not fit the slots' subnets, which fits without them", () => {
    // A /22 gives /25 private subnets: 128 - 5 = 123 >= m6i.xlarge's 4 x 15 = 60 without prefixes;
    // with them 128 - 32 = 96 < (7 + 1) x 16 = 128.
    const config = {
      network: { cidr: "10.0.0.0/22" },
      nodeGroups: [{ ...GROUP, instanceTypes: ["m6i.xlarge"] }],
    };
    assert.ok(validateConfig(config).ok);
    const refused = validateConfig({ ...config, cluster: { vpcCni: { prefixDelegation: true } } });
    assert.equal(refused.ok, false);
    const problem = refused.ok ? undefined : refused.problems[0];
    assert.equal(problem?.path, "nodeGroups[0].instanceTypes[0]");
    assert.match(
      problem?.rule ?? "",
      /7 \/28 prefixes for its 110 max pods .* = 128 VPC addresses .* 8 \/28 blocks - the 2/,
    );
  });

  it("counts the nodes of one AZ in prefixes against its subnet", () => {
    // /20: /23 private subnets, 512 - 32 = 480: 3 m5.large nodes (384) fit in one AZ, 4 (512) do not.
    const layout = newLayout("10.0.0.0/20", ["us-west-2a", "us-west-2b"]);
    const group = (nodes: number) => [
      { name: "general", instanceTypes: ["m5.large"], configured: nodes, nodes, maxSize: nodes },
    ];
    assert.deepEqual(nodeCapacity(group(6), layout, true).problems, []);
    const refused = nodeCapacity(group(8), layout, true).problems;
    assert.match(
      refused[0]?.rule ?? "",
      /4 x 128 \(general, m5\.large\) = 512 addresses .* = 480 addresses in prefixes/,
    );
    assert.deepEqual(nodeCapacity(group(8), layout, false).problems, []);
  });

  it("sets the add-on's prefix settings beside Calico's, and Calico's interface prefix stays eni", async () => {
    const plan = await evaluatedWith("dev", { config: ON });
    const addon = one(plan, "aws:eks/addon:Addon", "cluster-vpc-cni");
    const values = JSON.parse(addon.inputs.configurationValues as string) as {
      enableNetworkPolicy: string;
      env: Record<string, string>;
    };
    assert.equal(values.enableNetworkPolicy, "false");
    assert.deepEqual(values.env, {
      ANNOTATE_POD_IP: "true",
      ENABLE_PREFIX_DELEGATION: "true",
      WARM_PREFIX_TARGET: "1",
    });
    const node = one(plan, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
    const env = (
      node.inputs.spec as {
        template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
      }
    ).template.spec.containers[0].env;
    assert.equal(env.find((e) => e.name === "FELIX_INTERFACEPREFIX")?.value, "eni");
  });

  it("turns on for a deployed stack by updating the add-on in place: no node group or subnet changes", async () => {
    const { steps, added, removed } = await switchedOn("dev", ON);
    assert.deepEqual(steps, [["aws:eks/addon:Addon cluster-vpc-cni", "update"]]);
    assert.deepEqual([added, removed], [[], []]);
  });

  it("is refused on a cluster made elsewhere, whose VPC CNI the stack does not configure", () => {
    const result = validateConfig({
      cluster: { existing: { name: "team-cluster" }, vpcCni: { prefixDelegation: true } },
    });
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.problems.some((p) => p.path === "cluster.vpcCni"));
  });

  it("states in docs/stacks.md what an m5.large takes, as the code counts it", () => {
    const docs = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "stacks.md"), "utf8").replace(/\s+/g, " ");
    const d = nodeAddressDemand("m5.large", true);
    assert.ok(d);
    const blocks = d.prefixes + d.interfaces;
    assert.ok(
      docs.includes(
        `An m5.large takes ${d.prefixes} prefixes and ${d.interfaces} interface: ${blocks} blocks, ${d.addresses} addresses.`,
      ),
    );
  });
});
