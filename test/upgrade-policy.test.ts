/**
 * `cluster.upgradePolicy`: what EKS does at the end of a version's standard support. STANDARD by default
 * while the version is in standard support (no extended-support bill; EKS's own default is EXTENDED),
 * EXTENDED where a stack file says so (prod), passed to the cluster, refused where the stack does not
 * manage the cluster, and a warning once the version is past standard support. Past it, unset chooses what
 * EKS accepts and an explicit STANDARD that EKS refuses is refused before any resource. Every date is fixed
 * by the test, read against the dates table (END_OF_STANDARD_SUPPORT).
 */
import * as assert from "node:assert/strict";
import {
  deployedUpgradePolicy,
  extendedSupportNotice,
  pastStandardSupport,
  upgradePolicyFor,
} from "../stacks/support";
import { ConfigError, END_OF_STANDARD_SUPPORT, validateConfig } from "../stacks";
import { evaluateStackExpectingError } from "../offline/engine";
import { evaluated, evaluatedWith, one, stackValue } from "./helpers";

/** The day after `day` (YYYY-MM-DD), at midnight UTC. */
const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 24 * 3600 * 1000);
/** `day` itself, late in the day UTC: still in standard support. */
const lastDay = (day: string) => new Date(`${day}T23:59:00Z`);
/** A version past standard support on a date the test fixes: the table's earliest. */
const [[OLD, OLD_END]] = Object.entries(END_OF_STANDARD_SUPPORT).sort(([, a], [, b]) =>
  String(a).localeCompare(String(b)),
) as [string, string][];
const AFTER = dayAfter(OLD_END);

const upgradePolicyOf = async (stack: string) =>
  one(await evaluated(stack), "eks:index:Cluster").inputs.upgradePolicy;

/** dev's cluster config with `cluster` merged over it. */
const devCluster = (cluster: Record<string, unknown>) => ({
  "eks-calico:cluster": { ...stackValue<object>("dev", "cluster"), ...cluster },
});

