/**
 * `npm start`: the offline plan of one stack. Evaluates the program with the offline engine (the one the
 * tests use), prints the resource tree and outputs, writes resources.json, calico.yaml and graph.mmd,
 * and with --diff prints what changes against a saved resources.json.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import {
  CannotSimulate,
  ConfigFileError,
  PROJECT_ROOT,
  SimulatedFailure,
  evaluateStack,
  listStacks,
} from "../offline/engine";
import { diffDocuments, parseResourcesDocument } from "../offline/diff";
import { renderDiff } from "../offline/diff-render";
import { renderTree, resourcesDocument } from "../offline/plan";
import { PLAN_FILES, renderPlanFiles } from "../offline/plan-files";
import { ConfigError } from "../stacks/problems";
import { parseManifest } from "../offline/adoption/manifest";
import type { ManifestObject } from "../offline/adoption/objects";
import { adoptionReport, renderAdoptionReport } from "../offline/adoption/report";

export const USAGE = `Usage: npm start -- [--stack NAME] [--out DIR] [--diff FILE [--head FILE]] [--adopt-from FILE] [--config KEY=VALUE]...

Plans a stack offline (no cloud account, no Pulumi CLI): evaluates the program for the stack, prints its
resources by component and its outputs, and writes <out>/<stack>/resources.json, calico.yaml and
graph.mmd (and diff.txt with --diff).

Options go after --. Written before it with = (npm start --stack=prod), npm keeps them as its own
config and passes them on as npm_config_* variables, which are read too; an option given both ways
must have one value. This help is npm start -- --help (npm answers npm start --help itself).

Options:
  --stack NAME         stack to plan, from Pulumi.<NAME>.yaml (default: dev)
  --out DIR            directory to write <stack>/ into (default: out)
  --diff FILE          print what changes against a resources.json saved by an earlier run (the file is
                       never overwritten: if it is this run's own resources.json, the new plan goes to
                       resources.new.json beside it)
  --head FILE          with --diff: compare two saved resources.json files, without planning
  --adopt-from FILE    a Calico manifest applied with kubectl (multi-document YAML): report what the plan
                       takes over, leaves behind (with the kubectl delete to run after) and creates, and
                       plan against a cluster that has those objects (writes adoption.txt)
  --config KEY=VALUE   override one config value for this run; VALUE is JSON, or else a plain string.
                       KEY may be a path, as pulumi config set --path takes it; an object VALUE is
                       merged into the stack's (lists and other values replace). Repeatable. Examples:
                       --config 'eks-calico:nodeGroups[0].maxSize=6'
                       --config 'eks-calico:network={"cidr":"10.0.0.0/16"}'
  -h, --help           print this help

Exit status: 0 planned (with or without changes); 1 the program failed, or the simulated cluster shows
that \`pulumi up\` would fail (the reason is printed); 2 bad arguments (an unreadable
--diff file or --adopt-from manifest included), an unknown stack, invalid configuration, or an adoption
the report refuses.`;

/** Bad arguments: exit 2 with the message and the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export interface StartOptions {
  readonly stack: string;
  /** Absolute. */
  readonly out: string;
  /** Absolute, if given. */
  readonly diff?: string;
  /** Absolute, if given: a saved plan to compare --diff against, instead of planning. */
  readonly head?: string;
  /** Absolute, if given: a Calico manifest applied with kubectl, for the adoption report. */
  readonly adoptFrom?: string;
  readonly config: Record<string, unknown>;
  readonly help: boolean;
}

/** `KEY=VALUE` to [key, value]; VALUE parsed as JSON when it is JSON, so numbers and objects keep their type. */
export function parseConfigOverride(text: string): [string, unknown] {
  const at = text.indexOf("=");
  if (at <= 0) throw new UsageError(`--config expects KEY=VALUE, got "${text}"`);
  const raw = text.slice(at + 1);
  try {
    return [text.slice(0, at), JSON.parse(raw) as unknown];
  } catch {
    return [text.slice(0, at), raw];
  }
}

