/**
 * A deployed stack's network as AWS has it: the size rules of the layout in use (a stack deployed with the
 * earlier equal split may be smaller than the per-AZ slots allow), the VPC CIDR and subnets of a stack
 * from before the `network` output read back from AWS, and deployed AZs kept by name while AWS does not
 * offer them.
 */
import * as assert from "node:assert/strict";
import { layoutOutput, newLayout } from "../components/network/layout";
import { diffDocuments } from "../offline/diff";
import { type StackEvaluation, evaluateStackExpectingError } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { ConfigError, validateConfig } from "../stacks";
import { type RegionZones, type ZoneRequest } from "../stacks/zones";
import { networkLayout } from "../stacks/previous-network";
import { layoutPodAddressProblems } from "../stacks/schema/pod-addresses";
import { evaluated, evaluatedWith, ofType, stackValue } from "./helpers";
import { legacyNetwork, legacyOutputs } from "./network-legacy";

const ZONES = ["us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"];

/** A request for `count` AZs, none listed or left out (network.availabilityZones alone). */
const request = (count: number): ZoneRequest => ({ count, exclude: [] });
/** us-west-2's AZs as aws.getAvailabilityZones lists them, `offered` in state available. */
const usWest2 = (offered: readonly string[] = ZONES): RegionZones => ({
  region: "us-west-2",
  all: ZONES.map((name, i) => ({ name, id: `usw2-az${i + 1}` })),
  offered,
});
const GROUP = { name: "general", minSize: 1, desiredSize: 1, maxSize: 3 };

/** A stack's `network` config with `change` merged in, as a config override. */
function network(stack: string, change: Record<string, unknown>) {
  return { "eks-calico:network": { ...stackValue<object>(stack, "network"), ...change } };
}

/** Each subnet's CIDR by resource name. */
function subnetCidrs(evaluation: StackEvaluation): Record<string, string> {
  const subnets = ofType(evaluation, "aws:ec2/subnet:Subnet");
  return Object.fromEntries(subnets.map((s) => [s.name, String(s.inputs.cidrBlock)]));
}

async function refusal(stack: string, options: Parameters<typeof evaluateStackExpectingError>[1]) {
  const { error, resources } = await evaluateStackExpectingError(stack, options);
  assert.ok(ConfigError.isConfigError(error), String(error));
  assert.deepEqual(
    resources.filter((r) => r.custom && r.type !== "pulumi:pulumi:StackReference"),
    [],
  );
  return error.problems;
}

