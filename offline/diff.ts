/**
 * Compares two resources.json documents (offline/plan.ts): which resources a change adds, removes or
 * changes, and for each change every property that differs, keyed by a readable path. Pure functions.
 *
 * Naming: a resource is shown as `<type> <name>` (with its URN path appended only if two resources share
 * both), followed by indented lines `<path>: <before> → <after>`, the path starting at the part of the
 * resource it is in: `inputs.scalingConfig.desiredSize: 2 → 4`, `options.protect: false → true`,
 * `inputs.tags["kubernetes.io/role/elb"]: (absent) → "1"`. Stack outputs are listed the same way.
 *
 * Identity: resources match on their URN without the `urn:pulumi:<stack>::<project>::` prefix, i.e.
 * parent types, type and name, as Pulumi matches them; so two stacks compare too, and a resource whose
 * name or parent changes shows as removed and added, as Pulumi would replace it. Masked secrets compare
 * equal: a change to a secret value does not show.
 */
import { RESOURCES_FORMAT_VERSION, type ResourceEntry, type ResourcesDocument } from "./plan";

/** One property that differs; undefined stands for "absent". */
export interface PropertyChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

export interface ResourceDiff {
  /** `<type> <name>`. */
  readonly heading: string;
  /** URN without stack and project. */
  readonly identity: string;
  /** Empty for added and removed resources. */
  readonly changes: PropertyChange[];
}

export interface PlanDiff {
  readonly before: { readonly project: string; readonly stack: string };
  readonly after: { readonly project: string; readonly stack: string };
  readonly added: ResourceDiff[];
  readonly removed: ResourceDiff[];
  readonly changed: ResourceDiff[];
  readonly unchanged: number;
  readonly outputs: PropertyChange[];
}

/** Thrown for a file that is not a resources.json this code can read. */
export class ResourcesFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResourcesFileError";
  }
}

/** Parses and checks a saved resources.json; `source` names it in errors. */
export function parseResourcesDocument(text: string, source: string): ResourcesDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ResourcesFileError(`${source} is not JSON: ${(error as Error).message}`);
  }
  const doc = parsed as Partial<ResourcesDocument> | null;
  if (doc === null || typeof doc !== "object" || !Array.isArray(doc.resources)) {
    throw new ResourcesFileError(
      `${source} is not a resources.json written by npm start (no resources list)`,
    );
  }
  if (doc.formatVersion !== RESOURCES_FORMAT_VERSION) {
    throw new ResourcesFileError(
      `${source} has format version ${String(doc.formatVersion)}; this plan reads version ${RESOURCES_FORMAT_VERSION}: regenerate it with npm start`,
    );
  }
  return doc as ResourcesDocument;
}

const STACK_TYPE = "pulumi:pulumi:Stack";

/**
 * `urn:pulumi:dev::eks-calico::a$b::name` becomes `a$b::name`. The stack resource is named after the
 * stack (`eks-calico-dev`), so it is just `pulumi:pulumi:Stack`: there is one per stack.
 */
export function identityOf(urn: string): string {
  const identity = urn.split("::").slice(2).join("::");
  return identity.startsWith(`${STACK_TYPE}::`) ? STACK_TYPE : identity;
}

