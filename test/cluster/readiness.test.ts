/**
 * The `calico` output's readiness fields by the real engine (test/cluster/engine-case.ts): read from the
 * cluster at the end of every `pulumi up`, not recorded when calico-node last changed. Nodes join a
 * deployed stack and the next `up`, with no config change, no refresh and nothing for it to apply,
 * reports calico-node on every one, as `kubectl get daemonset calico-node` does; the read leaves nothing
 * in the state for `pulumi refresh` to compare. A cluster that cannot be read fails the `up`, naming
 * what could not be read.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { addNodes, nodeCount } from "../../local-cluster";
import { numbered, stackNodes } from "../../local-cluster/nodes";
import { evaluateStack } from "../../offline/engine";
import { identityOf } from "../../offline/diff";
import { disagreements, summary } from "./agreement";
import { EngineCase, assertSucceeded } from "./engine-case";

/** The read alone (test/cluster/programs/calico-status-read.ts). */
const READ_ALONE = path.join(__dirname, "programs", "calico-status-read.ts");

/** The `calico` output's readiness fields. */
const FIELDS = ["desired", "current", "updated", "ready", "available", "isReady"] as const;
type Readiness = Record<(typeof FIELDS)[number], number | boolean>;

const readinessOf = (outputs: Record<string, unknown>): Readiness => {
  const calico = outputs.calico as Record<string, unknown>;
  return Object.fromEntries(FIELDS.map((f) => [f, calico[f]])) as Readiness;
};

/** What `kubectl get daemonset calico-node` shows, in the output's words, and its readiness. */
function kubectlDaemonSet(c: EngineCase, namespace: string): Readiness {
  const result = c.cluster.kubectl(["get", "daemonset", "calico-node", "-n", namespace, "-o", "json"]);
  assert.ok(result.ok, result.output);
  const status = (JSON.parse(result.output) as { status: Record<string, number | undefined> }).status;
  const desired = status.desiredNumberScheduled ?? 0;
  const updated = status.updatedNumberScheduled ?? 0;
  const ready = status.numberReady ?? 0;
  return {
    desired,
    current: status.currentNumberScheduled ?? 0,
    updated,
    ready,
    available: status.numberAvailable ?? 0,
    isReady: desired > 0 && updated === desired && ready === desired,
  };
}

/** The types of the resources the engine read (`Resource.get`, a StackReference), as `type name`. */
const reads = (steps: readonly { op: string; urn: string; type: string }[]) =>
  steps.filter((s) => s.op === "read").map((s) => `${s.type} ${s.urn.split("::").pop() ?? ""}`);

describe("The calico output's readiness, read at the end of every up, by the real engine", function () {
  this.timeout(30 * 60_000);

  it("dev, 3 nodes joined since: the next up, changing nothing, reports calico-node on every node", async function () {
    const c = await EngineCase.start("dev read in every up", { stack: "dev" });
    try {
      const first = await c.up("first up");
      const namespace = String((first.outputs.calico as { namespace: string }).namespace);
      await c.kubectlAgrees("first up", first);
      assert.deepEqual(readinessOf(first.outputs), kubectlDaemonSet(c, namespace), "first up");
      assert.equal(readinessOf(first.outputs).isReady, true);
      assert.equal(readinessOf(first.outputs).desired, c.cluster.state.nodes);
      // Nothing is read through a read resource: not Kubernetes' status, not the stack's last outputs.
      assert.deepEqual(reads(first.steps), []);

      const grown = await evaluateStack("dev", {
        config: { "eks-calico:nodeGroups[0].desiredSize": 5, "eks-calico:nodeGroups[0].maxSize": 6 },
      });
      const region = typeof grown.outputs.region === "string" ? grown.outputs.region : "us-west-2";
      const existing = new Set(await c.cluster.podNodes(namespace, "k8s-app=calico-node"));
      const added = numbered(
        stackNodes(grown, region).filter((n) => !existing.has(n.metadata.name)),
        await nodeCount(c.cluster.api),
      );
      assert.equal(added.length, 3);
      await addNodes(c.cluster.api, added);
      // Settled before the second up: calico-node scheduled, up to date and ready on the new nodes.
      const settled = await c.cluster.settledCounts(namespace);
      const nodes = c.cluster.state.nodes + added.length;
      assert.deepEqual(
        [settled.desired, settled.updated, settled.ready],
        [nodes, nodes, nodes],
        "calico-node settled on every node",
      );

      // No config change and no refresh: the engine has nothing to apply (up's preview checks that
      // against the offline plan, and the preview after it expects no change).
      const second = await c.up("after 3 nodes joined");
      assert.deepEqual(
        second.steps.filter((s) => s.op !== "same").map((s) => identityOf(s.urn)),
        [],
        "the second up changes nothing",
      );
      const kubectl = kubectlDaemonSet(c, namespace);
      assert.deepEqual(readinessOf(second.outputs), kubectl, "the outputs equal kubectl's");
      assert.equal(kubectl.desired, nodes);
      assert.equal(readinessOf(second.outputs).isReady, true);
      await c.kubectlAgrees("after 3 nodes joined", second);

      // The read left nothing to refresh.
      await c.refreshFindsNoDrift("after the second up");
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });

  it("the read alone: no Calico reads as zeros, not ready; a server that does not answer fails up, naming what it could not read", async function () {
    const c = await EngineCase.start("the read alone", { stack: "dev", program: READ_ALONE });
    try {
      // The API server answers 404 for both objects: nothing runs, which the outputs say.
      const empty = await c.engine.run("up");
      assertSucceeded(empty, "pulumi up of the read on a cluster without Calico");
      assert.deepEqual(empty.outputs.calico, {
        desired: 0,
        current: 0,
        updated: 0,
        ready: 0,
        available: 0,
        isReady: false,
        typhaReadyReplicas: 0,
      });
      // Nothing listens on port 1: the read cannot reach the cluster.
      c.engine.configure({ "eks-calico-test:server": "https://127.0.0.1:2" });
      const failed = await c.engine.run("up");
      assert.equal(failed.ok, false, "pulumi up fails");
      assert.match(
        [...failed.errors, failed.error ?? ""].join("\n"),
        /the calico output's readiness fields are read from the cluster, and could not read the calico-node DaemonSet kube-system\/calico-node \(GET \/apis\/apps\/v1\/namespaces\/kube-system\/daemonsets\/calico-node\): .*ECONNREFUSED.*; run pulumi up again once the cluster answers/,
      );
    } finally {
      await c.stop();
    }
  });
});
