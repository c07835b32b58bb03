/**
 * The removal of Felix's rules (components/calico/felix-cleanup/) by the real engine on a real control
 * plane: `pulumi destroy` of a kubeconfig stack turns every node's calico-node pod into a cleanup pod,
 * and the calico-node DaemonSet is deleted only once each of them is Ready ("cleaned on this node").
 *
 * kwok runs no container: a pod becomes Ready by kwok's stages, not by its readiness probe, so this shows
 * the order (patch, every node's cleanup pod Ready, then the DaemonSet deleted), not the script, which
 * test/felix-cleanup-script.test.ts runs against stand-ins for iptables, nft and ipset.
 */
import * as assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { CLEANUP_LABEL } from "../../components/calico/felix-cleanup";
import { CALICO_NODE } from "../../components/calico/names";
import type { LocalCluster } from "../../local-cluster/deploy";
import { EngineCase } from "./engine-case";

const NS = "kube-system";

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status?: { conditions?: { type: string; status: string }[] };
}
interface DaemonSet {
  metadata: { deletionTimestamp?: string };
  spec: { template: { metadata?: { labels?: Record<string, string> } } };
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

describe("Felix's rules removed before calico-node goes, by the real engine", function () {
  this.timeout(15 * 60_000);

  it("kubeconfig stack: pulumi destroy, then the first update of a reinstall, delete calico-node only after every node's cleanup pod is Ready", async function () {
    const c = await EngineCase.start("felix cleanup", { stack: "dev" });
    try {
      await c.up("installed");
      const nodes = calicoNodes(c, NS);
      const destroyed = await removedAfterCleanup(c, NS, nodes, () => c.destroy("destroy"));
      console.log(`      pulumi destroy: ${destroyed}`);

      // Deployed again, then moved to another namespace: the reinstall's first update removes calico-node.
      await c.up("installed again");
      const reinstall = {
        "eks-calico:calico.namespace": "calico-system",
        "eks-calico:calico.reinstall": true,
      };
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
