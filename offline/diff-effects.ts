/**
 * What one property change does to a resource: the replacement rules per type (replacements.ts), the
 * resource's own options, and for a change of provider, whether the new provider manages the same cluster.
 */
import { SECRET_MASK, type ResourceEntry } from "./plan";
import type { Effect, PropertyChange } from "./diff";
import { REPLACEMENT_RULES, underPath } from "./replacements";

/** Provider entries by reference (`type::name` or URN), in the base document and in the new one. */
export interface Providers {
  readonly before: ReadonlyMap<string, ResourceEntry>;
  readonly after: ReadonlyMap<string, ResourceEntry>;
}

/**
 * A resource moved to another provider. The engine asks the new provider's DiffConfig, old provider's
 * inputs against the new one's (pulumi/pulumi pkg/resource/deploy/step_generator.go `providerChanged`).
 * pulumi-kubernetes (provider/pkg/provider/provider.go DiffConfig) never replaces when `clusterIdentifier`
 * is present and the same, always when it was changed, and otherwise only when the kubeconfig's active
 * cluster changes. A masked kubeconfig cannot be compared, so without a shared identifier the move is
 * judged a replacement.
 */
function providerSwitch(change: PropertyChange, providers: Providers): { effect: Effect; note: string } {
  const urnOf = (ref: unknown) => (typeof ref === "string" ? ref : "");
  const was = providers.before.get(urnOf(change.before));
  const now = providers.after.get(urnOf(change.after));
  const kubernetes = "pulumi:providers:kubernetes";
  const replaced = { effect: "replace" as const, note: "another provider" };
  if (was?.type !== kubernetes || now?.type !== kubernetes) return replaced;
  const moved = {
    effect: "update" as const,
    note: "another provider for the same cluster: moved, not replaced",
  };
  const [before, after] = [was.inputs.clusterIdentifier, now.inputs.clusterIdentifier];
  if (before !== undefined && after !== undefined) return before === after ? moved : replaced;
  const [k1, k2] = [was.inputs.kubeconfig, now.inputs.kubeconfig];
  return typeof k1 === "string" && k1 !== SECRET_MASK && k1 === k2 ? moved : replaced;
}

/** What one property change does to `entry`, by the replacement rules and the resource's options. */
export function effectOf(
  entry: ResourceEntry,
  change: PropertyChange,
  providers: Providers,
): { effect: Effect; note?: string } {
  if (change.path === "provider") return providerSwitch(change, providers);
  if (!change.path.startsWith("inputs.")) return { effect: "update" };
  const path = change.path.slice("inputs.".length);
  if (entry.options.ignoreChanges.some((ignored) => underPath(path, ignored))) {
    return { effect: "ignored", note: "ignoreChanges" };
  }
  const rule = Object.hasOwn(REPLACEMENT_RULES, entry.type) ? REPLACEMENT_RULES[entry.type] : undefined;
  const ignoredInside = rule?.ignored?.find((i) => underPath(path, i.path) && i.when(entry.inputs));
  if (ignoredInside !== undefined) return { effect: "ignored", note: ignoredInside.why };
  if (
    rule?.replaceOnAnyChange === true ||
    (rule?.replaceOn ?? []).some((p) => underPath(path, p)) ||
    entry.options.replaceOnChanges.some((p) => underPath(path, p))
  ) {
    return { effect: "replace" };
  }
  if ((rule?.updateOn ?? []).some((p) => underPath(path, p))) return { effect: "update" };
  if (rule?.remote !== undefined) return { effect: "unknown", note: rule.remote };
  if (rule === undefined && entry.custom)
    return { effect: "unknown", note: `no replacement rule for ${entry.type}` };
  return { effect: "update" };
}
