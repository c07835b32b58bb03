/**
 * The removal of Felix's rules from every node when calico-node goes: `pulumi destroy`, or the first
 * update of `calico.reinstall` (stacks/previous.ts "remove-for-reinstall"). Felix leaves its rules when it
 * stops, and they drop every pod started on the node afterwards (./script.ts says which rules and why).
 *
 * A dynamic resource that depends on the calico-node DaemonSet, so Pulumi deletes it first. Create, update
 * and refresh do nothing (a second `up` changes nothing). Its delete turns calico-node into the cleanup:
 * it patches the DaemonSet's pod template (./template.ts) so every node's pod is replaced, all at once,
 * by one that removes Calico's chains and tables and then reports Ready; it waits until the rollout shows
 * every node cleaned, then returns, and Pulumi deletes the DaemonSet. A node whose cleanup does not
 * finish within the timeout fails the delete, naming it, and the DaemonSet stays.
 *
 * With the operator (`calico.installer: operator`) the operator owns calico-node and would undo a patch,
 * so the step depends the other way: the Installation depends on it, and Pulumi deletes it after the
 * Installation, whose deletion waits until the operator has removed calico-node. Its delete then waits
 * for every calico-node pod to be gone, runs a cleanup DaemonSet of its own (same image, same script)
 * until every node has a Ready pod, and deletes it.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  type Credentials,
  credentialsOf,
  isKubeRequestError,
  kubeGetOrMissing,
  kubeRequest,
} from "../../kubernetes/client";
import { inputsChanged } from "../../kubernetes/checking-step";
import {
  CLEANUP_FIELD_MANAGER,
  type LiveDaemonSet,
  type LivePod,
  cleanupDaemonSet,
  cleanupPatch,
  cleanupProgress,
} from "./template";
import { CalicoStep, daemonSetPath, pause, podsPath } from "./requests";

export { CLEANUP_DAEMONSET, CLEANUP_LABEL } from "./template";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const FELIX_CLEANUP_TYPE = "pulumi-nodejs:dynamic/calico:FelixCleanup";

/**
 * Minutes the delete waits (for calico-node's pods to go, then for every node's cleanup) before it fails,
 * unless `calico.cleanupTimeoutMinutes` says otherwise. Not the rollout estimate: every node rolls at
 * once, so the cleanup takes one pod start whatever the number of nodes, and a timeout that followed the
 * node count would make the step change with it.
 */
export const CLEANUP_TIMEOUT_MINUTES = 10;

export interface FelixCleanupInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** Manifest install: where calico-node runs. Operator install: where the cleanup DaemonSet runs. */
  readonly namespace: string;
  /** Manifest install: the calico-node DaemonSet (and its container), turned into the cleanup. */
  readonly calicoNode?: string;
  /**
   * Operator install: calico-node's image, for a cleanup DaemonSet of its own, and where the operator ran
   * calico-node (`namespace/name`), whose pods must be gone first.
   */
  readonly image?: string;
  readonly operatorCalicoNode?: string;
  /** Minutes the delete waits; absent in a state written before it was an input. @default 10 */
  readonly timeoutMinutes?: number;
}

/** The deadline of a wait that starts now. */
function deadlineOf(inputs: FelixCleanupInputs): number {
  return Date.now() + minutesOf(inputs) * 60_000;
}

function minutesOf(inputs: FelixCleanupInputs): number {
  return inputs.timeoutMinutes ?? CLEANUP_TIMEOUT_MINUTES;
}

/** The error of a wait that ran out, with what it still waits for. */
function notCleaned(inputs: FelixCleanupInputs, what: string, waiting: readonly string[]): Error {
  return new Error(
    `Calico's rules are not removed from every node within ${minutesOf(inputs)} minutes, so ${what}:\n${waiting
      .map((w) => `  - ${w}`)
      .join("\n")}\nFix or replace those nodes and run the command again (docs/destroy.md, "Felix's rules").`,
  );
}

/**
 * Waits until the DaemonSet at `path`, patched or created at `generation`, has a Ready cleanup pod on every
 * node (template.ts cleanupProgress); returns early if the DaemonSet is gone.
 */
async function awaitCleanup(
  credentials: Credentials,
  inputs: FelixCleanupInputs,
  path: string,
  generation: number,
  deadline: number,
): Promise<void> {
  for (;;) {
    const daemonSet = await kubeGetOrMissing<LiveDaemonSet>(credentials, path);
    if (daemonSet === undefined) return;
    const namespace = daemonSet.metadata.namespace ?? inputs.namespace;
    const pods = await kubeRequest<{ items: LivePod[] }>(
      credentials,
      "GET",
      podsPath(namespace, daemonSet.spec.selector.matchLabels ?? {}),
    );
    const progress = cleanupProgress(daemonSet, pods.items, generation);
    if (progress.done) return;
    if (Date.now() >= deadline) {
      throw notCleaned(inputs, `${namespace}/${daemonSet.metadata.name} stays`, progress.waiting);
    }
    await pause();
  }
}

