/**
 * The takeover itself: for each object this program is about to apply over an existing one, hand the
 * fields kubectl owns to the program's field manager (managed-fields.ts), so the apply that follows leaves
 * exactly what the program renders.
 */
import {
  type Credentials,
  isKubeRequestError,
  kubeGetOrMissing,
  kubeRequest,
  requireApiServer,
} from "../../kubernetes/client";
import { type ManagedFieldsEntry, handOver, isHandedOver, otherToolEntries } from "./managed-fields";

/** An object the takeover looks for. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface TakeoverResult {
  /** `Kind namespace/name`. */
  readonly object: string;
  /**
   * "absent" (nothing to take over), "already ours" (no other manager's field to move), or the managers
   * moved ("from ...", or "from an earlier deployment: ..." for an object this program made before).
   */
  readonly outcome: string;
}

interface LiveObject {
  metadata: {
    resourceVersion?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    managedFields?: ManagedFieldsEntry[];
  };
}

export function describeRef(ref: Pick<ObjectRef, "kind" | "name" | "namespace">): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;
}

export type Discovery = Map<string, Promise<{ resources: { name: string; kind: string }[] }>>;

/** The API path of an object, its resource name found by discovery (`/apis/<group>/<version>`). */
export async function objectPath(
  credentials: Credentials,
  ref: ObjectRef,
  discovery: Discovery = new Map(),
): Promise<string> {
  const base = ref.apiVersion.includes("/") ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  if (!discovery.has(base)) discovery.set(base, kubeRequest(credentials, "GET", base));
  const list = await (discovery.get(base) as Promise<{ resources: { name: string; kind: string }[] }>);
  const resource = list.resources.find((r) => r.kind === ref.kind && !r.name.includes("/"));
  if (!resource) throw new Error(`${ref.apiVersion} serves no ${ref.kind}`);
  const scope = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : "";
  return `${base}${scope}/${resource.name}/${encodeURIComponent(ref.name)}`;
}

export interface ExistingObject {
  readonly ref: ObjectRef;
  readonly path: string;
  live: LiveObject;
}

/**
 * Made by this program: its labels have the ones every object of this program has (labels.ts COMMON_LABELS),
 * which an object of Calico's manifests or of the Tigera operator does not. Such an object outlived an
 * earlier deployment of the stack: a CRD, retained on destroy because deleting it deletes every policy.
 */
export function isOurs(labels: unknown, ours: Readonly<Record<string, string>>): boolean {
  const has = typeof labels === "object" && labels !== null ? (labels as Record<string, unknown>) : {};
  return Object.entries(ours).every(([key, value]) => has[key] === value);
}

/**
 * An entry an earlier deployment of this program left on an object that is ours: pulumi-kubernetes'
 * create (`pulumi-kubernetes`, Update) or its per-resource server-side apply manager
 * (`pulumi-kubernetes-<random>`, kept only in the destroyed state), as well as kubectl's.
 */
function isEarlierDeployment(entry: ManagedFieldsEntry): boolean {
  if ((entry.subresource ?? "") !== "") return false;
  return isHandedOver(entry) || (entry.manager ?? "").startsWith("pulumi-kubernetes");
}

export interface TakeoverOptions {
  /** The field manager every object is then applied with. */
  readonly manager: string;
  /** The labels every object of this program carries: an existing object with them is ours. */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * `calico.adopt`: objects made by something else (kubectl, a manifest) are taken over. Otherwise the
   * step refuses, before it changes anything, when one exists.
   */
  readonly adopt: boolean;
}

/**
 * Each of `refs` as the cluster holds it, or `{ ref }` where it holds none. A kind the cluster does not
 * serve (a CRD this update creates, or one gone) holds none.
 */
export async function readObjects(
  credentials: Credentials,
  refs: readonly ObjectRef[],
): Promise<(ExistingObject | { ref: ObjectRef })[]> {
  const discovery: Discovery = new Map();
  const found: (ExistingObject | { ref: ObjectRef })[] = [];
  for (const ref of refs) {
    let path: string;
    try {
      path = await objectPath(credentials, ref, discovery);
    } catch (error) {
      if (!isKubeRequestError(error, 404)) throw error;
      await requireApiServer(credentials, error.message);
      found.push({ ref });
      continue;
    }
    const live = await kubeGetOrMissing<LiveObject>(credentials, path);
    found.push(live ? { ref, path, live } : { ref });
  }
  return found;
}

/**
 * Takes over every existing object in `refs` for `options.manager`. An object made by something else
 * has kubectl's fields handed over (`calico.adopt`), or stops the step before anything changes; an object
 * this program made in an earlier deployment has the fields of that deployment's managers handed over.
 * An object with no managed fields at all (written before Kubernetes 1.18 and never since) first gets
 * them: an apply of its name alone by the manager makes the API server record its other fields as
 * `before-first-apply`'s, which are then handed over too. The JSON patch carries the resourceVersion
 * read; a concurrent write makes it read the object again and retry.
 */
