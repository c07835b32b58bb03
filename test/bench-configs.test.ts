/**
 * The benchmark's real control plane part plans the dev stack at each size it measures (bench/cluster.ts);
 * a configuration the program refuses would stop `npm run bench` there, so each must plan, with every
 * node running.
 */
import * as assert from "node:assert/strict";
import { REAL_NODE_COUNTS, ROLLOUT_NODES, devWithNodes } from "../bench/cluster";
import { evaluateStack } from "../offline/engine";

describe("the benchmark's cluster configurations", function () {
  this.timeout(120_000);

  for (const nodes of new Set([...REAL_NODE_COUNTS, ROLLOUT_NODES])) {
    it(`plans dev with ${nodes} running nodes`, async () => {
      const evaluation = await evaluateStack("dev", { config: devWithNodes(nodes) });
      const groups = evaluation.resources.filter((r) => r.type === "aws:eks/nodeGroup:NodeGroup");
      const running = groups.map((g) => (g.inputs.scalingConfig as { desiredSize: number }).desiredSize);
      assert.equal(
        running.reduce((sum, n) => sum + n, 0),
        nodes,
      );
    });
  }
});
