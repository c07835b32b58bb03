/** graph.mmd: a Mermaid graph of the plan's components and the dependencies between them. */
import type { ResourceRecord, StackEvaluation } from "./engine";
import { Hierarchy, compare } from "./hierarchy";
import { isPlainObject } from "./plan";

/** Mermaid ids: letters, digits and underscores, derived from type and name so they survive edits. */
function mermaidId(r: ResourceRecord): string {
  if (r.type === "pulumi:pulumi:Stack") return "stack";
  const kind = r.type.split(":").pop() ?? r.type;
  return `${kind}_${r.name}`.replace(/[^A-Za-z0-9_]/g, "_");
}

/** URNs a resource depends on: explicit and implicit dependencies, its provider, and resource references in its inputs. */
function dependencyUrns(r: ResourceRecord, known: ReadonlyMap<string, ResourceRecord>): string[] {
  const urns = new Set([...r.dependencies, ...(r.provider !== undefined ? [r.provider] : [])]);
  const visit = (value: unknown) => {
    if (typeof value === "string" && known.has(value)) urns.add(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (isPlainObject(value)) Object.values(value).forEach(visit);
  };
  visit(r.inputs);
  return [...urns].filter((urn) => known.has(urn));
}

/**
 * graph.mmd: a Mermaid flowchart of the stack, its components and the remote (provider-implemented)
 * components. Solid edges go from parent to child; a dotted edge A -.-> B means something in A uses
 * something in B (an input, a dependsOn or a provider), A and B being neither parent nor child.
 */
export function renderGraph(evaluation: StackEvaluation): string {
  const tree = new Hierarchy(evaluation.resources);
  const nodes = evaluation.resources.filter((r) => !r.custom).sort((a, b) => compare(a.urn, b.urn));

  const ids = new Map<string, string>();
  const taken = new Set<string>();
  for (const node of nodes) {
    let id = mermaidId(node);
    for (let n = 2; taken.has(id); n++) id = `${mermaidId(node)}_${n}`;
    taken.add(id);
    ids.set(node.urn, id);
  }
  const idOf = (r: ResourceRecord) => ids.get(r.urn) ?? "";
  const nodeOwner = (r: ResourceRecord) => tree.owner(r);
  const related = (a: ResourceRecord, b: ResourceRecord) =>
    a.urn === b.urn || tree.ancestors(a).includes(b) || tree.ancestors(b).includes(a);

  const lines = [
    "graph TD",
    `  %% Stack ${evaluation.stack}: solid edges go from parent to child; A -.-> B means A uses B.`,
  ];
  for (const node of nodes) {
    let label: string;
    if (node.type === "pulumi:pulumi:Stack") label = `stack ${evaluation.stack}`;
    else if (node.remote) label = `${node.name}<br/>${node.type} (remote)`;
    else label = `${node.name}<br/>${node.type}, ${tree.descendantCount(node.urn)} resources`;
    lines.push(`  ${idOf(node)}["${label.replace(/"/g, "#quot;")}"]`);
  }

  const edges = new Set<string>();
  for (const node of nodes) {
    if (node.parent === undefined) continue;
    const parent = tree.byUrn.get(node.parent);
    if (parent !== undefined) edges.add(`  ${idOf(nodeOwner(parent))} --> ${idOf(node)}`);
  }
  const uses = new Set<string>();
  for (const r of evaluation.resources) {
    const from = nodeOwner(r);
    for (const urn of dependencyUrns(r, tree.byUrn)) {
      const dependency = tree.byUrn.get(urn);
      if (dependency === undefined) continue;
      const to = nodeOwner(dependency);
      if (!related(from, to)) uses.add(`  ${idOf(from)} -.-> ${idOf(to)}`);
    }
  }
  lines.push(...[...edges].sort(compare), ...[...uses].sort(compare));

  const remote = nodes.filter((n) => n.remote).map(idOf);
  if (remote.length > 0) {
    lines.push("  classDef remote stroke-dasharray: 5 5", `  class ${remote.join(",")} remote`);
  }
  return `${lines.join("\n")}\n`;
}
