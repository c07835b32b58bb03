/**
 * Deploying a plan onto a local cluster: a control plane shaped like a stack (index.ts), the Calico
 * objects of that stack's offline plan applied to it with kubectl's server-side apply (as pulumi-kubernetes
 * applies them), and what the real controllers and scheduler then report.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import {
  type ClusterSimulation,
  type ConfigOverrides,
  type StackEvaluation,
  evaluateStack,
} from "../offline/engine";
import { calicoObjects } from "../offline/calico-yaml";
import { Api, accessFromKubeconfig, waitFor } from "./api";
import { type ClusterState, downCluster, requireTools, upCluster } from "./index";

/** The field manager of every apply: one owner, as one Pulumi stack is. */
export const FIELD_MANAGER = "eks-calico-test";

export interface KubectlResult {
  readonly ok: boolean;
  readonly output: string;
}

/** What `kubectl get daemonset calico-node` and the Typha Deployment show: the `calico` outputs' counts. */
export interface CalicoCounts {
  desired: number;
  current: number;
  ready: number;
  updated: number;
  available: number;
  typhaReplicas: number;
  typhaReadyReplicas: number;
}

export const COUNT_KEYS: readonly (keyof CalicoCounts)[] = [
  "desired",
  "current",
  "ready",
  "updated",
  "available",
  "typhaReplicas",
  "typhaReadyReplicas",
];

function describe(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { name?: string; namespace?: string };
  return `${String(object.kind)} ${metadata.namespace ? `${metadata.namespace}/` : ""}${metadata.name ?? "?"}`;
}

export class LocalCluster {
  readonly api: Api;
  private readonly work: string;

  private constructor(
    readonly state: ClusterState & { nodes: number },
    private readonly bin: string,
  ) {
    this.api = new Api(accessFromKubeconfig(state.kubeconfig));
    this.work = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-apply-"));
  }

  /** A fresh cluster whose nodes copy `stack`'s node groups (with `config` applied). */
  static async start(
    stack: string,
    options: { config?: ConfigOverrides; fargateNodes?: number; podStartSeconds?: number; dir: string },
  ): Promise<LocalCluster> {
    const bin = requireTools();
    const state = await upCluster({ stack, ...options, bin });
    return new LocalCluster(state, bin);
  }

  async stop(): Promise<void> {
    await downCluster(this.state.dir);
    fs.rmSync(this.work, { recursive: true, force: true });
  }

