/**
 * The enforcement probe's pairs of clients on a real scheduler (kube-scheduler, kwok nodes), against the
 * offline plan: the objects the plan renders are created in the order `pulumi up` creates them, and each
 * pod's `spec.nodeName` is read from the API. With two or more eligible nodes, the anchor lands off the
 * server's node, the same-node clients on the server's node and the other-node clients on the anchor's;
 * with one eligible node the anchor is reported unschedulable with the summary the offline plan gives,
 * its await (the offline model of pulumi-kubernetes' `pulumi.com/waitFor`) ends either way, and the
 * other-node Jobs run no pod. kwok runs no datapath, so whether a connection is blocked is not observable
 * here: what the clients prove is tested offline (test/probe.test.ts, test/probe-pairs.test.ts).
 */
import * as assert from "node:assert/strict";
import * as os from "node:os";
import * as path from "node:path";
import { ANCHOR_WAIT_FOR } from "../../components/calico/probe/anchor";
import { PROBE_NAMESPACE } from "../../components/calico/probe/common";
import type { ProbeReport } from "../../components/calico/probe/report";
import { type PlannedObject, LocalCluster, plan, planObjects } from "../../local-cluster/deploy";
import { waitFor } from "../../local-cluster/api";
import type { ConfigOverrides, StackEvaluation } from "../../offline/engine";
import { unmetWaits } from "../../offline/world/wait-for";
import { compare, summary } from "./agreement";

const DIR = path.join(os.tmpdir(), `eks-calico-probe-test-${process.pid}`);

