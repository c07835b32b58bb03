/**
 * The diff as text, in `pulumi preview`'s vocabulary: a summary of creates, updates, replacements and
 * deletes, then each resource with `+`, `~`, `+-`, `-` (and `?` for "may replace", where the outcome is
 * decided inside @pulumi/eks or by AWS), its changed properties, what each does and, for a replacement,
 * the rule that forces it. It opens with what the change does per component (diff-lead.ts). Unless
 * `verbose`: resources with no step are counted, not listed; the probe's run is one line; and a resource's
 * many in-place changes under one path (a CRD's schema) are one line.
 */
import { type PlanDiff, type PropertyChange, type ResourceDiff, blockedResources } from "./diff";
import { PROBE_COMPONENT, componentOf, leadLines } from "./diff-lead";

/** More in-place changes than this under one path are one line unless verbose. */
const MANY_CHANGES = 5;

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

/** `inputs.spec.versions[0].schema.x` and `inputs.spec.names.y` share `inputs.spec`. */
const groupOf = (path: string) => path.split(/[.[]/).slice(0, 2).join(".");

/** The changes as lines: an update's many changes under one path as one line, unless verbose. */
function changeLines(changes: readonly PropertyChange[], verbose: boolean): string[] {
  if (verbose) return changes.map(changeLine);
  const plain = (c: PropertyChange) => c.effect === "update" || c.effect === undefined;
  const sizes = new Map<string, number>();
  for (const c of changes.filter(plain)) sizes.set(groupOf(c.path), (sizes.get(groupOf(c.path)) ?? 0) + 1);
  const shown = new Set<string>();
  return changes.flatMap((c) => {
    const group = groupOf(c.path);
    if (!plain(c) || (sizes.get(group) ?? 0) <= MANY_CHANGES) return [changeLine(c)];
    if (shown.has(group)) return [];
    shown.add(group);
    return [`    ${group}: ${sizes.get(group)} paths change in place (--verbose lists them)`];
  });
}

function resourceLines(r: ResourceDiff, verbose: boolean): string[] {
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
    ...changeLines(r.changes, verbose),
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

export function renderDiff(diff: PlanDiff, baseLabel: string, options: { verbose?: boolean } = {}): string {
  const verbose = options.verbose === true;
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
  const all = [...diff.added, ...diff.removed, ...diff.changed];
  lines.push(...leadLines(all));
  const order: ResourceDiff["op"][] = ["replace", "delete", "unknown", "update", "create"];
  if (verbose) order.push("same");
  const probe = all.filter((r) => componentOf(r.identity) === PROBE_COMPONENT && r.op !== "same");
  if (!verbose && probe.length > 0) {
    lines.push(`+- the enforcement probe: ${probe.length} resources run again (--verbose lists them)`);
  }
  const listed = verbose ? all : all.filter((r) => !probe.includes(r) || r.blocked !== undefined);
  // Within each operation: blocked resources first (they stop the whole `up`), then resources changed
  // directly, then those that change because of them.
  const cascaded = (r: ResourceDiff) =>
    r.changes.length > 0 && r.changes.every((c) => c.note?.includes(" is replaced") === true) ? 1 : 0;
  for (const op of order) {
    const group = listed.filter((x) => x.op === op);
    const rank = (r: ResourceDiff) => (r.blocked !== undefined ? 0 : 1 + cascaded(r));
    for (const r of [...group].sort((a, b) => rank(a) - rank(b))) lines.push(...resourceLines(r, verbose));
  }
  const same = all.filter((r) => r.op === "same").length;
  if (!verbose && same > 0) {
    lines.push(`= ${same} with only ignored changes or options: no step (--verbose lists them)`);
  }
  if (diff.outputs.length > 0) lines.push("~ stack outputs", ...diff.outputs.map(changeLine));
  for (const step of diff.decidedInUp ?? []) {
    lines.push(`= ${step.heading}  [known only in up: ${step.why}]`);
  }
  return `${lines.join("\n")}\n`;
}
