/**
 * The removal of Felix's rules (components/calico/felix-cleanup/) by the real engine on a real control
 * plane: `pulumi destroy` of a kubeconfig stack turns every node's calico-node pod into a cleanup pod,
 * and the calico-node DaemonSet is deleted only once each of them is Ready ("cleaned on this node").
 *
 * kwok runs no container: a pod becomes Ready by kwok's stages, not by its readiness probe, so this shows
 * the order (patch, every node's cleanup pod Ready, then the DaemonSet deleted), not the script, which
 * test/felix-cleanup-script.test.ts runs against stand-ins for iptables, nft and ipset.
 *
 * And a removal that stops half-way: on one node (HELD) kwok keeps the cleanup's pod Pending
 * (local-cluster/stages.ts cleanupHeldOn), so a reinstall's first update times out and leaves calico-node
 * running the cleanup; that node then finishes late, and the `up` with the config reverted puts Felix back
 * on every node (components/calico/felix-cleanup/restore.ts), `isReady` saying at each step whether Felix runs.
 */
import * as assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { MARKER_NAME, MARKER_NAMESPACE } from "../../components/calico/removal-marker";
import { CLEANUP_LABEL } from "../../components/calico/felix-cleanup";
import {
  FELIX_RESTORE_TYPE,
  applyManager,
  isCleanupEntry as isCleanupWrite,
} from "../../components/calico/felix-cleanup/restore";
import { readCalicoStatus } from "../../components/calico/readiness-read";
import { CALICO_NODE, STANDARD_TYPHA } from "../../components/calico/names";
import { isCalicoReady, isDaemonSetReady } from "../../components/calico/readiness";
import type { ManagedFieldsEntry } from "../../components/calico/takeover/managed-fields";
import { waitFor } from "../../local-cluster/api";
import type { LocalCluster } from "../../local-cluster/deploy";
import { RELEASE_LABEL } from "../../local-cluster/stages";
import type { ConfigOverrides } from "../../offline/engine";
import { EngineCase } from "./engine-case";

/** The node on which kwok holds the Felix cleanup's pod until it is released. */
const HELD = "held-cleanup-node";

const NS = "kube-system";

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status?: { conditions?: { type: string; status: string }[] };
}
interface DaemonSet {
  metadata: { deletionTimestamp?: string; managedFields?: ManagedFieldsEntry[] };
  spec: {
    template: {
      metadata?: { labels?: Record<string, string> };
      spec: {
        containers: { name: string; command?: string[]; env?: unknown[] }[];
        volumes?: { name: string }[];
      };
    };
  };
}

/** One watch event as it arrived, with the time it arrived. */
interface Arrival<T> {
  at: number;
  type: string;
  object: T;
}

/**
 * `kubectl get --watch --output-watch-events -o json`: every event of `args` as it arrives, timed by
 * this process, so two watches' events can be put in one order (their delivery differs by milliseconds;
 * what is ordered here is seconds apart: a poll of the step, then a call of the engine).
 */
function watch<T>(cluster: LocalCluster, args: string[]) {
  const arrivals: Arrival<T>[] = [];
  const child: ChildProcess = spawn(
    path.join(cluster.bin, "kubectl"),
    ["get", ...args, "--watch", "--output-watch-events", "-o", "json"],
    { env: { ...process.env, KUBECONFIG: cluster.state.kubeconfig } },
  );
  // Top-level JSON values, split by depth outside strings: kubectl prints them one after another.
  let text = "";
  let depth = 0;
  let inString = false;
  let escaped = false;
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    for (const ch of chunk) {
      if (depth > 0) text += ch;
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') inString = false;
      } else if (ch === '"') {
        inString = true;
      } else if (ch === "{") {
        if (depth === 0) text = ch;
        depth += 1;
      } else if (ch === "}") {
        depth -= 1;
        if (depth === 0) {
          const event = JSON.parse(text) as { type: string; object: T };
          arrivals.push({ at: Date.now(), ...event });
        }
      }
    }
  });
  let errors = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => (errors += chunk));
  return { arrivals, errors: () => errors, stop: () => child.kill() };
}

