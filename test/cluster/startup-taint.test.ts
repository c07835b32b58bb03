/**
 * The Calico startup taint on a real control plane: the remover's objects (components/startup-taint) as
 * the stack applies them, and its script run as the cluster runs it, with kubectl and a token bound to the
 * remover's pod on the node. A workload pod waits on a tainted node until calico-node is Ready there and
 * the taint is gone; on a node without the taint it is scheduled before calico-node is Ready (the window
 * the taint closes). The remover's identity is refused every other change: another node, another taint,
 * an added taint, a label, and any change without the node-name claim of a pod-bound token.
 */
import * as assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { LocalCluster } from "../../local-cluster/deploy";
import { accessFromKubeconfig } from "../../local-cluster/api";
import { LOCAL_NODE_ANNOTATION } from "../../local-cluster/nodes";
import {
  REMOVER,
  REMOVER_SCRIPT,
  STARTUP_TAINT,
  STARTUP_TAINT_VALUE,
  renderRemover,
} from "../../components/startup-taint/objects";

const NAMESPACE = "kube-system";
/** When kwok makes a scheduled pod Ready: calico-node's start on a new node, stood in for. */
const POD_START_SECONDS = 8;
const TAINT = `${STARTUP_TAINT.key}=${STARTUP_TAINT_VALUE}:${STARTUP_TAINT.effect}`;

interface Pod {
  metadata: { name: string; uid: string };
  spec: { nodeName?: string };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("The Calico startup taint on a real control plane", function () {
  this.timeout(10 * 60_000);

  let cluster: LocalCluster;
  let kubectlDir: string;
  const removers: ChildProcess[] = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-taint-"));

  const kubectl = (args: string[], input?: string) => {
    const result = cluster.kubectl(args, input);
    assert.ok(result.ok, `kubectl ${args.join(" ")}: ${result.output}`);
    return result.output;
  };
  const getJson = <T>(args: string[]) => JSON.parse(kubectl([...args, "-o", "json"])) as T;
  async function until<T>(what: string, probe: () => T | undefined, seconds = 120): Promise<T> {
    for (let i = 0; i < seconds * 4; i++) {
      const value = probe();
      if (value !== undefined) return value;
      await sleep(250);
    }
    throw new Error(`timed out waiting for ${what}`);
  }
  const taintsOf = (node: string) =>
    getJson<{ spec: { taints?: { key: string; effect: string }[] } }>(["get", "node", node]).spec.taints ??
    [];
  const readySince = (pod: Pod) => {
    const ready = pod.status?.conditions?.find((c) => c.type === "Ready" && c.status === "True");
    return ready?.lastTransitionTime === undefined ? undefined : Date.parse(ready.lastTransitionTime);
  };
  const scheduledSince = (pod: Pod) => {
    const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "True");
    return scheduled?.lastTransitionTime === undefined ? undefined : Date.parse(scheduled.lastTransitionTime);
  };

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

  /** A calico-node stand-in on `node`: kwok makes it Ready POD_START_SECONDS after it is scheduled. */
  function addCalicoNode(node: string): void {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `calico-node-${node}`, namespace: NAMESPACE, labels: { "k8s-app": "calico-node" } },
      spec: {
        nodeName: node,
        tolerations: [{ operator: "Exists" }],
        containers: [{ name: "calico-node", image: "calico/node:stand-in" }],
      },
    };
    kubectl(["create", "-f", "-"], JSON.stringify(pod));
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

