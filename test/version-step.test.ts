/**
 * A deployed cluster's Kubernetes version moves only to the version it runs or the next minor
 * (stacks/version-step.ts). EKS's rule, from update-cluster.html: no downgrade, and "you can only update
 * to the next minor version". The expectations below are that rule written out, not the code's table.
 */
import * as assert from "node:assert/strict";
import fc from "fast-check";
import { evaluateStack, evaluateStackExpectingError } from "../offline/engine";
import { ConfigError } from "../stacks";
import { versionStepProblem } from "../stacks/version-step";
import { withWarnings } from "./helpers";

/** Whether EKS's UpdateClusterVersion takes a cluster on 1.`from` to 1.`to` (or no change at all). */
const eksAccepts = (from: number, to: number) => to === from || to === from + 1;

describe("Kubernetes versions only move forward, one minor at a time", function () {
  this.timeout(120_000);
  let deployed: Record<string, unknown>;
  before(async () => {
    deployed = (await evaluateStack("dev", { preview: false })).outputs;
  });

  it("the rule over every pair of minors: refused exactly where EKS refuses", () => {
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 60 }), fc.integer({ min: 20, max: 60 }), (from, to) => {
        const problem = versionStepProblem(`1.${to}`, `1.${from}`);
        assert.equal(problem === undefined, eksAccepts(from, to), `1.${from} to 1.${to}`);
        if (problem !== undefined) assert.equal(problem.path, "cluster.version");
      }),
    );
  });

  it("the stack records the version it runs, and the next update reads it back", () => {
    assert.equal(deployed.kubernetesVersion, "1.35");
  });

  // [the version EKS reports, the stack file's, the rule]: a downgrade, and 1.33 to 1.35 in one step.
  for (const [running, to, rule] of [
    ["1.35", "1.34", /older than 1\.35, the version the cluster runs: EKS never downgrades/],
    ["1.33", "1.35", /skips versions: the cluster runs 1\.33/],
  ] as const) {
    it(`${running} to ${to} on a deployed stack: refused at cluster.version before any resource, in preview and up`, async () => {
      for (const preview of [true, false]) {
        const { error, resources } = await evaluateStackExpectingError("dev", {
          preview,
          previousOutputs: { ...deployed, kubernetesVersion: running },
          config: { "eks-calico:cluster.version": to },
        });
        assert.ok(ConfigError.isConfigError(error), String(error));
        assert.deepEqual(
          error.problems.map((p) => [p.path, p.value]),
          [["cluster.version", to]],
        );
        assert.match(error.problems[0].rule, rule);
        assert.deepEqual(
          resources.filter((r) => r.custom),
          [],
        );
      }
    });
  }

  it("1.35 to 1.36 on a deployed stack, and any version on a new one: planned", async () => {
    await evaluateStack("dev", {
      previousOutputs: deployed,
      config: { "eks-calico:cluster.version": "1.36" },
    });
    await evaluateStack("dev", { config: { "eks-calico:cluster.version": "1.33" } });
  });

  it("a cluster EKS upgraded by itself: the old stack file is refused with the version to set and a refresh", async () => {
    const { error } = await evaluateStackExpectingError("dev", {
      previousOutputs: deployed,
      simulate: { stackClusterVersion: "1.36" },
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.equal(error.problems[0].path, "cluster.version");
    assert.match(error.problems[0].hint ?? "", /set cluster\.version: "1\.36".*`pulumi refresh`/);
    await evaluateStack("dev", {
      previousOutputs: deployed,
      simulate: { stackClusterVersion: "1.36" },
      config: { "eks-calico:cluster.version": "1.36" },
    });
  });

  it("a stack that recorded no version: the plan says it cannot tell, and plans", async () => {
    const older = Object.fromEntries(Object.entries(deployed).filter(([key]) => key !== "kubernetesVersion"));
    const { warnings } = await withWarnings(() =>
      evaluateStack("dev", { previousOutputs: older, config: { "eks-calico:cluster.version": "1.33" } }),
    );
    assert.ok(
      warnings.some((w) => /the version cluster eks-calico-dev runs is not known here/.test(w)),
      warnings.join("\n"),
    );
  });

  it("the offline plan says which version it compared with", async () => {
    const { simulated } = await evaluateStack("dev", { previousOutputs: deployed });
    assert.ok(
      simulated.some((note) => /runs Kubernetes 1\.35, as the last update recorded it/.test(note)),
      simulated.join("\n"),
    );
  });
});
