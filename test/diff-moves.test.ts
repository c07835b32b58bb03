/**
 * The offline diff of a deployed stack whose node groups were @pulumi/eks ManagedNodeGroups (the dev
 * plan's entry from before the move, test/fixtures/pulumi-eks-node-group.json) against today's plan, which
 * registers each aws.eks.NodeGroup itself with an alias to that component's child: the node group is
 * updated in place (its new updateConfig), the component alone goes, and dependencies on it are
 * dependencies on the node group. test/cluster/component-move.test.ts shows the real engine doing so.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { diffDocuments } from "../offline/diff";
import { renderDiff } from "../offline/diff-render";
import { type ResourceEntry, type ResourcesDocument, resourcesDocument } from "../offline/plan";
import { evaluated } from "./helpers";

const COMPONENT = "eks:index:ManagedNodeGroup::cluster-general";
const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup::cluster-general";

/** The dev stack's node group entry as the plan recorded it before the move. */
const deployedEntry = (): ResourceEntry =>
  (
    JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "pulumi-eks-node-group.json"), "utf8")) as {
      entry: ResourceEntry;
    }
  ).entry;

/** `doc` as it was before the move: the component in the node group's place, depended on by name. */
function beforeTheMove(doc: ResourcesDocument, entry: ResourceEntry): ResourcesDocument {
  const rename = (refs: string[]) => refs.map((ref) => (ref === NODE_GROUP ? COMPONENT : ref));
  return {
    ...doc,
    resources: [
      ...doc.resources
        .filter((r) => `${r.type}::${r.name}` !== NODE_GROUP)
        .map((r) => ({ ...r, dependencies: rename(r.dependencies) })),
      entry,
    ],
  };
}

describe("offline diff: node groups moved out of @pulumi/eks's component", () => {
  it("updates the deployed node group in place with its updateConfig, and removes only the component", async () => {
    const now = resourcesDocument(await evaluated("dev"));
    const diff = diffDocuments(beforeTheMove(now, deployedEntry()), now);
    assert.deepEqual(diff.added, []);
    assert.deepEqual(
      diff.removed.map((r) => [r.heading, r.moved]),
      [
        [
          "eks:index:ManagedNodeGroup cluster-general",
          "a component: its child continues as eks-calico:cluster:Cluster$aws:eks/nodeGroup:NodeGroup::cluster-general, nothing else goes",
        ],
      ],
    );
    const group = diff.changed.find((r) => r.heading === "aws:eks/nodeGroup:NodeGroup cluster-general");
    assert.ok(group, "the node group is changed, not created");
    assert.equal(group.op, "update");
    assert.deepEqual(
      group.changes.map((c) => [c.path, c.after, c.effect]),
      [
        // The Calico startup taint, which the layout of @pulumi/eks never had.
        ["inputs.taints[0].effect", "NO_SCHEDULE", "update"],
        ["inputs.taints[0].key", "eks-calico.io/policy-not-ready", "update"],
        ["inputs.taints[0].value", "true", "update"],
        ["inputs.updateConfig.maxUnavailable", 1, "update"],
        ["options.customTimeouts.update", "60m", "ignored"],
      ],
    );
    assert.equal(group.rollout, "in place (taints, updateConfig): EKS replaces no node", "no node rolls");
    // Nothing else changes: what depended on the component depends on the node group.
    assert.deepEqual(
      diff.changed.filter((r) => r.op !== "same").map((r) => r.heading),
      ["aws:eks/nodeGroup:NodeGroup cluster-general"],
    );
    assert.match(
      renderDiff(diff, "base.json"),
      /\n~ aws:eks\/nodeGroup:NodeGroup cluster-general {2}\[continues eks-calico:cluster:Cluster\$eks:index:ManagedNodeGroup::cluster-general \(alias\)\]\n/,
    );
  });

  it("still replaces it where the component ran it on other instance types", async () => {
    const now = resourcesDocument(await evaluated("dev"));
    const entry = deployedEntry();
    const other = { ...entry, inputs: { ...entry.inputs, instanceTypes: ["m6i.large"] } };
    const group = diffDocuments(beforeTheMove(now, other), now).changed.find(
      (r) => r.heading === "aws:eks/nodeGroup:NodeGroup cluster-general",
    );
    assert.equal(group?.op, "replace");
    assert.match(String(group?.rollout), /^replaced by a new node group/);
  });

  it("compares the desired size as ignored, as the component's ignoreScalingChanges had it", async () => {
    const now = resourcesDocument(await evaluated("dev"));
    const entry = deployedEntry();
    const scaled = {
      ...entry,
      inputs: { ...entry.inputs, scalingConfig: { minSize: 2, desiredSize: 3, maxSize: 3 } },
    };
    const group = diffDocuments(beforeTheMove(now, scaled), now).changed.find(
      (r) => r.heading === "aws:eks/nodeGroup:NodeGroup cluster-general",
    );
    const desired = group?.changes.find((c) => c.path === "inputs.scalingConfig.desiredSize");
    assert.deepEqual([desired?.before, desired?.after, desired?.effect], [3, 2, "ignored"]);
  });
});
