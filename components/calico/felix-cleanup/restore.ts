/**
 * Felix back after a removal of calico-node that stopped half-way. The Felix cleanup (./index.ts) turns
 * calico-node into the cleanup and waits for every node; a node that does not finish in time fails
 * `pulumi destroy` or a reinstall's first update and leaves calico-node running the cleanup (the operator
 * install leaves its cleanup DaemonSet). The next `up` with the old config would change nothing:
 * pulumi-kubernetes diffs the DaemonSet's inputs against its last state, not the cluster
 * (provider/pkg/provider/provider.go Diff, v4.25.0: "comparing the old inputs to the new inputs will miss
 * resource drift"), so no node would run Felix again.
 *
 * A checking step before calico-node (or, with the operator, before the Installation): its diff reads the
 * cluster in every preview and update, so `pulumi preview` shows it as an update exactly when a cleanup is
 * left, and its create or update puts Felix back before calico-node is applied or read. A cleanup is left
 * while calico-node's template is the cleanup's (the operator install: while the cleanup DaemonSet is
 * there), and also while any pod of the cleanup (CLEANUP_LABEL) remains in the namespace: an `up` stopped
 * while the restore waited leaves the template Felix's again (or the DaemonSet deleted) and cleanup pods
 * still running or terminating on some nodes. The update then has nothing to apply or delete, and waits
 * for those pods to go as a restore does.
 *
 * Manifest install: calico-node's live template is the cleanup's (CLEANUP_LABEL). Server-side apply
 * removes a field the applier omits only if the applier owned it (Kubernetes docs "Server-Side Apply",
 * Field management), and the cleanup's patch owns the fields it wrote (its command, probe, volume). So the
 * step hands the cleanup's fields to the field manager pulumi-kubernetes applies calico-node with (the
 * takeover's move, ../takeover/managed-fields.ts), then applies the rendered DaemonSet with that manager:
 * the template is exactly what the program renders, that manager owns every field of it, and its next
 * apply meets no conflict. It then waits until calico-node has rolled out (kubectl's rule,
 * ../readiness.ts isRolledOut) with no cleanup pod left. The DaemonSet's state still holds what the
 * program renders, so nothing differs afterwards.
 *
 * Operator install: the cleanup DaemonSet is deleted, and its pods waited out, before the operator runs
 * Felix again (a cleanup pod that restarts would take Felix's rules off its node again).
 */
import * as pulumi from "@pulumi/pulumi";
import {
  type Credentials,
  credentialsOf,
  isKubeRequestError,
  isNotAllowed,
  kubeGetOrMissing,
  kubeRequest,
} from "../../kubernetes/client";
import { inputsChanged } from "../../kubernetes/checking-step";
import type { ManagedFieldsEntry } from "../takeover/managed-fields";
import { handOverObject } from "../takeover/run";
import { type DaemonSetRollout, isRolledOut } from "../readiness";
import { CalicoStep, cleanupPodsPath, daemonSetPath, pause } from "./requests";
import { CLEANUP_FIELD_MANAGER, CLEANUP_LABEL, type LiveDaemonSet, type LivePod } from "./template";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const FELIX_RESTORE_TYPE = "pulumi-nodejs:dynamic/calico:FelixRestore";

/** The calico-node DaemonSet as the program renders it (components/calico/daemonset.ts). */
export interface RenderedDaemonSet {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly spec: object;
}

export interface FelixRestoreInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** Manifest install: calico-node's namespace. Operator install: the cleanup DaemonSet's. */
  readonly namespace: string;
  /** Manifest install: calico-node as rendered, applied over a cleanup left in its place. */
  readonly daemonSet?: RenderedDaemonSet;
  /** Operator install: the cleanup DaemonSet's name, deleted where it was left. */
  readonly cleanupDaemonSet?: string;
  /** Minutes to wait for Felix on every node again: calico-node's readiness timeout. */
  readonly timeoutMinutes: number;
}

