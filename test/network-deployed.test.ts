/**
 * A deployed stack's network: the size rules (the per-AZ slots for the schema, the deployed subnets for a
 * deployed stack), the refusal of a stack 0.1.0 last updated (no `network` output), and deployed AZs kept
 * by name while AWS does not offer them.
 */
import * as assert from "node:assert/strict";
import { layoutOutput, newLayout } from "../components/network/layout";
import { diffDocuments } from "../offline/diff";
import { evaluateStackExpectingError } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { ConfigError, validateConfig } from "../stacks";
import { type RegionZones, type ZoneRequest } from "../stacks/zones";
import { networkLayout } from "../stacks/previous-network";
import { layoutPodAddressProblems } from "../stacks/schema/pod-addresses";
import { evaluated, evaluatedWith, stackValue } from "./helpers";

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

async function refusal(stack: string, options: Parameters<typeof evaluateStackExpectingError>[1]) {
  const { error, resources } = await evaluateStackExpectingError(stack, options);
  assert.ok(ConfigError.isConfigError(error), String(error));
  assert.deepEqual(
    resources.filter((r) => r.custom),
    [],
  );
  return error.problems;
}

describe("deployed networks: the size rules", () => {
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

  it("sizes pod addresses against the slots in the schema, and a deployed stack's own subnets", () => {
    const groups = [{ ...GROUP, instanceTypes: ["p4d.24xlarge"], amiType: "AL2023_x86_64_NVIDIA" }];
    // 6 of 15 interfaces x 50 = 300 addresses (max pods capped at 250): a /21's private slots are /24s.
    const schema = validateConfig({ network: { cidr: "172.16.0.0/21" }, nodeGroups: groups });
    assert.ok(!schema.ok);
    assert.deepEqual(
      schema.problems.map((p) => p.path),
      ["nodeGroups[0].instanceTypes[0]"],
    );
    assert.ok(
      schema.problems[0].rule.includes(
        "300 VPC addresses for one node's pods (the interfaces the VPC CNI attaches for its 250 max pods), but each private subnet (an eighth of network.cidr 172.16.0.0/21) is a /24: 256 - 5 reserved by AWS = 251 addresses",
      ),
      schema.problems[0].rule,
    );
    assert.match(schema.problems[0].hint ?? "", /^make network\.cidr a \/20 or larger/);
    const small = layoutPodAddressProblems(
      [{ ...GROUP, instanceTypes: ["c6in.32xlarge"] }],
      newLayout("10.0.0.0/22", ZONES.slice(0, 2)),
      false,
    );
    assert.match(
      small[0].rule,
      /but the deployed private subnet of us-west-2a \(10\.0\.0\.0\/25\) is a \/25: 128 - 5/,
    );
    assert.match(small[0].rule, /; pick a smaller instance type$/);
    assert.match(small[0].hint ?? "", /a larger network\.cidr needs a new stack/);
  });

  it("refuses, through the program, a node too large for a new stack's slots", async () => {
    const problems = await refusal("dev", {
      config: {
        ...network("dev", { cidr: "172.16.0.0/21" }),
        "eks-calico:nodeGroups": [
          { ...GROUP, instanceTypes: ["p4d.24xlarge"], amiType: "AL2023_x86_64_NVIDIA" },
        ],
      },
    });
    assert.deepEqual(
      problems.map((p) => p.path),
      ["nodeGroups[0].instanceTypes[0]"],
    );
  });
});

describe("deployed networks: a stack 0.1.0 last updated", () => {
  it("is refused before any resource: its outputs have `vpcId` but no `network`", async () => {
    const current = (await evaluated("dev")).outputs;
    // 0.1.0 exported neither `network`, `nodeGroupScaling` nor `clusterCreator`.
    const outputs = Object.fromEntries(
      Object.entries(current).filter(
        ([name]) => !["network", "nodeGroupScaling", "clusterCreator"].includes(name),
      ),
    );
    const problems = await refusal("dev", { previousOutputs: outputs });
    assert.deepEqual(
      problems.map((p) => [p.path, p.rule, p.hint]),
      [
        [
          "network",
          "cannot be checked against the deployed network: the stack was last updated by 0.1.0 (its outputs have `vpcId` but no `network`), and this version does not read 0.1.0's layout",
          "keep this stack on 0.1.0, or follow CHANGELOG.md (Removed) to bring it to this version",
        ],
      ],
    );
    // With the outputs this version writes, the same stack plans.
    await evaluatedWith("dev", { previousOutputs: current });
  });
});

describe("deployed networks: the AZs' order", () => {
  const reversed = newLayout("10.0.0.0/16", ["us-west-2c", "us-west-2a"]);

  it("keeps the order of the listed AZs the last update wrote", () => {
    const read = networkLayout("10.0.0.0/16", request(2), usWest2(), { network: layoutOutput(reversed) });
    assert.ok("layout" in read);
    assert.deepEqual(read.layout, reversed);
  });

  it("reads an output keyed by AZ (written before the list; keys come back sorted) in clusterZones' order", () => {
    const keyed = {
      cidr: "10.0.0.0/16",
      zones: {
        "us-west-2a": { private: "10.0.32.0/19", public: "10.0.196.0/22" },
        "us-west-2c": { private: "10.0.0.0/19", public: "10.0.192.0/22" },
      },
      clusterZones: ["us-west-2c", "us-west-2a"],
    };
    const read = networkLayout("10.0.0.0/16", request(2), usWest2(), { network: keyed });
    assert.ok("layout" in read);
    assert.deepEqual(read.layout, reversed);
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
