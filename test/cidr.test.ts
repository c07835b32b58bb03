/**
 * CIDR blocks by meaning: a public-access list that covers the whole internet in pieces is world-open for
 * the protected-stack rule in the schema and in the policy pack alike; host bits are refused; ranges AWS
 * does not accept for a VPC are refused.
 */
import * as assert from "node:assert/strict";
import {
  coveredAddresses,
  coversWholeInternet,
  forbiddenVpcRange,
  hasHostBits,
} from "../components/network/cidr-ranges";
import { eksEndpointExposure } from "../policy/policies";
import { validateConfig } from "../stacks";
import { evaluated, one } from "./helpers";
import { runPolicy } from "./policy-harness";

const GROUP = { name: "general", minSize: 1, desiredSize: 1, maxSize: 3 };
const HALVES = ["0.0.0.0/1", "128.0.0.0/1"];

function problems(raw: Record<string, unknown>) {
  const result = validateConfig(raw);
  return result.ok ? [] : result.problems;
}

describe("CIDR blocks by meaning", () => {
  it("counts the addresses a set of blocks covers, overlaps once", () => {
    assert.equal(coveredAddresses(["10.0.0.0/8", "10.1.0.0/16"]), 2 ** 24);
    assert.equal(coveredAddresses(["10.0.0.0/24", "10.0.1.0/24"]), 512);
    assert.ok(coversWholeInternet(["0.0.0.0/0"]));
    assert.ok(coversWholeInternet(HALVES));
    assert.ok(coversWholeInternet(["0.0.0.0/2", "64.0.0.0/2", "128.0.0.0/2", "192.0.0.0/2"]));
    assert.ok(!coversWholeInternet(["0.0.0.0/1", "128.0.0.0/2"]));
  });

  it("refuses, on a protected stack, public access CIDRs that together open the endpoint to everyone", () => {
    const found = problems({ protect: true, cluster: { publicAccessCidrs: HALVES }, nodeGroups: [GROUP] });
    assert.deepEqual(
      found.map((p) => p.path),
      ["cluster.publicAccessCidrs"],
    );
    assert.match(found[0].rule, /together these blocks cover every IPv4 address/);
    assert.deepEqual(
      problems({ protect: false, cluster: { publicAccessCidrs: HALVES }, nodeGroups: [GROUP] }),
      [],
    );
    assert.deepEqual(
      problems({ protect: true, cluster: { publicAccessCidrs: ["0.0.0.0/1"] }, nodeGroups: [GROUP] }),
      [],
    );
  });

  it("fails the policy pack's endpoint rule on the same halves", async () => {
    const prod = await evaluated("prod");
    const eks = one(prod, "eks:index:Cluster");
    const opened = { ...eks, inputs: { ...eks.inputs, publicAccessCidrs: HALVES } };
    const result = await runPolicy(
      eksEndpointExposure,
      prod.resources.map((r) => (r === eks ? opened : r)),
    );
    assert.equal(result.violations.length, 1);
    assert.match(result.violations[0].message, /whole internet \(0\.0\.0\.0\/1, 128\.0\.0\.0\/1\)/);
  });

  it("refuses host bits in public access CIDRs, as in the VPC CIDR", () => {
    assert.ok(hasHostBits("203.0.113.5/24"));
    assert.ok(!hasHostBits("203.0.113.0/24"));
    const found = problems({ cluster: { publicAccessCidrs: ["203.0.113.5/24"] }, nodeGroups: [GROUP] });
    assert.deepEqual(
      found.map((p) => p.path),
      ["cluster.publicAccessCidrs[0]"],
    );
    assert.match(found[0].rule, /host bits/);
  });

  it("refuses VPC ranges AWS does not accept", () => {
    for (const [cidr, what] of [
      ["169.254.0.0/16", "link-local"],
      ["224.0.0.0/16", "multicast"],
      ["240.10.0.0/16", "reserved"],
      ["127.0.0.0/16", "loopback"],
      ["0.0.0.0/16", "this network"],
    ]) {
      assert.match(String(forbiddenVpcRange(cidr)?.what), new RegExp(what), cidr);
      const found = problems({ network: { cidr }, nodeGroups: [GROUP] });
      assert.ok(
        found.some((p) => p.path === "network.cidr" && /AWS does not accept for a VPC/.test(p.rule)),
        `${cidr}: ${JSON.stringify(found)}`,
      );
    }
    assert.equal(forbiddenVpcRange("10.0.0.0/16"), undefined);
    assert.equal(forbiddenVpcRange("100.64.0.0/16"), undefined);
  });
});