/** The live DaemonSet with what the restore reads besides the cleanup's fields. */
type LiveObject = LiveDaemonSet & {
  metadata: { resourceVersion?: string; managedFields?: ManagedFieldsEntry[] };
};

/** The live template is the Felix cleanup's (./template.ts cleanupTemplate labels it). */
export function isCleanupTemplate(live: LiveDaemonSet): boolean {
  return live.spec.template.metadata?.labels?.[CLEANUP_LABEL] === "true";
}

/** A write of the cleanup's: its named manager, or the unnamed one of a patch made before it had a name. */
export function isCleanupEntry(entry: ManagedFieldsEntry): boolean {
  return (
    entry.operation === "Update" &&
    (entry.subresource ?? "") === "" &&
    (entry.manager === CLEANUP_FIELD_MANAGER || (entry.manager ?? "") === "")
  );
}

/**
 * The field manager pulumi-kubernetes applies calico-node with: the server-side apply entry that owns its
 * selector (every apply of the program sets it; the cleanup's patch never touches it). Its name is random
 * per resource (`pulumi-kubernetes-<random>`, provider.go fieldManagerName) unless `calico.adopt` fixed it,
 * and lives only in the state, so it is read here from the object.
 */
export function applyManager(entries: readonly ManagedFieldsEntry[]): string | undefined {
  const owners = entries.filter((e) => {
    const spec = e.fieldsV1?.["f:spec"] as Record<string, unknown> | undefined;
    return e.operation === "Apply" && (e.subresource ?? "") === "" && spec?.["f:selector"] !== undefined;
  });
  const names = [...new Set(owners.map((e) => e.manager ?? ""))];
  return names.length === 1 ? names[0] : undefined;
}

/** The cleanup's pods among `pods`, each named with its node: what a restore waits out. */
function cleanupPodsLeft(pods: readonly LivePod[]): string[] {
  return pods
    .filter((pod) => pod.metadata.labels?.[CLEANUP_LABEL] === "true")
    .map((pod) => `pod ${pod.metadata.name} on ${pod.spec.nodeName ?? "no node"} still runs the cleanup`);
}

/**
 * Whether calico-node, applied at `generation`, runs Felix again everywhere, and if not what it waits for:
 * rolled out as kubectl decides, and no pod left of the cleanup's template.
 */
export function restoreProgress(
  daemonSet: LiveDaemonSet,
  pods: readonly LivePod[],
  generation: number,
): { done: boolean; waiting: string[] } {
  const status: DaemonSetRollout = { ...daemonSet.status, generation };
  const waiting: string[] = [];
  if (!isRolledOut(status)) {
    const { desiredNumberScheduled: desired = 0, updatedNumberScheduled: updated = 0 } = status;
    waiting.push(
      `${status.numberAvailable ?? 0} of ${desired} nodes available, ${updated} updated (generation ${generation}, observed ${status.observedGeneration ?? 0})`,
    );
  }
  waiting.push(...cleanupPodsLeft(pods));
  return { done: waiting.length === 0, waiting };
}

/** The Felix cleanup's pods in `namespace`, whatever their DaemonSet (./requests.ts cleanupPodsPath). */
async function cleanupPods(credentials: Credentials, namespace: string): Promise<LivePod[]> {
  return (await kubeRequest<{ items: LivePod[] }>(credentials, "GET", cleanupPodsPath(namespace))).items;
}

function notRestored(inputs: FelixRestoreInputs, what: string, waiting: readonly string[]): Error {
  return new Error(
    `${what} does not run Felix on every node again within ${inputs.timeoutMinutes} minutes:\n${waiting
      .map((w) => `  - ${w}`)
      .join(
        "\n",
      )}\nFix or replace those nodes and run pulumi up again (docs/destroy.md, "A removal that stopped half-way").`,
  );
}

/** Polls `waiting` (what is left, empty once Felix runs everywhere) until it is empty or the timeout ends. */
async function waitForFelix(
  inputs: FelixRestoreInputs,
  what: string,
  waiting: () => Promise<string[]>,
): Promise<void> {
  const deadline = Date.now() + inputs.timeoutMinutes * 60_000;
  for (;;) {
    const left = await waiting();
    if (left.length === 0) return;
    if (Date.now() >= deadline) throw notRestored(inputs, what, left);
    await pause();
  }
}

