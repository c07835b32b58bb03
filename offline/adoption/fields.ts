/**
 * What taking over an existing Kubernetes object changes in it, field by field, as server-side apply with
 * force does it: fields this program sets take its values; fields only the existing object has stay as
 * they are (their owner, kubectl's client-side apply, still manages them). Lists whose items all have a
 * `name` (containers, env, volumes, ports) merge item by item, as Kubernetes merges them by that key;
 * other lists are replaced whole.
 */
import { isPlainObject } from "../plan";

export interface FieldDifference {
  /** `spec.template.spec.containers[calico-node].env[FELIX_LOGSEVERITYSCREEN].value` */
  readonly path: string;
  /** `set`: this program's value replaces the existing one (or adds it); `kept`: only the existing has it. */
  readonly kind: "set" | "kept";
  readonly before: unknown;
  readonly after?: unknown;
}

/** Metadata a server writes, or kubectl's own bookkeeping: never compared. */
const SERVER_METADATA = new Set([
  "creationTimestamp",
  "resourceVersion",
  "uid",
  "generation",
  "managedFields",
  "selfLink",
  "namespace",
  "name",
]);
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

function keyedByName(list: unknown[]): boolean {
  const names = list.map((item) => (isPlainObject(item) ? item.name : undefined));
  return list.length > 0 && names.every((n) => typeof n === "string") && new Set(names).size === names.length;
}

function child(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? path === ""
      ? key
      : `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

function compare(path: string, before: unknown, after: unknown, out: FieldDifference[]): void {
  if (after === undefined) {
    // A named list this program does not set at all stays item by item (initContainers[install-cni]).
    if (Array.isArray(before) && keyedByName(before)) {
      for (const item of before)
        out.push({ path: `${path}[${(item as { name: string }).name}]`, kind: "kept", before: item });
    } else if (before !== undefined) {
      out.push({ path, kind: "kept", before });
    }
    return;
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      compare(child(path, key), before[key], after[key], out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && keyedByName(before) && keyedByName(after)) {
    const byName = (list: unknown[]) => new Map(list.map((item) => [(item as { name: string }).name, item]));
    const [was, now] = [byName(before), byName(after)];
    for (const name of [...new Set([...was.keys(), ...now.keys()])]) {
      compare(`${path}[${name}]`, was.get(name), now.get(name), out);
    }
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, kind: "set", before, after });
}

/** The differences an existing object takes when this program's object is applied over it. */
export function fieldDifferences(
  existing: Record<string, unknown>,
  ours: Record<string, unknown>,
): FieldDifference[] {
  const out: FieldDifference[] = [];
  const metadata = (o: Record<string, unknown>) => {
    const m = isPlainObject(o.metadata) ? o.metadata : {};
    const annotations = isPlainObject(m.annotations) ? { ...m.annotations } : undefined;
    if (annotations !== undefined) delete annotations[LAST_APPLIED];
    const kept = annotations !== undefined && Object.keys(annotations).length > 0 ? annotations : undefined;
    return Object.fromEntries(
      Object.entries({ ...m, annotations: kept }).filter(
        ([k, v]) => !SERVER_METADATA.has(k) && v !== undefined,
      ),
    );
  };
  compare("metadata", metadata(existing), metadata(ours), out);
  for (const key of [...new Set([...Object.keys(existing), ...Object.keys(ours)])].sort()) {
    if (["apiVersion", "kind", "metadata", "status"].includes(key)) continue;
    compare(key, existing[key], ours[key], out);
  }
  return out;
}
