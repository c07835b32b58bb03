/**
 * The diff as text, in `pulumi preview`'s vocabulary: a summary of creates, updates, replacements and
 * deletes, then each resource with `+`, `~`, `+-`, `-` (and `?` for "may replace", where the outcome is
 * decided inside @pulumi/eks or by AWS), its changed properties, what each does and, for a replacement,
 * the rule that forces it.
 */
import { type PlanDiff, type PropertyChange, type ResourceDiff, blockedResources } from "./diff";

const SYMBOLS: Record<ResourceDiff["op"], string> = {
  create: "+",
  update: "~",
  replace: "+-",
  delete: "-",
  unknown: "?",
  same: "=",
};

/** A value as a diff line shows it: JSON, long values shortened. */
function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

const EFFECT_NOTES: Record<string, string> = {
  replace: "forces replacement",
  unknown: "may replace",
  ignored: "ignored",
};

function changeLine(change: PropertyChange): string {
  const effect =
    change.effect === undefined || change.effect === "update" ? undefined : EFFECT_NOTES[change.effect];
  // A replacement names the rule that forces it: `aws_vpc cidr_block ForceNew, terraform-provider-aws ...`.
  const why = [change.note, change.effect === "replace" ? change.source : undefined]
    .filter((n) => n !== undefined)
    .join("; ");
  const note = [effect, why === "" ? undefined : why].filter((n) => n !== undefined).join(": ");
  const suffix = note === "" ? "" : `  (${note})`;
  if (change.path === "dependencies") {
    // Members are resource refs, shown bare: `+ aws:ec2/subnet:Subnet::network-private-us-west-2c`.
    const ref = (value: unknown) => (typeof value === "string" ? value : show(value));
    return change.after !== undefined
      ? `    dependencies: + ${ref(change.after)}`
      : `    dependencies: - ${ref(change.before)}`;
  }
  if (change.before === "(current)" && change.after === "(new)") return `    ${change.path}${suffix}`;
  if (change.path === "provider" && change.before === change.after) return `    provider${suffix}`;
  return `    ${change.path}: ${show(change.before)} → ${show(change.after)}${suffix}`;
}

function resourceLines(r: ResourceDiff): string[] {
  const flags = [
    r.op === "same" ? "no step: only ignored changes and options" : undefined,
    r.deleteBeforeReplace === true ? "delete before replace" : undefined,
    r.retained === true ? "retained: removed from the stack, kept in the cluster" : undefined,
    r.blocked !== undefined ? `BLOCKED: ${r.blocked}` : undefined,
    r.mayBlock,
    r.moved,
  ].filter((f) => f !== undefined);
  return [
    `${SYMBOLS[r.op]} ${r.heading}${flags.length > 0 ? `  [${flags.join("; ")}]` : ""}`,
    ...(r.rollout !== undefined ? [`    nodes: ${r.rollout}`] : []),
    ...r.changes.map(changeLine),
  ];
}

/** The count of resources per operation, as `pulumi preview` summarizes them. */
export function summarize(diff: PlanDiff): Record<ResourceDiff["op"], number> {
  const counts = {
    create: diff.added.length,
    update: 0,
    replace: 0,
    delete: diff.removed.length,
    unknown: 0,
    same: 0,
  };
  for (const r of diff.changed) counts[r.op] += 1;
  return counts;
}

export function renderDiff(diff: PlanDiff, baseLabel: string): string {
  const stacks =
    diff.before.stack === diff.after.stack
      ? `stack ${diff.after.stack}`
      : `stack ${diff.after.stack} (base is stack ${diff.before.stack})`;
  const counts = summarize(diff);
  const blocked = blockedResources(diff);
  const compact =
    `+ ${counts.create} to create, ~ ${counts.update} to update, +- ${counts.replace} to replace, ` +
    `- ${counts.delete} to delete, ? ${counts.unknown} may replace, ${diff.unchanged} unchanged` +
    (blocked.length > 0 ? `; BLOCKED: ${blocked.length} protected` : "");
  const lines = [
    `Changes to ${stacks} against ${baseLabel}: ${compact}.`,
    "Resources:",
    `    + ${counts.create} to create`,
    `    ~ ${counts.update} to update`,
    `    +- ${counts.replace} to replace`,
    `    - ${counts.delete} to delete`,
    `    ? ${counts.unknown} may replace (decided inside @pulumi/eks or by AWS, or built from what may be replaced)`,
    `    ${diff.unchanged} unchanged`,
  ];
  if (blocked.length > 0) {
    lines.push(
      `pulumi up would stop: ${blocked.length} protected resource${blocked.length === 1 ? "" : "s"} would be replaced or deleted.`,
    );
  }
  if (
    counts.create + counts.update + counts.replace + counts.delete + counts.unknown + diff.outputs.length ===
    0
  ) {
    lines.push("No changes.");
  }
  const order: ResourceDiff["op"][] = ["replace", "delete", "unknown", "update", "create", "same"];
  const all = [...diff.added, ...diff.removed, ...diff.changed];
  // Within each operation: blocked resources first (they stop the whole `up`), then resources changed
  // directly, then those that change because of them.
  const cascaded = (r: ResourceDiff) =>
    r.changes.length > 0 && r.changes.every((c) => c.note?.includes(" is replaced") === true) ? 1 : 0;
  for (const op of order) {
    const group = all.filter((x) => x.op === op);
    const rank = (r: ResourceDiff) => (r.blocked !== undefined ? 0 : 1 + cascaded(r));
    for (const r of [...group].sort((a, b) => rank(a) - rank(b))) lines.push(...resourceLines(r));
  }
  if (diff.outputs.length > 0) lines.push("~ stack outputs", ...diff.outputs.map(changeLine));
  for (const step of diff.decidedInUp ?? []) {
    lines.push(`= ${step.heading}  [known only in up: ${step.why}]`);
  }
  return `${lines.join("\n")}\n`;
}