/**
 * Manifest install: calico-node back from the cleanup to what the program renders, then Felix waited for.
 * A template that is Felix's already with cleanup pods left (an `up` stopped while it waited) is waited
 * for at its own generation; no calico-node at all, only until its cleanup pods are gone.
 */
async function restoreCalicoNode(
  credentials: Credentials,
  inputs: FelixRestoreInputs,
  rendered: RenderedDaemonSet,
): Promise<string> {
  const namespace = rendered.metadata.namespace ?? inputs.namespace;
  const name = rendered.metadata.name;
  const path = daemonSetPath(namespace, name);
  const live = await kubeGetOrMissing<LiveObject>(credentials, path);
  if (live === undefined || !isCleanupTemplate(live)) {
    if (cleanupPodsLeft(await cleanupPods(credentials, namespace)).length === 0) {
      return "calico-node runs Felix: nothing to restore";
    }
    const generation = live?.metadata.generation ?? 0;
    await waitForFelix(inputs, `calico-node ${namespace}/${name}, with Felix cleanup pods left,`, async () =>
      live === undefined
        ? cleanupPodsLeft(await cleanupPods(credentials, namespace))
        : await calicoNodeLeft(credentials, path, namespace, generation),
    );
    return `no Felix cleanup pod left beside calico-node ${namespace}/${name}`;
  }
  const entries = live.metadata.managedFields ?? [];
  const manager = applyManager(entries);
  if (manager === undefined) {
    const found = entries.map((e) => `${e.manager || "(unnamed)"} (${e.operation ?? "?"})`).join(", ");
    throw new Error(
      `calico-node ${namespace}/${name} runs the Felix cleanup, and no single server-side apply manager owns its selector (managers: ${found || "none"}), so this program cannot tell which manager to restore it as. Nothing was changed (docs/destroy.md, "A removal that stopped half-way").`,
    );
  }
  const ref = { apiVersion: "apps/v1", kind: "DaemonSet", name, namespace };
  await handOverObject(credentials, { ref, path, live }, manager, true, isCleanupEntry);
  const applied = await kubeRequest<LiveDaemonSet>(
    credentials,
    "PATCH",
    `${path}?fieldManager=${encodeURIComponent(manager)}&force=true`,
    rendered,
    "application/apply-patch+yaml",
  );
  const generation = applied.metadata.generation ?? 0;
  await waitForFelix(inputs, `calico-node ${namespace}/${name}, restored from the Felix cleanup,`, () =>
    calicoNodeLeft(credentials, path, namespace, generation),
  );
  return `restored calico-node ${namespace}/${name} from the Felix cleanup`;
}

/** What calico-node, applied at `generation`, still waits for (restoreProgress), read now. */
async function calicoNodeLeft(
  credentials: Credentials,
  path: string,
  namespace: string,
  generation: number,
): Promise<string[]> {
  const now = await kubeRequest<LiveDaemonSet>(credentials, "GET", path);
  return restoreProgress(now, await cleanupPods(credentials, namespace), generation).waiting;
}

/** Operator install: the cleanup DaemonSet left behind is deleted, and its pods waited out. */
async function removeCleanupDaemonSet(
  credentials: Credentials,
  inputs: FelixRestoreInputs,
  name: string,
): Promise<string> {
  try {
    await kubeRequest(credentials, "DELETE", daemonSetPath(inputs.namespace, name));
  } catch (error) {
    if (!isKubeRequestError(error, 404)) throw error;
  }
  await waitForFelix(inputs, `the Felix cleanup ${inputs.namespace}/${name}, deleted,`, async () =>
    cleanupPodsLeft(await cleanupPods(credentials, inputs.namespace)),
  );
  return `no Felix cleanup left in ${inputs.namespace}`;
}

