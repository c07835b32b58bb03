/**
 * Node-group rolls that finish: each group replaces a third of its maximum size at a time (updateConfig),
 * and `pulumi up` waits for its update as long as the batches take at EKS's 15-minute drain limit, within
 * the deploy job's own timeout. Without either, EKS rolls one node at a time and the provider gives up
 * after 60 minutes (aws_eks_node_group Timeouts) while EKS goes on rolling.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import {
  EKS_MAX_UNAVAILABLE_LIMIT,
  nodeGroupUpdateConfig,
  nodeGroupUpdateMinutes,
} from "../components/cluster/node-rolls";
import { PROJECT_ROOT, loadStackConfig } from "../offline/engine";
import { STACKS, evaluated, ofType } from "./helpers";

const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";

/** up.yml's job timeout: an update that outlives it is cancelled half-way. */
function deployJobMinutes(): number {
  const workflow = YAML.parse(
    fs.readFileSync(path.join(PROJECT_ROOT, ".github/workflows/up.yml"), "utf8"),
  ) as {
    jobs: Record<string, { "timeout-minutes"?: number }>;
  };
  const minutes = Object.values(workflow.jobs).map((job) => job["timeout-minutes"]);
  assert.ok(
    minutes.every((m) => typeof m === "number"),
    "every job of up.yml sets timeout-minutes",
  );
  return Math.min(...minutes);
}

describe("node-group rolls", () => {
  it("take 1 to 100 nodes at a time (EKS's NodegroupUpdateConfig range) and at most 3 batches up to 300 nodes", () => {
    assert.equal(EKS_MAX_UNAVAILABLE_LIMIT, 100);
    for (let maxSize = 1; maxSize <= 450; maxSize++) {
      const { maxUnavailable } = nodeGroupUpdateConfig(maxSize);
      assert.ok(maxUnavailable >= 1 && maxUnavailable <= 100, `${maxSize}: ${maxUnavailable}`);
      if (maxSize <= 300) assert.ok(Math.ceil(maxSize / maxUnavailable) <= 3, `${maxSize} nodes`);
    }
    assert.deepEqual(
      [1, 2, 3, 4, 12, 300, 450].map((n) => nodeGroupUpdateConfig(n).maxUnavailable),
      [1, 1, 1, 2, 4, 100, 100],
    );
  });

  it("wait 15 minutes per batch plus 15, within the deploy job's timeout up to 300 nodes", () => {
    const job = deployJobMinutes();
    assert.deepEqual([1, 2, 3, 12, 300].map(nodeGroupUpdateMinutes), [30, 45, 60, 60, 60]);
    for (let maxSize = 1; maxSize <= 300; maxSize++) {
      assert.ok(nodeGroupUpdateMinutes(maxSize) < job, `${maxSize} nodes: within up.yml's ${job} minutes`);
    }
    // Past 300 nodes EKS's limit of 100 at a time makes more batches, and the plan says the roll may outlast it.
    assert.equal(nodeGroupUpdateMinutes(450), 90);
  });

  for (const stack of STACKS) {
    it(`${stack}: every node group carries its updateConfig and update timeout`, async () => {
      const evaluation = await evaluated(stack);
      const raw = loadStackConfig(stack).values["eks-calico:nodeGroups"];
      const configured = raw === undefined ? [] : (JSON.parse(raw) as { name: string; maxSize: number }[]);
      const groups = ofType(evaluation, NODE_GROUP);
      assert.equal(groups.length, configured.length);
      for (const group of configured) {
        const planned = groups.find((g) => g.name === `cluster-${group.name}`);
        assert.ok(planned, group.name);
        assert.deepEqual(planned.inputs.updateConfig, nodeGroupUpdateConfig(group.maxSize), group.name);
        assert.deepEqual(planned.options.customTimeouts, {
          update: `${nodeGroupUpdateMinutes(group.maxSize)}m`,
        });
      }
    });
  }

  it("prod's 12-node group rolls 4 nodes at a time in 3 batches, waited for 60 minutes", async () => {
    const general = ofType(await evaluated("prod"), NODE_GROUP).find((g) => g.name === "cluster-general");
    assert.deepEqual(general?.inputs.updateConfig, { maxUnavailable: 4 });
    assert.deepEqual(general?.options.customTimeouts, { update: "60m" });
  });
});