interface LivePod {
  metadata: { name: string; generation?: number; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status?: {
    phase?: string;
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** The probe's objects of a plan, by kind, in the order the plan applies them. */
function probeObjects(evaluation: StackEvaluation) {
  const objects = planObjects(evaluation).filter(
    (p) => p.object.metadata.namespace === PROBE_NAMESPACE || p.object.metadata.name === PROBE_NAMESPACE,
  );
  const ofKind = (...kinds: string[]) => objects.filter((p) => kinds.includes(p.object.kind));
  const jobs = ofKind("Job");
  const job = (name: RegExp) => jobs.filter((p) => name.test(p.object.metadata.name));
  return {
    base: ofKind("Namespace", "Service", "Deployment", "NetworkPolicy"),
    anchor: ofKind("Pod"),
    allowed: job(/^(other-node-)?allowed-client-/),
    denied: job(/^(other-node-)?denied-client-/),
  };
}

async function pods(cluster: LocalCluster, selector: string): Promise<LivePod[]> {
  const list = await cluster.api.get<{ items: LivePod[] }>(
    `/api/v1/namespaces/${PROBE_NAMESPACE}/pods?labelSelector=${encodeURIComponent(selector)}`,
  );
  return list.items;
}

/** The node of the one pod `selector` selects, once the scheduler has bound it. */
function boundNode(cluster: LocalCluster, selector: string): Promise<string> {
  return waitFor(
    `a pod for ${selector} bound to a node`,
    async () => (await pods(cluster, selector)).find((p) => p.spec.nodeName)?.spec.nodeName,
    60_000,
  );
}

/** The anchor once the scheduler has decided on it: its PodScheduled condition is reported. */
function decided(cluster: LocalCluster): Promise<LivePod> {
  return waitFor(
    "the anchor's PodScheduled condition",
    async () => {
      const [pod] = await pods(cluster, "app.kubernetes.io/component=anchor");
      return pod?.status?.conditions?.some((c) => c.type === "PodScheduled") ? pod : undefined;
    },
    60_000,
  );
}

/** Creates the objects; fails with the API server's refusals. */
async function create(cluster: LocalCluster, objects: readonly PlannedObject[]): Promise<void> {
  assert.deepEqual(await cluster.create(objects), [], "the API server accepts the probe's objects");
}

/** Each Job's node, once its pod is bound (kwok then completes it, as a finished client). */
async function jobNodes(
  cluster: LocalCluster,
  jobs: readonly PlannedObject[],
): Promise<Record<string, string>> {
  const nodes: Record<string, string> = {};
  for (const job of jobs) {
    const name = job.object.metadata.name;
    nodes[name] = await boundNode(cluster, `batch.kubernetes.io/job-name=${name}`);
  }
  return nodes;
}

/** As `pulumi preview --expect-no-changes` right after: applying the probe's objects again changes nothing. */
async function unchanged(label: string, cluster: LocalCluster, objects: ReturnType<typeof probeObjects>) {
  const all = [...objects.base, ...objects.anchor, ...objects.allowed, ...objects.denied];
  compare(`${label}: applying the probe's objects again changes nothing`, [], await cluster.changed(all));
}

/** What the offline plan said of each client: `the server's node` or `not the server's node`. */
function offlineWhere(evaluation: StackEvaluation, job: string): string | undefined {
  const note = evaluation.simulated.find((line) => line.startsWith(`${job}: from `));
  return /\((the server's node|not the server's node)\)/.exec(note ?? "")?.[1];
}

/** Starts a cluster shaped like `stack` with `config`, and plans the same. */
async function start(stack: string, config: ConfigOverrides) {
  const evaluation = await plan(stack, config);
  const cluster = await LocalCluster.start(stack, { config, dir: DIR });
  return { evaluation, cluster, probe: (evaluation.outputs.calico as { probe: ProbeReport }).probe };
}

after(function () {
  for (const line of summary()) console.log(line);
});

describe("the probe's pairs of clients on a real scheduler, against the offline plan", function () {
  this.timeout(20 * 60_000);

  it("dev (two nodes): the anchor off the server's node, each pair on its node", async function () {
    const { evaluation, cluster, probe } = await start("dev", {});
    try {
      const objects = probeObjects(evaluation);
      assert.deepEqual(
        [objects.anchor.length, objects.allowed.length, objects.denied.length],
        [1, 2, 2],
        "one anchor and two pairs",
      );
      await create(cluster, objects.base);
      const server = await boundNode(cluster, "app.kubernetes.io/component=server");

      await create(cluster, objects.anchor);
      const anchor = await decided(cluster);
      compare("dev: the anchor's await ends on the real pod", [], unmetWaits(ANCHOR_WAIT_FOR, anchor));
      compare(
        "dev: the anchor is placed, as the plan says",
        probe.otherNode.ran,
        anchor.spec.nodeName !== undefined,
      );
      assert.ok(anchor.spec.nodeName, "the anchor has a node");
      assert.notEqual(anchor.spec.nodeName, server, "the anchor keeps off the server's node");

      // In `pulumi up`'s order: both allowed clients (each awaited to completion), then both denied.
      await create(cluster, objects.allowed);
      const allowed = await jobNodes(cluster, objects.allowed);
      await create(cluster, objects.denied);
      const denied = await jobNodes(cluster, objects.denied);

      for (const [job, node] of Object.entries({ ...allowed, ...denied })) {
        const expected: string | undefined = job.startsWith("other-node-") ? anchor.spec.nodeName : server;
        assert.equal(node, expected, `${job} on ${node}`);
        compare(
          `dev: ${job} runs where the plan says, relative to the server`,
          offlineWhere(evaluation, job),
          node === server ? "the server's node" : "not the server's node",
        );
      }
      await unchanged("dev", cluster, objects);
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });

  it("staging with one untainted node: the anchor unschedulable as the plan says, the other-node Jobs run nothing", async function () {
    const groups = (await plan("staging")).resources
      .filter((r) => r.type === "eks:index:ManagedNodeGroup")
      .map((r) => r.name);
    assert.deepEqual(groups, ["cluster-general", "cluster-system"], "staging's groups, general untainted");
    const config: ConfigOverrides = {
      "eks-calico:nodeGroups[0].minSize": 1,
      "eks-calico:nodeGroups[0].desiredSize": 1,
    };
    const { evaluation, cluster, probe } = await start("staging", config);
    try {
      assert.equal(cluster.state.nodes, 3, "one general node, two tainted system nodes");
      assert.equal(probe.otherNode.ran, false, "the plan runs only the same-node pair");
      const objects = probeObjects(evaluation);
      await create(cluster, objects.base);
      const server = await boundNode(cluster, "app.kubernetes.io/component=server");

      await create(cluster, objects.anchor);
      const anchor = await decided(cluster);
      const scheduled = anchor.status?.conditions?.find((c) => c.type === "PodScheduled");
      compare(
        "staging, one node: the anchor's await ends on the real pod",
        [],
        unmetWaits(ANCHOR_WAIT_FOR, anchor),
      );
      compare(
        "staging, one node: the anchor is unschedulable",
        { status: "False", reason: "Unschedulable", nodeName: undefined },
        { status: scheduled?.status, reason: scheduled?.reason, nodeName: anchor.spec.nodeName },
      );
      // The scheduler's first sentence is the plan's summary; what preemption found follows it.
      const summaryOffline = (probe.otherNode.notRun ?? "").replace(/^.*?could take the anchor: /, "");
      compare(
        "staging, one node: the scheduler's summary is the plan's",
        summaryOffline,
        (scheduled?.message ?? "").slice(0, summaryOffline.length),
      );

      await create(cluster, objects.allowed);
      await create(cluster, objects.denied);
      const suspended = [...objects.allowed, ...objects.denied].filter((j) =>
        j.object.metadata.name.startsWith("other-node-"),
      );
      const running = [...objects.allowed, ...objects.denied].filter((j) => !suspended.includes(j));
      const nodes = await jobNodes(cluster, running);
      for (const [job, node] of Object.entries(nodes))
        assert.equal(node, server, `${job} on the server's node`);
      // The suspended Jobs: the Job controller reports them Suspended and creates no pod.
      for (const job of suspended) {
        const name = job.object.metadata.name;
        await waitFor(
          `${name} to be reported Suspended`,
          async () => {
            const j = await cluster.api.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
              `/apis/batch/v1/namespaces/${PROBE_NAMESPACE}/jobs/${name}`,
            );
            return j.status?.conditions?.some((c) => c.type === "Suspended" && c.status === "True")
              ? j
              : undefined;
          },
          60_000,
        );
        compare(
          `staging, one node: ${name} runs no pod`,
          [],
          await pods(cluster, `batch.kubernetes.io/job-name=${name}`),
        );
      }
      await unchanged("staging, one node", cluster, objects);
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });
});