describe("deployed networks: the size rules of the layout in use", () => {
  it("the schema keeps only the earlier equal split's minimum (/28 subnets), whatever the layout", () => {
    const problems = (cidr: string, availabilityZones: number) => {
      const groups = [{ ...GROUP, instanceTypes: ["t3.small"] }];
      const result = validateConfig({ network: { cidr, availabilityZones }, nodeGroups: groups });
      return result.ok ? [] : result.problems.filter((p) => p.path === "network.cidr").map((p) => p.rule);
    };
    assert.deepEqual(problems("10.0.0.0/24", 2), []);
    assert.deepEqual(problems("10.0.0.0/24", 6), []);
    assert.deepEqual(problems("10.0.0.0/26", 2), []);
    assert.deepEqual(problems("10.0.0.0/27", 2), [
      "too small for 4 subnets (a public and a private per AZ): split equally each would be a /29, and AWS's smallest subnet is a /28",
    ]);
  });

  it("refuses a new stack too small for the per-AZ slots, before any resource", async () => {
    const problems = await refusal("dev", { config: network("dev", { cidr: "10.0.0.0/24" }) });
    assert.deepEqual(
      problems.map((p) => [p.path, p.value, p.hint]),
      [["network.cidr", "10.0.0.0/24", "use a /22 or larger, such as 10.0.0.0/16"]],
    );
    assert.equal(
      problems[0].rule,
      "too small for the subnet layout: each AZ's public subnet is 1/64 of the VPC, a /30, and AWS's smallest subnet is a /28, so the VPC must be a /22 or larger",
    );
  });

  it("updates a /24 stack deployed with the equal split, its /26 subnets unchanged", async () => {
    const kept = await evaluatedWith("dev", {
      config: network("dev", { cidr: "10.0.0.0/24" }),
      previousOutputs: legacyOutputs(ZONES.slice(0, 2)),
      simulate: { network: { legacyVpcCidr: "10.0.0.0/24" } },
    });
    assert.deepEqual(subnetCidrs(kept), {
      "network-private-us-west-2a": "10.0.0.0/26",
      "network-private-us-west-2b": "10.0.0.64/26",
      "network-public-us-west-2a": "10.0.0.128/26",
      "network-public-us-west-2b": "10.0.0.192/26",
    });
  });

  it("refuses an AZ added to such a stack: an added AZ's slot would be smaller than AWS allows", () => {
    const legacy = legacyNetwork("10.0.0.0/24", ZONES.slice(0, 2));
    const earlier = legacyOutputs(ZONES.slice(0, 2));
    const result = networkLayout("10.0.0.0/24", request(3), usWest2(), earlier, legacy);
    assert.ok("problems" in result);
    assert.deepEqual(
      result.problems.map((p) => [p.path, p.value]),
      [["network.availabilityZones", 3]],
    );
    assert.match(
      result.problems[0].rule,
      /^cannot add us-west-2c .* a \/30, and AWS's smallest subnet is a \/28\)$/,
    );
    assert.match(result.problems[0].hint ?? "", /^keep network\.availabilityZones at 2; .* \/22 or larger/);
  });

  it("sizes pod addresses against the private subnets in use: an equal split's /22, a new stack's /23", () => {
    const groups = [{ ...GROUP, instanceTypes: ["p4d.24xlarge"], amiType: "AL2023_x86_64_NVIDIA" }];
    // 750 addresses: the schema cannot refuse, a /20 over 2 AZs split equally gives /22 subnets.
    assert.deepEqual(validateConfig({ network: { cidr: "172.16.0.0/20" }, nodeGroups: groups }).ok, true);
    const fresh = networkLayout("172.16.0.0/20", request(2), usWest2(), {});
    assert.ok("layout" in fresh);
    const [problem, ...rest] = layoutPodAddressProblems(groups, fresh.layout, false);
    assert.deepEqual(rest, []);
    assert.equal(problem.path, "nodeGroups[0].instanceTypes[0]");
    assert.ok(
      problem.rule.includes(
        "750 VPC addresses for one node's pods, but each private subnet (an eighth of network.cidr 172.16.0.0/20) is a /23: 512 - 5 reserved by AWS = 507 addresses",
      ),
      problem.rule,
    );
    assert.match(problem.hint ?? "", /^make network\.cidr a \/19 or larger/);
    const legacy = legacyNetwork("172.16.0.0/20", ZONES.slice(0, 2));
    const kept = networkLayout(
      "172.16.0.0/20",
      request(2),
      usWest2(),
      legacyOutputs(ZONES.slice(0, 2)),
      legacy,
    );
    assert.ok("layout" in kept);
    assert.deepEqual(layoutPodAddressProblems(groups, kept.layout, true), []);
    const small = layoutPodAddressProblems(
      [{ ...GROUP, instanceTypes: ["c6in.32xlarge"] }],
      legacyLayout("10.0.0.0/22"),
      true,
    );
    assert.match(
      small[0].rule,
      /but the deployed private subnet of us-west-2a \(10\.0\.0\.0\/24\) is a \/24: 256 - 5/,
    );
    assert.match(small[0].rule, /; pick a smaller instance type$/);
    assert.match(small[0].hint ?? "", /a larger network\.cidr needs a new stack/);
  });

  it("refuses, through the program, a node too large for a new stack's slots", async () => {
    const problems = await refusal("dev", {
      config: {
        ...network("dev", { cidr: "172.16.0.0/20" }),
        "eks-calico:nodeGroups": [{ ...GROUP, instanceTypes: ["p4d.24xlarge"] }],
      },
    });
    assert.deepEqual(
      problems.map((p) => p.path),
      ["nodeGroups[0].instanceTypes[0]"],
    );
  });
});

/** The layout a 2-AZ stack from before the `network` output keeps in `cidr`. */
function legacyLayout(cidr: string) {
  const result = networkLayout(
    cidr,
    request(2),
    usWest2(),
    legacyOutputs(ZONES.slice(0, 2)),
    legacyNetwork(cidr, ZONES.slice(0, 2)),
  );
  assert.ok("layout" in result);
  return result.layout;
}

