/**
 * `npm start`: the offline plan of one stack. Evaluates the program with the offline engine (the one the
 * tests use), prints the resource tree and outputs, writes resources.json, calico.yaml, calico-tls.sh and graph.mmd.
 * With --diff it leads with what changes against a saved resources.json, with --diff-ref against the stack
 * as a git ref has it (plan-at-ref.ts); the tree only with --tree. It exits EXIT.blocked when `pulumi up`
 * would refuse a change. The command line is in start-args.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ConfigFileError, evaluateStack, listStacks } from "../offline/engine";
import { blockedResources, diffDocuments, parseResourcesDocument } from "../offline/diff";
import { renderDiff } from "../offline/diff-render";
import { type ResourcesDocument, renderTree, resourcesDocument } from "../offline/plan";
import { PLAN_FILES, renderPlanFiles } from "../offline/plan-files";
import { ConfigError } from "../stacks/problems";
import { parseManifest } from "../offline/adoption/manifest";
import type { ManifestObject } from "../offline/adoption/objects";
import { adoptionReport, renderAdoptionReport } from "../offline/adoption/report";
import { EXIT, type StartOptions, USAGE, UsageError, parseStartArgs } from "./start-args";
import { runMain } from "./entry";
import { RefPlanError, planAtRef } from "./plan-at-ref";
import { planWarnings } from "../offline/stack-runners";

/** A path as the user would type it: relative when under the working directory, else absolute. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === "" || relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

/** A saved resources.json, labelled as the user would type its path. */
function readPlan(file: string): Base {
  const label = shown(file);
  return { label, doc: parseResourcesDocument(fs.readFileSync(file, "utf8"), label) };
}

/** What a diff compares with: its label in the summary line, and what leads the output, if anything. */
interface Base {
  readonly label: string;
  readonly doc: ResourcesDocument;
  /** Printed before the changes: what the base is, where the label alone could mislead. */
  readonly note?: string;
  /** False for a plan that stands for no deployed stack (new at the ref): no previous outputs. */
  readonly deployed?: boolean;
}

/** `--diff` without a file: the last local run's plan, whatever code wrote it, and when. */
function lastRunNote(file: string, stack: string): string {
  const written = fs.statSync(file).mtime;
  const minutes = Math.round((Date.now() - written.getTime()) / 60_000);
  const ago =
    minutes < 1 ? "under a minute" : minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
  const when = `${written.toISOString().slice(0, 16).replace("T", " ")} UTC, ${ago} ago`;
  return (
    `Compared with the last local run's plan, ${shown(file)} (written ${when}), not with a git ref: ` +
    `a change made before that run does not show. Against main: npm start -- --stack ${stack} --diff-ref main`
  );
}

