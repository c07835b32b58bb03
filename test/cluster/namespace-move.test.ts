/**
 * Moving a deployed Calico to another namespace, by the real engine on a real control plane: in one
 * update it is refused before anything changes; with `calico.reinstall` the first update removes the
 * install and the second installs it in the new namespace, and no moment has two calico-node DaemonSets.
 * With the stack's `calico` output gone from its state, the cluster still refuses the move: the install
 * check (components/calico/install-check.ts) finds the calico-node that runs.
 */
import * as assert from "node:assert/strict";
import { disagreements, summary } from "./agreement";
import type { StackState } from "../../local-cluster/pulumi";
import { EngineCase, assertSucceeded, engineChanges } from "./engine-case";

/** The calico-node DaemonSets in the cluster, as `namespace/name`. */
function calicoNodeDaemonSets(c: EngineCase): string[] {
  const got = c.cluster.kubectl(["get", "daemonsets", "-A", "-l", "k8s-app=calico-node", "-o", "json"]);
  assert.ok(got.ok, got.output);
  const list = JSON.parse(got.output) as { items: { metadata: { namespace: string; name: string } }[] };
  return list.items.map((d) => `${d.metadata.namespace}/${d.metadata.name}`);
}

/** What identifies a calico-node DaemonSet and its last spec change: its uid and generation. */
function calicoNodeIdentity(c: EngineCase, namespace: string): string {
  const got = c.cluster.kubectl([
    "get",
    "daemonset",
    "calico-node",
    "-n",
    namespace,
    "-o",
    "jsonpath={.metadata.uid} {.metadata.generation}",
  ]);
  assert.ok(got.ok, got.output);
  return got.output.trim();
}

/** The state with the `calico` output taken off the stack resource, as `pulumi stack import` takes it. */
function withoutCalicoOutput(state: StackState): StackState {
  const resources = state.deployment.resources ?? [];
  const stack = resources.find((r) => r.type === "pulumi:pulumi:Stack");
  assert.ok(stack?.outputs?.calico !== undefined, "the exported state holds the calico output");
  const outputs = Object.fromEntries(Object.entries(stack.outputs).filter(([name]) => name !== "calico"));
  return {
    ...state,
    deployment: {
      ...state.deployment,
      resources: resources.map((r) => (r === stack ? { ...r, outputs } : r)),
    },
  };
}

describe("Calico moved to another namespace, by the real engine", function () {
  this.timeout(30 * 60_000);

  it("dev: refused in one update; with calico.reinstall removed, then installed, never two at once", async function () {
    const c = await EngineCase.start("namespace move", { stack: "dev" });
    try {
      const first = await c.up("in kube-system");
      await c.kubectlAgrees("in kube-system", first);
      assert.deepEqual(calicoNodeDaemonSets(c), ["kube-system/calico-node"]);

      // One update: the program refuses before any resource, and the cluster keeps its install.
      c.engine.configure({ "eks-calico:calico.namespace": "calico-system" });
      const refused = await c.engine.run("up");
      assert.equal(refused.ok, false, "pulumi up must refuse the move");
      // The refusal as printed: wrapped at 100 characters.
      assert.match(
        [...refused.errors, refused.error ?? ""].join("\n").replace(/\s+/g, " "),
        /calico\.namespace: cannot move the deployed Calico from kube-system to calico-system in one update/,
      );
      assert.deepEqual(
        refused.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.urn}`),
        [],
        "nothing changed",
      );
      assert.deepEqual(calicoNodeDaemonSets(c), ["kube-system/calico-node"]);

      // Two updates with calico.reinstall.
      const moved = { "eks-calico:calico.namespace": "calico-system", "eks-calico:calico.reinstall": true };
      // The first update of a reinstall: the next one installs, so it is not followed by a no-change preview.
      const removed = await c.up("removed for the move", moved, undefined, false);
      assertSucceeded(removed, "the first update of the move");
      assert.equal((removed.outputs.calico as { installer: string }).installer, "none");
      assert.deepEqual(calicoNodeDaemonSets(c), [], "the first update leaves no calico-node");

      const installed = await c.up("installed in calico-system");
      assert.equal((installed.outputs.calico as { namespace: string }).namespace, "calico-system");
      await c.kubectlAgrees("installed in calico-system", installed);
      assert.deepEqual(calicoNodeDaemonSets(c), ["calico-system/calico-node"]);

      // The state without the `calico` output, as after a failed first `up` or a failed final status read:
      // the stack no longer knows where Calico runs. The cluster does, and a move is refused as before.
      c.engine.importState(withoutCalicoOutput(c.engine.exportState()));
      const running = calicoNodeIdentity(c, "calico-system");
      c.engine.configure({ "eks-calico:calico.namespace": "kube-system" });
      for (const operation of ["preview", "up"] as const) {
        const back = await c.engine.run(operation);
        assert.equal(back.ok, false, `pulumi ${operation} must refuse the move without the calico output`);
        const said = [...back.errors, back.error ?? ""].join("\n").replace(/\s+/g, " ");
        assert.match(said, /calico\.namespace: another Calico install runs on the nodes/);
        assert.match(said, /DaemonSet calico-system\/calico-node: this program's install/);
        assert.match(said, /docs\/install-modes\.md, "Moving Calico to another namespace"/);
        // The default providers the engine makes for itself left aside, as engine-case.ts compares steps.
        assert.deepEqual(engineChanges(back.steps), {}, `pulumi ${operation}: nothing changed`);
      }
      assert.deepEqual(calicoNodeDaemonSets(c), ["calico-system/calico-node"]);
      assert.equal(calicoNodeIdentity(c, "calico-system"), running, "calico-node untouched");

      // Set back, the check finds only the install's own calico-node, and the update records it again.
      const kept = { "eks-calico:calico.namespace": "calico-system", "eks-calico:calico.reinstall": false };
      const recorded = await c.up("kept in calico-system after the import", kept);
      assert.equal((recorded.outputs.calico as { namespace: string }).namespace, "calico-system");
      assert.equal(calicoNodeIdentity(c, "calico-system"), running, "calico-node untouched");
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });
});