describe("deployed networks: a stack from before the `network` output, read from AWS", () => {
  it("refuses a network.cidr other than the VPC's, read with getVpc", async () => {
    const problems = await refusal("staging", {
      previousOutputs: legacyOutputs(ZONES.slice(0, 3)),
      simulate: { network: { legacyVpcCidr: "10.77.0.0/16" } },
    });
    assert.deepEqual(
      problems.map((p) => [p.path, p.value]),
      [["network.cidr", stackValue<{ cidr: string }>("staging", "network").cidr]],
    );
    assert.match(problems[0].rule, /^cannot change on a deployed stack \(its VPC is 10\.77\.0\.0\/16\)/);
  });

  it("refuses with AWS's error and the command when the VPC cannot be read, rather than guess", async () => {
    const denied = await refusal("staging", {
      previousOutputs: legacyOutputs(ZONES.slice(0, 3)),
      simulate: { network: { legacyVpcCidr: "10.20.0.0/16", readDenied: true } },
    });
    assert.deepEqual(
      denied.map((p) => p.path),
      ["network"],
    );
    assert.match(denied[0].rule, /AWS did not describe VPC <vpc-id:network-vpc>: .*UnauthorizedOperation/);
    assert.match(denied[0].hint ?? "", /^`aws ec2 describe-vpcs --vpc-ids <vpc-id:network-vpc>` shows/);
    // Offline, no output holds the VPC's CIDR: without a simulated one the plan refuses, saying so.
    const unknown = await refusal("staging", { previousOutputs: legacyOutputs(ZONES.slice(0, 3)) });
    assert.match(unknown[0].rule, /not known offline: .*\(simulate network\.legacyVpcCidr\)/);
  });

  it("takes each subnet's AZ from AWS, not from the AZs the region offers now", async () => {
    const cidr = stackValue<{ cidr: string }>("staging", "network").cidr;
    const options = {
      previousOutputs: legacyOutputs(ZONES.slice(0, 3)),
      simulate: { network: { legacyVpcCidr: cidr } },
    };
    const all = await evaluatedWith("staging", options);
    const without = await evaluatedWith("staging", {
      ...options,
      simulate: { network: { legacyVpcCidr: cidr, unavailableZones: ["us-west-2b"] } },
    });
    assert.deepEqual(subnetCidrs(without), subnetCidrs(all));
    assert.ok(Object.keys(subnetCidrs(all)).includes("network-private-us-west-2b"));
  });
});

describe("deployed networks: an AZ AWS does not offer now", () => {
  const deployed = { network: layoutOutput(newLayout("10.0.0.0/16", ZONES.slice(0, 2))) };
  const offered = ZONES.filter((zone) => zone !== "us-west-2b");

  it("keeps the deployed AZ by name and says so; an added AZ comes from the offered ones", () => {
    const same = networkLayout("10.0.0.0/16", request(2), usWest2(offered), deployed);
    assert.ok("layout" in same);
    assert.deepEqual(same.layout, newLayout("10.0.0.0/16", ZONES.slice(0, 2)));
    assert.deepEqual(same.notices, [
      "network: us-west-2b is not offered by AWS now (not in state available); the stack keeps its subnets and the cluster stays in it",
    ]);
    const more = networkLayout("10.0.0.0/16", request(3), usWest2(offered), deployed);
    assert.ok("layout" in more);
    assert.deepEqual(more.layout.zones, newLayout("10.0.0.0/16", ZONES.slice(0, 3)).zones);
  });

  it("refuses only a real removal (a lower count), and AZs a new stack cannot get", () => {
    const three = { network: layoutOutput(newLayout("10.0.0.0/16", ZONES.slice(0, 3))) };
    const fewer = networkLayout("10.0.0.0/16", request(2), usWest2(offered), three);
    assert.ok("problems" in fewer);
    assert.match(
      fewer.problems[0].rule,
      /^cannot remove AZs the cluster was created in from a deployed stack: it has 3/,
    );
    const short = networkLayout("10.0.0.0/16", request(4), usWest2(offered), {});
    assert.ok("problems" in short);
    assert.deepEqual(
      short.problems.map((p) => [p.path, p.rule]),
      [
        [
          "network.availabilityZones",
          "needs 1 more AZ than AWS offers now: us-west-2a, us-west-2c, us-west-2d are in state available",
        ],
      ],
    );
  });

  it("through the program: the same update changes nothing while the AZ is not offered", async () => {
    const dev = await evaluated("dev");
    const again = await evaluatedWith("dev", {
      previousOutputs: dev.outputs,
      simulate: { network: { unavailableZones: ["us-west-2b"] } },
    });
    const diff = diffDocuments(resourcesDocument(dev), resourcesDocument(again));
    assert.deepEqual([diff.removed.length, diff.changed.length, diff.added.length], [0, 0, 0]);
    assert.ok(again.simulated.includes("AZs not offered now: us-west-2b"), again.simulated.join("\n"));
  });
});
