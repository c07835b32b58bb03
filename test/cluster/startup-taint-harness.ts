/**
 * What the startup-taint cases share on a local cluster: the remover's objects applied as the stack
 * applies them (components/startup-taint), its script run on this machine as the DaemonSet's container
 * runs it (kubectl, a token bound to the remover's pod on the node), a calico-node stand-in that kwok
 * makes Ready after the cluster's pod-start delay, and the timestamps the assertions compare.
 */
import * as assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { LocalCluster } from "../../local-cluster/deploy";
import { accessFromKubeconfig, kubeconfigText } from "../../local-cluster/api";
import {
  REMOVER,
  REMOVER_SCRIPT,
  STARTUP_TAINT,
  STARTUP_TAINT_VALUE,
  renderRemover,
} from "../../components/startup-taint/objects";

export const NAMESPACE = "kube-system";
/** The startup taint as `kubectl taint` writes it. */
export const TAINT = `${STARTUP_TAINT.key}=${STARTUP_TAINT_VALUE}:${STARTUP_TAINT.effect}`;

export interface Pod {
  metadata: { name: string; uid: string; creationTimestamp?: string };
  spec: { nodeName?: string };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** When `pod`'s condition `type` turned True (one-second resolution), if it has. */
export function conditionSince(pod: Pod, type: "Ready" | "PodScheduled"): number | undefined {
  const condition = pod.status?.conditions?.find((c) => c.type === type && c.status === "True");
  return condition?.lastTransitionTime === undefined ? undefined : Date.parse(condition.lastTransitionTime);
}

export class TaintHarness {
  private readonly removers: ChildProcess[] = [];
  private readonly work = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-taint-"));

  constructor(readonly cluster: LocalCluster) {}

  kubectl(args: string[], input?: string): string {
    const result = this.cluster.kubectl(args, input);
    assert.ok(result.ok, `kubectl ${args.join(" ")}: ${result.output}`);
    return result.output;
  }

  getJson<T>(args: string[]): T {
    return JSON.parse(this.kubectl([...args, "-o", "json"])) as T;
  }

  /** Polls `probe` every 250 ms until it gives a value. */
  async until<T>(what: string, probe: () => T | undefined, seconds = 120): Promise<T> {
    for (let i = 0; i < seconds * 4; i++) {
      const value = probe();
      if (value !== undefined) return value;
      await sleep(250);
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  taintsOf(node: string): Taint[] {
    return this.getJson<{ spec: { taints?: Taint[] } }>(["get", "node", node]).spec.taints ?? [];
  }

  pod(namespace: string, name: string): Pod {
    return this.getJson<Pod>(["get", "pod", "-n", namespace, name]);
  }

  /** The remover's objects, as the stack renders them, in NAMESPACE. */
  applyRemover(): void {
    const objects = renderRemover(NAMESPACE);
    this.kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items: Object.values(objects) }),
    );
  }

  /** A calico-node stand-in on `node`: kwok makes it Ready once the pod-start delay has passed. */
  addCalicoNode(node: string): string {
    const name = `calico-node-${node}`;
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: NAMESPACE, labels: { "k8s-app": "calico-node" } },
      spec: {
        nodeName: node,
        tolerations: [{ operator: "Exists" }],
        containers: [{ name: "calico-node", image: "calico/node:stand-in" }],
      },
    };
    this.kubectl(["create", "-f", "-"], JSON.stringify(pod));
    return name;
  }

  /** A kubeconfig holding `token`, against the local API server. */
  kubeconfigWith(token: string, name: string): string {
    const access = accessFromKubeconfig(this.cluster.state.kubeconfig);
    const file = path.join(this.work, `${name}.kubeconfig`);
    fs.writeFileSync(file, kubeconfigText(access.server, access.caFile, token, name));
    return file;
  }

  /** A token of the remover's ServiceAccount bound to its pod on `node`: what that pod is given. */
  async removerToken(node: string): Promise<string> {
    const pod = await this.until(`the remover's pod on ${node}`, () =>
      this.getJson<{ items: Pod[] }>(["get", "pods", "-n", NAMESPACE, "-l", `k8s-app=${REMOVER}`]).items.find(
        (p) => p.spec.nodeName === node,
      ),
    );
    return this.kubectl([
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

  /** A kubeconfig with the token the remover's pod on `node` holds. */
  async removerKubeconfig(node: string): Promise<string> {
    return this.kubeconfigWith(await this.removerToken(node), node);
  }

  /** The remover's script on this machine, for `node`, as the DaemonSet's container runs it. */
  startRemover(node: string, kubeconfig: string): void {
    const child = spawn("/bin/bash", ["-c", REMOVER_SCRIPT], {
      env: {
        PATH: `${this.cluster.bin}:${process.env.PATH ?? ""}`,
        KUBECONFIG: kubeconfig,
        HOME: this.work,
        NODE_NAME: node,
        CALICO_NAMESPACE: NAMESPACE,
        TAINT_KEY: STARTUP_TAINT.key,
        INTERVAL_SECONDS: "1",
      },
      stdio: "ignore",
      // Its own process group, so that stop() ends the kubectl it is running too.
      detached: true,
    });
    this.removers.push(child);
  }

  /** kubectl as the identity of `kubeconfig`: the API server's answer. */
  as(kubeconfig: string, args: string[]) {
    return this.cluster.kubectl(["--kubeconfig", kubeconfig, ...args]);
  }

  /** Ends every remover with the kubectl it runs, then removes their files (kubectl's cache included). */
  async stop(): Promise<void> {
    await Promise.all(
      this.removers.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        process.kill(-child.pid, "SIGKILL");
        await exited;
      }),
    );
    fs.rmSync(this.work, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