/**
 * The manifest install: calico-node becomes the cleanup. The DaemonSet gone already (deleted outside
 * Pulumi) leaves nothing to patch: its pods went with it.
 */
async function cleanUpCalicoNode(inputs: FelixCleanupInputs, calicoNode: string): Promise<void> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const path = daemonSetPath(inputs.namespace, calicoNode);
  const deadline = deadlineOf(inputs);
  const live = await kubeGetOrMissing<LiveDaemonSet>(credentials, path);
  if (live === undefined) return;
  const patched = await kubeRequest<LiveDaemonSet>(
    credentials,
    "PATCH",
    `${path}?fieldManager=${CLEANUP_FIELD_MANAGER}`,
    cleanupPatch(live, calicoNode),
    "application/json-patch+json",
  );
  await awaitCleanup(credentials, inputs, path, patched.metadata.generation ?? 0, deadline);
}

/**
 * The operator install, after the Installation's deletion: once no calico-node pod is left (a Felix still
 * running would write its rules back), a cleanup DaemonSet runs on every node, then goes.
 */
async function cleanUpAfterOperator(
  inputs: FelixCleanupInputs,
  image: string,
  calicoNode: string,
): Promise<void> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const deadline = deadlineOf(inputs);
  const [felixNamespace] = calicoNode.split("/");
  for (;;) {
    const felix = await kubeRequest<{ items: LivePod[] }>(
      credentials,
      "GET",
      podsPath(felixNamespace, { "k8s-app": "calico-node" }),
    );
    if (felix.items.length === 0) break;
    if (Date.now() >= deadline) {
      const pods = felix.items.map(
        (p) => `pod ${p.metadata.name} on ${p.spec.nodeName ?? "no node"} still runs Felix`,
      );
      throw notCleaned(inputs, "no cleanup ran", pods);
    }
    await pause();
  }
  const daemonSet = cleanupDaemonSet(inputs.namespace, image);
  const path = daemonSetPath(inputs.namespace, daemonSet.metadata.name);
  let created = await kubeGetOrMissing<LiveDaemonSet>(credentials, path);
  created ??= await kubeRequest<LiveDaemonSet>(
    credentials,
    "POST",
    `/apis/apps/v1/namespaces/${encodeURIComponent(inputs.namespace)}/daemonsets?fieldManager=${CLEANUP_FIELD_MANAGER}`,
    daemonSet,
  );
  await awaitCleanup(credentials, inputs, path, created.metadata.generation ?? 0, deadline);
  try {
    await kubeRequest(credentials, "DELETE", path);
  } catch (error) {
    if (!isKubeRequestError(error, 404)) throw error;
  }
}

/** Named apart from any global: a global is not captured when Pulumi serializes. */
function removeFelixRules(inputs: FelixCleanupInputs): Promise<void> {
  if (inputs.calicoNode !== undefined) return cleanUpCalicoNode(inputs, inputs.calicoNode);
  if (inputs.image !== undefined && inputs.operatorCalicoNode !== undefined) {
    return cleanUpAfterOperator(inputs, inputs.image, inputs.operatorCalicoNode);
  }
  return Promise.reject(
    new Error("felix-cleanup: neither calicoNode nor image and operatorCalicoNode given"),
  );
}

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const felixCleanupProvider: pulumi.dynamic.ResourceProvider = {
  create(inputs: FelixCleanupInputs) {
    return Promise.resolve({ id: "felix-cleanup", outs: inputs });
  },
  diff(_id: string, olds: FelixCleanupInputs, news: FelixCleanupInputs) {
    // The delete runs with the inputs of the last update: keep them current.
    return Promise.resolve({ changes: inputsChanged(olds, news) });
  },
  update(_id: string, _olds: FelixCleanupInputs, news: FelixCleanupInputs) {
    return Promise.resolve({ outs: news });
  },
  delete(_id: string, props: FelixCleanupInputs) {
    return removeFelixRules(props);
  },
};

export interface FelixCleanupArgs {
  /** The kubeconfig of the cluster (secret) and its context, as the Kubernetes provider has them. */
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  readonly namespace: string;
  readonly calicoNode?: string;
  readonly image?: string;
  readonly operatorCalicoNode?: string;
  /** Minutes its delete waits for every node (`calico.cleanupTimeoutMinutes`). */
  readonly timeoutMinutes: number;
}

export class FelixCleanup extends CalicoStep<FelixCleanupArgs> {
  constructor(name: string, args: FelixCleanupArgs, opts?: pulumi.CustomResourceOptions) {
    super(felixCleanupProvider, "FelixCleanup", name, args, opts);
  }
}
