/**
 * A removal of the install that stopped half-way, told apart from a first install that did. `pulumi
 * destroy`, or a reinstall's first update, deletes the install's objects one after another; stopped
 * part-way, the stack's state still holds objects the cluster has lost, and the next `up` with the same
 * config would leave them lost: pulumi-kubernetes diffs inputs against its state, not the cluster
 * (provider/pkg/provider/provider.go Diff, v4.25.0: "comparing the old inputs to the new inputs will miss
 * resource drift"). Only `pulumi refresh` drops them from the state (its Read answers a 404 with an empty
 * object, which the engine records as deleted), and the `up` after it creates them again.
 *
 * The marker step depends on every object of the install, so Pulumi deletes it before any of them: its
 * delete writes the ConfigMap kube-system/calico-removal (kube-system outlives every install, and no
 * install puts anything there by that name). The install check (./install-check.ts), which every object
 * depends on and which goes last, refuses an `up` while the marker is there and an object the program
 * renders is missing, naming them and `pulumi refresh`; its refresh records the marker's uid, after which
 * the `up` goes on and creates what is missing. The marker goes when the step is created again (at the end
 * of that `up`) and when the install check is deleted (at the end of a removal that finished). A first
 * install that failed half-way left no marker, so what it has not created yet is not refused.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterAccess } from "../cluster/provider";
import {
  type Credentials,
  credentialsOf,
  isKubeRequestError,
  kubeGetOrMissing,
  kubeRequest,
} from "../kubernetes/client";
import { inputsChanged } from "../kubernetes/checking-step";
import { CalicoStep, pause } from "./felix-cleanup/requests";
import { COMMON_LABELS } from "./labels";
import { type ObjectRef, describeRef, readObjects } from "./takeover/run";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const REMOVAL_MARKER_TYPE = "pulumi-nodejs:dynamic/calico:RemovalMarker";

export const MARKER_NAMESPACE = "kube-system";
export const MARKER_NAME = "calico-removal";
export const MARKER_PATH = `/api/v1/namespaces/${MARKER_NAMESPACE}/configmaps/${MARKER_NAME}`;

/** The marker as the API server answers it. */
export interface LiveMarker {
  readonly metadata: { readonly uid: string; readonly creationTimestamp?: string };
  readonly data?: Readonly<Record<string, string>>;
}

/** The marker, if a removal began and did not finish. */
export function readMarker(credentials: Credentials): Promise<LiveMarker | undefined> {
  return kubeGetOrMissing<LiveMarker>(credentials, MARKER_PATH);
}

/** Deletes the marker; one already gone is no error. */
export async function unmarkRemoval(credentials: Credentials): Promise<void> {
  try {
    await kubeRequest(credentials, "DELETE", MARKER_PATH);
  } catch (error) {
    if (!isKubeRequestError(error, 404)) throw error;
  }
}

/** A new marker (a new uid: a refresh recorded for an earlier removal does not cover this one). */
async function markRemoval(credentials: Credentials, namespace: string): Promise<void> {
  await unmarkRemoval(credentials);
  await kubeRequest(credentials, "POST", `/api/v1/namespaces/${MARKER_NAMESPACE}/configmaps`, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: MARKER_NAME, namespace: MARKER_NAMESPACE, labels: { ...COMMON_LABELS } },
    data: { namespace, startedAt: new Date().toISOString() },
  });
}

/** Seconds the check waits for objects being deleted: a namespace the stopped removal deleted is emptied first. */
export const DELETING_WAIT_SECONDS = 120;

/**
 * Each of `refs` the cluster does not hold, as `Kind namespace/name`. One being deleted (the stopped
 * removal's delete went out, its finalizers still run) is waited for, up to DELETING_WAIT_SECONDS, and
 * named as being deleted if it is still there then: it is as lost as a missing one.
 */
export async function missingObjects(
  credentials: Credentials,
  refs: readonly ObjectRef[],
): Promise<string[]> {
  const deadline = Date.now() + DELETING_WAIT_SECONDS * 1000;
  for (;;) {
    const found = await readObjects(credentials, refs);
    const deleting = found.filter((f) => "live" in f && f.live.metadata.deletionTimestamp !== undefined);
    if (deleting.length === 0 || Date.now() >= deadline)
      return found
        .filter((f) => !("live" in f) || deleting.includes(f))
        .map((f) => `${describeRef(f.ref)}${"live" in f ? " (being deleted)" : ""}`);
    await pause();
  }
}

/** The refusal: what the stopped removal took, and the way forward. */
export function removalRefusal(marker: LiveMarker, missing: readonly string[]): string {
  const began = marker.data?.startedAt ?? marker.metadata.creationTimestamp ?? "an earlier run";
  return [
    `calico: a removal of Calico (\`pulumi destroy\`, or a reinstall's first update) began at ${began} and stopped part-way (ConfigMap ${MARKER_NAMESPACE}/${MARKER_NAME} says so). The stack's state still holds these objects, which the cluster no longer has, and \`up\` would not create them again:`,
    ...missing.map((object) => `  - ${object}`),
    'Nothing was changed. To go on, run `pulumi refresh`, which drops them from the state, then `pulumi up`, which creates them; or run `pulumi destroy` again to finish the removal (docs/destroy.md, "Objects deleted before the removal stopped").',
  ].join("\n");
}

/** The refs of rendered objects, as the install check takes them. */
export function refsOf(
  objects: readonly { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }[],
): ObjectRef[] {
  return objects.map(({ apiVersion, kind, metadata: { name, namespace } }) => ({
    apiVersion,
    kind,
    name,
    ...(namespace === undefined ? {} : { namespace }),
  }));
}

export interface RemovalMarkerInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** Where the install's calico-node runs, recorded in the marker. */
  readonly namespace: string;
}

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const removalMarkerProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: RemovalMarkerInputs) {
    await unmarkRemoval(credentialsOf(inputs.kubeconfig, inputs.context));
    return { id: "removal-marker", outs: inputs };
  },
  diff(_id: string, olds: RemovalMarkerInputs, news: RemovalMarkerInputs) {
    // The delete runs with the inputs of the last update: keep them current.
    return Promise.resolve({ changes: inputsChanged(olds, news) });
  },
  update(_id: string, _olds: RemovalMarkerInputs, news: RemovalMarkerInputs) {
    return Promise.resolve({ outs: news });
  },
  async delete(_id: string, props: RemovalMarkerInputs) {
    await markRemoval(credentialsOf(props.kubeconfig, props.context), props.namespace);
  },
};

export interface RemovalMarkerArgs {
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  readonly namespace: string;
}

export class RemovalMarker extends CalicoStep<RemovalMarkerArgs> {
  constructor(name: string, args: RemovalMarkerArgs, opts?: pulumi.CustomResourceOptions) {
    super(removalMarkerProvider, "RemovalMarker", name, args, opts);
  }
}

/** The marker step of the install `parent`, after `everything` it holds (each object, or one that waits for it). */
export function removalMarkerOf(
  name: string,
  parent: pulumi.Resource,
  access: ClusterAccess,
  namespace: string,
  everything: pulumi.Resource[],
) {
  return new RemovalMarker(
    `${name}-removal-marker`,
    { kubeconfig: access.kubeconfig, context: access.context, namespace },
    { parent, dependsOn: everything },
  );
}
