/**
 * The dependency graph of an evaluated stack, the one Pulumi orders creation and deletion by: an edge
 * from a resource to each URN it depends on (explicit `dependsOn` and inputs taken from other resources).
 */
import type { ResourceRecord, StackEvaluation } from "./engine";

export type DependencyGraph = ReadonlyMap<string, ReadonlySet<string>>;

/** URN to the URNs it depends on directly. */
export function dependencyGraph(evaluation: StackEvaluation): Map<string, Set<string>> {
  return new Map(evaluation.resources.map((r) => [r.urn, new Set(r.dependencies)]));
}

/** Every URN `urn` depends on, directly or through others. */
export function dependenciesOf(graph: DependencyGraph, urn: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(graph.get(urn) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(graph.get(next) ?? []));
  }
  return seen;
}

/** Dependencies that come from `dependsOn` only, not from an input. */
export function explicitDependencies(record: ResourceRecord): string[] {
  const fromInputs = new Set(Object.values(record.propertyDependencies).flat());
  return record.dependencies.filter((urn) => !fromInputs.has(urn));
}
