/** A node's pod addresses must fit one private subnet: the arithmetic, the table, and the refusal. */
import * as assert from "node:assert/strict";
import { ENI_LIMIT_ROWS } from "../components/cluster/eni-limits";
import { amiTypesFor, instanceArchitecture } from "../components/cluster/ami-types";
import { amiFamilyProblem } from "../components/cluster/ami-families";
import { nodeAddressDemand, usableSubnetAddresses } from "../components/network/pod-addresses";
import { validateConfig } from "../stacks";
import { vpcPrefixFor } from "../stacks/schema/pod-addresses";

const group = (instanceTypes: string[], extra: Record<string, unknown> = {}) => ({
  name: "general",
  instanceTypes,
  minSize: 1,
  desiredSize: 1,
  maxSize: 2,
  ...extra,
});

describe("pod addresses per node", () => {
  // Max pods as the VPC CNI's misc/eni-max-pods.txt lists them: interfaces x (addresses - 1) + 2.
  for (const [instanceType, maxPods, addresses] of [
    ["t3.nano", 4, 4],
    ["t3.large", 35, 36],
    ["m5.large", 29, 30],
    ["m6i.xlarge", 58, 60],
    ["m7g.large", 29, 30],
    ["c6in.32xlarge", 394, 400],
    ["p4d.24xlarge", 737, 750],
  ] as const) {
    it(`${instanceType}: ${addresses} addresses, ${maxPods} pods`, () => {
      const demand = nodeAddressDemand(instanceType);
      assert.ok(demand, `${instanceType} is in the table`);
      assert.equal(demand.addresses, addresses);
      assert.equal(demand.interfaces * (demand.addressesPerInterface - 1) + 2, maxPods);
    });
  }

  it("has no entry for a type it does not know, rather than guessing", () => {
    assert.equal(nodeAddressDemand("m99.large"), undefined);
  });

  it("lists each instance type once", () => {
    const names = ENI_LIMIT_ROWS.flatMap(([, , types]) => types.split(" "));
    assert.equal(new Set(names).size, names.length);
    assert.ok(names.length > 1000, `${names.length} types`);
  });

  it("every listed Linux type passes the schema, and its architecture is read from its name", () => {
    const names = ENI_LIMIT_ROWS.flatMap(([, , types]) => types.split(" "));
    const refused = names.filter((instanceType) => {
      // An AMI type that boots the family (components/cluster/ami-families.ts); g4ad has none.
      const architecture = instanceArchitecture(instanceType) ?? "x86_64";
      const amiType =
        amiTypesFor(architecture).find((ami) => amiFamilyProblem(ami, instanceType) === undefined) ??
        "AL2023_x86_64_STANDARD";
      const result = validateConfig({ nodeGroups: [group([instanceType], { amiType })] });
      // Types too small for the stack's own pods are refused by stacks/schema/pod-capacity.ts, not as names.
      return !result.ok && result.problems.some((p) => !p.rule.startsWith("holds at most"));
    });
    // Mac instances run macOS, which EKS nodes cannot; everything else EC2 lists must be accepted.
    assert.deepEqual(
      refused.filter((n) => !n.startsWith("mac") && !n.startsWith("g4ad.")),
      [],
    );
    const mac = validateConfig({ nodeGroups: [group(["mac2.metal"])] });
    assert.match(mac.ok ? "" : mac.problems[0].rule, /runs macOS only: EKS nodes need Linux/);
    // Only the High Memory (u-*) and bmn-* names lack the family+generation shape.
    assert.deepEqual(
      names.filter((n) => instanceArchitecture(n) === undefined && !/^(u-|mac|bmn-)/.test(n)),
      [],
    );
    assert.equal(instanceArchitecture("c8g.metal-48xl"), "arm64");
    assert.equal(instanceArchitecture("c7i.metal-24xl"), "x86_64");
  });

  it("leaves AWS's five reserved addresses out of a subnet", () => {
    assert.equal(usableSubnetAddresses(28), 11);
    assert.equal(usableSubnetAddresses(24), 251);
    assert.equal(usableSubnetAddresses(19), 8187);
  });

  it("names the VPC prefix whose private subnets fit a node", () => {
    // 36 addresses + 5 reserved need a /26 subnet, an eighth of a /23 VPC; 65 need a /25, of a /22.
    assert.equal(vpcPrefixFor(36), 23);
    assert.equal(vpcPrefixFor(59), 23);
    assert.equal(vpcPrefixFor(60), 22);
  });
});

