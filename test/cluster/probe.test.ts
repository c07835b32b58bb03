/**
 * The enforcement probe's pairs of clients, run by the real engine on a real scheduler (kube-scheduler,
 * kwok nodes): `pulumi up` creates the probe's objects in its own order and awaits them, then each pod's
 * `spec.nodeName` is read from the API. With two or more eligible nodes, the anchor lands off the
 * server's node, the same-node clients on the server's node and the other-node clients on the anchor's;
 * with one eligible node the anchor's await (`pulumi.com/waitFor`) ends on an Unschedulable anchor, `up`
 * succeeds, the other-node Jobs run no pod, and the `calico.probe` output says why with the scheduler's
 * own summary. The offline plan shows all of this as known after up. kwok runs no datapath, so whether a
 * connection is blocked is not observable here: what the clients' scripts conclude is tested offline
 * (test/probe-scripts.test.ts), and what the policies select (test/probe.test.ts).
 */
import * as assert from "node:assert/strict";
import { PROBE_NAMESPACE } from "../../components/calico/probe/common";
import type { ProbeReport } from "../../components/calico/probe/report";
import { ALLOWED_WITHIN_SECONDS } from "../../components/calico/probe/timing";
import { waitFor } from "../../local-cluster/api";
import { KNOWN_AFTER_UP } from "../../offline/engine";
import { disagreements, summary } from "./agreement";
import { EngineCase } from "./engine-case";