/** What the step finds and does; named apart from any global (a global is not captured in serializing). */
async function restoreFelix(inputs: FelixRestoreInputs): Promise<{ found: string }> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  if (inputs.daemonSet !== undefined) {
    return { found: await restoreCalicoNode(credentials, inputs, inputs.daemonSet) };
  }
  if (inputs.cleanupDaemonSet !== undefined) {
    return { found: await removeCleanupDaemonSet(credentials, inputs, inputs.cleanupDaemonSet) };
  }
  throw new Error("felix-restore: neither daemonSet nor cleanupDaemonSet given");
}

/**
 * Whether a cleanup is left for the step to undo, read in every preview and update: the cleanup's template
 * in calico-node or the operator install's cleanup DaemonSet, or else any of the cleanup's pods still in
 * the namespace (an `up` stopped while the restore waited: the template is Felix's again, or the
 * DaemonSet deleted, while cleanup pods still run or terminate on some nodes).
 */
async function cleanupLeft(inputs: FelixRestoreInputs): Promise<boolean> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const { daemonSet, cleanupDaemonSet } = inputs;
  const namespace = daemonSet?.metadata.namespace ?? inputs.namespace;
  if (daemonSet !== undefined) {
    const path = daemonSetPath(namespace, daemonSet.metadata.name);
    const live = await kubeGetOrMissing<LiveDaemonSet>(credentials, path);
    if (live !== undefined && isCleanupTemplate(live)) return true;
  } else if (cleanupDaemonSet !== undefined) {
    const path = daemonSetPath(namespace, cleanupDaemonSet);
    if ((await kubeGetOrMissing(credentials, path)) !== undefined) return true;
  } else {
    return false;
  }
  return cleanupPodsLeft(await cleanupPods(credentials, namespace)).length > 0;
}

/**
 * Inputs that say only how a restore runs, not what it looks at: it applies what is rendered, and waits as
 * long as calico-node's readiness timeout says, when it runs. calico-node's own step shows a new
 * rendering; the timeout follows the rollout estimate, which moves with the node groups.
 */
const HOW_IT_RUNS: readonly string[] = ["daemonSet", "timeoutMinutes"];

function withoutHowItRuns(inputs: FelixRestoreInputs): object {
  return Object.fromEntries(Object.entries(inputs).filter(([key]) => !HOW_IT_RUNS.includes(key)));
}

/**
 * Its diff: an input changed (HOW_IT_RUNS aside), or a cleanup is left. A cluster that cannot be
 * read counts as a cleanup left: the update then reads again, and fails saying why. Credentials that may
 * not read it (a read-only preview role: 401 or 403) leave it to `up`, whose deploy role reads, so a pull
 * request's preview does not show a restore in every stack whose role has no access (docs/access.md).
 */
export const felixRestoreProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: FelixRestoreInputs) {
    return { id: "felix-restore", outs: { ...inputs, ...(await restoreFelix(inputs)) } };
  },
  async diff(_id: string, olds: FelixRestoreInputs, news: FelixRestoreInputs) {
    if (inputsChanged(withoutHowItRuns(olds), withoutHowItRuns(news))) return { changes: true };
    try {
      return { changes: await cleanupLeft(news) };
    } catch (error) {
      return { changes: !isNotAllowed(error) };
    }
  },
  async update(_id: string, _olds: FelixRestoreInputs, news: FelixRestoreInputs) {
    return { outs: { ...news, ...(await restoreFelix(news)) } };
  },
};

export interface FelixRestoreArgs {
  /** The kubeconfig of the cluster (secret) and its context, as the Kubernetes provider has them. */
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  readonly namespace: string;
  readonly daemonSet?: pulumi.Input<RenderedDaemonSet>;
  readonly cleanupDaemonSet?: string;
  readonly timeoutMinutes: number;
}

export class FelixRestore extends CalicoStep<FelixRestoreArgs> {
  constructor(name: string, args: FelixRestoreArgs, opts?: pulumi.CustomResourceOptions) {
    super(felixRestoreProvider, "FelixRestore", name, args, opts);
  }
}