  kubectl(args: string[], input?: string): KubectlResult {
    const run = spawnSync(path.join(this.bin, "kubectl"), args, {
      input,
      encoding: "utf8",
      env: { ...process.env, KUBECONFIG: this.state.kubeconfig },
      timeout: 120_000,
    });
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trim() };
  }

  /** Server-side apply of each object on its own, so one refusal names its object; returns the refusals. */
  apply(objects: Record<string, unknown>[], options: { dryRun?: boolean } = {}): string[] {
    const refusals: string[] = [];
    for (const object of objects) {
      const result = this.kubectl(
        [
          "apply",
          "--server-side",
          `--field-manager=${FIELD_MANAGER}`,
          ...(options.dryRun ? ["--dry-run=server"] : []),
          "-f",
          "-",
        ],
        YAML.stringify(object),
      );
      if (!result.ok) refusals.push(`${describe(object)}: ${result.output}`);
      // A custom resource can only be applied once its definition is served.
      if (result.ok && object.kind === "CustomResourceDefinition" && !options.dryRun) {
        this.kubectl([
          "wait",
          "--for=condition=Established",
          "--timeout=60s",
          `crd/${(object.metadata as { name: string }).name}`,
        ]);
      }
    }
    return refusals;
  }

  /**
   * Creates objects as pulumi-kubernetes (4.29 and later) creates them: a server-side apply, refused with
   * AlreadyExists when the object is there already, unless the provider upserts (upsertExistingObjects).
   */
  create(objects: Record<string, unknown>[], options: { upsert?: boolean } = {}): string[] {
    const refusals: string[] = [];
    for (const object of objects) {
      if (!options.upsert && this.kubectl(["get", ...this.reference(object)]).ok) {
        refusals.push(
          `${describe(object)}: AlreadyExists: it exists in the cluster, and the provider does not upsert`,
        );
        continue;
      }
      refusals.push(...this.apply([object]));
    }
    return refusals;
  }

  /** Objects whose server-side apply would change what the cluster holds (`kubectl diff --server-side`). */
  changed(objects: Record<string, unknown>[]): string[] {
    const changed: string[] = [];
    for (const object of objects) {
      const result = this.kubectl(
        ["diff", "--server-side", `--field-manager=${FIELD_MANAGER}`, "-f", "-"],
        YAML.stringify(object),
      );
      if (!result.ok)
        changed.push(`${describe(object)}: ${result.output.split("\n").slice(0, 30).join("\n")}`);
    }
    return changed;
  }

  /** `kind.group/name` and the namespace flag, for kubectl get and delete. */
  private reference(object: Record<string, unknown>): string[] {
    const metadata = object.metadata as { name: string; namespace?: string };
    const apiVersion = String(object.apiVersion);
    const group = apiVersion.includes("/") ? `.${apiVersion.split("/")[0]}` : "";
    return [
      `${String(object.kind).toLowerCase()}${group}/${metadata.name}`,
      ...(metadata.namespace ? ["-n", metadata.namespace] : []),
    ];
  }

  delete(object: Record<string, unknown>): string | undefined {
    const result = this.kubectl(["delete", ...this.reference(object), "--wait=true", "--timeout=60s"]);
    return result.ok ? undefined : `${describe(object)}: ${result.output}`;
  }

  /** The calico-node DaemonSet's and Typha's counts once the controllers have caught up with their specs. */
  async settledCounts(namespace: string, timeoutMs = 90_000): Promise<CalicoCounts> {
    type Workload = {
      metadata: { generation: number };
      spec?: { replicas?: number };
      status?: Record<string, number | undefined>;
    };
    const observed = (w: Workload) => (w.status?.observedGeneration ?? 0) >= w.metadata.generation;
    const read = async () => {
      const apps = `/apis/apps/v1/namespaces/${namespace}`;
      const ds = await this.api.get<Workload>(`${apps}/daemonsets/calico-node`);
      const typha = await this.api.get<Workload>(`${apps}/deployments/calico-typha`);
      const s = ds.status ?? {};
      const counts: CalicoCounts = {
        desired: s.desiredNumberScheduled ?? 0,
        current: s.currentNumberScheduled ?? 0,
        ready: s.numberReady ?? 0,
        updated: s.updatedNumberScheduled ?? 0,
        available: s.numberAvailable ?? 0,
        typhaReplicas: typha.spec?.replicas ?? 0,
        typhaReadyReplicas: typha.status?.readyReplicas ?? 0,
      };
      const steady =
        observed(ds) &&
        observed(typha) &&
        counts.ready === counts.desired &&
        counts.updated === counts.desired &&
        counts.available === counts.desired &&
        counts.typhaReadyReplicas === counts.typhaReplicas;
      return { counts, steady };
    };
    // Steady and unchanged for a few seconds: controllers that act on a node change (taint eviction,
    // the DaemonSet controller) have had their turn.
    const needed = 4;
    let unchanged = 0;
    let last: CalicoCounts | undefined;
    try {
      await waitFor(
        "calico-node and calico-typha to settle",
        async () => {
          const { counts, steady } = await read();
          const same = last !== undefined && COUNT_KEYS.every((k) => last?.[k] === counts[k]);
          unchanged = steady && same ? unchanged + 1 : 0;
          last = counts;
          return unchanged >= needed ? counts : undefined;
        },
        timeoutMs,
        1000,
      );
    } catch {
      // Not steady in time: what the cluster shows now is the answer (the offline plan may predict it).
    }
    return (await read()).counts;
  }

  /** Pods of a workload with the node each runs on. */
  async podNodes(namespace: string, selector: string): Promise<string[]> {
    const pods = await this.api.get<{ items: { spec: { nodeName?: string } }[] }>(
      `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector)}`,
    );
    return pods.items.map((p) => p.spec.nodeName ?? "(unscheduled)").sort();
  }
}

/** A stack's offline plan with the given config: its Calico objects in apply order and its outputs. */
export async function plan(
  stack: string,
  config: ConfigOverrides = {},
  simulate?: ClusterSimulation,
): Promise<StackEvaluation> {
  return evaluateStack(stack, { config, simulate });
}

/** The Calico objects of a plan, in the order kubectl applies them. */
export function planObjects(evaluation: StackEvaluation): Record<string, unknown>[] {
  // Inputs with secrets revealed: the offline TLS world's placeholder PEMs, opaque to the API server.
  return calicoObjects(evaluation).map((record) => record.inputs);
}

/** The `calico` output's counts of an offline plan. */
export function offlineCounts(evaluation: StackEvaluation): CalicoCounts {
  const calico = evaluation.outputs.calico as Record<string, unknown>;
  return Object.fromEntries(COUNT_KEYS.map((k) => [k, calico[k]])) as unknown as CalicoCounts;
}