interface LivePod {
  metadata: { name: string };
  spec: { nodeName?: string };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

async function pods(c: EngineCase, selector: string): Promise<LivePod[]> {
  const list = await c.cluster.api.get<{ items: LivePod[] }>(
    `/api/v1/namespaces/${PROBE_NAMESPACE}/pods?labelSelector=${encodeURIComponent(selector)}`,
  );
  return list.items;
}

/** The node of the one pod `selector` selects. */
async function nodeOf(c: EngineCase, selector: string): Promise<string | undefined> {
  const [pod] = await pods(c, selector);
  return pod?.spec.nodeName;
}

/** The probe's six Jobs by pair, from the `calico.probe` output. */
function jobs(probe: ProbeReport) {
  const of = (pair: ProbeReport["sameNode"]) => [
    pair.allowedClient.job,
    pair.deniedClient.job,
    pair.recheckClient.job,
  ];
  return { sameNode: of(probe.sameNode), otherNode: of(probe.otherNode) };
}

const probeOf = (outputs: Record<string, unknown>) => (outputs.calico as { probe: ProbeReport }).probe;

describe("the probe by the real engine: its pairs of clients on a real scheduler", function () {
  this.timeout(30 * 60_000);

  it("dev (two nodes): the anchor off the server's node, each pair on its node", async function () {
    const c = await EngineCase.start("probe on dev", { stack: "dev" });
    try {
      const up = await c.up("first up");
      const probe = probeOf(up.outputs);
      assert.equal(probeOf((await c.plan()).outputs), KNOWN_AFTER_UP, "the plan leaves the probe to up");
      assert.deepEqual([probe.sameNode.ran, probe.otherNode.ran], [true, true]);
      const server = await nodeOf(c, "app.kubernetes.io/component=server");
      const anchor = await nodeOf(c, "app.kubernetes.io/component=anchor");
      assert.ok(server && anchor, `server on ${server}, anchor on ${anchor}`);
      assert.notEqual(anchor, server, "the anchor keeps off the server's node");
      const { sameNode, otherNode } = jobs(probe);
      for (const job of [...sameNode, ...otherNode]) {
        const node = await nodeOf(c, `batch.kubernetes.io/job-name=${job}`);
        assert.equal(node, sameNode.includes(job) ? server : anchor, `${job} on ${node}`);
      }
      // The recheck clients start only once both denied clients have completed: their connections
      // come after the denied window.
      const live = async (name: string) =>
        c.cluster.api.get<{ metadata: { creationTimestamp: string }; status?: { completionTime?: string } }>(
          `/apis/batch/v1/namespaces/${PROBE_NAMESPACE}/jobs/${name}`,
        );
      const deniedDone = await Promise.all(
        [probe.sameNode, probe.otherNode].map(
          async (p) => (await live(p.deniedClient.job)).status?.completionTime,
        ),
      );
      for (const pair of [probe.sameNode, probe.otherNode]) {
        const created = Date.parse((await live(pair.recheckClient.job)).metadata.creationTimestamp);
        for (const done of deniedDone) {
          assert.ok(
            done !== undefined && created >= Date.parse(done),
            `${pair.recheckClient.job} after ${done}`,
          );
        }
      }
      // kwok completes every Job it runs: all three clients of both pairs succeeded.
      assert.equal((up.outputs.calico as { policyEnforced: unknown }).policyEnforced, true);
      assert.deepEqual(
        [probe.sameNode.recheckClient.afterDeniedWindow, probe.otherNode.recheckClient.afterDeniedWindow],
        [true, true],
        "each recheck started within the window's budget, as the Job controller timed it",
      );

      // A later update that runs the recheck clients again alone, as one replacing a failed recheck
      // (pulumi.com/replaceUnready) does while the completed denied Jobs stay: the recheck Jobs gone from the
      // cluster, `up --refresh` creates them anew, once the window's budget has passed.
      const windowEnd = Math.max(...deniedDone.map((done) => Date.parse(done ?? "")));
      const wait = windowEnd + (ALLOWED_WITHIN_SECONDS + 2) * 1000 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      for (const pair of [probe.sameNode, probe.otherNode]) {
        const job = `/apis/batch/v1/namespaces/${PROBE_NAMESPACE}/jobs/${pair.recheckClient.job}`;
        await c.cluster.api.request("DELETE", `${job}?propagationPolicy=Background`);
        await waitFor(
          `${pair.recheckClient.job} to be gone`,
          async () => ((await c.cluster.api.find(job)) ? undefined : true),
          60_000,
        );
      }
      const again = await c.engine.run("up", { refresh: true });
      assert.ok(again.ok, again.error);
      const rerun = probeOf(again.outputs);
      for (const pair of [rerun.sameNode, rerun.otherNode]) {
        assert.equal(pair.recheckClient.succeeded, true, `${pair.recheckClient.job} ran again and succeeded`);
        assert.equal(pair.recheckClient.afterDeniedWindow, false, pair.recheckClient.job);
        assert.match(pair.recheckClient.notCounted ?? "", /run again without its denied clients/);
      }
      assert.equal(
        (again.outputs.calico as { policyEnforced: unknown }).policyEnforced,
        false,
        "a recheck run again alone vouches for no window",
      );
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });

  it("staging with one untainted node: up succeeds, the anchor is unschedulable and the output says why", async function () {
    const c = await EngineCase.start("probe on one untainted node", {
      stack: "staging",
      shape: { "eks-calico:nodeGroups[0].minSize": 1, "eks-calico:nodeGroups[0].desiredSize": 1 },
    });
    try {
      assert.equal(c.cluster.state.nodes, 3, "one general node, two tainted system nodes");
      const up = await c.up("first up");
      const probe = probeOf(up.outputs);
      assert.equal(probe.otherNode.ran, false, "the other-node pair did not run");
      assert.equal(probe.sameNode.ran, true);
      const [anchor] = await pods(c, "app.kubernetes.io/component=anchor");
      const scheduled = anchor?.status?.conditions?.find((s) => s.type === "PodScheduled");
      assert.deepEqual(
        { status: scheduled?.status, reason: scheduled?.reason, nodeName: anchor?.spec.nodeName },
        { status: "False", reason: "Unschedulable", nodeName: undefined },
      );
      // The output quotes the scheduler's first sentence; what preemption found follows it there.
      const said = (probe.otherNode.notRun ?? "").replace(/^.*?could take the anchor: /, "");
      assert.ok(
        said.length > 0 && (scheduled?.message ?? "").startsWith(said),
        `${said} / ${scheduled?.message}`,
      );
      const server = await nodeOf(c, "app.kubernetes.io/component=server");
      const { sameNode, otherNode } = jobs(probe);
      for (const job of sameNode) {
        assert.equal(
          await nodeOf(c, `batch.kubernetes.io/job-name=${job}`),
          server,
          `${job} on the server's node`,
        );
      }
      // The other-node Jobs: suspended, so the Job controller creates no pod for them.
      for (const job of otherNode) {
        await waitFor(
          `${job} to be reported Suspended`,
          async () => {
            const j = await c.cluster.api.get<{
              status?: { conditions?: { type: string; status: string }[] };
            }>(`/apis/batch/v1/namespaces/${PROBE_NAMESPACE}/jobs/${job}`);
            return j.status?.conditions?.some((s) => s.type === "Suspended" && s.status === "True")
              ? j
              : undefined;
          },
          60_000,
        );
        assert.deepEqual(await pods(c, `batch.kubernetes.io/job-name=${job}`), [], `${job} runs no pod`);
      }
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });
});
