/**
 * `cluster.upgradePolicy`: what EKS does at the end of a version's standard support. STANDARD by default
 * (no extended-support bill; EKS's own default is EXTENDED), EXTENDED where a stack file says so (prod),
 * passed to the cluster, refused where the stack does not manage the cluster, and a warning once the
 * version is past standard support.
 */
import * as assert from "node:assert/strict";
import { extendedSupportNotice } from "../stacks/support";
import { validateConfig } from "../stacks";
import { evaluated, evaluatedWith, one } from "./helpers";

const upgradePolicyOf = async (stack: string, config?: Record<string, unknown>) => {
  const evaluation = config === undefined ? await evaluated(stack) : await evaluatedWith(stack, { config });
  return one(evaluation, "eks:index:Cluster").inputs.upgradePolicy;
};

describe("cluster.upgradePolicy", () => {
  it("is STANDARD unless the stack file says otherwise; prod's says EXTENDED", async () => {
    assert.deepEqual(await upgradePolicyOf("dev"), { supportType: "STANDARD" });
    assert.deepEqual(await upgradePolicyOf("staging"), { supportType: "STANDARD" });
    assert.deepEqual(await upgradePolicyOf("prod"), { supportType: "EXTENDED" });
  });

  it("takes only STANDARD or EXTENDED, and only where the stack makes the cluster", () => {
    const bad = validateConfig({ nodeGroups: [{ name: "general" }], cluster: { upgradePolicy: "standard" } });
    assert.ok(!bad.ok);
    assert.ok(
      bad.problems.some((p) => p.path === "cluster.upgradePolicy" && /STANDARD, EXTENDED/.test(p.rule)),
    );
    const elsewhere = validateConfig({
      cluster: { existing: { name: "made-elsewhere", maxNodes: 3 }, upgradePolicy: "EXTENDED" },
    });
    assert.ok(!elsewhere.ok);
    assert.ok(
      elsewhere.problems.some((p) => p.path === "cluster.upgradePolicy"),
      JSON.stringify(elsewhere.problems),
    );
  });

  it("warns once the version is past EKS standard support, saying what the policy then does", () => {
    assert.equal(extendedSupportNotice("1.33", "STANDARD", new Date("2026-07-29T23:00:00Z")), undefined);
    assert.match(
      extendedSupportNotice("1.33", "EXTENDED", new Date("2026-07-30T00:00:00Z")) ?? "",
      /^cluster\.version 1\.33 left EKS standard support on 2026-07-29: EKS bills the cluster extended support/,
    );
    assert.match(
      extendedSupportNotice("1.32", "STANDARD", new Date("2026-11-26T00:00:00Z")) ?? "",
      /EKS may upgrade the control plane to the next version/,
    );
    assert.equal(extendedSupportNotice("1.35", "EXTENDED", new Date("2026-11-26T00:00:00Z")), undefined);
    assert.equal(extendedSupportNotice("1.36", "STANDARD", new Date("2026-11-26T00:00:00Z")), undefined);
  });
});
