/**
 * The offline plan: what `npm start` prints and writes for one evaluated stack. Pure functions over a
 * StackEvaluation (no I/O, no clock), so the files are byte-identical from run to run and tests check
 * exactly the text the CLI writes.
 */
import { createHash } from "node:crypto";
import type { ResourceRecord, StackEvaluation } from "./records";
import { Hierarchy, byTypeAndName, compare, isComponent } from "./hierarchy";

/** Type token of the Calico component; calico.yaml holds the Kubernetes objects beneath it. */
export const CALICO_COMPONENT_TYPE = "eks-calico:calico:PolicyOnly";
/** The Calico component of the operator install mode. */
export const CALICO_OPERATOR_TYPE = "eks-calico:calico:Operator";
/** Either install mode's component: the root of every Calico object. */
export const CALICO_COMPONENT_TYPES: readonly string[] = [CALICO_COMPONENT_TYPE, CALICO_OPERATOR_TYPE];

/**
 * What a value `pulumi preview` shows as unknown is recorded as (offline/engine.ts): it is known only once
 * `pulumi up` has run (what the cluster reports, what a step reads from it).
 */
export const KNOWN_AFTER_UP = "known after up";

/** What a secret value is replaced with in everything the plan prints or writes. */
export const SECRET_MASK = "[secret]";

/**
 * Bumped when the resources.json layout changes, so a diff against an older file can say so instead of
 * misjudging it. 2: URNs carry a resource's whole parent chain, as the engine names it.
 */
export const RESOURCES_FORMAT_VERSION = 2;

export const LEGEND =
  "Legend: <kind:resource-name> is a placeholder for a value only AWS or the cluster knows (an id, an ARN, " +
  "an endpoint), <pem:...> one for a certificate made at deploy time; [secret] is a secret value; (remote) " +
  "components are implemented by a provider plugin, which creates their children at deploy time.";

/**
 * What the plan cannot know, said once at its head: what only the cluster reports, and where the plan is
 * held to the real engine.
 */
export const KNOWN_AFTER_UP_NOTE =
  `"${KNOWN_AFTER_UP}" marks a value \`pulumi preview\` shows as unknown, which the cluster reports once ` +
  "`pulumi up` has run: calico-node's current, up-to-date, ready and available pods, Typha's ready replicas, " +
  "isReady, policyEnforced and what the probe proved, when Typha's certificates (issued by `pulumi up`) expire, " +
  "the operator's calicoVersion, where the scheduler places " +
  "the probe's pods, and what the takeover and the other steps find in the cluster. calico.desired is the nodes " +
  "of the stack's node groups, calico-node running on each. `npm run test:cluster` holds this to the real engine " +
  "on a real control plane.";

/**
 * One resource in resources.json: the engine's record, with references to other resources written
 * `type::name` (or a URN if ambiguous) and secret inputs masked.
 */
export type ResourceEntry = ResourceRecord;

/** The resources.json document. */
export interface ResourcesDocument {
  readonly formatVersion: number;
  readonly project: string;
  readonly stack: string;
  /** Sorted by URN. */
  readonly resources: ResourceEntry[];
  /** Stack outputs as exported, secret ones masked. */
  readonly outputs: Record<string, unknown>;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A copy with object keys sorted at every level, so serializations do not depend on insertion order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => [key, sortKeys(value[key])]),
  );
}

/** Two-space JSON with sorted keys and a final newline. */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** `type::name` for each URN, or the URN itself where two resources share a type and name. */
export function resourceRefs(evaluation: StackEvaluation): Map<string, string> {
  const counts = new Map<string, number>();
  for (const r of evaluation.resources) {
    const key = `${r.type}::${r.name}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return new Map(
    evaluation.resources.map((r) => {
      const key = `${r.type}::${r.name}`;
      return [r.urn, counts.get(key) === 1 ? key : r.urn];
    }),
  );
}

/** Input keys of `record` to mask: those holding a secret. */
export function maskedInputKeys(record: ResourceRecord): string[] {
  return record.secretInputs.filter((key) => key in record.inputs).sort();
}

/** What a PEM block (a certificate the tls provider makes at deploy time) is shown as. */
export const PEM_PLACEHOLDER = "<pem:made by the tls provider at deploy time>";

/** PEM blocks replaced by {@link PEM_PLACEHOLDER}: new keys and signatures at every run, like ids. */
function withoutPem(value: unknown): unknown {
  if (typeof value === "string") return value.includes("-----BEGIN ") ? PEM_PLACEHOLDER : value;
  if (Array.isArray(value)) return value.map(withoutPem);
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutPem(v)]));
  return value;
}

/**
 * A dynamic resource's serialized provider (`__provider`, the code `pulumi up` runs for it) shown by its
 * digest: a change to that code still shows in the diff, without kilobytes of generated JavaScript.
 */
function providerCode(value: unknown): string {
  const digest = createHash("sha256").update(String(value)).digest("hex").slice(0, 12);
  return `<dynamic provider code sha256:${digest}>`;
}

/** Inputs with secrets masked and generated PEM blocks replaced by a placeholder. */
export function maskedInputs(record: ResourceRecord): Record<string, unknown> {
  const masked = new Set(maskedInputKeys(record));
  return Object.fromEntries(
    Object.entries(record.inputs).map(([key, value]) => [
      key,
      masked.has(key) ? SECRET_MASK : key === "__provider" ? providerCode(value) : withoutPem(value),
    ]),
  );
}

/** Stack outputs with secrets masked. */
export function maskedOutputs(evaluation: StackEvaluation): Record<string, unknown> {
  const secret = new Set(evaluation.secretOutputs);
  return Object.fromEntries(
    Object.entries(evaluation.outputs).map(([key, value]) => [key, secret.has(key) ? SECRET_MASK : value]),
  );
}

/** Replaces strings that are URNs of resources in the stack with their ref (stack-independent). */
function withRefs(value: unknown, refs: ReadonlyMap<string, string>): unknown {
  if (typeof value === "string") return refs.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => withRefs(item, refs));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRefs(v, refs)]));
  }
  return value;
}

/** The resources.json document: every resource, secrets masked, sorted by URN. */
export function resourcesDocument(evaluation: StackEvaluation): ResourcesDocument {
  const refs = resourceRefs(evaluation);
  const ref = (urn: string) => refs.get(urn) ?? urn;
  const resources = [...evaluation.resources]
    .sort((a, b) => compare(a.urn, b.urn))
    .map((r): ResourceEntry => ({
      urn: r.urn,
      type: r.type,
      name: r.name,
      custom: r.custom,
      remote: r.remote,
      ...(r.parent !== undefined ? { parent: ref(r.parent) } : {}),
      ...(r.provider !== undefined ? { provider: ref(r.provider) } : {}),
      dependencies: r.dependencies.map(ref).sort(compare),
      propertyDependencies: Object.fromEntries(
        Object.entries(r.propertyDependencies).map(([key, urns]) => [key, urns.map(ref).sort(compare)]),
      ),
      inputs: withRefs(maskedInputs(r), refs) as Record<string, unknown>,
      secretInputs: maskedInputKeys(r),
      aliases: r.aliases,
      options: r.options,
    }));
  return {
    formatVersion: RESOURCES_FORMAT_VERSION,
    project: evaluation.project,
    stack: evaluation.stack,
    resources,
    outputs: maskedOutputs(evaluation),
  };
}

export function renderResourcesJson(evaluation: StackEvaluation): string {
  return stableJson(resourcesDocument(evaluation));
}

/** One value as the tree prints it: compact JSON, or indented when long. */
function formatOutput(value: unknown, indent: string): string {
  const compact = JSON.stringify(value);
  if (compact === undefined) return "undefined";
  if (compact.length <= 100) return compact;
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`);
}