function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/** The nodes calico-node runs on in `namespace`. */
function calicoNodes(c: EngineCase, namespace: string): string[] {
  const pods = c.cluster.kubectl(["get", "pods", "-n", namespace, "-l", "k8s-app=calico-node", "-o", "json"]);
  assert.ok(pods.ok, pods.output);
  const nodes = (JSON.parse(pods.output) as { items: Pod[] }).items.map((p) => p.spec.nodeName ?? "");
  assert.ok(nodes.length > 1, `calico-node runs on the nodes: ${nodes.join(", ")}`);
  return nodes.sort();
}

/**
 * Runs `removal` (an operation that removes calico-node from `namespace`) while watching calico-node's
 * DaemonSet and pods, and checks what the watch saw: every node of `nodes` had a Ready pod of the cleanup
 * template before the DaemonSet's deletion, the DaemonSet carried that template when deleted, and no
 * Felix pod was seen after the last node was cleaned. Returns a line saying how it went.
 */
async function removedAfterCleanup(
  c: EngineCase,
  namespace: string,
  nodes: readonly string[],
  removal: () => Promise<unknown>,
): Promise<string> {
  const started = Date.now();
  const podWatch = watch<Pod>(c.cluster, ["pods", "-n", namespace, "-l", "k8s-app=calico-node"]);
  const dsWatch = watch<DaemonSet>(c.cluster, ["daemonset", CALICO_NODE, "-n", namespace]);
  try {
    await removal();
  } finally {
    podWatch.stop();
    dsWatch.stop();
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  assert.equal(
    c.cluster.kubectl(["get", "daemonset", CALICO_NODE, "-n", namespace]).ok,
    false,
    "calico-node is gone",
  );

  // The DaemonSet's deletion: the first event that has it deleting or deleted.
  const deletion = dsWatch.arrivals.find(
    (e) => e.type === "DELETED" || e.object.metadata.deletionTimestamp !== undefined,
  );
  assert.ok(
    deletion,
    `the DaemonSet's deletion was seen (${dsWatch.arrivals.length} events) ${dsWatch.errors()}`,
  );
  assert.equal(
    deletion.object.spec.template.metadata?.labels?.[CLEANUP_LABEL],
    "true",
    "calico-node carried the cleanup template when it was deleted",
  );
  // Each node's first Ready cleanup pod, and when it was seen.
  const cleaned = new Map<string, number>();
  for (const e of podWatch.arrivals) {
    const pod = e.object;
    if (pod.metadata.labels?.[CLEANUP_LABEL] !== "true" || !isReady(pod)) continue;
    const node = pod.spec.nodeName ?? "";
    if (!cleaned.has(node)) cleaned.set(node, e.at);
  }
  assert.deepEqual([...cleaned.keys()].sort(), nodes, "every node had a Ready cleanup pod");
  const late = [...cleaned.entries()].filter(([, at]) => at >= deletion.at);
  assert.deepEqual(late, [], "every node was cleaned before the DaemonSet's deletion");
  const last = Math.max(...cleaned.values());
  // Felix's pods were all gone (replaced) before the last node was cleaned.
  const felixAfter = podWatch.arrivals.filter(
    (e) =>
      e.object.metadata.labels?.[CLEANUP_LABEL] !== "true" &&
      e.type !== "DELETED" &&
      e.object.metadata.deletionTimestamp === undefined &&
      e.at > last,
  );
  assert.deepEqual(
    felixAfter.map((e) => e.object.metadata.name),
    [],
    "no Felix pod after the cleanup",
  );
  return `${nodes.length} nodes cleaned ${((deletion.at - last) / 1000).toFixed(1)} s before calico-node's deletion; the operation took ${seconds} s`;
}

function json<T>(c: EngineCase, args: string[]): T {
  const got = c.cluster.kubectl([...args, "-o", "json"]);
  assert.ok(got.ok, got.output);
  return JSON.parse(got.output) as T;
}

const calicoPods = (c: EngineCase) =>
  json<{ items: Pod[] }>(c, ["get", "pods", "-n", NS, "-l", "k8s-app=calico-node"]).items;

/** isReady as the program reads it at the end of an `up` (../../components/calico/readiness-read.ts). */
async function programSees(c: EngineCase) {
  const status = await readCalicoStatus(c.cluster.api.credentials, {
    calicoNode: { namespace: NS, name: CALICO_NODE },
    typha: { namespace: NS, name: STANDARD_TYPHA.name },
    cleanupNamespace: NS,
  });
  return { status, isReady: isCalicoReady("manifest", status) };
}

/** Waits until every node has a Ready calico-node pod, all of the cleanup (`cleanup`) or all Felix. */
async function everyNodeRuns(c: EngineCase, cleanup: boolean, nodes: readonly string[]): Promise<void> {
  await waitFor(
    `a Ready ${cleanup ? "cleanup" : "Felix"} pod on each of ${nodes.join(", ")}`,
    () => {
      const pods = calicoPods(c).filter((p) => p.metadata.deletionTimestamp === undefined);
      const fit = pods.filter(
        (p) => (p.metadata.labels?.[CLEANUP_LABEL] === "true") === cleanup && isReady(p),
      );
      const on = fit.map((p) => p.spec.nodeName ?? "").sort();
      return Promise.resolve(
        pods.length === nodes.length && on.join() === [...nodes].sort().join() ? true : undefined,
      );
    },
    120_000,
  );
}

/**
 * A reinstall's first update whose cleanup times out on HELD, that node's cleanup finishing late, then the
 * `up` with the config reverted: Felix again on every node, and `isReady` true only then.
 */
async function interruptedRemoval(c: EngineCase, reinstall: ConfigOverrides): Promise<string> {
  const group = json<{ items: { metadata: { labels: Record<string, string> } }[] }>(c, ["get", "nodes"])
    .items.map((n) => n.metadata.labels["eks.amazonaws.com/nodegroup"])
    .find((g) => g !== undefined);
  assert.ok(group, "a node group's node to copy");
  await c.cluster.addNodeLike(group, HELD);
  const nodes = [...new Set([...calicoNodes(c, NS), HELD])];
  await everyNodeRuns(c, false, nodes);
  assert.equal((await programSees(c)).isReady, true, "Felix on every node, the held one too: ready");

  const started = Date.now();
  await c.interruptedUp(
    "removed for the move, the cleanup held on one node",
    reinstall,
    new RegExp(
      `not removed from every node within 1 minutes[\\s\\S]*on ${HELD} has not cleaned its node yet`,
    ),
  );
  const failedAfter = Math.round((Date.now() - started) / 1000);
  const left = json<DaemonSet>(c, ["get", "daemonset", CALICO_NODE, "-n", NS]);
  assert.equal(
    left.spec.template.metadata?.labels?.[CLEANUP_LABEL],
    "true",
    "calico-node stays, as the cleanup",
  );
  assert.equal((await programSees(c)).isReady, false, "the held node's cleanup pod is not ready");

  // The held node finishes its cleanup after the timeout: every pod is a Ready cleanup pod, and
  // calico-node's own status counts them all rolled out, yet no node runs Felix.
  const held = calicoPods(c).find(
    (p) => p.spec.nodeName === HELD && p.metadata.labels?.[CLEANUP_LABEL] === "true",
  );
  assert.ok(held, `a cleanup pod on ${HELD}`);
  const released = c.cluster.kubectl(["label", "pod", held.metadata.name, "-n", NS, `${RELEASE_LABEL}=true`]);
  assert.ok(released.ok, released.output);
  await everyNodeRuns(c, true, nodes);
  const cleaned = await programSees(c);
  assert.equal(
    isDaemonSetReady(cleaned.status.calicoNode),
    true,
    "calico-node's status: every pod rolled out",
  );
  assert.equal(cleaned.isReady, false, "isReady: cleanup pods run, and no Felix");

  // Reverted: the preview shows the restore, the `up` does it and reads isReady once Felix runs again.
  const reverted = { "eks-calico:calico.namespace": NS, "eks-calico:calico.reinstall": false };
  const up = await c.up("reverted after the interrupted removal", reverted);
  const restore = (steps: readonly { op: string; type: string }[]) =>
    steps.filter((s) => s.type === FELIX_RESTORE_TYPE).map((s) => s.op);
  assert.deepEqual(restore(c.previewSteps), ["update"], "pulumi preview shows the restore");
  assert.deepEqual(restore(up.steps), ["update"], "pulumi up runs it");
  await everyNodeRuns(c, false, nodes);
  assert.equal(
    (up.outputs.calico as { isReady?: unknown }).isReady,
    true,
    "the up's isReady: Felix everywhere",
  );
  assert.equal((await programSees(c)).isReady, true);
  // The template is what the program renders, owned by the manager pulumi-kubernetes applies it with.
  const restored = json<DaemonSet>(c, ["get", "daemonset", CALICO_NODE, "-n", NS]);
  const felix = restored.spec.template.spec.containers.find((x) => x.name === "calico-node");
  assert.equal(restored.spec.template.metadata?.labels?.[CLEANUP_LABEL], undefined);
  assert.equal(felix?.command, undefined, "Felix's own entrypoint, not the cleanup script");
  assert.ok((felix?.env ?? []).length > 0, "Felix's environment is back");
  assert.ok(!(restored.spec.template.spec.volumes ?? []).some((v) => v.name === "felix-cleanup"));
  // kubectl leaves managedFields out of its output (--show-managed-fields): read them from the API.
  const fields = await c.cluster.api.get<DaemonSet>(
    `/apis/apps/v1/namespaces/${NS}/daemonsets/${CALICO_NODE}`,
  );
  const entries = fields.metadata.managedFields ?? [];
  assert.ok(entries.length > 0, "the API server reports managed fields");
  assert.deepEqual(
    entries.filter((e) => e.operation === "Update" && (e.subresource ?? "") === "" && isCleanupWrite(e)),
    [],
    "no field is left to the cleanup's patch",
  );
  const template = entries.filter((e) => JSON.stringify(e.fieldsV1 ?? {}).includes('"f:template"'));
  assert.deepEqual(
    template.map((e) => `${e.manager ?? ""} ${e.operation ?? ""}`),
    [`${applyManager(entries) ?? "(no apply manager)"} Apply`],
    "the template belongs to the manager pulumi-kubernetes applies calico-node with, alone",
  );

  // The held node goes, so the removals that follow clean every node.
  assert.ok(c.cluster.kubectl(["delete", "node", HELD]).ok);
  await everyNodeRuns(
    c,
    false,
    nodes.filter((n) => n !== HELD),
  );
  return `the cleanup timed out after ${failedAfter} s; the reverted up restored calico-node on ${nodes.length} nodes`;
}

describe("Felix's rules removed before calico-node goes, by the real engine", function () {
  this.timeout(15 * 60_000);

  it("kubeconfig stack: a removal held on one node is undone by the next up; pulumi destroy, then the first update of a reinstall, delete calico-node only after every node's cleanup pod is Ready", async function () {
    const c = await EngineCase.start("felix cleanup", {
      stack: "dev",
      cleanupHeldOn: HELD,
      config: { "eks-calico:calico.cleanupTimeoutMinutes": 1 },
    });
    const reinstall = {
      "eks-calico:calico.namespace": "calico-system",
      "eks-calico:calico.reinstall": true,
    };
    try {
      await c.up("installed");
      const markerLeft = () =>
        c.cluster.kubectl(["get", "configmap", MARKER_NAME, "-n", MARKER_NAMESPACE]).ok;
      console.log(`      interrupted removal: ${await interruptedRemoval(c, reinstall)}`);
      assert.equal(markerLeft(), false, "the up that restored Felix deleted the removal marker");
      const nodes = calicoNodes(c, NS);
      const destroyed = await removedAfterCleanup(c, NS, nodes, () => c.destroy("destroy"));
      console.log(`      pulumi destroy: ${destroyed}`);
      assert.equal(markerLeft(), false, "a destroy that finished leaves no removal marker");

      // Deployed again, then moved to another namespace: the reinstall's first update removes calico-node.
      await c.up("installed again");
      const removed = await removedAfterCleanup(c, NS, calicoNodes(c, NS), () =>
        // The first update of a reinstall: the next one installs, so it is not followed by a no-change preview.
        c.up("removed for the move", reinstall, undefined, false),
      );
      console.log(`      reinstall, first update: ${removed}`);
    } finally {
      await c.stop();
    }
  });
});
