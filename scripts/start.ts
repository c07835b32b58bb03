/**
 * `npm start`: the offline plan of one stack. Evaluates the program with the offline engine (the one the
 * tests use), prints the resource tree and outputs, writes resources.json, calico.yaml, calico-tls.sh and graph.mmd.
 * With --diff it leads with what changes against a saved resources.json (the tree only with --tree), and
 * exits EXIT.blocked when `pulumi up` would refuse a change. The command line is in start-args.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ConfigFileError, evaluateStack, listStacks } from "../offline/engine";
import { blockedResources, diffDocuments, parseResourcesDocument } from "../offline/diff";
import { renderDiff } from "../offline/diff-render";
import { renderTree, resourcesDocument } from "../offline/plan";
import { PLAN_FILES, renderPlanFiles } from "../offline/plan-files";
import { ConfigError } from "../stacks/problems";
import { parseManifest } from "../offline/adoption/manifest";
import type { ManifestObject } from "../offline/adoption/objects";
import { adoptionReport, renderAdoptionReport } from "../offline/adoption/report";
import { EXIT, type StartOptions, USAGE, UsageError, parseStartArgs } from "./start-args";
import { runMain } from "./entry";
import { planWarnings } from "../offline/stack-runners";

/** A path as the user would type it: relative when under the working directory, else absolute. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === "" || relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

/** A saved resources.json, labelled as the user would type its path. */
function readPlan(file: string) {
  const label = shown(file);
  return { label, doc: parseResourcesDocument(fs.readFileSync(file, "utf8"), label) };
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
  let base: ReturnType<typeof readPlan> | undefined;
  if (options.diff !== undefined) {
    const lastPlan = path.join(options.out, options.stack, "resources.json");
    try {
      base = readPlan(options.diff);
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
      process.stdout.write(renderDiff(diff, base.label));
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

  let evaluation;
  let adoption: string | undefined;
  try {
    // A saved plan to diff against stands for what is deployed: its outputs are the stack's last ones.
    evaluation = await evaluateStack(options.stack, {
      config: options.config,
      ...(base !== undefined ? { previousOutputs: base.doc.outputs } : {}),
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
    changes = renderDiff(diff, base.label);
    fs.writeFileSync(path.join(dir, "diff.txt"), changes);
    written.push("diff.txt");
  }
  if (adoption !== undefined) {
    fs.writeFileSync(path.join(dir, "adoption.txt"), adoption);
    written.push("adoption.txt");
  }
  // With --diff, what changes leads; the tree (mostly what does not change, and long enough to push the
  // changes off the screen) follows only when asked for.
  const tree = base === undefined || options.tree ? renderTree(evaluation) : undefined;
  const printed = base === undefined ? [tree, adoption] : [changes, adoption, tree];
  process.stdout.write(printed.filter((text) => text !== undefined).join("\n"));
  if (tree === undefined) console.log("\n(The resource tree and outputs: add --tree.)");
  // What `pulumi up` from the stack's CI runner would run into (stacks/deploy-path.ts); the plan stands.
  for (const warning of planWarnings(options.stack, options.config)) {
    console.error(`warning: stack ${options.stack}: ${warning}`);
  }
  console.log(`\nWrote ${written.map((name) => shown(path.join(dir, name))).join(", ")}`);
  return blocked > 0 ? refuseBlocked(options.stack, blocked) : EXIT.planned;
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
