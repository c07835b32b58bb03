/**
 * The enforcement probe's pairs of clients, run by the real engine on a real scheduler (kube-scheduler,
 * kwok nodes): `pulumi up` creates the probe's objects in its own order and awaits them, then each pod's
 * `spec.nodeName` is read from the API. With two or more eligible nodes, the anchor lands off the
 * server's node, the same-node clients on the server's node and the other-node clients on the anchor's,
 * as the offline plan says; with one eligible node the anchor's await (`pulumi.com/waitFor`) ends on an
 * Unschedulable anchor, `up` succeeds, the other-node Jobs run no pod, and the `calico.probe` output says
 * why with the scheduler's own summary. kwok runs no datapath, so whether a connection is blocked is not
 * observable here: what the clients prove is tested offline (test/probe.test.ts, test/probe-pairs.test.ts).
 */
import * as assert from "node:assert/strict";
import { PROBE_NAMESPACE } from "../../components/calico/probe/common";
import type { ProbeReport } from "../../components/calico/probe/report";
import { waitFor } from "../../local-cluster/api";
import type { StackEvaluation } from "../../offline/engine";
import { compare, disagreements, summary } from "./agreement";
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

/** What the offline plan said of each client: `the server's node` or `not the server's node`. */
function offlineWhere(evaluation: StackEvaluation, job: string): string | undefined {
  const note = evaluation.simulated.find((line) => line.startsWith(`${job}: from `));
  return /\((the server's node|not the server's node)\)/.exec(note ?? "")?.[1];
}

/** The probe's four Jobs by pair, from the `calico.probe` output. */
function jobs(probe: ProbeReport) {
  return {
    sameNode: [probe.sameNode.allowedClient.job, probe.sameNode.deniedClient.job],
    otherNode: [probe.otherNode.allowedClient.job, probe.otherNode.deniedClient.job],
  };
}

const probeOf = (outputs: Record<string, unknown>) => (outputs.calico as { probe: ProbeReport }).probe;

/**
 * What the probe output claims, without its Jobs' names: those carry a digest of the Typha certificates'
 * expiry, which the offline plan's stand-in certificates cannot have.
 */
function claims(probe: ProbeReport) {
  const pair = (p: ProbeReport["sameNode"]) => ({
    node: p.node,
    ran: p.ran,
    allowed: p.allowedClient.succeeded,
    denied: p.deniedClient.succeeded,
  });
  return { sameNode: pair(probe.sameNode), otherNode: pair(probe.otherNode) };
}

describe("the probe by the real engine: its pairs of clients on a real scheduler", function () {
  this.timeout(30 * 60_000);

  it("dev (two nodes): the anchor off the server's node, each pair on its node, as the plan says", async function () {
    const c = await EngineCase.start("probe on dev", { stack: "dev" });
    try {
      const up = await c.up("first up");
      const probe = probeOf(up.outputs);
      const offline = probeOf((await c.plan()).outputs);
      compare("probe on dev: what the probe output claims", claims(offline), claims(probe), "engine");
      const server = await nodeOf(c, "app.kubernetes.io/component=server");
      const anchor = await nodeOf(c, "app.kubernetes.io/component=anchor");
      assert.ok(server && anchor, `server on ${server}, anchor on ${anchor}`);
      assert.notEqual(anchor, server, "the anchor keeps off the server's node");
      const evaluation = await c.plan();
      const { sameNode, otherNode } = jobs(probe);
      // The offline plan's Jobs, in the same order: their names carry its own certificates' digest.
      const planned = jobs(offline);
      const offlineJobs = [...planned.sameNode, ...planned.otherNode];
      for (const [i, job] of [...sameNode, ...otherNode].entries()) {
        const node = await nodeOf(c, `batch.kubernetes.io/job-name=${job}`);
        assert.equal(node, sameNode.includes(job) ? server : anchor, `${job} on ${node}`);
        compare(
          `probe on dev: ${job} runs where the plan says, relative to the server`,
          offlineWhere(evaluation, offlineJobs[i]),
          node === server ? "the server's node" : "not the server's node",
          "engine",
        );
      }
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
