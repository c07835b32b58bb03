/**
 * Compares two resources.json documents (offline/plan.ts) the way `pulumi preview` would judge them: which
 * resources are created, updated, replaced or deleted, with every property that differs keyed by a
 * readable path and what it does (forces replacement, updates, is ignored, or may replace where the outcome
 * is decided inside @pulumi/eks or by AWS). Replacements, and updates that change an output, cascade to
 * resources built from the changed one (diff-cascade.ts); a node group's entry says what happens to its
 * nodes; protected resources that would be replaced or deleted are blocked, as `pulumi up` refuses them.
 * The rules per type are in replacements.ts, the shapes in diff-types.ts; rendering is in diff-render.ts.
 * Pure functions.
 *
 * Naming: a resource is shown as `<type> <name>` (with its URN path appended only if two resources share
 * both), followed by indented lines `<path>: <before> → <after>`, the path starting at the part of the
 * resource it is in: `inputs.scalingConfig.desiredSize: 2 → 4`, `options.protect: false → true`,
 * `inputs.tags["kubernetes.io/role/elb"]: (absent) → "1"`. Stack outputs are listed the same way.
 *
 * Identity: resources match on their URN without the `urn:pulumi:<stack>::<project>::` prefix, i.e.
 * parent types, type and name, as Pulumi matches them; so two stacks compare too, and a resource whose
 * name or parent changes shows as removed and added, as Pulumi would replace it, unless an alias names its
 * old URN (diff-moves.ts). Masked secrets compare equal: a change to a secret value does not show.
 */
import { RESOURCES_FORMAT_VERSION, type ResourceEntry, type ResourcesDocument } from "./plan";
import { effectOf, ruleOf } from "./diff-effects";
import { cascade, operationOf } from "./diff-cascade";
import { type Move, movedFrom } from "./diff-moves";
import { underPath } from "./replacements";
import type { DecidedInUp, Operation, PlanDiff, PropertyChange, ResourceDiff } from "./diff-types";

export type { DecidedInUp, Effect, Operation, PlanDiff, PropertyChange, ResourceDiff } from "./diff-types";

