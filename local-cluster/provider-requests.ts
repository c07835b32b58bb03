/**
 * The requests pulumi-kubernetes 4.34 (server-side apply mode) sends to create an object, and to preview
 * an update of it, replayed against the local API server for the one behaviour the engine here cannot
 * show: pulumi-resource-kubernetes v4.25.0, the newest the Go module proxy serves, creates by a
 * server-side apply that upserts, where 4.29 and later answer AlreadyExists unless the provider sets
 * `upsertExistingObjects` (the `[replay: ...]` cases of test/cluster/redeploy.test.ts). Every other case
 * runs on the real engine. From provider/pkg/await/await.go (Creation, Update, ssaUpdate,
 * handleSSAIgnoreFields, patchForce) and provider/pkg/provider/provider.go (fieldManagerName):
 * - the field manager is the `pulumi.com/patchFieldManager` annotation, else the name kept in the
 *   resource's state since its create, else a new `pulumi-kubernetes-<random>` name;
 * - a create through a provider with `upsertExistingObjects` is a server-side apply (PATCH,
 *   application/apply-patch+yaml, `fieldValidation=Warn`), forced only when the provider has
 *   `enablePatchForce` or the object the `pulumi.com/patchForce` annotation (patchForce is given no live
 *   object on create); it does not move kubectl's fields first;
 * - a create through a provider without it is a POST with the static field manager `pulumi-kubernetes`:
 *   AlreadyExists when the object is there;
 * - a preview of an update settles `ignoreChanges` paths against the live object, then sends a dry-run
 *   server-side apply, forced as patchForce decides with the live object.
 */
import { randomBytes } from "node:crypto";
import { type Credentials, isKubeRequestError, kubeRequest } from "../components/kubernetes/client";
import { type ObjectRef, objectPath } from "../components/calico/takeover/run";
import { FIELD_MANAGER_ANNOTATION } from "../components/calico/takeover";
import type { ManagedFieldsEntry } from "../components/calico/takeover/managed-fields";

export interface ProviderSettings {
  /** `upsertExistingObjects` of the object's provider. */
  readonly upsert: boolean;
  /** `enablePatchForce` of the object's provider. */
  readonly force: boolean;
}

export type KubeObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
    managedFields?: ManagedFieldsEntry[];
    resourceVersion?: string;
  };
};

export function refOf(object: KubeObject): ObjectRef {
  const { apiVersion, kind, metadata } = object;
  return { apiVersion, kind, name: metadata.name, namespace: metadata.namespace };
}

/**
 * The field manager the provider uses for `object`: its annotation, else the name `state` kept since the
 * create, else a new random one (the provider keeps it in the resource's state as `__fieldManager`).
 */
export function fieldManagerOf(object: KubeObject, state?: string): string {
  return (
    object.metadata.annotations?.[FIELD_MANAGER_ANNOTATION] ??
    state ??
    `pulumi-kubernetes-${randomBytes(4).toString("hex")}`
  );
}

/**
 * What the API server answered: the object it holds (or would, in a dry run), or its refusal; for an
 * update, also the live object the provider read first.
 */
export interface ProviderAnswer {
  readonly refusal?: string;
  readonly result?: KubeObject;
  readonly live?: KubeObject;
}

const PROVIDER_CLIENT_SIDE = new Set([
  "pulumi-resource-kubernetes",
  "pulumi-kubernetes",
  "pulumi-kubernetes.exe",
]);

/** patchForce: whether a server-side apply overrides other managers' values. */
function patchForce(
  object: KubeObject,
  live: KubeObject | undefined,
  settings: ProviderSettings,
  preview: boolean,
): boolean {
  if (object.metadata.annotations?.["pulumi.com/patchForce"] === "true" || settings.force) return true;
  if (preview) {
    if (live === undefined) return true;
    const entries = live.metadata.managedFields ?? [];
    if (entries.some((e) => e.operation === "Update" && PROVIDER_CLIENT_SIDE.has(e.manager ?? "")))
      return true;
  }
  return live !== undefined && (live.metadata.managedFields ?? []).length === 0;
}

