/**
 * calico-node rollouts that fit the readiness timeout at any size: the estimate, the derived timeout, and
 * the configurations refused because the rollout could not meet them.
 */
import * as assert from "node:assert/strict";
import {
  BASE_SECONDS,
  SECONDS_PER_WAVE,
  derivedTimeoutMinutes,
  estimateRollout,
  unavailableAtOnce,
} from "../components/calico/rollout";
import { validateConfig } from "../stacks";
import { evaluatedWith, one } from "./helpers";

const group = (maxSize: number) => ({ name: "general", minSize: 1, desiredSize: 1, maxSize });

function problems(raw: Record<string, unknown>) {
  const result = validateConfig(raw);
  return result.ok ? [] : result.problems;
}

describe("calico-node rollouts", () => {
  it("replaces a percentage of the nodes at once, rounded up, or a count, never less than one", () => {
    assert.equal(unavailableAtOnce(3, "10%"), 1);
    assert.equal(unavailableAtOnce(100, "10%"), 10);
    assert.equal(unavailableAtOnce(101, "10%"), 11);
    assert.equal(unavailableAtOnce(5000, "1%"), 50);
    assert.equal(unavailableAtOnce(4, 10), 4);
    assert.equal(unavailableAtOnce(40, 3), 3);
  });

  it("estimates a rollout as a base plus one wave per batch of nodes", () => {
    assert.deepEqual(estimateRollout(300, 1), {
      nodes: 300,
      atOnce: 1,
      waves: 300,
      seconds: BASE_SECONDS + 300 * SECONDS_PER_WAVE,
    });
    // 10%: about ten waves at any size, so the default timeout holds from 3 to 5,000 nodes.
    for (const nodes of [3, 100, 1000, 5000]) {
      const estimate = estimateRollout(nodes, "10%");
      assert.ok(estimate.waves <= 10, `${nodes} nodes: ${estimate.waves} waves`);
      assert.ok(derivedTimeoutMinutes(estimate) <= 15, `${nodes} nodes`);
    }
    assert.equal(derivedTimeoutMinutes(estimateRollout(300, 1)), 303);
  });

  it("derives the timeout from the node groups' maximum size when none is configured", async () => {
    const evaluation = await evaluatedWith("dev", {
      config: {
        "eks-calico:nodeGroups": [group(300)],
        "eks-calico:calico": { maxUnavailable: 1 },
      },
    });
    const node = one(evaluation, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
    assert.deepEqual(node.options.customTimeouts, { create: "303m", update: "303m" });
  });

  it("refuses a configured timeout the rollout cannot meet, with the estimate", () => {
    const found = problems({
      nodeGroups: [group(300)],
      calico: { maxUnavailable: 1, readinessTimeoutMinutes: 10 },
    });
    assert.deepEqual(
      found.map((p) => p.path),
      ["calico.readinessTimeoutMinutes"],
    );
    assert.match(
      found[0].rule,
      /shorter than the estimated calico-node rollout \(300 nodes at maxUnavailable 1 \(1 at a time\): 300 waves x 40 s \+ 120 s = 202 min\): raise it to at least 202/,
    );
    assert.deepEqual(problems({ nodeGroups: [group(300)], calico: { readinessTimeoutMinutes: 10 } }), []);
  });

  it("counts Karpenter's nodes at its limits: each pool's limits.cpu over its minVcpus", async () => {
    const karpenter = {
      enabled: true,
      nodePools: {
        general: { limits: { cpu: 400 }, minVcpus: 2 },
        batch: { limits: { cpu: 64 }, minVcpus: 8 },
      },
    };
    // 3 + 200 + 8 nodes at one at a time: 211 waves x 40 s + 120 s = 143 min.
    const found = problems({
      nodeGroups: [group(3)],
      calico: { maxUnavailable: 1, readinessTimeoutMinutes: 20 },
      karpenter,
    });
    assert.deepEqual(
      found.map((p) => p.path),
      ["calico.readinessTimeoutMinutes"],
    );
    assert.match(found[0].rule, /\(211 nodes at maxUnavailable 1 .*: raise it to at least 143/);
    assert.deepEqual(
      problems({ nodeGroups: [group(3)], calico: { maxUnavailable: 1, readinessTimeoutMinutes: 20 } }),
      [],
    );
    const evaluation = await evaluatedWith("dev", {
      config: {
        "eks-calico:nodeGroups": [group(3)],
        "eks-calico:calico": { maxUnavailable: 1 },
        "eks-calico:karpenter": karpenter,
      },
    });
    const node = one(evaluation, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
    // Derived: half again the 8,560 s estimate, as for the 300 nodes above (202 min, 303 derived).
    assert.deepEqual(node.options.customTimeouts, { create: "214m", update: "214m" });
  });

  it("refuses a maxUnavailable so low that no timeout could wait for the rollout", () => {
    // 5,000 nodes in groups within EKS's 450-node quota.
    const groups = Array.from({ length: 12 }, (_, i) => ({ ...group(420), name: `g${i}` }));
    const found = problems({ nodeGroups: groups, calico: { maxUnavailable: 1 } });
    assert.deepEqual(
      found.map((p) => p.path),
      ["calico.maxUnavailable"],
    );
    assert.match(found[0].rule, /too slow to wait for \(5040 nodes/);
  });

  it("refuses maxUnavailable values Kubernetes would not take", () => {
    for (const bad of [0, -1, 1.5, "0%", "150%", "ten", "10"]) {
      const found = problems({ nodeGroups: [group(3)], calico: { maxUnavailable: bad } });
      assert.deepEqual(
        found.map((p) => p.path),
        ["calico.maxUnavailable"],
        JSON.stringify(bad),
      );
    }
  });
});
