/**
 * The Region quotas the stacks of one account share (stacks/region-quotas.ts): AWS's defaults of 5
 * Elastic IPs and 5 VPCs per Region (AWS General Reference, Amazon VPC and Amazon EC2 quotas), one
 * Elastic IP per NAT gateway and one VPC per full stack, the Region's default VPC beside them. The
 * shipped stacks' use is read from their files, and docs/fork.md's table is held to it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { PROJECT_ROOT, deployableStacks, evaluateStack, loadStackConfig } from "../offline/engine";
import { type SiblingStack, siblingStacks } from "../stacks/collisions";
import { quotaUse, regionQuotaNotices } from "../stacks/region-quotas";
import { propertyRun } from "./property-runs";
import { stackValue, withWarnings } from "./helpers";

/** AWS's default quotas, as the General Reference states them. */
const DEFAULT_ELASTIC_IPS = 5;
const DEFAULT_VPCS = 5;

/** A stack file's Elastic IPs, from its own settings: a NAT gateway per AZ for perAz, else one. */
function elasticIpsOf(stack: string): { nat: string; zones: number; eips: number } {
  const network = stackValue<{ natGateways?: string; availabilityZones: number }>(stack, "network");
  const nat = network.natGateways ?? "single";
  return { nat, zones: network.availabilityZones, eips: nat === "perAz" ? network.availabilityZones : 1 };
}

describe("Region quotas of the stacks in one account", () => {
  const shipped = deployableStacks();

  it("docs/fork.md's table gives each stack file's VPCs and Elastic IPs", () => {
    const text = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "fork.md"), "utf8");
    const rows = text
      .split("\n")
      .filter((line) => /^\| [a-z]/.test(line) && !line.startsWith("| Stack"))
      .map((line) =>
        line
          .split("|")
          .map((cell) => cell.trim())
          .slice(1, -1),
      );
    const table = new Map(rows.filter((r) => r.length === 5).map((r) => [r[0], r.slice(1)]));
    for (const stack of ["dev", "staging", "prod"]) {
      const { nat, zones, eips } = elasticIpsOf(stack);
      assert.deepEqual(table.get(stack), [nat, String(zones), "1", String(eips)], stack);
    }
  });

  it("the plan warns once the Region's stack files go past the default Elastic IPs: staging on perAz", async () => {
    const regionOf = (stack: string) => loadStackConfig(stack).values["aws:region"];
    const others = shipped.filter((s) => s !== "staging" && regionOf(s) === regionOf("staging"));
    const shippedTotal = [...others, "staging"].reduce((sum, s) => sum + elasticIpsOf(s).eips, 0);
    const plain = await withWarnings(() => evaluateStack("staging"));
    const eipWarnings = (warnings: string[]) => warnings.filter((w) => w.includes("Elastic IP"));
    assert.equal(eipWarnings(plain.warnings).length, shippedTotal > DEFAULT_ELASTIC_IPS ? 1 : 0);
    const perAz = await withWarnings(() =>
      evaluateStack("staging", { config: { "eks-calico:network.natGateways": "perAz" } }),
    );
    const total = others.reduce((sum, s) => sum + elasticIpsOf(s).eips, elasticIpsOf("staging").zones);
    assert.ok(total > DEFAULT_ELASTIC_IPS, `staging on perAz makes ${total}`);
    const [warning, ...more] = eipWarnings(perAz.warnings);
    assert.deepEqual(more, []);
    assert.match(warning, new RegExp(`use ${total} Elastic IPs, past AWS's default quota`));
    assert.match(warning, /AddressLimitExceeded/);
  });

  it("warns exactly when the Region's stacks go past a default quota, for generated stack files", () => {
    const stackFile = fc.record({
      region: fc.constantFrom("us-west-2", "eu-west-1"),
      kind: fc.constantFrom("cluster", "cluster", "existing", "kubeconfig"),
      natGateways: fc.constantFrom("single", "perAz", undefined),
      availabilityZones: fc.integer({ min: 2, max: 6 }),
    });
    fc.assert(
      fc.property(fc.array(stackFile, { minLength: 1, maxLength: 6 }), (files) => {
        const siblings: SiblingStack[] = files.map((f, i) => ({
          stack: `s${i}`,
          region: f.region,
          config: {
            "eks-calico:network": { natGateways: f.natGateways, availabilityZones: f.availabilityZones },
            "eks-calico:cluster":
              f.kind === "existing"
                ? { existing: { name: "other" } }
                : f.kind === "kubeconfig"
                  ? { kubeconfig: { path: "k" } }
                  : { version: "1.35" },
          },
        }));
        const [first] = files;
        const own = quotaUse(
          "s0",
          siblings[0].config?.["eks-calico:network"],
          siblings[0].config?.["eks-calico:cluster"],
        );
        const same = files.filter((f) => f.region === first.region && f.kind === "cluster");
        const eips = same.reduce((n, f) => n + (f.natGateways === "perAz" ? f.availabilityZones : 1), 0);
        const vpcs = same.length + 1;
        const notices = regionQuotaNotices(first.region, own, siblings);
        assert.equal(
          notices.some((n) => n.includes("Elastic IPs")),
          eips > DEFAULT_ELASTIC_IPS,
          notices.join("\n"),
        );
        assert.equal(
          notices.some((n) => n.includes(" VPCs")),
          vpcs > DEFAULT_VPCS,
          notices.join("\n"),
        );
        for (const n of notices) assert.ok(n.startsWith(`${first.region}: `), n);
      }),
      { seed: propertyRun(0).seed, numRuns: 300 },
    );
  });

  it("reads every sibling stack file's config", () => {
    const read = siblingStacks(PROJECT_ROOT).filter((s) => shipped.includes(s.stack));
    assert.deepEqual(read.map((s) => s.stack).sort(), [...shipped].sort());
    for (const s of read) assert.ok(s.config?.["eks-calico:network"] !== undefined, s.stack);
  });
});
