/**
 * The takeover itself: for each object this program is about to apply over an existing one, hand the
 * fields kubectl owns to the program's field manager (managed-fields.ts), so the apply that follows leaves
 * exactly what the program renders.
 */
import { type Credentials, KubeRequestError, kubeRequest } from "./kube-client";
import { type ManagedFieldsEntry, handOver } from "./managed-fields";

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
  /** "absent" (nothing to take over), "already ours" (no kubectl field left), or the managers moved. */
  readonly outcome: string;
}

interface LiveObject {
  metadata: { resourceVersion?: string; managedFields?: ManagedFieldsEntry[] };
}

export function describeRef(ref: ObjectRef): string {
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

async function find(credentials: Credentials, path: string): Promise<LiveObject | undefined> {
  try {
    return await kubeRequest<LiveObject>(credentials, "GET", path);
  } catch (error) {
    if (error instanceof KubeRequestError && error.status === 404) return undefined;
    throw error;
  }
}

/**
 * Hands kubectl's fields of every existing object in `refs` to `manager`. An object with no managed
 * fields at all (written before Kubernetes 1.18 and never since) first gets them: an apply of its name
 * alone by `manager` makes the API server record its other fields as `before-first-apply`'s, which are
 * then handed over too. The JSON patch carries the resourceVersion read, so a concurrent write fails it.
 */
export async function takeOver(
  credentials: Credentials,
  refs: readonly ObjectRef[],
  manager: string,
): Promise<TakeoverResult[]> {
  const discovery: Discovery = new Map();
  const results: TakeoverResult[] = [];
  for (const ref of refs) {
    const object = describeRef(ref);
    let path: string;
    try {
      path = await objectPath(credentials, ref, discovery);
    } catch (error) {
      // A kind the cluster does not serve yet (a CRD this update creates) has no object to take over.
      if (error instanceof KubeRequestError && error.status === 404) {
        results.push({ object, outcome: "absent" });
        continue;
      }
      throw error;
    }
    let live = await find(credentials, path);
    if (!live) {
      results.push({ object, outcome: "absent" });
      continue;
    }
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
      live = (await find(credentials, path)) ?? live;
    }
    const moved = handOver(live.metadata.managedFields ?? [], manager);
    if (!moved) {
      results.push({ object, outcome: "already ours" });
      continue;
    }
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
    results.push({ object, outcome: `from ${moved.from.join(", ")}` });
  }
  return results;
}