export async function takeOver(
  credentials: Credentials,
  refs: readonly ObjectRef[],
  options: TakeoverOptions,
): Promise<TakeoverResult[]> {
  const results: TakeoverResult[] = [];
  const existing: ExistingObject[] = [];
  for (const found of await readObjects(credentials, refs)) {
    if ("live" in found) existing.push(found);
    else results.push({ object: describeRef(found.ref), outcome: "absent" });
  }
  const foreign = existing.filter((o) => !isOurs(o.live.metadata.labels, options.labels));
  if (!options.adopt && foreign.length > 0) {
    throw new Error(
      foreignObjectsMessage(foreign.map((o) => `${describeRef(o.ref)} (written by ${writers(o.live)})`)),
    );
  }
  const owned = existing.flatMap((o) => {
    const entries = otherToolEntries(
      o.live.metadata.managedFields ?? [],
      options.manager,
      movesFor(o, options),
    );
    return entries.length === 0
      ? []
      : [`${describeRef(o.ref)} (${[...new Set(entries.map(nameOf))].join(", ")})`];
  });
  if (owned.length > 0) throw new Error(otherToolsMessage(owned));
  for (const object of existing) {
    const ours = isOurs(object.live.metadata.labels, options.labels);
    results.push({
      object: describeRef(object.ref),
      outcome: await handOverObject(credentials, object, options.manager, ours),
    });
  }
  return results;
}

/** The entries the takeover moves to `options.manager` on `object`. */
function movesFor(object: ExistingObject, options: TakeoverOptions): (entry: ManagedFieldsEntry) => boolean {
  return movesOf(options.manager, isOurs(object.live.metadata.labels, options.labels));
}

/** For an object of ours, an earlier deployment's entries; for another's, kubectl's. */
function movesOf(manager: string, ours: boolean): (entry: ManagedFieldsEntry) => boolean {
  return ours ? (e) => e.manager !== manager && isEarlierDeployment(e) : isHandedOver;
}

function nameOf(entry: ManagedFieldsEntry): string {
  return `${entry.manager ?? "?"} (${entry.operation ?? "?"})`;
}

/** Why the step stops when another tool owns fields of objects it would take over. */
export function otherToolsMessage(objects: readonly string[]): string {
  return [
    "Another tool manages fields of these Calico objects, and a takeover would leave its fields beside this program's (the API server then refuses the update half-way):",
    ...objects.map((o) => `  - ${o}`),
    "Stop that tool managing them first (Argo CD: remove them from the Application, pruning off; Flux: suspend the Kustomization or HelmRelease and remove them from it; Helm: take them out of the release), then clear their field ownership, e.g.",
    `  kubectl patch <kind> <name> -n <namespace> --type=json -p '[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]'`,
    "and run `pulumi up` again: fields with no manager are taken over (docs/adoption.md). Nothing was changed.",
  ].join("\n");
}

/** Why the step stops when objects something else made exist and `calico.adopt` is off. */
export function foreignObjectsMessage(objects: readonly string[]): string {
  return [
    "These Calico objects exist already, and this program did not make them:",
    ...objects.map((o) => `  - ${o}`),
    "Calico is installed on this cluster already. To take its objects over, set calico.adopt: true",
    "(docs/adoption.md). Nothing was changed.",
  ].join("\n");
}

/** The managers an object's fields belong to, for a message. */
function writers(live: LiveObject): string {
  const names = [...new Set((live.metadata.managedFields ?? []).map((e) => e.manager ?? "?"))];
  return names.length > 0 ? names.join(", ") : "a client from before managed fields";
}

/** Reads and hand-overs tried before a write racing each one fails the step. */
const CONFLICT_ATTEMPTS = 5;

/**
 * Hands the object's fields over with a JSON patch that tests the resourceVersion read, so nothing
 * written in between is lost; a write in between makes it read and try again. `moves` picks the entries
 * handed over (by default: kubectl's, and for an object of ours an earlier deployment's).
 */
export async function handOverObject(
  credentials: Credentials,
  object: ExistingObject,
  manager: string,
  ours: boolean,
  moves: (entry: ManagedFieldsEntry) => boolean = movesOf(manager, ours),
): Promise<string> {
  const { ref, path } = object;
  let live = object.live;
  if ((live.metadata.managedFields ?? []).length === 0) {
    const { apiVersion, kind, name, namespace } = ref;
    const metadata = namespace ? { name, namespace } : { name };
    await kubeRequest(
      credentials,
      "PATCH",
      `${path}?fieldManager=${encodeURIComponent(manager)}`,
      { apiVersion, kind, metadata },
      "application/apply-patch+yaml",
    );
    live = (await kubeGetOrMissing<LiveObject>(credentials, path)) ?? live;
  }
  for (let attempt = 1; ; attempt++) {
    const moved = handOver(live.metadata.managedFields ?? [], manager, moves);
    if (!moved) return "already ours";
    try {
      await kubeRequest(
        credentials,
        "PATCH",
        path,
        [
          { op: "test", path: "/metadata/resourceVersion", value: live.metadata.resourceVersion },
          { op: "replace", path: "/metadata/managedFields", value: moved.managedFields },
        ],
        "application/json-patch+json",
      );
      return `${ours ? "from an earlier deployment: " : "from "}${moved.from.join(", ")}`;
    } catch (error) {
      // A write since the read (a controller's status update) fails the test: 422 Invalid. Read again
      // and hand over what is there now; any other refusal, or one with nothing written since, stands.
      if (attempt >= CONFLICT_ATTEMPTS || !isKubeRequestError(error, 422)) throw error;
      const now = await kubeRequest<LiveObject>(credentials, "GET", path);
      if (now.metadata.resourceVersion === live.metadata.resourceVersion) throw error;
      live = now;
    }
  }
}
