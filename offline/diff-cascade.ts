/**
 * Cascades: what changes in a resource because of a change to another one it is built from. An input
 * taken from a replaced resource's identity (its id, ARN, name) changes with it; an input taken from a
 * resource that may be replaced may change; an input taken from another output of a resource whose
 * in-place update changes that output (its rule's updateOutputs: a launch template's latestVersion)
 * changes too. Each such input is judged by the dependent's own rule, like a direct change.
 */
import type { Effect, Operation, PropertyChange } from "./diff-types";
import { type Providers, changedOutputs, effectOf, splitByIdentity } from "./diff-effects";
import type { ResourceEntry } from "./plan";

type Cause =
  | { readonly kind: "replace" | "unknown"; readonly source: string }
  | { readonly kind: "outputs"; readonly source: string; readonly outputs: readonly string[]; why: string };

export function operationOf(changes: readonly PropertyChange[]): Operation {
  const effects = new Set(changes.map((c) => c.effect));
  if (effects.has("replace")) return "replace";
  if (effects.has("unknown")) return "unknown";
  if (effects.has("update")) return "update";
  return "same";
}

/** A cascaded change to a replaced or possibly replaced input keeps the weaker of the two certainties. */
function cascadedEffect(cause: "replace" | "unknown", judged: Effect): Effect {
  if (judged === "ignored") return "ignored";
  if (cause === "unknown" && (judged === "replace" || judged === "update")) return "unknown";
  return judged;
}

/**
 * Adds every cascaded change to `changes` (by resource identity), until nothing more changes. `refs` maps
 * a reference used inside `next` (`type::name` or URN) to the identity of the resource it names.
 */
export function cascade(
  next: ReadonlyMap<string, ResourceEntry>,
  changes: Map<string, PropertyChange[]>,
  refs: ReadonlyMap<string, string>,
  headingOf: (identity: string) => string,
  providers: Providers,
): void {
  const causeOf = (ref: string | undefined): Cause | undefined => {
    const source = ref === undefined ? undefined : refs.get(ref);
    if (source === undefined) return undefined;
    const own = changes.get(source) ?? [];
    const op = operationOf(own);
    if (op === "replace" || op === "unknown") return { kind: op, source };
    const entry = next.get(source);
    const outputs = entry !== undefined && op === "update" ? changedOutputs(entry, own) : undefined;
    return outputs !== undefined ? { kind: "outputs", source, ...outputs } : undefined;
  };
  let grew = true;
  while (grew) {
    grew = false;
    for (const [identity, now] of next) {
      const own = changes.get(identity);
      if (own === undefined) continue;
      const add = (change: PropertyChange) => {
        if (own.some((c) => c.path === change.path && c.note === change.note)) return;
        own.push(change);
        grew = true;
      };
      const provider = causeOf(now.provider);
      if (provider !== undefined && provider.kind !== "outputs") {
        const replaced = provider.kind === "replace";
        add({
          path: "provider",
          before: now.provider,
          after: now.provider,
          effect: replaced ? "replace" : "unknown",
          note: `its provider ${replaced ? "is replaced" : "may be replaced"} (${headingOf(provider.source)})`,
        });
      }
      // Inputs taken from another resource's outputs, and inputs that are a reference to one (a resource
      // passed as an input, such as a node group's `cluster`, is not listed per property).
      const inputSources = new Map(Object.entries(now.propertyDependencies).map(([k, d]) => [k, [...d]]));
      for (const [key, value] of Object.entries(now.inputs)) {
        if (typeof value === "string" && refs.has(value))
          inputSources.set(key, [...(inputSources.get(key) ?? []), value]);
      }
      for (const [key, deps] of inputSources) {
        const value = now.inputs[key];
        const wholeReference = typeof value === "string" && refs.has(value);
        for (const dep of deps) {
          const cause = causeOf(dep);
          const source = cause === undefined ? undefined : next.get(cause.source);
          if (cause === undefined || source === undefined) continue;
          const parts = splitByIdentity(key, value, source);
          const judge = (path: string) => {
            const change = { path: `inputs.${path}`, before: "(current)", after: "(new)" };
            return { change, judged: effectOf(now, change, providers) };
          };
          if (cause.kind === "outputs") {
            if (wholeReference) continue;
            // Where no leaf holds the source's identity, which leaves took the outputs cannot be told:
            // the input as a whole (a CRD's spec built from the takeover step's schemas).
            for (const path of parts.identity.length === 0 ? [key] : parts.other) {
              const { change, judged } = judge(path);
              add({
                ...change,
                effect: judged.effect,
                note: `takes ${cause.outputs.join(", ")} from ${headingOf(cause.source)}, which its update changes: ${cause.why}${judged.effect === "unknown" ? `; ${judged.note}` : ""}`,
                ...(judged.effect === "replace" ? { source: judged.source } : {}),
              });
            }
            continue;
          }
          // A replaced resource's identity changes; where the input holds none of it, the whole input may.
          const paths = wholeReference || parts.identity.length === 0 ? [key] : parts.identity;
          for (const path of paths) {
            const { change, judged } = judge(path);
            const effect = cascadedEffect(cause.kind, judged.effect);
            const why = `${cause.kind === "replace" ? "changes when" : "may change if"} ${headingOf(cause.source)} is replaced`;
            add({
              ...change,
              effect,
              note: judged.effect === "unknown" && judged.note !== undefined ? `${why}; ${judged.note}` : why,
              ...(effect === "replace" ? { source: judged.source } : {}),
            });
          }
        }
      }
    }
  }
}
