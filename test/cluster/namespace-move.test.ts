/**
 * Moving a deployed Calico to another namespace, by the real engine on a real control plane: in one
 * update it is refused before anything changes; with `calico.reinstall` the first update removes the
 * install and the second installs it in the new namespace, and no moment has two calico-node DaemonSets.
 */
import * as assert from "node:assert/strict";
import { disagreements, summary } from "./agreement";
import { EngineCase, assertSucceeded } from "./engine-case";

/** The calico-node DaemonSets in the cluster, as `namespace/name`. */
function calicoNodeDaemonSets(c: EngineCase): string[] {
  const got = c.cluster.kubectl(["get", "daemonsets", "-A", "-l", "k8s-app=calico-node", "-o", "json"]);
  assert.ok(got.ok, got.output);
  const list = JSON.parse(got.output) as { items: { metadata: { namespace: string; name: string } }[] };
  return list.items.map((d) => `${d.metadata.namespace}/${d.metadata.name}`);
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
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });
});
