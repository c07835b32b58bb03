/**
 * A deployed stack keeps its kind (stacks/stack-kind.ts): each stack file of one kind, run with the last
 * outputs of a stack of another kind, is refused at the key that says the new kind, before any resource;
 * with outputs of its own kind it plans. The kinds' outputs are the ones each example stack's plan exports.
 */
import * as assert from "node:assert/strict";
import { type StackEvaluation, evaluateStack, evaluateStackExpectingError } from "../offline/engine";
import { ConfigError } from "../stacks";
import { type StackKind } from "../stacks/stack-kind";

/** A stack file of each kind. */
const STACK_OF: Record<StackKind, string> = {
  cluster: "dev",
  existing: "existing.example",
  kubeconfig: "kubeconfig.example",
};
const KINDS = Object.keys(STACK_OF) as StackKind[];

/** The key each kind is refused at when it replaces another; a full stack's, the deployed key removed. */
function expectedPath(deployed: StackKind, configured: StackKind): string {
  return configured === "cluster" ? `cluster.${deployed}` : `cluster.${configured}`;
}

describe("a stack keeps the kind it was deployed as", function () {
  this.timeout(120_000);
  const outputs = new Map<StackKind, StackEvaluation["outputs"]>();
  before(async () => {
    for (const kind of KINDS) outputs.set(kind, (await evaluateStack(STACK_OF[kind])).outputs);
  });

  for (const deployed of KINDS) {
    for (const configured of KINDS.filter((k) => k !== deployed)) {
      it(`${configured} over a deployed ${deployed} stack: refused at ${expectedPath(deployed, configured)}, before any resource`, async () => {
        const { error, resources } = await evaluateStackExpectingError(STACK_OF[configured], {
          preview: false,
          previousOutputs: outputs.get(deployed),
        });
        assert.ok(ConfigError.isConfigError(error), String(error));
        assert.deepEqual(
          error.problems.map((p) => p.path),
          [expectedPath(deployed, configured)],
        );
        assert.match(
          error.problems[0].rule,
          /a stack keeps the kind it was deployed as, and this update would delete/,
        );
        assert.deepEqual(
          resources.filter((r) => r.custom),
          [],
          "refused before any resource",
        );
      });
    }
    it(`${deployed} over a deployed ${deployed} stack: planned`, async () => {
      await evaluateStack(STACK_OF[deployed], { previousOutputs: outputs.get(deployed) });
    });
  }

  it("a full stack rewritten as Calico alone on the cluster it made: refused, naming that cluster, not a crash", async () => {
    const own = "eks-calico-existing-example";
    const full = { ...outputs.get("cluster"), clusterName: own };
    const { error } = await evaluateStackExpectingError("existing.example", {
      preview: false,
      previousOutputs: full,
      config: { "eks-calico:cluster.existing.name": own },
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [["cluster.existing", { name: own, maxNodes: 20, minNodes: 1, vpcCniConfigured: false }]],
    );
    assert.match(error.problems[0].rule, new RegExp(`would delete the cluster "${own}", its VPC`));
  });
});