/** The resources `pulumi up` would refuse to change: protected ones replaced or deleted. */
export function blockedResources(diff: PlanDiff): ResourceDiff[] {
  return [...diff.changed, ...diff.removed].filter((r) => r.blocked !== undefined);
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

/** The identity of each reference (`type::name`, or a URN where ambiguous) used inside a document. */
function refIdentities(doc: ResourcesDocument): Map<string, string> {
  const counts = new Map<string, number>();
  for (const r of doc.resources)
    counts.set(`${r.type}::${r.name}`, (counts.get(`${r.type}::${r.name}`) ?? 0) + 1);
  return new Map(
    doc.resources.flatMap((r) => {
      const identity = identityOf(r.urn);
      const ref = `${r.type}::${r.name}`;
      return counts.get(ref) === 1
        ? [[ref, identity] as const, [r.urn, identity] as const]
        : [[r.urn, identity] as const];
    }),
  );
}

/**
 * Kubernetes objects with a fixed name cannot coexist with their replacement of the same name:
 * pulumi-kubernetes deletes first, unless the replacement has another name or namespace (as the probe's
 * Jobs, named from a hash, do).
 */
function deletesFirst(before: ResourceEntry, entry: ResourceEntry): boolean {
  const where = (e: ResourceEntry) =>
    e.inputs.metadata as { name?: unknown; namespace?: unknown } | undefined;
  const named = where(entry)?.name !== undefined;
  const sameName =
    where(before)?.name === where(entry)?.name && where(before)?.namespace === where(entry)?.namespace;
  return entry.options.deleteBeforeReplace || (entry.type.startsWith("kubernetes:") && named && sameName);
}

/**
 * What the step does to the machines the resource runs, by its rule's rollout: a replacement replaces them
 * all, an update at one of `rollOn` rolls them, and where it may be replaced, it says what that would do.
 */
function rolloutOf(
  was: ResourceEntry,
  now: ResourceEntry,
  op: Operation,
  changes: readonly PropertyChange[],
  baseOutputs: Record<string, unknown>,
): string | undefined {
  const rollout = ruleOf(now.type)?.rollout;
  if (rollout === undefined) return undefined;
  const deployed = rollout.deployed(baseOutputs, was.name);
  if (op === "replace") return rollout.replace(was, now, deployed);
  const rolls = changes.some(
    (c) =>
      (c.effect === "update" || c.effect === "unknown") &&
      c.path.startsWith("inputs.") &&
      rollout.rollOn.some((p) => underPath(c.path.slice("inputs.".length), p)),
  );
  if (rolls) return rollout.roll(was, now, deployed);
  if (op === "unknown") return `if it is replaced: ${rollout.replace(was, now, deployed)}`;
  const fields = [
    ...new Set(
      changes.filter((c) => c.path.startsWith("inputs.")).map((c) => c.path.split(".")[1].split("[")[0]),
    ),
  ];
  return op === "update" && fields.length > 0 ? rollout.inPlace?.(fields) : undefined;
}

/** What changes from `before` to `after`, judged as `pulumi preview` would. */
export function diffDocuments(before: ResourcesDocument, after: ResourcesDocument): PlanDiff {
  const base = byIdentity(before);
  const next = byIdentity(after);
  // A resource whose alias names a base one continues it: compared with it, and that one is not removed
  // (unless it was a remote component, whose child it was: the component goes, its child stays).
  const moves = new Map<string, Move>();
  for (const [identity, now] of next) {
    const move = base.has(identity) ? undefined : movedFrom(now, now.aliases.map(identityOf), base);
    if (move !== undefined) moves.set(identity, move);
  }
  const old = new Map(base);
  for (const [identity, move] of moves) {
    if (old.get(move.from)?.remote !== true) old.delete(move.from);
    old.set(identity, move.was);
  }
  // Depending on the moved resource, or on the component it was the child of, is depending on it still.
  const refOf = (doc: ResourcesDocument, identity: string) =>
    [...refIdentities(doc)].find(([, id]) => id === identity)?.[0];
  const renamed = new Map(
    [...moves].flatMap(([identity, move]) => {
      const [from, to] = [refOf(before, move.from), refOf(after, identity)];
      return from === undefined || to === undefined ? [] : [[from, to] as const];
    }),
  );
  const refs = refIdentities(after);
  // Headings shared by two resources (same type and name, different parents) get the identity appended.
  const identities = new Map<string, Set<string>>();
  for (const [identity, r] of [...old, ...next]) {
    const heading = `${r.type} ${r.name}`;
    identities.set(heading, (identities.get(heading) ?? new Set<string>()).add(identity));
  }
  const headingOf = (identity: string, r: ResourceEntry) => {
    const heading = `${r.type} ${r.name}`;
    return (identities.get(heading)?.size ?? 0) > 1 ? `${heading} (${identity})` : heading;
  };

  // Direct changes, each with its effect; a provider change is judged from both providers' entries.
  // Entries are referred to by `type::name`, or by URN where that is ambiguous (offline/plan.ts).
  const byRef = (doc: ResourcesDocument) =>
    new Map(doc.resources.flatMap((r) => [[r.urn, r] as const, [`${r.type}::${r.name}`, r] as const]));
  const providers = { before: byRef(before), after: byRef(after) };
  const changes = new Map<string, PropertyChange[]>();
  for (const [identity, now] of next) {
    const was = old.get(identity);
    if (was === undefined) continue;
    const dependencies = was.dependencies.map((ref) => renamed.get(ref) ?? ref);
    changes.set(
      identity,
      diffEntries({ ...was, dependencies }, now).map((c) => ({ ...c, ...effectOf(now, c, providers) })),
    );
  }

  cascade(
    next,
    changes,
    refs,
    (identity) => headingOf(identity, next.get(identity) as ResourceEntry),
    providers,
  );

  const added: ResourceDiff[] = [];
  const removed: ResourceDiff[] = [];
  const changed: ResourceDiff[] = [];
  let unchanged = 0;
  const blockedIfProtected = (entry: ResourceEntry, op: Operation) =>
    entry.options.protect && (op === "replace" || op === "delete")
      ? "protected: `pulumi up` refuses to replace or delete it (pulumi state unprotect, or protect: false first)"
      : undefined;
  for (const identity of [...next.keys()].sort(compare)) {
    const now = next.get(identity) as ResourceEntry;
    if (!old.has(identity)) {
      added.push({ heading: headingOf(identity, now), identity, op: "create", changes: [] });
      continue;
    }
    const own = changes.get(identity) ?? [];
    const op = operationOf(own);
    if (own.length === 0) {
      unchanged += 1;
      continue;
    }
    if (op === "same") unchanged += 1;
    const was = old.get(identity) as ResourceEntry;
    const blocked = blockedIfProtected(was, op);
    const rollout = rolloutOf(was, now, op, own, before.outputs);
    const moved = moves.get(identity);
    changed.push({
      heading: headingOf(identity, now),
      identity,
      op,
      changes: own,
      ...(moved !== undefined ? { moved: `continues ${moved.from} (alias)` } : {}),
      ...(blocked !== undefined ? { blocked } : {}),
      ...(op === "unknown" && was.options.protect
        ? { mayBlock: "protected: `pulumi up` stops if it is replaced" }
        : {}),
      ...(rollout !== undefined ? { rollout } : {}),
      ...(op === "replace" && deletesFirst(old.get(identity) as ResourceEntry, now)
        ? { deleteBeforeReplace: true }
        : {}),
    });
  }
  const parents = new Map([...moves].map(([identity, move]) => [move.from, identity]));
  for (const identity of [...old.keys()].sort(compare)) {
    if (next.has(identity)) continue;
    const was = old.get(identity) as ResourceEntry;
    const blocked = blockedIfProtected(was, "delete");
    const child = parents.get(identity);
    removed.push({
      heading: headingOf(identity, was),
      identity,
      op: "delete",
      changes: [],
      ...(child !== undefined
        ? { moved: `a component: its child continues as ${child}, nothing else goes` }
        : {}),
      ...(blocked !== undefined ? { blocked } : {}),
      ...(was.options.retainOnDelete ? { retained: true } : {}),
    });
  }

  const outputs: PropertyChange[] = [];
  diffValues("", before.outputs, after.outputs, outputs);
  // Kept, with no step planned, yet updated if the cluster holds what its diff looks for.
  const stepped = new Set([...added, ...changed].filter((r) => r.op !== "same").map((r) => r.identity));
  const decidedInUp: DecidedInUp[] = [...next.keys()]
    .filter((identity) => old.has(identity) && !stepped.has(identity))
    .sort(compare)
    .flatMap((identity) => {
      const entry = next.get(identity) as ResourceEntry;
      const why = ruleOf(entry.type)?.readsCluster;
      return why === undefined ? [] : [{ heading: headingOf(identity, entry), identity, why }];
    });
  return {
    before: { project: before.project, stack: before.stack },
    after: { project: after.project, stack: after.stack },
    added,
    removed,
    changed,
    unchanged,
    outputs,
    ...(decidedInUp.length > 0 ? { decidedInUp } : {}),
  };
}
