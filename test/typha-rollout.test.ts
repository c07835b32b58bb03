/**
 * Typha's rollout pace: a new replica must be ready before an old one stops wherever the cluster keeps a
 * node free of Typha, since Felix needs a ready Typha behind the Service (typha/pkg/discovery). Typha
 * holds a host port, so each node runs one replica (the scheduler's NodePorts filter); the rule holds
 * only if every ladder step leaves a node without one. test/cluster/line-change.test.ts watches a real
 * rollout for a moment without a ready Typha.
 */
import * as assert from "node:assert/strict";
import { ladderReplicas, typhaLadder } from "../components/calico/autoscaler";
import { MAX_TYPHA_REPLICAS } from "../components/calico/typha";
import { evaluateStack, evaluateStackExpectingError } from "../offline/engine";
import { evaluated, input, one, stackValue } from "./helpers";

const DEPLOYMENT = "kubernetes:apps/v1:Deployment";

/** The Typha Deployment's rolling update as the stack plans it. */
function rollingUpdate(evaluation: Awaited<ReturnType<typeof evaluated>>) {
  return input<{ maxSurge: string; maxUnavailable: number }>(
    one(evaluation, DEPLOYMENT, "calico-deployment-calico-typha"),
    "spec.strategy.rollingUpdate",
  );
}

/** dev's first node group with `minSize`, as the only group. */
function oneGroupOfMin(minSize: number) {
  const [group] = stackValue<Record<string, unknown>[]>("dev", "nodeGroups");
  return { "eks-calico:nodeGroups": [{ ...group, minSize, desiredSize: minSize }] };
}

describe("Typha's rollout pace", () => {
  it("leaves a node without Typha at every size of two nodes or more, on the autoscaler's ladder", () => {
    const ladder = typhaLadder();
    for (let nodes = 2; nodes <= MAX_TYPHA_REPLICAS * 300; nodes++) {
      const replicas = ladderReplicas(ladder, nodes);
      assert.ok(replicas < nodes, `${nodes} nodes: ${replicas} replicas leave no node free`);
    }
  });

  it("starts each new replica before an old one stops once the node groups keep two nodes", async () => {
    const minSizes = stackValue<{ minSize: number }[]>("dev", "nodeGroups").map((g) => g.minSize);
    assert.ok(minSizes.reduce((a, b) => a + b, 0) >= 2, "dev keeps two nodes");
    assert.deepEqual(rollingUpdate(await evaluated("dev")), { maxSurge: "100%", maxUnavailable: 0 });
    // Summed over groups: two groups of one keep two nodes.
    const [group] = stackValue<Record<string, unknown>[]>("dev", "nodeGroups");
    const two = await evaluateStack("dev", {
      config: {
        "eks-calico:nodeGroups": [
          { ...group, minSize: 1, desiredSize: 1 },
          { ...group, name: "second", minSize: 1, desiredSize: 1 },
        ],
      },
    });
    assert.equal(rollingUpdate(two).maxUnavailable, 0);
  });

  it("lets the old replica stop first where a single node may be all there is", async () => {
    const single = await evaluateStack("dev", { config: oneGroupOfMin(1) });
    assert.deepEqual(rollingUpdate(single), { maxSurge: "100%", maxUnavailable: 1 });
  });

  it("takes cluster.kubeconfig.minNodes on a cluster made elsewhere, one unless set", async () => {
    assert.equal(rollingUpdate(await evaluated("kubeconfig.example")).maxUnavailable, 1);
    const kept = await evaluateStack("kubeconfig.example", {
      config: { "eks-calico:cluster.kubeconfig.minNodes": 2 },
    });
    assert.equal(rollingUpdate(kept).maxUnavailable, 0);
  });

  it("refuses minNodes above maxNodes, naming both", async () => {
    const maxNodes = stackValue<{ kubeconfig: { maxNodes: number } }>("kubeconfig.example", "cluster")
      .kubeconfig.maxNodes;
    const { error } = await evaluateStackExpectingError("kubeconfig.example", {
      config: { "eks-calico:cluster.kubeconfig.minNodes": maxNodes + 1 },
    });
    const rule = `must be at most maxNodes \\(${maxNodes}\\) \\(got ${maxNodes + 1}\\)`;
    assert.match(String(error), new RegExp(`cluster\\.kubeconfig\\.minNodes: ${rule}`));
  });
});
