/**
 * When the enforcement probe runs again for a change of the nodes: exactly on the changes docs/probe.md
 * lists (its table equals stacks/probe-nodes.ts), and those are exactly the changes the offline diff
 * shows giving the cluster new nodes (a node group replaced, added or removed, or rolled to a new launch
 * template or Kubernetes version) or setting labels or taints on the running nodes. Every node-group
 * setting of the config schema is changed once, so a new setting needs a row here.
 */
import * as assert from "node:assert/strict";
import { type PlanDiff, diffDocuments } from "../offline/diff";
import { resourcesDocument } from "../offline/plan";
import type { StackEvaluation } from "../offline/engine";
import { PROBE_CLUSTER_CHANGES, PROBE_NODE_GROUP_CHANGES } from "../stacks/probe-nodes";
import { nodeGroupsSchema } from "../stacks/schema/node-groups";
import { readPage, tableRows } from "./docs-pages";
import { evaluated, evaluatedWith, ofType, stackValue } from "./helpers";

const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";

/** One change of each node-group setting of dev's only group, valid on its own. */
const GROUP_CHANGES: Record<string, unknown> = {
  name: "general2",
  instanceTypes: ["m6i.large"],
  capacityType: "SPOT",
  amiType: "BOTTLEROCKET_x86_64",
  amiReleaseVersion: "1.35.3-20251120",
  diskSizeGiB: 80,
  minSize: 1,
  desiredSize: 3,
  maxSize: 4,
  labels: { team: "platform" },
  taints: [{ key: "dedicated", value: "batch", effect: "PreferNoSchedule" }],
  clusterAddons: true,
};

/** The stack's own settings that reach every node group. */
const CLUSTER_CHANGES: Record<string, Record<string, unknown>> = {
  "cluster.version": { "eks-calico:cluster.version": "1.34" },
  tags: { "eks-calico:tags.team": "platform" },
};

/** The same-node Jobs' names: what the probe's run is named from (the other-node ones are known after up). */
function jobNames(evaluation: StackEvaluation): string {
  return ofType(evaluation, "kubernetes:batch/v1:Job")
    .map((j) => (j.inputs.metadata as { name?: string }).name)
    .filter((name): name is string => name !== undefined)
    .sort()
    .join();
}

/** What the offline diff says the change does to the nodes. */
function nodesOf(diff: PlanDiff): { newNodes: boolean; labelsOrTaints: boolean } {
  const groups = [...diff.added, ...diff.removed, ...diff.changed].filter((r) =>
    r.heading.startsWith(NODE_GROUP),
  );
  const newNodes = groups.some(
    (r) =>
      r.op === "create" || r.op === "delete" || r.op === "replace" || /^rolling update/.test(r.rollout ?? ""),
  );
  const labelsOrTaints = groups.some((r) =>
    r.changes.some((c) => /^inputs\.(labels|taints)\b/.test(c.path) && c.effect === "update"),
  );
  return { newNodes, labelsOrTaints };
}

/** The table of docs/probe.md, as `key | what EKS does`. */
function documented(): string[][] {
  return tableRows(readPage("docs/probe.md"), "Node change").map(([key, eks]) => [
    key.replaceAll("`", ""),
    eks,
  ]);
}

describe("the probe runs again on exactly the node changes docs/probe.md lists", () => {
  it("docs/probe.md's table is the probe's list, with what EKS does", () => {
    assert.deepEqual(documented(), [
      ...PROBE_CLUSTER_CHANGES.map((c) => [c.key, c.eks]),
      ...PROBE_NODE_GROUP_CHANGES.map((c) => [`nodeGroups[].${c.key}`, c.eks]),
    ]);
  });

  it("changes every node-group setting of the schema here", () => {
    assert.deepEqual(Object.keys(GROUP_CHANGES).sort(), Object.keys(nodeGroupsSchema.element.shape).sort());
  });

  it("re-runs on a change iff docs/probe.md lists it, and lists exactly what gives new nodes or sets labels or taints", async function () {
    this.timeout(10 * 60_000);
    const base = await evaluated("dev");
    const listed = new Set(documented().map(([key]) => key));
    const [general] = stackValue<Record<string, unknown>[]>("dev", "nodeGroups");
    const cases = [
      ...Object.entries(CLUSTER_CHANGES).map(([key, config]) => ({ key, config })),
      ...Object.entries(GROUP_CHANGES).map(([key, value]) => ({
        key: `nodeGroups[].${key}`,
        config: { "eks-calico:nodeGroups": [{ ...general, [key]: value }] },
      })),
    ];
    const seen: string[] = [];
    for (const { key, config } of cases) {
      const head = await evaluatedWith("dev", { config });
      const nodes = nodesOf(diffDocuments(resourcesDocument(base), resourcesDocument(head)));
      const reruns = jobNames(head) !== jobNames(base);
      seen.push(`${key}: ${reruns ? "re-runs" : "keeps"}, ${JSON.stringify(nodes)}`);
      assert.equal(reruns, listed.has(key), `${key}: ${reruns ? "re-runs" : "keeps its Jobs"}`);
      assert.equal(listed.has(key), nodes.newNodes || nodes.labelsOrTaints, seen.at(-1));
    }
    assert.equal(seen.length, Object.keys(GROUP_CHANGES).length + Object.keys(CLUSTER_CHANGES).length);
  });
});
