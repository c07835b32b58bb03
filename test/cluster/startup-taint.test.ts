/**
 * The Calico startup taint on a real control plane: the remover's objects (components/startup-taint) as
 * the stack applies them, and its script run as the cluster runs it, with kubectl and a token bound to the
 * remover's pod on the node. A workload pod waits on a tainted node until calico-node is Ready there and
 * the taint is gone; on a node without the taint it is scheduled before calico-node is Ready (the window
 * the taint closes). The remover's identity is refused every other change: another node, another taint,
 * an added taint, a label, and any change without the node-name claim of a pod-bound token.
 */
import * as assert from "node:assert/strict";
import * as os from "node:os";
import * as path from "node:path";
import { LocalCluster } from "../../local-cluster/deploy";
import { LOCAL_NODE_ANNOTATION } from "../../local-cluster/nodes";
import { REMOVER, STARTUP_TAINT } from "../../components/startup-taint/objects";
import { NAMESPACE, TAINT, TaintHarness, conditionSince } from "./startup-taint-harness";

/** When kwok makes a scheduled pod Ready: calico-node's start on a new node, stood in for. */
const POD_START_SECONDS = 8;

describe("The Calico startup taint on a real control plane", function () {
  this.timeout(10 * 60_000);

  let cluster: LocalCluster;
  let h: TaintHarness;
  const kubectl = (args: string[], input?: string) => h.kubectl(args, input);
  const getJson = <T>(args: string[]) => h.getJson<T>(args);

  /** A kwok node shaped like the node group's first one, with `taints`; when the API server made it. */
  function addNode(name: string, taints: string[]): number {
    interface NodeJson {
      metadata: { labels: Record<string, string> };
      status: { capacity: unknown; allocatable: unknown };
    }
    const [template] = getJson<{ items: NodeJson[] }>([
      "get",
      "nodes",
      "-l",
      "eks.amazonaws.com/nodegroup",
    ]).items;
    const node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: { ...template.metadata.labels, "kubernetes.io/hostname": name },
        annotations: { [LOCAL_NODE_ANNOTATION]: "true" },
      },
      spec: {
        taints: taints.map((t) => {
          const [keyValue, effect] = t.split(":");
          const [key, value] = keyValue.split("=");
          return { key, value, effect };
        }),
      },
      status: { capacity: template.status.capacity, allocatable: template.status.allocatable },
    };
    const made = JSON.parse(kubectl(["create", "-f", "-", "-o", "json"], JSON.stringify(node))) as {
      metadata: { creationTimestamp: string };
    };
    return Date.parse(made.metadata.creationTimestamp);
  }

  function addWorkload(node: string): string {
    const name = `workload-${node}`;
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: "default" },
      spec: {
        nodeSelector: { "kubernetes.io/hostname": node },
        containers: [{ name: "app", image: "registry.k8s.io/pause:3.10" }],
      },
    };
    kubectl(["create", "-f", "-"], JSON.stringify(pod));
    return name;
  }

  before(async function () {
    cluster = await LocalCluster.start("dev", {
      dir: path.join(os.tmpdir(), `eks-calico-taint-${process.pid}`),
      podStartSeconds: POD_START_SECONDS,
    });
    h = new TaintHarness(cluster);
    h.applyRemover();
  });
  after(async () => {
    await h?.stop();
    await cluster?.stop();
  });

  it("keeps a workload off a new node until calico-node is Ready there, then takes the taint off", async function () {
    const created = addNode("tainted-node", [TAINT]);
    h.startRemover("tainted-node", await h.removerKubeconfig("tainted-node"));
    const workload = addWorkload("tainted-node");
    h.addCalicoNode("tainted-node");

    const ready = await h.until("calico-node Ready on tainted-node", () =>
      conditionSince(h.pod(NAMESPACE, "calico-node-tainted-node"), "Ready"),
    );
    const untainted = await h.until("the taint gone", () =>
      h.taintsOf("tainted-node").some((t) => t.key === STARTUP_TAINT.key) ? undefined : Date.now(),
    );
    const scheduled = await h.until("the workload scheduled", () =>
      conditionSince(h.pod("default", workload), "PodScheduled"),
    );
    assert.equal(h.pod("default", workload).spec.nodeName, "tainted-node");
    // Timestamps have a resolution of one second.
    assert.ok(scheduled >= ready - 1000, `scheduled ${scheduled - ready} ms after calico-node was Ready`);
    assert.ok(untainted >= ready - 1000);
    console.log(
      `      with the taint: node created → workload scheduled ${((scheduled - created) / 1000).toFixed(1)} s, ` +
        `${((scheduled - ready) / 1000).toFixed(1)} s after calico-node was Ready`,
    );
  });

  it("without the taint, schedules the workload before calico-node is Ready: the window the taint closes", async function () {
    const created = addNode("untainted-node", []);
    const workload = addWorkload("untainted-node");
    h.addCalicoNode("untainted-node");
    const scheduled = await h.until("the workload scheduled", () =>
      conditionSince(h.pod("default", workload), "PodScheduled"),
    );
    const ready = await h.until("calico-node Ready on untainted-node", () =>
      conditionSince(h.pod(NAMESPACE, "calico-node-untainted-node"), "Ready"),
    );
    assert.ok(scheduled < ready, "the workload was scheduled before calico-node was Ready");
    console.log(
      `      without the taint: node created → workload scheduled ${((scheduled - created) / 1000).toFixed(1)} s, ` +
        `${((ready - scheduled) / 1000).toFixed(1)} s before calico-node was Ready`,
    );
  });

  it("refuses the remover's identity anything but removing the startup taint from its own node", async function () {
    addNode("own-node", [TAINT, "example.com/dedicated=db:NoSchedule"]);
    const own = await h.removerKubeconfig("own-node");
    kubectl(["taint", "node", "untainted-node", TAINT]);
    const refusals: [string, string[], RegExp][] = [
      [
        "another node's startup taint",
        ["taint", "node", "untainted-node", `${STARTUP_TAINT.key}:NoSchedule-`],
        /may change only the node its pod runs on/,
      ],
      [
        "another taint on its node",
        ["taint", "node", "own-node", "example.com/dedicated:NoSchedule-"],
        /may remove only/,
      ],
      [
        "a taint added to its node",
        ["taint", "node", "own-node", "example.com/other=x:NoSchedule"],
        /may add or change no taint/,
      ],
      [
        "a label on its node",
        ["label", "node", "own-node", "example.com/owned=yes"],
        /may change nothing but the startup taint/,
      ],
      [
        "a node's status",
        ["patch", "node", "own-node", "--subresource=status", "-p", '{"status":{"phase":"x"}}'],
        /forbidden/i,
      ],
    ];
    for (const [what, args, refusal] of refusals) {
      const answer = h.as(own, args);
      assert.ok(!answer.ok, `${what}: allowed: ${answer.output}`);
      assert.match(answer.output, refusal, what);
    }
    // A token of the same account bound to no pod carries no node name: refused even on the node.
    const unbound = h.kubeconfigWith(
      kubectl(["create", "token", REMOVER, "-n", NAMESPACE]).trim(),
      "unbound",
    );
    const answer = h.as(unbound, ["taint", "node", "own-node", `${STARTUP_TAINT.key}:NoSchedule-`]);
    assert.ok(!answer.ok && /may change only the node its pod runs on/.test(answer.output), answer.output);
    // What it may do, it can: the startup taint off its own node, the other taint kept.
    const allowed = h.as(own, ["taint", "node", "own-node", `${STARTUP_TAINT.key}:NoSchedule-`]);
    assert.ok(allowed.ok, allowed.output);
    assert.deepEqual(
      h.taintsOf("own-node").map((t) => t.key),
      ["example.com/dedicated"],
    );
    assert.ok(h.taintsOf("untainted-node").some((t) => t.key === STARTUP_TAINT.key));
  });
});