describe("subnets too small for a node's pods", () => {
  const refused: {
    title: string;
    network: Record<string, unknown>;
    groups: Record<string, unknown>[];
    path: string;
    arithmetic: string;
    hint: string;
  }[] = [
    {
      title: "c6in.32xlarge in a /22 VPC (private subnets of /25)",
      network: { cidr: "10.0.0.0/22" },
      groups: [group(["c6in.32xlarge"])],
      path: "nodeGroups[0].instanceTypes[0]",
      arithmetic:
        "8 network interfaces x 50 addresses = 400 VPC addresses for one node's pods, but each private subnet (an eighth of network.cidr 10.0.0.0/22) is a /25: 128 - 5 reserved by AWS = 123 addresses",
      hint: "/20",
    },
    {
      title: "the second type of the second group, in a /21 VPC over 3 AZs (/24 private subnets)",
      network: { cidr: "10.1.0.0/21", availabilityZones: 3 },
      groups: [group(["t3.small"]), group(["t3.medium", "c6in.32xlarge"], { name: "big" })],
      path: "nodeGroups[1].instanceTypes[1]",
      arithmetic:
        "8 network interfaces x 50 addresses = 400 VPC addresses for one node's pods, but each private subnet (an eighth of network.cidr 10.1.0.0/21) is a /24: 256 - 5 reserved by AWS = 251 addresses",
      hint: "/20",
    },
  ];
  for (const row of refused) {
    it(`refuses ${row.title}`, () => {
      const result = validateConfig({ network: row.network, nodeGroups: row.groups });
      assert.equal(result.ok, false);
      const problems = result.ok ? [] : result.problems;
      assert.deepEqual(
        problems.map((p) => p.path),
        [row.path],
      );
      assert.ok(problems[0].rule.includes(row.arithmetic), problems[0].rule);
      assert.ok(problems[0].hint?.includes(`a ${row.hint} or larger`), problems[0].hint);
    });
  }

  const accepted: { title: string; network: Record<string, unknown>; groups: Record<string, unknown>[] }[] = [
    {
      title: "the default /16 with any type in the table",
      network: {},
      groups: [group(["p4d.24xlarge"], { amiType: "AL2023_x86_64_NVIDIA" })],
    },
    {
      title: "t3.large in a /22 (123 addresses per private subnet)",
      network: { cidr: "10.0.0.0/22" },
      groups: [group(["t3.large"])],
    },
    {
      title: "c6in.32xlarge in a /20 over 6 AZs (507 per private subnet)",
      network: { cidr: "172.16.0.0/20", availabilityZones: 6 },
      groups: [group(["c6in.32xlarge"])],
    },
  ];
  for (const row of accepted) {
    it(`accepts ${row.title}`, () => {
      const result = validateConfig({ network: row.network, nodeGroups: row.groups });
      assert.deepEqual(result.ok ? [] : result.problems, []);
    });
  }

  it("refuses a type the table lacks as one that does not exist, with no subnet arithmetic", () => {
    const result = validateConfig({ network: { cidr: "10.0.0.0/22" }, nodeGroups: [group(["m99.large"])] });
    const problems = result.ok ? [] : result.problems;
    assert.deepEqual(
      problems.map((p) => [p.path, p.value]),
      [["nodeGroups[0].instanceTypes[0]", "m99.large"]],
    );
    assert.match(problems[0].rule, /^is not an instance type EC2 offers/);
  });
});