/** Runs the CLI; resolves with the exit status. */
export async function main(argv: string[]): Promise<number> {
  let options: StartOptions;
  try {
    options = parseStartArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\n\n${USAGE}`);
    return EXIT.refused;
  }
  if (options.help) {
    console.log(USAGE);
    return EXIT.planned;
  }
  const stacks = listStacks();
  if (!stacks.includes(options.stack)) {
    console.error(
      `error: unknown stack "${options.stack}": there is no Pulumi.${options.stack}.yaml. Stacks: ${stacks.join(", ")}`,
    );
    return EXIT.refused;
  }
  // Read the saved plan before the (slower) evaluation, so a bad path fails at once.
  let base: Base | undefined;
  if (options.diff !== undefined) {
    const lastPlan = path.join(options.out, options.stack, "resources.json");
    try {
      base = readPlan(options.diff);
      if (options.diff === lastPlan) base = { ...base, note: lastRunNote(lastPlan, options.stack) };
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT" && options.diff === lastPlan;
      console.error(
        missing
          ? `error: --diff: ${shown(lastPlan)} does not exist: plan the stack once without --diff to write it, or give --diff FILE`
          : `error: --diff: ${(error as Error).message}`,
      );
      return EXIT.refused;
    }
  }
  if (options.head !== undefined) {
    // Two saved plans: no evaluation, nothing written.
    if (base === undefined) {
      console.error(`error: --head needs --diff (the base to compare it with)\n\n${USAGE}`);
      return EXIT.refused;
    }
    try {
      const head = readPlan(options.head);
      const diff = diffDocuments(base.doc, head.doc);
      process.stdout.write(renderDiff(diff, base.label, { verbose: options.verbose }));
      const blocked = blockedResources(diff).length;
      return blocked > 0 ? refuseBlocked(head.doc.stack, blocked) : EXIT.planned;
    } catch (error) {
      console.error(`error: --head: ${(error as Error).message}`);
      return EXIT.refused;
    }
  }

  let manifest: ManifestObject[] | undefined;
  if (options.adoptFrom !== undefined) {
    try {
      manifest = parseManifest(fs.readFileSync(options.adoptFrom, "utf8"), shown(options.adoptFrom));
    } catch (error) {
      console.error(`error: --adopt-from: ${(error as Error).message}`);
      return EXIT.refused;
    }
  }
  if (options.diffRef !== undefined) {
    try {
      base = await refBase(options.diffRef, options.stack);
    } catch (error) {
      if (!(error instanceof RefPlanError)) throw error;
      console.error(`error: ${error.message}`);
      return error.status;
    }
  }

  let evaluation;
  let adoption: string | undefined;
  try {
    // A saved plan (or the ref's) to diff against stands for what is deployed: its outputs are the stack's
    // last ones. A stack new at the ref has none.
    evaluation = await evaluateStack(options.stack, {
      config: options.config,
      ...(base !== undefined && base.deployed !== false ? { previousOutputs: base.doc.outputs } : {}),
    });
    if (manifest !== undefined) {
      // The report compares the plan with the manifest: what the takeover step finds is known after up.
      const report = adoptionReport(manifest, evaluation);
      adoption = renderAdoptionReport(report, shown(options.adoptFrom as string));
      if (report.problems.length > 0) {
        process.stdout.write(adoption);
        return EXIT.refused;
      }
    }
  } catch (error) {
    if (ConfigError.isConfigError(error)) {
      // The message lists every problem with its key path, value and rule; a stack trace adds nothing.
      console.error(error.message);
      console.error(
        `\nFix these keys in Pulumi.${options.stack}.yaml${Object.keys(options.config).length > 0 ? " or in the --config overrides" : ""}.`,
      );
      return EXIT.refused;
    }
    if (error instanceof ConfigFileError) {
      console.error(`error: ${error.message}`);
      return EXIT.refused;
    }
    console.error(`error: the program failed for stack ${options.stack}:`);
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return EXIT.failed;
  }

  const dir = path.join(options.out, options.stack);
  fs.mkdirSync(dir, { recursive: true });
  const files = renderPlanFiles(evaluation);
  const written: string[] = [];
  for (const name of PLAN_FILES) {
    // Never overwrite the plan this run compares against: a second run would then find no changes.
    const target =
      path.join(dir, name) === options.diff
        ? path.join(dir, name.replace(/\.json$/, ".new.json"))
        : path.join(dir, name);
    fs.writeFileSync(target, files[name]);
    written.push(path.basename(target));
  }
  let changes: string | undefined;
  let blocked = 0;
  if (base !== undefined) {
    const diff = diffDocuments(base.doc, resourcesDocument(evaluation));
    blocked = blockedResources(diff).length;
    changes = renderDiff(diff, base.label, { verbose: options.verbose });
    fs.writeFileSync(path.join(dir, "diff.txt"), changes);
    written.push("diff.txt");
  }
  if (adoption !== undefined) {
    fs.writeFileSync(path.join(dir, "adoption.txt"), adoption);
    written.push("adoption.txt");
  }
  // With a base, what changes leads (after what the base is, where its label could mislead); the tree
  // (mostly what does not change, and long enough to push the changes off the screen) only when asked for.
  const tree = base === undefined || options.tree ? renderTree(evaluation) : undefined;
  const printed = base === undefined ? [tree, adoption] : [base.note, changes, adoption, tree];
  process.stdout.write(printed.filter((text) => text !== undefined).join("\n"));
  if (tree === undefined) console.log("\n(The resource tree and outputs: add --tree.)");
  // What `pulumi up` from the stack's CI runner would run into (stacks/deploy-path.ts); the plan stands.
  for (const warning of planWarnings(options.stack, options.config)) {
    console.error(`warning: stack ${options.stack}: ${warning}`);
  }
  console.log(`\nWrote ${written.map((name) => shown(path.join(dir, name))).join(", ")}`);
  return blocked > 0 ? refuseBlocked(options.stack, blocked) : EXIT.planned;
}

/** The stack's plan at a git ref (plan-at-ref.ts) as the diff's base, its warnings on stderr. */
async function refBase(ref: string, stack: string): Promise<Base> {
  const plan = await planAtRef(ref, stack, (label) =>
    console.error(`Planning stack ${stack} as ${label} has it, in a temporary checkout...`),
  );
  for (const warning of plan.warnings) console.error(`warning: --diff-ref: ${warning}`);
  const note = plan.stackAtRef
    ? `Compared with stack ${stack} as ${plan.label} has it: its program and Pulumi.${stack}.yaml, planned offline.`
    : `Stack ${stack} is new at ${plan.label}: there is no Pulumi.${stack}.yaml there, so it is compared with an empty plan.`;
  return { label: plan.label, doc: plan.doc, note, deployed: plan.stackAtRef };
}

/** A diff `pulumi up` would stop on: said on stderr too (stdout may be cut), and its own exit status. */
function refuseBlocked(stack: string, count: number): number {
  console.error(
    `error: stack ${stack}: \`pulumi up\` would stop: ${count} protected resource${count === 1 ? "" : "s"} would be replaced or deleted (BLOCKED in the diff)`,
  );
  return EXIT.blocked;
}

if (require.main === module) {
  runMain(main);
}
