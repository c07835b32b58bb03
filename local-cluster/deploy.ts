/**
 * A local cluster shaped like a stack (index.ts) and what its real controllers and scheduler report. The
 * real engine deploys onto it (local-cluster/pulumi/); for what only pulumi-kubernetes 4.29 and later
 * decide, and for the benchmark, a plan's Calico objects are created here with the requests that provider
 * sends (provider-requests.ts).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  type ConfigOverrides,
  type ResourceRecord,
  type StackEvaluation,
  evaluateStack,
} from "../offline/engine";
import { calicoObjects } from "../offline/calico-yaml";
import { hasUnknownInputs } from "../offline/calico-objects";
import { Api, accessFromKubeconfig, waitFor } from "./api";
import {
  type KubeObject,
  type ProviderAnswer,
  type ProviderSettings,
  fieldManagerOf,
  providerCreate,
  providerPreviewUpdate,
} from "./provider-requests";
import { type ClusterState, type NodeCounts, addNodes, downCluster, requireTools, upCluster } from "./index";
import { LOCAL_NODE_ANNOTATION, type NodeObject } from "./nodes";

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
  /** Each resource's field manager (by URN), as the provider keeps it in the resource's state. */
  private readonly managers = new Map<string, string>();

  private constructor(
    readonly state: ClusterState & NodeCounts,
    readonly bin: string,
  ) {
    this.api = new Api(accessFromKubeconfig(state.kubeconfig));
    this.work = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-apply-"));
  }

  /** A fresh cluster whose nodes copy `stack`'s node groups (with `config` applied). */
  static async start(
    stack: string,
    options: {
      config?: ConfigOverrides;
      fargateNodes?: number;
      podStartSeconds?: number;
      cleanupHeldOn?: string;
      dir: string;
    },
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

  /** Waits until a CRD's kind is served: a custom resource can only be applied after that. */
  private established(object: KubeObject): void {
    if (object.kind !== "CustomResourceDefinition") return;
    this.kubectl(["wait", "--for=condition=Established", "--timeout=60s", `crd/${object.metadata.name}`]);
  }

  /**
   * Creates each object as pulumi-kubernetes creates it through the object's provider
   * (local-cluster/provider-requests.ts): a POST, refused with AlreadyExists when the object is there, or a
   * server-side apply when the provider upserts. The field manager is kept, as the provider keeps it in
   * the resource's state. Returns the refusals, one per object.
   */
  async create(objects: readonly PlannedObject[]): Promise<string[]> {
    return this.write(objects, (planned) => {
      const manager = fieldManagerOf(planned.object);
      return {
        manager,
        answer: providerCreate(this.api.credentials, planned.object, planned.provider, manager),
      };
    });
  }

  /** Sends each object's request in turn; keeps the field manager of each accepted one, as the state does. */
  private async write(
    objects: readonly PlannedObject[],
    send: (planned: PlannedObject) => { manager: string; answer: Promise<ProviderAnswer> },
  ): Promise<string[]> {
    const refusals: string[] = [];
    for (const planned of objects) {
      const { manager, answer } = send(planned);
      const { refusal } = await answer;
      if (refusal) {
        refusals.push(refusal);
        continue;
      }
      this.managers.set(planned.urn, manager);
      this.established(planned.object);
    }
    return refusals;
  }

  /**
   * Objects a preview would show as changed: the provider's dry-run update returns an object other than
   * the live one it read (managed-field bookkeeping aside). As `pulumi preview --expect-no-changes`.
   */
  async changed(objects: readonly PlannedObject[]): Promise<string[]> {
    const changed: string[] = [];
    for (const planned of objects) {
      const manager = fieldManagerOf(planned.object, this.managers.get(planned.urn));
      const { refusal, live, result } = await providerPreviewUpdate(
        this.api.credentials,
        planned.object,
        planned.provider,
        manager,
        planned.ignore,
      );
      const differences = live && result ? differencesOf(comparable(live), comparable(result)) : [];
      if (refusal) changed.push(refusal);
      else if (differences.length > 0)
        changed.push(`${describe(planned.object)}: ${differences.slice(0, 20).join(", ")}`);
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

  /** The resource leaves the stack's state but stays in the cluster (`retainOnDelete` on destroy). */
  forget(planned: PlannedObject): void {
    this.managers.delete(planned.urn);
  }

  /** Deletes an object as `pulumi destroy` or a replacement does; its field manager goes with its state. */
  delete(planned: PlannedObject): string | undefined {
    this.managers.delete(planned.urn);
    const result = this.kubectl([
      "delete",
      ...this.reference(planned.object),
      "--wait=true",
      "--timeout=60s",
    ]);
    return result.ok ? undefined : `${describe(planned.object)}: ${result.output}`;
  }

  /**
   * The calico-node DaemonSet's and Typha's counts once the controllers have caught up with their specs;
   * `typha` is the Typha Deployment's name (`calico-typha-takeover` while `calico.adopt` is on).
   */
  async settledCounts(
    namespace: string,
    timeoutMs = 90_000,
    typhaName = "calico-typha",
  ): Promise<CalicoCounts> {
    type Workload = {
      metadata: { generation: number };
      spec?: { replicas?: number };
      status?: Record<string, number | undefined>;
    };
    const observed = (w: Workload) => (w.status?.observedGeneration ?? 0) >= w.metadata.generation;
    const read = async () => {
      const apps = `/apis/apps/v1/namespaces/${namespace}`;
      const ds = await this.api.get<Workload>(`${apps}/daemonsets/calico-node`);
      const typha = await this.api.get<Workload>(`${apps}/deployments/${typhaName}`);
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

  /**
   * Adds a node named `name` shaped like the first node of `group`'s (labels, taints, capacity), as the
   * node group scaling up would, and waits until it is Ready.
   */
  async addNodeLike(group: string, name: string): Promise<void> {
    const nodes = await this.api.get<{ items: NodeObject[] }>(
      `/api/v1/nodes?labelSelector=${encodeURIComponent(`eks.amazonaws.com/nodegroup=${group}`)}`,
    );
    const like = nodes.items[0];
    if (like === undefined) throw new Error(`no node of node group ${group} to copy`);
    const node: NodeObject = {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name,
        labels: { ...like.metadata.labels, "kubernetes.io/hostname": name },
        annotations: { [LOCAL_NODE_ANNOTATION]: "true" },
      },
      spec: like.spec.taints === undefined ? {} : { taints: like.spec.taints },
      status: {
        capacity: like.status.capacity,
        allocatable: like.status.allocatable,
        addresses: [{ type: "Hostname", address: name }],
      },
    };
    await addNodes(this.api, [node]);
  }
}

/** A stack's offline plan with the given config: its Calico objects in apply order and its outputs. */
export async function plan(stack: string, config: ConfigOverrides = {}): Promise<StackEvaluation> {
  return evaluateStack(stack, { config });
}

/** A Calico object of a plan with what decides how the provider writes it. */
export interface PlannedObject {
  readonly urn: string;
  /** The inputs, secrets revealed (the offline TLS world's placeholder PEMs, opaque to the API server). */
  readonly object: KubeObject;
  /** The settings of the resource's Kubernetes provider. */
  readonly provider: ProviderSettings;
  /** The resource's `ignoreChanges` paths. */
  readonly ignore: readonly string[];
}

/** A resource of a plan as a {@link PlannedObject}. */
function plannedOf(evaluation: StackEvaluation, record: ResourceRecord): PlannedObject {
  const provider = evaluation.resources.find((r) => r.urn === record.provider);
  const on = (key: string) => String(provider?.inputs[key]) === "true";
  return {
    urn: record.urn,
    object: record.inputs as KubeObject,
    provider: { upsert: on("upsertExistingObjects"), force: on("enablePatchForce") },
    ignore: record.options.ignoreChanges,
  };
}

/**
 * The Calico objects of a plan, in the order kubectl applies them; those whose inputs only `pulumi up`
 * knows (the probe's other-node Jobs follow where the anchor is placed) are left out.
 */
export function planObjects(evaluation: StackEvaluation): PlannedObject[] {
  return calicoObjects(evaluation)
    .filter((record) => !hasUnknownInputs(record))
    .map((record) => plannedOf(evaluation, record));
}

/** An object as a preview compares it: without the server's bookkeeping of writes. */
function comparable(object: KubeObject): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...object.metadata };
  delete metadata.managedFields;
  delete metadata.resourceVersion;
  return { ...object, metadata };
}

/** The paths at which two JSON values differ. */
function differencesOf(a: unknown, b: unknown, at = ""): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
  if (!isRecord(a) || !isRecord(b) || Array.isArray(a) !== Array.isArray(b)) return [at || "(root)"];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((key) => differencesOf(a[key], b[key], at ? `${at}.${key}` : key));
}