/** npm start's options, as node:util parseArgs takes them, with no defaults: a given option is told apart. */
const OPTIONS = {
  stack: { type: "string" },
  out: { type: "string" },
  diff: { type: "string" },
  head: { type: "string" },
  "adopt-from": { type: "string" },
  config: { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
} as const;

/** The options that take a value, with the word USAGE shows for it. */
const VALUE_OPTIONS = {
  stack: "NAME",
  out: "DIR",
  diff: "FILE",
  head: "FILE",
  "adopt-from": "FILE",
  config: "KEY=VALUE",
} as const;
type ValueOption = keyof typeof VALUE_OPTIONS;
type ValueOptions = {
  stack?: string;
  out?: string;
  diff?: string;
  head?: string;
  "adopt-from"?: string;
  config?: string[];
};

/**
 * The variables npm sets for an option written before `--`: npm_config_<name>, dashes as underscores.
 * npm abbreviates --head to its own --heading ("Expanding --head to --heading"), so that one is read too.
 */
function npmVariables(option: ValueOption): string[] {
  const variable = `npm_config_${option.replace(/-/g, "_")}`;
  return option === "head" ? [variable, "npm_config_heading"] : [variable];
}

/** A word as a shell reads it back: quoted unless it is plain. */
function shellWord(word: string): string {
  return /^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The options written before `--` in `npm start --stack=prod`: npm takes them as its own config and hands
 * them to the script only in its environment, as npm_config_* variables, an option given twice as its
 * values joined by newlines (https://docs.npmjs.com/cli/v11/using-npm/config#command-line-flags, npm/cli
 * workspaces/config/lib/set-envs.js). Read only when npm runs the start script: elsewhere (npm test) the
 * variables are another command's. `npm start --stack prod`, with a space, leaves npm_config_stack=true
 * and passes `prod` on as an argument: refused, with the command that says it.
 */
export function npmStartOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ValueOptions {
  if (env.npm_lifecycle_event !== "start") return {};
  const options: ValueOptions = {};
  const withoutValue: ValueOption[] = [];
  for (const option of Object.keys(VALUE_OPTIONS) as ValueOption[]) {
    const raw = npmVariables(option)
      .map((name) => env[name])
      .find((value) => value !== undefined);
    if (raw === undefined) continue;
    if (raw === "true") {
      withoutValue.push(option);
      continue;
    }
    const values = raw === "" ? [""] : raw.split(/\n+/).filter((value) => value !== "");
    if (option === "config") {
      options.config = values;
    } else if (values.length > 1) {
      throw new UsageError(
        `--${option} is given ${values.length} times before -- (${values.join(", ")}): give it once`,
      );
    } else {
      options[option] = values[0];
    }
  }
  if (withoutValue.length > 0) {
    const flags = withoutValue.map((option) => `--${option}`).join(" and ");
    const exact =
      withoutValue.length === 1 && argv.length === 1 && !argv[0].startsWith("-")
        ? `--${withoutValue[0]} ${shellWord(argv[0])}`
        : withoutValue.map((option) => `--${option} ${VALUE_OPTIONS[option]}`).join(" ");
    throw new UsageError(
      `npm took ${flags} for itself, without ${withoutValue.length === 1 ? "its value" : "their values"}${argv.length > 0 ? ` (it passed ${argv.map(shellWord).join(" ")} on as arguments)` : ""}: put the options after --, as in npm start -- ${exact}`,
    );
  }
  return options;
}

/**
 * Parses the command line: the arguments after `--`, and the options npm passed on from before it
 * (npmStartOptions); one given both ways must have the same value. Relative paths are taken from the
 * directory `npm start` was run in (npm runs the script in the project root and passes the original
 * directory as INIT_CWD).
 */
export function parseStartArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): StartOptions {
  const fromNpm = npmStartOptions(argv, env);
  let values;
  try {
    ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options: OPTIONS }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const given: ValueOptions = { ...values };
  for (const option of Object.keys(VALUE_OPTIONS) as ValueOption[]) {
    const before = fromNpm[option];
    const after = given[option];
    if (before !== undefined && after !== undefined && JSON.stringify(before) !== JSON.stringify(after)) {
      const shown = (value: string | string[]) =>
        (Array.isArray(value) ? value : [value]).map(shellWord).join(" ");
      throw new UsageError(
        `--${option} is given twice, differently: ${shown(before)} before -- (npm passes it on as ${npmVariables(option)[0]}) and ${shown(after)} after it: give it once`,
      );
    }
  }
  const merged: ValueOptions = { ...fromNpm, ...given };
  const invokedFrom = env.npm_lifecycle_event === "start" && env.INIT_CWD ? env.INIT_CWD : process.cwd();
  const resolved = (file: string | undefined) =>
    file === undefined ? undefined : path.resolve(invokedFrom, file);
  const diff = resolved(merged.diff);
  const head = resolved(merged.head);
  const adoptFrom = resolved(merged["adopt-from"]);
  return {
    stack: merged.stack ?? "dev",
    out: resolved(merged.out) ?? path.join(PROJECT_ROOT, "out"),
    ...(diff !== undefined ? { diff } : {}),
    ...(head !== undefined ? { head } : {}),
    ...(adoptFrom !== undefined ? { adoptFrom } : {}),
    config: Object.fromEntries((merged.config ?? []).map(parseConfigOverride)),
    help: values.help ?? false,
  };
}

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
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const stacks = listStacks();
  if (!stacks.includes(options.stack)) {
    console.error(
      `error: unknown stack "${options.stack}": there is no Pulumi.${options.stack}.yaml. Stacks: ${stacks.join(", ")}`,
    );
    return 2;
  }
  // Read the saved plan before the (slower) evaluation, so a bad path fails at once.
  let base: ReturnType<typeof readPlan> | undefined;
  if (options.diff !== undefined) {
    try {
      base = readPlan(options.diff);
    } catch (error) {
      console.error(`error: --diff: ${(error as Error).message}`);
      return 2;
    }
  }
  if (options.head !== undefined) {
    // Two saved plans: no evaluation, nothing written.
    if (base === undefined) {
      console.error(`error: --head needs --diff (the base to compare it with)\n\n${USAGE}`);
      return 2;
    }
    try {
      const head = readPlan(options.head);
      process.stdout.write(renderDiff(diffDocuments(base.doc, head.doc), base.label));
      return 0;
    } catch (error) {
      console.error(`error: --head: ${(error as Error).message}`);
      return 2;
    }
  }

  let manifest: ManifestObject[] | undefined;
  if (options.adoptFrom !== undefined) {
    try {
      manifest = parseManifest(fs.readFileSync(options.adoptFrom, "utf8"), shown(options.adoptFrom));
    } catch (error) {
      console.error(`error: --adopt-from: ${(error as Error).message}`);
      return 2;
    }
  }

  let evaluation;
  let adoption: string | undefined;
  try {
    // A saved plan to diff against stands for what is deployed: its outputs are the stack's last ones.
    const evaluate = (existingObjects?: ManifestObject[]) =>
      evaluateStack(options.stack, {
        config: options.config,
        ...(base !== undefined ? { previousOutputs: base.doc.outputs } : {}),
        ...(existingObjects !== undefined ? { simulate: { existingObjects } } : {}),
      });
    if (manifest !== undefined) {
      // The report compares the plan with the manifest; the plan then runs against a cluster that has it.
      const report = adoptionReport(manifest, await evaluate());
      adoption = renderAdoptionReport(report, shown(options.adoptFrom as string));
      if (report.problems.length > 0) {
        process.stdout.write(adoption);
        return 2;
      }
    }
    evaluation = await evaluate(manifest);
  } catch (error) {
    if (ConfigError.isConfigError(error)) {
      // The message lists every problem with its key path, value and rule; a stack trace adds nothing.
      console.error(error.message);
      console.error(
        `\nFix these keys in Pulumi.${options.stack}.yaml${Object.keys(options.config).length > 0 ? " or in the --config overrides" : ""}.`,
      );
      return 2;
    }
    if (error instanceof ConfigFileError) {
      console.error(`error: ${error.message}`);
      return 2;
    }
    if (error instanceof SimulatedFailure || error instanceof CannotSimulate) {
      // What `pulumi up` would stop on (after its timeout), found in seconds: the reason is the message.
      const what =
        error instanceof SimulatedFailure ? "`pulumi up` would fail" : "the offline world cannot tell";
      console.error(`error: stack ${options.stack}: ${what}: ${error.message}`);
      return 1;
    }
    console.error(`error: the program failed for stack ${options.stack}:`);
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return 1;
  }

  process.stdout.write(renderTree(evaluation));
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
  if (adoption !== undefined) {
    fs.writeFileSync(path.join(dir, "adoption.txt"), adoption);
    written.push("adoption.txt");
    process.stdout.write(`\n${adoption}`);
  }
  if (base !== undefined) {
    const diff = renderDiff(diffDocuments(base.doc, resourcesDocument(evaluation)), base.label);
    fs.writeFileSync(path.join(dir, "diff.txt"), diff);
    written.push("diff.txt");
    process.stdout.write(`\n${diff}`);
  }
  console.log(`\nWrote ${written.map((name) => shown(path.join(dir, name))).join(", ")}`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