function refusalOf(object: KubeObject, error: unknown): ProviderAnswer {
  if (!isKubeRequestError(error)) throw error;
  const message = (() => {
    try {
      return (JSON.parse(error.body) as { message?: string }).message ?? error.body;
    } catch {
      return error.body;
    }
  })();
  return { refusal: `${object.kind} ${object.metadata.name}: HTTP ${error.status}: ${message}` };
}

function applyQuery(manager: string, force: boolean, dryRun: boolean, validation?: string): string {
  return [
    `fieldManager=${encodeURIComponent(manager)}`,
    `force=${force}`,
    ...(validation ? [`fieldValidation=${validation}`] : []),
    ...(dryRun ? ["dryRun=All"] : []),
  ].join("&");
}

/** Creates `object` as the provider would, with field manager `manager` (fieldManagerOf). */
export async function providerCreate(
  credentials: Credentials,
  object: KubeObject,
  settings: ProviderSettings,
  manager: string,
): Promise<ProviderAnswer> {
  try {
    const path = await objectPath(credentials, refOf(object));
    if (settings.upsert) {
      const force = patchForce(object, undefined, settings, false);
      const query = applyQuery(manager, force, false, "Warn");
      const result = await kubeRequest<KubeObject>(
        credentials,
        "PATCH",
        `${path}?${query}`,
        object,
        "application/apply-patch+yaml",
      );
      return { result };
    }
    const collection = path.slice(0, path.lastIndexOf("/"));
    const result = await kubeRequest<KubeObject>(
      credentials,
      "POST",
      `${collection}?fieldManager=pulumi-kubernetes`,
      object,
    );
    return { result };
  } catch (error) {
    return refusalOf(object, error);
  }
}

/** Whether a FieldsV1 set holds the field at `path` (`f:spec` → `f:replicas`). */
function owns(fields: Record<string, unknown> | undefined, path: readonly string[]): boolean {
  let node: unknown = fields;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return false;
    node = (node as Record<string, unknown>)[`f:${key}`];
  }
  return node !== undefined;
}

function nested(object: Record<string, unknown>, path: readonly string[]): unknown {
  return path.reduce<unknown>(
    (node, key) =>
      typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined,
    object,
  );
}

/** handleSSAIgnoreFields: an ignored path another manager owns is left out; else it keeps the live value. */
function settleIgnored(object: KubeObject, live: KubeObject, manager: string, ignore: readonly string[]) {
  const inputs = structuredClone(object) as Record<string, unknown>;
  const entries = live.metadata.managedFields ?? [];
  for (const dotted of ignore) {
    const path = dotted.split(".");
    const theirs = entries.some((e) => e.manager !== manager && owns(e.fieldsV1, path));
    const ours = entries.some((e) => e.manager === manager && owns(e.fieldsV1, path));
    const parent = nested(inputs, path.slice(0, -1)) as Record<string, unknown> | undefined;
    const last = path[path.length - 1];
    if (theirs && !ours) {
      if (parent) delete parent[last];
      continue;
    }
    const value = nested(live, path);
    if (value !== undefined && parent) parent[last] = structuredClone(value);
  }
  return inputs as KubeObject;
}

/**
 * A preview of an update of `object` as the provider sends it (its field manager `manager`, ignoreChanges
 * paths `ignore`): a dry-run apply; the object the server would hold, and the live one it read.
 */
export async function providerPreviewUpdate(
  credentials: Credentials,
  object: KubeObject,
  settings: ProviderSettings,
  manager: string,
  ignore: readonly string[] = [],
): Promise<ProviderAnswer> {
  try {
    const path = await objectPath(credentials, refOf(object));
    const live = await kubeRequest<KubeObject>(credentials, "GET", path);
    const inputs = settleIgnored(object, live, manager, ignore);
    const force = patchForce(inputs, live, settings, true);
    const result = await kubeRequest<KubeObject>(
      credentials,
      "PATCH",
      `${path}?${applyQuery(manager, force, true)}`,
      inputs,
      "application/apply-patch+yaml",
    );
    return { result, live };
  } catch (error) {
    return refusalOf(object, error);
  }
}