describe("cluster.upgradePolicy", () => {
  it("is STANDARD unless the stack file says otherwise; prod's says EXTENDED", async () => {
    // The stack files' versions are in standard support until their table dates.
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

  it("chooses what EKS accepts for the version on the day, against the dates table", () => {
    for (const [version, end] of Object.entries(END_OF_STANDARD_SUPPORT) as [string, string][]) {
      assert.equal(pastStandardSupport(version, lastDay(end)), false, version);
      assert.equal(pastStandardSupport(version, dayAfter(end)), true, version);
      // In standard support, unset is STANDARD and either value is taken.
      assert.deepEqual(upgradePolicyFor({ version, today: lastDay(end) }), { policy: "STANDARD" });
      for (const configured of ["STANDARD", "EXTENDED"] as const) {
        assert.deepEqual(upgradePolicyFor({ version, configured, today: lastDay(end) }), {
          policy: configured,
        });
      }
      // Past it, a new cluster gets EXTENDED, the only support type EKS creates it with.
      assert.deepEqual(upgradePolicyFor({ version, today: dayAfter(end) }), { policy: "EXTENDED" });
      assert.deepEqual(upgradePolicyFor({ version, configured: "EXTENDED", today: dayAfter(end) }), {
        policy: "EXTENDED",
      });
    }
    // A version the table has no date for (the newest) is in standard support.
    assert.deepEqual(upgradePolicyFor({ version: "1.36", today: new Date("2030-01-01T00:00:00Z") }), {
      policy: "STANDARD",
    });
  });

  it("refuses STANDARD past standard support at cluster.upgradePolicy, with the value and the EKS rule", () => {
    const created = upgradePolicyFor({
      version: "1.33",
      configured: "STANDARD",
      today: dayAfter("2026-07-29"),
    });
    assert.ok("problem" in created);
    assert.equal(created.problem.path, "cluster.upgradePolicy");
    assert.equal(created.problem.value, "STANDARD");
    assert.match(
      created.problem.rule,
      /^must be EXTENDED for a new cluster on Kubernetes 1\.33: its standard support ended on 2026-07-29.*"you can not select standard support", EKS User Guide, create-cluster/,
    );
    // A cluster in extended support cannot leave it.
    const entered = upgradePolicyFor({
      version: "1.33",
      configured: "STANDARD",
      deployed: "EXTENDED",
      today: dayAfter("2026-07-29"),
    });
    assert.ok("problem" in entered);
    assert.match(entered.problem.rule, /^must stay EXTENDED: .*disable-extended-support/);
  });

  it("day two: a deployed cluster keeps its policy past standard support, so nothing changes by surprise", () => {
    const today = dayAfter("2026-07-29");
    // Deployed STANDARD (the former default): kept, set or unset; EKS upgrades it, no call changes it.
    assert.deepEqual(upgradePolicyFor({ version: "1.33", deployed: "STANDARD", today }), {
      policy: "STANDARD",
    });
    assert.deepEqual(
      upgradePolicyFor({ version: "1.33", configured: "STANDARD", deployed: "STANDARD", today }),
      {
        policy: "STANDARD",
      },
    );
    // Deployed EXTENDED: kept when the key is removed.
    assert.deepEqual(upgradePolicyFor({ version: "1.33", deployed: "EXTENDED", today }), {
      policy: "EXTENDED",
    });
    // The deployed policy: the recorded output, else what a stack deployed before it had.
    const full = { clusterName: "eks-calico-dev", vpcId: "vpc-0123456789abcdef0" };
    assert.equal(deployedUpgradePolicy({ ...full, upgradePolicy: "EXTENDED" }, undefined), "EXTENDED");
    assert.equal(deployedUpgradePolicy(full, undefined), "STANDARD");
    assert.equal(deployedUpgradePolicy(full, "EXTENDED"), "EXTENDED");
    assert.equal(deployedUpgradePolicy({}, "STANDARD"), undefined);
  });

  it("a new stack past standard support gets EXTENDED, and records the policy for the next update", async () => {
    const evaluation = await evaluatedWith("dev", { config: devCluster({ version: OLD }), today: AFTER });
    assert.deepEqual(one(evaluation, "eks:index:Cluster").inputs.upgradePolicy, { supportType: "EXTENDED" });
    assert.equal(evaluation.outputs.upgradePolicy, "EXTENDED");
    const current = await evaluatedWith("dev", {
      config: devCluster({ version: OLD }),
      today: lastDay(OLD_END),
    });
    assert.deepEqual(one(current, "eks:index:Cluster").inputs.upgradePolicy, { supportType: "STANDARD" });
  });

  it("refuses STANDARD past standard support before any resource, with every other problem", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: {
        ...devCluster({ version: OLD, upgradePolicy: "STANDARD" }),
        "eks-calico:network": { ...stackValue<object>("dev", "network"), natGateways: "none-at-all" },
      },
      today: AFTER,
    });
    assert.ok(error instanceof ConfigError, String(error));
    assert.deepEqual(error.problems.map((p) => p.path).sort(), [
      "cluster.upgradePolicy",
      "network.natGateways",
    ]);
    assert.equal(resources.filter((r) => r.custom).length, 0, "nothing registered");
  });

  it("day two: a deployed stack whose version passed its date keeps its deployed policy", async () => {
    const deployed = await evaluatedWith("dev", {
      config: devCluster({ version: OLD }),
      today: lastDay(OLD_END),
      preview: false,
    });
    assert.equal(deployed.outputs.upgradePolicy, "STANDARD");
    const later = await evaluatedWith("dev", {
      config: devCluster({ version: OLD }),
      today: AFTER,
      previousOutputs: deployed.outputs,
    });
    assert.deepEqual(one(later, "eks:index:Cluster").inputs.upgradePolicy, { supportType: "STANDARD" });
    // A cluster that entered extended support is refused STANDARD at the key.
    const { error } = await evaluateStackExpectingError("dev", {
      config: devCluster({ version: OLD, upgradePolicy: "STANDARD" }),
      today: AFTER,
      previousOutputs: { ...deployed.outputs, upgradePolicy: "EXTENDED" },
    });
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.problems[0].path, "cluster.upgradePolicy");
    assert.match(error.problems[0].rule, /^must stay EXTENDED/);
  });
});
