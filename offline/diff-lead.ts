/**
 * The first lines of a diff: what the change does, per component of the stack, in plain words: what is
 * new, replaced, removed or updated, which workloads roll their pods, what happens to each node group's
 * nodes and for how long, and that the enforcement probe runs again. Read from the diff alone; the
 * resources follow below it (diff-render.ts).
 */
import type { ResourceDiff } from "./diff-types";

/** The components by type token, as a reader names them. */
const COMPONENTS: Readonly<Record<string, string>> = {
  "eks-calico:network:Network": "network",
  "eks-calico:cluster:Cluster": "cluster",
  "eks-calico:calico:PolicyOnly": "Calico",
  "eks-calico:calico:Operator": "Calico (operator)",
  "eks-calico:calico:PolicyProbe": "the enforcement probe",
  "eks-calico:karpenter:Karpenter": "Karpenter",
};

/** The probe's component: its resources are named from the run's hash, so each run replaces them. */
export const PROBE_COMPONENT = "eks-calico:calico:PolicyProbe";

/** The innermost component of the stack's own a resource belongs to: the last `eks-calico:` type of its chain. */
export function componentOf(identity: string): string {
  const chain = identity.split("::")[0].split("$");
  return chain.filter((type) => type.startsWith("eks-calico:")).pop() ?? "pulumi:pulumi:Stack";
}

const WORKLOADS = ["kubernetes:apps/v1:DaemonSet", "kubernetes:apps/v1:Deployment"];

/** A workload whose pod template changes: its controller replaces its pods. */
function rolls(r: ResourceDiff): boolean {
  const type = r.heading.split(" ")[0];
  return (
    r.op === "update" &&
    WORKLOADS.includes(type) &&
    r.changes.some((c) => c.path.startsWith("inputs.spec.template"))
  );
}

function counted(resources: readonly ResourceDiff[]): string {
  const words: [ResourceDiff["op"], string][] = [
    ["create", "new"],
    ["replace", "replaced"],
    ["delete", "removed"],
    ["unknown", "may be replaced"],
    ["update", "updated"],
  ];
  return words
    .map(([op, word]) => [resources.filter((r) => r.op === op).length, word] as const)
    .filter(([n]) => n > 0)
    .map(([n, word]) => `${n} ${word}`)
    .join(", ");
}

/** One line per component the change touches, with its rolls and node group lines under it. */
export function leadLines(resources: readonly ResourceDiff[]): string[] {
  const stepped = resources.filter((r) => r.op !== "same");
  if (stepped.length === 0) return [];
  const components = [...new Set(stepped.map((r) => componentOf(r.identity)))];
  const lines = ["What it does:"];
  for (const component of components) {
    const own = stepped.filter((r) => componentOf(r.identity) === component);
    const name = COMPONENTS[component] ?? component;
    if (component === PROBE_COMPONENT) {
      lines.push(`  ${name} runs again (${counted(own)}): it proves enforcement on the nodes there are`);
      continue;
    }
    const retained = own.filter((r) => r.retained === true).length;
    lines.push(
      `  ${name}: ${counted(own)}${retained > 0 ? ` (${retained} removed from the stack only, kept)` : ""}`,
    );
    for (const r of own.filter(rolls)) lines.push(`    ${r.heading.split(" ")[1]} rolls its pods`);
    for (const r of own.filter((x) => x.rollout !== undefined)) {
      lines.push(`    ${r.heading.split(" ")[1]}: ${r.rollout}`);
    }
  }
  return lines;
}