  /** A kubeconfig holding `token`, against the local API server. */
  function kubeconfigWith(token: string, name: string): string {
    const access = accessFromKubeconfig(cluster.state.kubeconfig);
    const local = (entry: object) => [{ name: "local", ...entry }];
    const file = path.join(work, `${name}.kubeconfig`);
    fs.writeFileSync(
      file,
      YAML.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: local({ cluster: { server: access.server, "certificate-authority": access.caFile } }),
        users: local({ user: { token } }),
        contexts: local({ context: { cluster: "local", user: "local" } }),
        "current-context": "local",
      }),
    );
    return file;
  }

  /** A token of the remover's ServiceAccount bound to its pod on `node`: what that pod is given. */
  async function removerToken(node: string): Promise<string> {
    const pod = await until(`the remover's pod on ${node}`, () =>
      getJson<{ items: Pod[] }>(["get", "pods", "-n", NAMESPACE, "-l", `k8s-app=${REMOVER}`]).items.find(
        (p) => p.spec.nodeName === node,
      ),
    );
    return kubectl([
      "create",
      "token",
      REMOVER,
      "-n",
      NAMESPACE,
      "--bound-object-kind=Pod",
      `--bound-object-name=${pod.metadata.name}`,
      `--bound-object-uid=${pod.metadata.uid}`,
    ]).trim();
  }

  /** The remover's script on this machine, for `node`, as the DaemonSet's container runs it. */
  function startRemover(node: string, kubeconfig: string): void {
    const child = spawn("/bin/bash", ["-c", REMOVER_SCRIPT], {
      env: {
        PATH: `${kubectlDir}:${process.env.PATH ?? ""}`,
        KUBECONFIG: kubeconfig,
        HOME: work,
        NODE_NAME: node,
        CALICO_NAMESPACE: NAMESPACE,
        TAINT_KEY: STARTUP_TAINT.key,
        INTERVAL_SECONDS: "1",
      },
      stdio: "ignore",
    });
    removers.push(child);
  }

  /** kubectl as the remover's token: the API server's answer. */
  const asRemover = (kubeconfig: string, args: string[]) =>
    cluster.kubectl(["--kubeconfig", kubeconfig, ...args]);

  before(async function () {
    cluster = await LocalCluster.start("dev", {
      dir: path.join(os.tmpdir(), `eks-calico-taint-${process.pid}`),
      podStartSeconds: POD_START_SECONDS,
    });
    kubectlDir = cluster.bin;
    const objects = renderRemover(NAMESPACE);
    kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items: Object.values(objects) }),
    );
    // The policy binds only once the API server has it: wait until it refuses a label from the remover.
  });
  after(async () => {
    for (const child of removers) child.kill();
    await cluster?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("keeps a workload off a new node until calico-node is Ready there, then takes the taint off", async function () {
    const created = addNode("tainted-node", [TAINT]);
    const kubeconfig = kubeconfigWith(await removerToken("tainted-node"), "tainted-node");
    startRemover("tainted-node", kubeconfig);
    const workload = addWorkload("tainted-node");
    addCalicoNode("tainted-node");

    const ready = await until("calico-node Ready on tainted-node", () =>
      readySince(getJson<Pod>(["get", "pod", "-n", NAMESPACE, "calico-node-tainted-node"])),
    );
    const untainted = await until("the taint gone", () =>
      taintsOf("tainted-node").some((t) => t.key === STARTUP_TAINT.key) ? undefined : Date.now(),
    );
    const scheduled = await until("the workload scheduled", () =>
      scheduledSince(getJson<Pod>(["get", "pod", "-n", "default", workload])),
    );
    assert.equal(getJson<Pod>(["get", "pod", "-n", "default", workload]).spec.nodeName, "tainted-node");
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
    addCalicoNode("untainted-node");
    const scheduled = await until("the workload scheduled", () =>
      scheduledSince(getJson<Pod>(["get", "pod", "-n", "default", workload])),
    );
    const ready = await until("calico-node Ready on untainted-node", () =>
      readySince(getJson<Pod>(["get", "pod", "-n", NAMESPACE, "calico-node-untainted-node"])),
    );
    assert.ok(scheduled < ready, "the workload was scheduled before calico-node was Ready");
    console.log(
      `      without the taint: node created → workload scheduled ${((scheduled - created) / 1000).toFixed(1)} s, ` +
        `${((ready - scheduled) / 1000).toFixed(1)} s before calico-node was Ready`,
    );
  });

  it("refuses the remover's identity anything but removing the startup taint from its own node", async function () {
    addNode("own-node", [TAINT, "example.com/dedicated=db:NoSchedule"]);
    const own = kubeconfigWith(await removerToken("own-node"), "own-node");
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
      const answer = asRemover(own, args);
      assert.ok(!answer.ok, `${what}: allowed: ${answer.output}`);
      assert.match(answer.output, refusal, what);
    }
    // A token of the same account bound to no pod carries no node name: refused even on the node.
    const unbound = kubeconfigWith(kubectl(["create", "token", REMOVER, "-n", NAMESPACE]).trim(), "unbound");
    const answer = asRemover(unbound, ["taint", "node", "own-node", `${STARTUP_TAINT.key}:NoSchedule-`]);
    assert.ok(!answer.ok && /may change only the node its pod runs on/.test(answer.output), answer.output);
    // What it may do, it can: the startup taint off its own node, the other taint kept.
    const allowed = asRemover(own, ["taint", "node", "own-node", `${STARTUP_TAINT.key}:NoSchedule-`]);
    assert.ok(allowed.ok, allowed.output);
    assert.deepEqual(
      taintsOf("own-node").map((t) => t.key),
      ["example.com/dedicated"],
    );
    assert.ok(taintsOf("untainted-node").some((t) => t.key === STARTUP_TAINT.key));
  });
});
