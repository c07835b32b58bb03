/**
 * Moving the fields `kubectl` owns in an object to the field manager that applies this program's version
 * of it, so that the apply also removes what the old manifest set and this program does not render.
 *
 * Server-side apply removes a field the applier omits only if the applier owned it and no other manager
 * does (Kubernetes docs, "Server-Side Apply", Field management). After `kubectl apply` (client-side),
 * every field of the object belongs to `kubectl-client-side-apply`, so a forced apply by another manager
 * takes the fields it sets and leaves the rest: a `httpGet` probe beside the new `exec` one, a `valueFrom`
 * beside a `value`. pulumi-kubernetes moves kubectl's fields only when it *updates* an object
 * (fixCSAFieldManagers, provider/pkg/await/await.go), never when it creates one over an existing object
 * (upsertExistingObjects), which is how `calico.adopt` takes objects over. kubectl itself does the same
 * move on `kubectl apply --server-side` (k8s.io/client-go/util/csaupgrade); this is that move for us.
 */

/** One entry of `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/**
 * Entries whose fields are handed over: what `kubectl apply`, `kubectl create`, `kubectl edit` and the
 * other kubectl writes recorded (`kubectl-client-side-apply`, `kubectl-create`, `kubectl-edit`, ...),
 * `kubectl apply --server-side` ("kubectl", Apply), and `before-first-apply`, the name the API server
 * gives fields that existed before the object had managed fields. Controllers' entries
 * (kube-controller-manager, the autoscaler) and other tools' entries keep their fields.
 */
export function isHandedOver(entry: ManagedFieldsEntry): boolean {
  if ((entry.subresource ?? "") !== "") return false;
  const manager = entry.manager ?? "";
  if (manager === "before-first-apply") return entry.operation === "Update";
  if (manager === "kubectl") return true;
  return manager.startsWith("kubectl-") && entry.operation === "Update";
}

/** The union of two FieldsV1 sets (nested objects whose keys name fields, `.` the field itself). */
export function unionFields(
  a: Record<string, unknown> = {},
  b: Record<string, unknown> = {},
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = result[key];
    result[key] =
      isObject(mine) && isObject(value) ? unionFields(mine, value) : isObject(mine) ? mine : value;
  }
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface HandOver {
  /** The managed fields with kubectl's entries merged into `manager`'s Apply entry. */
  readonly managedFields: ManagedFieldsEntry[];
  /** The managers whose fields moved, e.g. `kubectl-client-side-apply (Update)`. */
  readonly from: string[];
}

/**
 * The object's managed fields after handing the fields of the entries `moves` selects (kubectl's, unless
 * told otherwise) to `manager` (an Apply entry, created or extended), or undefined when none is selected. The new entry keeps the apiVersion of `manager`'s
 * existing entry, else of the first entry handed over.
 */
export function handOver(
  entries: readonly ManagedFieldsEntry[],
  manager: string,
  moves: (entry: ManagedFieldsEntry) => boolean = isHandedOver,
): HandOver | undefined {
  const moving = entries.filter(moves);
  if (moving.length === 0) return undefined;
  const isTarget = (e: ManagedFieldsEntry) =>
    e.manager === manager && e.operation === "Apply" && (e.subresource ?? "") === "";
  const target = entries.find(isTarget);
  const fieldsV1 = [...moving, ...(target ? [target] : [])].reduce<Record<string, unknown>>(
    (set, e) => unionFields(set, e.fieldsV1),
    {},
  );
  const merged: ManagedFieldsEntry = {
    manager,
    operation: "Apply",
    apiVersion: target?.apiVersion ?? moving[0].apiVersion,
    time: target?.time ?? moving[0].time,
    fieldsType: "FieldsV1",
    fieldsV1,
  };
  const kept = entries.filter((e) => !moves(e) && !isTarget(e));
  return {
    managedFields: [...kept, merged],
    from: moving.map((e) => `${e.manager ?? "?"} (${e.operation ?? "?"})`),
  };
}

/**
 * Entries of another tool that owns fields of the object's spec (or data, rules, ...): an apply by Argo CD
 * (`argocd-controller`), Flux (`kustomize-controller`, `helm-controller`), Helm (`helm`), or any manager
 * that is not kubectl, this program, or a controller writing status, scale or metadata. The forced apply
 * that follows a takeover takes only the fields this program sets; such a tool's other fields stay (a
 * `valueFrom` beside the program's `value`), and the API server refuses the object half-way through the
 * update. `handedOver` selects the entries the takeover moves to this program.
 */
export function otherToolEntries(
  entries: readonly ManagedFieldsEntry[],
  manager: string,
  handedOver: (entry: ManagedFieldsEntry) => boolean,
): ManagedFieldsEntry[] {
  return entries.filter(
    (e) =>
      (e.subresource ?? "") === "" &&
      e.manager !== manager &&
      !handedOver(e) &&
      Object.keys(e.fieldsV1 ?? {}).some((field) => field !== "f:metadata" && field !== "f:status"),
  );
}