/**
 * The readable plan: the resource tree by component (parent/child indentation), resource counts per
 * type, and the stack outputs as exported, with a legend for placeholders and masked secrets.
 */
export function renderTree(evaluation: StackEvaluation): string {
  const tree = new Hierarchy(evaluation.resources);
  const lines: string[] = [
    `Stack ${evaluation.stack} (project ${evaluation.project}): ${evaluation.resources.length} resources`,
    LEGEND,
    KNOWN_AFTER_UP_NOTE,
    "",
  ];

  const describe = (r: ResourceRecord): string => {
    const notes: string[] = [];
    if (r.remote) notes.push("(remote)");
    else if (isComponent(r)) notes.push(`(${tree.descendantCount(r.urn)} resources)`);
    if (r.options.protect) notes.push("[protect]");
    if (r.options.retainOnDelete) notes.push("[retain on delete]");
    if (r.options.importId !== undefined) notes.push(`[import ${r.options.importId}]`);
    return [`${r.type} ${r.name}`, ...notes].join("  ");
  };
  const walk = (r: ResourceRecord, prefix: string, last: boolean, root: boolean) => {
    lines.push(root ? describe(r) : `${prefix}${last ? "└─ " : "├─ "}${describe(r)}`);
    const childPrefix = root ? "" : `${prefix}${last ? "   " : "│  "}`;
    const children = tree.childrenOf(r.urn);
    children.forEach((child, i) => walk(child, childPrefix, i === children.length - 1, false));
  };
  [...tree.roots].sort(byTypeAndName).forEach((root) => walk(root, "", true, true));

  // Per type: how many, and under which components.
  const types = new Map<string, { count: number; components: Set<string> }>();
  for (const r of evaluation.resources) {
    const entry = types.get(r.type) ?? { count: 0, components: new Set<string>() };
    entry.count += 1;
    const owner = r.custom ? tree.owner(r) : (tree.ancestors(r)[0] ?? r);
    if (isComponent(owner)) entry.components.add(owner.name);
    types.set(r.type, entry);
  }
  const typeWidth = Math.max(...[...types.keys()].map((t) => t.length));
  const countWidth = String(evaluation.resources.length).length;
  lines.push("", "Resources by type:");
  for (const [type, { count, components }] of [...types].sort(([a], [b]) => compare(a, b))) {
    const where = components.size > 0 ? `  in ${[...components].sort(compare).join(", ")}` : "";
    lines.push(`  ${String(count).padStart(countWidth)}  ${type.padEnd(typeWidth)}${where}`.trimEnd());
  }
  lines.push(`  ${String(evaluation.resources.length).padStart(countWidth)}  total`);

  const outputs = maskedOutputs(evaluation);
  const keys = Object.keys(outputs).sort(compare);
  lines.push("", "Outputs:");
  if (keys.length === 0) lines.push("  (none)");
  const keyWidth = Math.max(0, ...keys.map((k) => k.length));
  for (const key of keys) {
    const value = outputs[key] === SECRET_MASK ? SECRET_MASK : formatOutput(outputs[key], "    ");
    lines.push(`  ${key.padEnd(keyWidth)}: ${value}`);
  }
  const notes = evaluation.simulated.length === 0 ? ["(none)"] : evaluation.simulated;
  lines.push("", SIMULATED_HEADING, ...notes.map((note) => `  ${note}`));
  return `${lines.join("\n")}\n`;
}

/** Heads the list of what the offline world answered in AWS's place. */
export const SIMULATED_HEADING =
  "Simulated (what the offline world answered in AWS's place; calico.desired counts the node groups' nodes " +
  "from it):";