/** A reference to the stack resource, without the stack's name (see identityOf). */
function stackIndependent(ref: string | undefined): string | undefined {
  return ref?.startsWith(`${STACK_TYPE}::`) ? STACK_TYPE : ref;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `a.b`, `a["kubernetes.io/role"]`, `a[0]`. */
function child(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

function isEmptyContainer(value: unknown): boolean {
  return (
    (Array.isArray(value) && value.length === 0) || (isPlainObject(value) && Object.keys(value).length === 0)
  );
}

/** Appends every leaf that differs between `before` and `after` under `path`. */
function diffValues(path: string, before: unknown, after: unknown, out: PropertyChange[]): void {
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  // A container on one side and nothing on the other: list its leaves, so paths always end at a value.
  if (before === undefined && !isEmptyContainer(after) && (isPlainObject(after) || Array.isArray(after))) {
    return diffValues(path, Array.isArray(after) ? [] : {}, after, out);
  }
  if (after === undefined && !isEmptyContainer(before) && (isPlainObject(before) || Array.isArray(before))) {
    return diffValues(path, before, Array.isArray(before) ? [] : {}, out);
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compare);
    for (const key of keys) diffValues(child(path, key), before[key], after[key], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      diffValues(child(path, i), before[i], after[i], out);
    }
    return;
  }
  out.push({ path, before, after });
}

/** Every property change between two entries of the same resource. */
function diffEntries(before: ResourceEntry, after: ResourceEntry): PropertyChange[] {
  const changes: PropertyChange[] = [];
  const compared = (e: ResourceEntry) => ({
    custom: e.custom,
    remote: e.remote,
    parent: stackIndependent(e.parent),
    provider: e.provider,
    inputs: e.inputs,
    options: e.options,
  });
  diffValues("", compared(before), compared(after), changes);
  // Dependencies are a set: report members, not shifted positions.
  const was = new Set(before.dependencies);
  const is = new Set(after.dependencies);
  for (const dep of [...is].filter((d) => !was.has(d)).sort(compare)) {
    changes.push({ path: "dependencies", before: undefined, after: dep });
  }
  for (const dep of [...was].filter((d) => !is.has(d)).sort(compare)) {
    changes.push({ path: "dependencies", before: dep, after: undefined });
  }
  return changes;
}

function byIdentity(doc: ResourcesDocument): Map<string, ResourceEntry> {
  return new Map(doc.resources.map((r) => [identityOf(r.urn), r]));
}

/** What changes from `before` to `after`. */
export function diffDocuments(before: ResourcesDocument, after: ResourcesDocument): PlanDiff {
  const old = byIdentity(before);
  const next = byIdentity(after);
  // Headings shared by two resources (same type and name, different parents) get the identity appended.
  const identities = new Map<string, Set<string>>();
  for (const [identity, r] of [...old, ...next]) {
    const heading = `${r.type} ${r.name}`;
    identities.set(heading, (identities.get(heading) ?? new Set<string>()).add(identity));
  }
  const resourceDiff = (identity: string, r: ResourceEntry, changes: PropertyChange[]): ResourceDiff => {
    const heading = `${r.type} ${r.name}`;
    const shared = (identities.get(heading)?.size ?? 0) > 1;
    return { heading: shared ? `${heading} (${identity})` : heading, identity, changes };
  };

  const added: ResourceDiff[] = [];
  const removed: ResourceDiff[] = [];
  const changed: ResourceDiff[] = [];
  let unchanged = 0;
  for (const identity of [...next.keys()].sort(compare)) {
    const now = next.get(identity) as ResourceEntry;
    const was = old.get(identity);
    if (was === undefined) {
      added.push(resourceDiff(identity, now, []));
      continue;
    }
    const changes = diffEntries(was, now);
    if (changes.length > 0) changed.push(resourceDiff(identity, now, changes));
    else unchanged += 1;
  }
  for (const identity of [...old.keys()].sort(compare)) {
    if (!next.has(identity)) removed.push(resourceDiff(identity, old.get(identity) as ResourceEntry, []));
  }

  const outputs: PropertyChange[] = [];
  diffValues("", before.outputs, after.outputs, outputs);
  return {
    before: { project: before.project, stack: before.stack },
    after: { project: after.project, stack: after.stack },
    added,
    removed,
    changed,
    unchanged,
    outputs,
  };
}

/** A value as a diff line shows it: JSON, long values shortened. */
function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function changeLine(change: PropertyChange): string {
  if (change.path === "dependencies") {
    // Members are resource refs, shown bare: `+ aws:ec2/subnet:Subnet::network-private-us-west-2c`.
    const ref = (value: unknown) => (typeof value === "string" ? value : show(value));
    return change.after !== undefined
      ? `    dependencies: + ${ref(change.after)}`
      : `    dependencies: - ${ref(change.before)}`;
  }
  return `    ${change.path}: ${show(change.before)} → ${show(change.after)}`;
}

/** The diff as text: a summary line, then `+` added, `-` removed and `~` changed resources, then outputs. */
export function renderDiff(diff: PlanDiff, baseLabel: string): string {
  const stacks =
    diff.before.stack === diff.after.stack
      ? `stack ${diff.after.stack}`
      : `stack ${diff.after.stack} (base is stack ${diff.before.stack})`;
  const summary =
    `${diff.added.length} to add, ${diff.removed.length} to remove, ${diff.changed.length} to change, ` +
    `${diff.unchanged} unchanged`;
  const lines = [`Changes to ${stacks} against ${baseLabel}: ${summary}.`];
  if (diff.added.length + diff.removed.length + diff.changed.length + diff.outputs.length === 0) {
    lines.push("No changes.");
  }
  for (const r of diff.added) lines.push(`+ ${r.heading}`);
  for (const r of diff.removed) lines.push(`- ${r.heading}`);
  for (const r of diff.changed) lines.push(`~ ${r.heading}`, ...r.changes.map(changeLine));
  if (diff.outputs.length > 0) lines.push("~ stack outputs", ...diff.outputs.map(changeLine));
  return `${lines.join("\n")}\n`;
}
