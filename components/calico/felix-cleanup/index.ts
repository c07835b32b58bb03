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
 */
import * as pulumi from "@pulumi/pulumi";
import { credentialsOf, kubeGetOrMissing, kubeRequest } from "../../kubernetes/client";
import { type LiveDaemonSet, type LivePod, cleanupPatch, cleanupProgress } from "./template";

export { CLEANUP_LABEL } from "./template";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const FELIX_CLEANUP_TYPE = "pulumi-nodejs:dynamic/calico:FelixCleanup";

/** Seconds between two reads of the rollout. */
const POLL_SECONDS = 2;

export interface FelixCleanupInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** Where calico-node runs. */
  readonly namespace: string;
  /** The calico-node DaemonSet's name (and its container's). */
  readonly calicoNode: string;
  /** Minutes the delete waits for every node's cleanup before it fails. */
  readonly timeoutMinutes: number;
}

function daemonSetPath(inputs: FelixCleanupInputs): string {
  return `/apis/apps/v1/namespaces/${encodeURIComponent(inputs.namespace)}/daemonsets/${encodeURIComponent(inputs.calicoNode)}`;
}

/**
 * Named apart from any global: a global is not captured when Pulumi serializes. The DaemonSet gone
 * already (deleted outside Pulumi) leaves nothing to patch: its pods went with it, Felix's rules stay.
 */
async function removeFelixRules(inputs: FelixCleanupInputs): Promise<void> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const path = daemonSetPath(inputs);
  const live = await kubeGetOrMissing<LiveDaemonSet>(credentials, path);
  if (live === undefined) return;
  const patched = await kubeRequest<LiveDaemonSet>(
    credentials,
    "PATCH",
    path,
    cleanupPatch(live, inputs.calicoNode),
    "application/json-patch+json",
  );
  const generation = patched.metadata.generation ?? 0;
  const selector = Object.entries(live.spec.selector.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const podsPath = `/api/v1/namespaces/${encodeURIComponent(inputs.namespace)}/pods?labelSelector=${encodeURIComponent(selector)}`;
  const deadline = Date.now() + inputs.timeoutMinutes * 60_000;
  for (;;) {
    const daemonSet = await kubeGetOrMissing<LiveDaemonSet>(credentials, path);
    if (daemonSet === undefined) return;
    const pods = await kubeRequest<{ items: LivePod[] }>(credentials, "GET", podsPath);
    const progress = cleanupProgress(daemonSet, pods.items, generation);
    if (progress.done) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `Calico's rules are not removed from every node within ${inputs.timeoutMinutes} minutes, so ${inputs.namespace}/${inputs.calicoNode} stays:\n${progress.waiting
          .map((w) => `  - ${w}`)
          .join(
            "\n",
          )}\nFix or replace those nodes and run the update again (docs/destroy.md, "Felix's rules").`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_SECONDS * 1000));
  }
}

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const felixCleanupProvider: pulumi.dynamic.ResourceProvider = {
  create(inputs: FelixCleanupInputs) {
    return Promise.resolve({ id: "felix-cleanup", outs: inputs });
  },
  diff(_id: string, olds: FelixCleanupInputs, news: FelixCleanupInputs) {
    // The delete runs with the inputs of the last update: keep them current. Key by key: the engine
    // returns the old ones in its own order.
    const changes = Object.entries(news).some(
      ([key, value]) =>
        JSON.stringify(value) !== JSON.stringify((olds as unknown as Record<string, unknown>)[key]),
    );
    return Promise.resolve({ changes });
  },
  update(_id: string, _olds: FelixCleanupInputs, news: FelixCleanupInputs) {
    return Promise.resolve({ outs: news });
  },
  delete(_id: string, props: FelixCleanupInputs) {
    return removeFelixRules(props);
  },
};

export interface FelixCleanupArgs {
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  readonly namespace: string;
  readonly calicoNode: string;
  readonly timeoutMinutes: number;
}

export class FelixCleanup extends pulumi.dynamic.Resource {
  constructor(name: string, args: FelixCleanupArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      felixCleanupProvider,
      name,
      { ...args, kubeconfig: pulumi.secret(args.kubeconfig) },
      opts,
      "calico",
      "FelixCleanup",
    );
  }
}
