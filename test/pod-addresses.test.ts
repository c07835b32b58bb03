/** A node's pod addresses must fit one private subnet: the arithmetic, the table, and the refusal. */
import * as assert from "node:assert/strict";
import { ENI_LIMIT_ROWS } from "../components/cluster/eni-limits";
import { amiTypesFor, instanceArchitecture } from "../components/cluster/ami-types";
import { amiFamilyProblem } from "../components/cluster/ami-families";
import { VPC_CNI_CONFIGURATION } from "../components/cluster/addons";
import {
  interfacesAttached,
  nodeAddressDemand,
  usableSubnetAddresses,
} from "../components/network/pod-addresses";
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
  // Each row by hand from components/network/pod-addresses.ts's cited rules. EC2 limits (ENIs x IPv4 per
  // ENI) from components/cluster/eni-limits.ts; VPC CNI max pods = ENIs x (IPv4 - 1) + 2 (eni-max-pods.txt);
  // EKS caps a managed node's at 110 below 30 vCPUs (size name: 4 per xlarge), else at 250; ipamd fills
  // each ENI with IPv4 - 1 secondaries and attaches ENIs until they reach max pods:
  // ENIs attached = min(ENIs, ceil(max pods / (IPv4 - 1))); addresses = ENIs attached x IPv4.
  for (const [instanceType, eniMaxPods, maxPods, interfaces, addresses, arithmetic] of [
    // 2 x 2: 2 x 1 + 2 = 4 pods (< 110); ceil(4 / 1) = 4 > 2 ENIs: 2 x 2 = 4.
    ["t3.nano", 4, 4, 2, 4, "2 ENIs x 2"],
    // 3 x 12: 3 x 11 + 2 = 35 pods; ceil(35 / 11) = 4 > 3: 3 x 12 = 36.
    ["t3.large", 35, 35, 3, 36, "3 ENIs x 12"],
    // 3 x 10: 3 x 9 + 2 = 29 pods; ceil(29 / 9) = 4 > 3: 3 x 10 = 30.
    ["m5.large", 29, 29, 3, 30, "3 ENIs x 10"],
    // 4 x 15: 4 x 14 + 2 = 58 pods; ceil(58 / 14) = 5 > 4: 4 x 15 = 60.
    ["m6i.xlarge", 58, 58, 4, 60, "4 ENIs x 15"],
    ["m7g.large", 29, 29, 3, 30, "3 ENIs x 10"],
    // 8 x 30, 16 vCPUs: 8 x 29 + 2 = 234 capped at 110; ceil(110 / 29) = 4 (3 x 29 = 87 < 110): 4 x 30 = 120,
    // half the 240 of all eight ENIs.
    ["m6i.4xlarge", 234, 110, 4, 120, "4 of 8 ENIs x 30"],
    // 8 x 30, 32 vCPUs: 234 under the 250 cap; ceil(234 / 29) = 9 > 8: 8 x 30 = 240.
    ["m6i.8xlarge", 234, 234, 8, 240, "8 ENIs x 30"],
    // 8 x 50, 128 vCPUs: 8 x 49 + 2 = 394 capped at 250; ceil(250 / 49) = 6 (5 x 49 = 245 < 250): 6 x 50 = 300.
    ["c6in.32xlarge", 394, 250, 6, 300, "6 of 8 ENIs x 50"],
    // 15 x 50, 96 vCPUs: 15 x 49 + 2 = 737 capped at 250; ceil(250 / 49) = 6: 6 x 50 = 300.
    ["p4d.24xlarge", 737, 250, 6, 300, "6 of 15 ENIs x 50"],
  ] as const) {
    it(`${instanceType}: ${addresses} addresses (${arithmetic}), ${maxPods} max pods`, () => {
      const demand = nodeAddressDemand(instanceType);
      assert.ok(demand, `${instanceType} is in the table`);
      assert.equal(demand.maxInterfaces * (demand.addressesPerInterface - 1) + 2, eniMaxPods);
      assert.equal(demand.maxPods, maxPods);
      assert.equal(demand.interfaces, interfaces);
      assert.equal(demand.addresses, addresses);
    });
  }

  it("attaches an interface only while the secondaries are short of max pods", () => {
    // 29 secondaries per ENI: 87 < 88 takes a fourth ENI, 87 >= 87 does not; never past the 8 EC2 allows.
    assert.equal(interfacesAttached(8, 30, 87), 3);
    assert.equal(interfacesAttached(8, 30, 88), 4);
    assert.equal(interfacesAttached(8, 30, 1000), 8);
  });

  it("leaves the VPC CNI's warm-pool settings at the defaults the count assumes", () => {
    // WARM_IP_TARGET or MINIMUM_IP_TARGET would fill interfaces partly, prefix delegation claim /28s.
    const env: Record<string, string> = VPC_CNI_CONFIGURATION.env;
    for (const key of [
      "WARM_ENI_TARGET",
      "WARM_IP_TARGET",
      "MINIMUM_IP_TARGET",
      "ENABLE_PREFIX_DELEGATION",
    ]) {
      assert.equal(env[key], undefined, key);
    }
  });

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
        "6 network interfaces x 50 addresses = 300 VPC addresses for one node's pods (the interfaces the VPC CNI attaches for its 250 max pods), but each private subnet (an eighth of network.cidr 10.0.0.0/22) is a /25: 128 - 5 reserved by AWS = 123 addresses",
      hint: "/20",
    },
    {
      title: "the second type of the second group, in a /21 VPC over 3 AZs (/24 private subnets)",
      network: { cidr: "10.1.0.0/21", availabilityZones: 3 },
      groups: [group(["t3.small"]), group(["t3.medium", "c6in.32xlarge"], { name: "big" })],
      path: "nodeGroups[1].instanceTypes[1]",
      arithmetic:
        "6 network interfaces x 50 addresses = 300 VPC addresses for one node's pods (the interfaces the VPC CNI attaches for its 250 max pods), but each private subnet (an eighth of network.cidr 10.1.0.0/21) is a /24: 256 - 5 reserved by AWS = 251 addresses",
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

  it("leaves a type the table lacks to EC2, with no subnet arithmetic for it", () => {
    const result = validateConfig({ network: { cidr: "10.0.0.0/22" }, nodeGroups: [group(["m99.large"])] });
    assert.deepEqual(result.ok ? [] : result.problems, []);
  });
});
