/**
 * What one property change does to a resource: the replacement rules per type (replacements.ts), the
 * resource's own options, and for a change of provider, whether the new provider manages the same cluster.
 * Also which parts of an input came from another resource's identity, for the cascades in diff-cascade.ts.
 */
import { SECRET_MASK, type ResourceEntry } from "./plan";
import type { Effect, PropertyChange, ReplacementRule } from "./diff-types";
import { REPLACEMENT_RULES, replacementRef, underPath } from "./replacements";
import { shortType } from "./world/placeholders";

/** Provider entries by reference (`type::name` or URN), in the base document and in the new one. */
export interface Providers {
  readonly before: ReadonlyMap<string, ResourceEntry>;
  readonly after: ReadonlyMap<string, ResourceEntry>;
}

/** What a change does, why, and for a replacement the rule that says so. */
export interface Judged {
  readonly effect: Effect;
  readonly note?: string;
  readonly source?: string;
}

export function ruleOf(type: string): ReplacementRule | undefined {
  return Object.hasOwn(REPLACEMENT_RULES, type) ? REPLACEMENT_RULES[type] : undefined;
}

/**
 * A resource moved to another provider. The engine asks the new provider's DiffConfig, old provider's
 * inputs against the new one's (pulumi/pulumi pkg/resource/deploy/step_generator.go `providerChanged`).
 * pulumi-kubernetes (provider/pkg/provider/provider.go DiffConfig) never replaces when `clusterIdentifier`
 * is present and the same, always when it was changed, and otherwise only when the kubeconfig's active
 * cluster changes. A masked kubeconfig cannot be compared, so without a shared identifier the move is
 * judged a replacement.
 */
function providerSwitch(change: PropertyChange, providers: Providers): Judged {
  const urnOf = (ref: unknown) => (typeof ref === "string" ? ref : "");
  const was = providers.before.get(urnOf(change.before));
  const now = providers.after.get(urnOf(change.after));
  const kubernetes = "pulumi:providers:kubernetes";
  const source = "pulumi/pulumi step_generator.go providerChanged; pulumi-kubernetes DiffConfig";
  const replaced = { effect: "replace" as const, note: "another provider", source };
  if (was?.type !== kubernetes || now?.type !== kubernetes) return replaced;
  // Moved, not replaced: the engine then diffs the inputs alone, as for any resource (step_generator.go
  // diff: providerChanged false), so the move itself takes no step.
  const moved = {
    effect: "ignored" as const,
    note: "another provider for the same cluster: moved, not replaced",
  };
  const [before, after] = [was.inputs.clusterIdentifier, now.inputs.clusterIdentifier];
  if (before !== undefined && after !== undefined) return before === after ? moved : replaced;
  const [k1, k2] = [was.inputs.kubeconfig, now.inputs.kubeconfig];
  return typeof k1 === "string" && k1 !== SECRET_MASK && k1 === k2 ? moved : replaced;
}

/** What one property change does to `entry`, by the replacement rules and the resource's options. */
export function effectOf(entry: ResourceEntry, change: PropertyChange, providers: Providers): Judged {
  if (change.path === "provider") return providerSwitch(change, providers);
  // A resource option or a dependency: the engine keeps it with the state and takes no step for it; the
  // step follows the provider's diff of the inputs alone (pulumi/pulumi pkg/resource/deploy
  // step_generator.go generateStepsFromDiff, v3.248.0).
  if (!change.path.startsWith("inputs.")) return { effect: "ignored", note: "an option: no step of its own" };
  const path = change.path.slice("inputs.".length);
  if (entry.options.ignoreChanges.some((ignored) => underPath(path, ignored))) {
    return { effect: "ignored", note: "ignoreChanges" };
  }
  const rule = ruleOf(entry.type);
  const ignoredInside = rule?.ignored?.find((i) => underPath(path, i.path) && i.when(entry.inputs));
  if (ignoredInside !== undefined) return { effect: "ignored", note: ignoredInside.why };
  if (rule?.replaceOnAnyChange === true) return { effect: "replace", source: rule.source };
  const forced = rule?.replaceOn.find((p) => underPath(path, p));
  if (forced !== undefined) return { effect: "replace", source: replacementRef(entry.type, forced) };
  // A whole input whose value is not known (known after up, or taken from a replaced resource) may change
  // a path within it that replaces the resource.
  const within = rule?.replaceOn.find((p) => underPath(p, path));
  if (within !== undefined) {
    return { effect: "unknown", note: `${within}, which replaces it, may change with ${path}` };
  }
  if (entry.options.replaceOnChanges.some((p) => underPath(path, p))) {
    return { effect: "replace", source: "the resource's replaceOnChanges option" };
  }
  if ((rule?.updateOn ?? []).some((p) => underPath(path, p))) return { effect: "update" };
  if (rule?.remote !== undefined) {
    const narrower = Object.entries(rule.mayReplace ?? {}).find(([p]) => underPath(path, p));
    return { effect: "unknown", note: narrower?.[1] ?? rule.remote };
  }
  if (rule === undefined && entry.custom)
    return { effect: "unknown", note: `no replacement rule for ${entry.type}` };
  const note = Object.entries(rule?.updateNotes ?? {}).find(([p]) => underPath(path, p))?.[1];
  return note === undefined ? { effect: "update" } : { effect: "update", note };
}

/**
 * Whether a string holds a placeholder for `source`'s identity (its id, ARN or name as the offline world
 * shows them, `<subnet-id:network-private-us-west-2a>`): such a value stays while the resource is
 * updated and changes when it is replaced.
 */
function namesIdentity(value: string, source: ResourceEntry): boolean {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`<${escape(shortType(source.type))}(-[A-Za-z-]+)?:${escape(source.name)}>`).test(value);
}

/** Every leaf under `value` with its input path, `launchTemplate.id`, `subnetIds[0]`. */
function leaves(path: string, value: unknown): { path: string; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(`${path}[${i}]`, v));
  if (value !== null && typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leaves(`${path}.${k}`, v));
  }
  return [{ path, value }];
}

/**
 * The leaves of input `key` that carry `source`'s identity, and the others. A leaf that is not the
 * source's identity but came from it (the input depends on it) is one of its other outputs, such as a
 * launch template's latestVersion.
 */
export function splitByIdentity(
  key: string,
  value: unknown,
  source: ResourceEntry,
): { identity: string[]; other: string[] } {
  const all = leaves(key, value);
  const isIdentity = (v: unknown) => typeof v === "string" && namesIdentity(v, source);
  return {
    identity: all.filter((l) => isIdentity(l.value)).map((l) => l.path),
    other: all.filter((l) => !isIdentity(l.value)).map((l) => l.path),
  };
}

/**
 * The outputs `entry`'s in-place update changes, by its rule's updateOutputs: undefined unless one of its
 * own changes updates an input outside the rule's `except`.
 */
export function changedOutputs(
  entry: ResourceEntry,
  changes: readonly PropertyChange[],
): { outputs: readonly string[]; why: string } | undefined {
  const rule = ruleOf(entry.type)?.updateOutputs;
  if (rule === undefined) return undefined;
  const changing = changes.some(
    (c) =>
      c.effect === "update" &&
      c.path.startsWith("inputs.") &&
      !rule.except.some((p) => underPath(c.path.slice("inputs.".length), p)),
  );
  return changing ? rule : undefined;
}
