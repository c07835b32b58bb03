/**
 * `npm start`'s command line: the usage text, its exit statuses, and the options, read from the arguments
 * after `--` and from the npm_config_* variables npm sets for options written before it.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";
import { PROJECT_ROOT } from "../offline/engine";
import { shellWord } from "../offline/calico-tls";

/** `npm start`'s exit statuses. */
export const EXIT = {
  /** Planned, with or without changes. */
  planned: 0,
  /** The program failed (a data source the offline world refuses to answer included). */
  failed: 1,
  /** Bad arguments, an unknown stack, invalid configuration, or an adoption the report refuses. */
  refused: 2,
  /** The diff has a step `pulumi up` refuses: a protected resource replaced or deleted. */
  blocked: 3,
} as const;

export const USAGE = `Usage: npm start -- [--stack NAME] [--out DIR] [--diff [FILE] [--head FILE] | --diff-ref REF] [--tree] [--verbose] [--adopt-from FILE] [--config KEY=VALUE]...

Plans a stack offline (no cloud account, no Pulumi CLI): evaluates the program for the stack, prints its
resources by component and its outputs, and writes <out>/<stack>/resources.json, calico.yaml,
calico-tls.sh and graph.mmd (and diff.txt with --diff or --diff-ref). With either it prints what changes
first: the summary, what it does per component, then each changed resource; the resource tree and
outputs only with --tree, after them.

Options go after --. Written before it with = (npm start --stack=prod), npm keeps them as its own
config and passes them on as npm_config_* variables, which are read too; an option given both ways
must have one value. This help is npm start -- --help (npm answers npm start --help itself).

Options:
  --stack NAME         stack to plan, from Pulumi.<NAME>.yaml (default: dev)
  --out DIR            directory to write <stack>/ into (default: out)
  --diff [FILE]        print what changes against a resources.json saved by an earlier run; without FILE,
                       the one the last local run wrote, <out>/<stack>/resources.json, whatever the code
                       was then (the file is never overwritten: if it is this run's own resources.json,
                       the new plan goes to resources.new.json beside it)
  --head FILE          with --diff: compare two saved resources.json files, without planning
  --diff-ref REF       print what changes against the stack as a git ref has it (main, origin/main, a
                       commit, HEAD~1): that commit's program and Pulumi.<stack>.yaml, planned in a
                       temporary checkout as the pull-request comment plans the base branch (--config
                       applies to this working copy's plan only); a stack with no file at REF is
                       compared with an empty plan. Not with --diff
  --tree               with --diff or --diff-ref: print the resource tree and outputs too, after the
                       changes
  --verbose            with --diff or --diff-ref: list every resource, also those with no step and the
                       probe's, and every changed path (else many in-place paths under one are one line)
  --adopt-from FILE    a Calico manifest applied with kubectl (multi-document YAML): report what the plan
                       takes over, leaves behind (with the kubectl delete to run after) and creates
                       (writes adoption.txt)
  --config KEY=VALUE   override one config value for this run; VALUE is JSON, or else a plain string.
                       KEY may be a path, as pulumi config set --path takes it; an object VALUE is
                       merged into the stack's (lists and other values replace). Repeatable. Examples:
                       --config 'eks-calico:nodeGroups[0].maxSize=6'
                       --config 'eks-calico:network={"cidr":"10.0.0.0/16"}'
  -h, --help           print this help

Exit status: ${EXIT.planned} planned (with or without changes); ${EXIT.failed} the program failed, here or at the
--diff-ref commit (the reason is printed); ${EXIT.refused} bad arguments (an unreadable --diff file or
--adopt-from manifest, or a --diff-ref that names no commit, included), an unknown stack, invalid
configuration, or an adoption the report refuses; ${EXIT.blocked} the diff has a change \`pulumi up\` refuses: a
protected resource replaced or deleted (marked BLOCKED), returned after the plan files and diff.txt are
written. What only \`pulumi up\` can show (whether Calico gets ready, what the probe proves,
what the takeover step finds) is not judged here: the plan prints it as "known after up".`;

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
  /** Absolute, if given; a bare --diff is the stack's resources.json under `out`. */
  readonly diff?: string;
  /** Absolute, if given: a saved plan to compare --diff against, instead of planning. */
  readonly head?: string;
  /** A git ref, if given: the diff's base is the stack as that commit has it (plan-at-ref.ts). */
  readonly diffRef?: string;
  /** Absolute, if given: a Calico manifest applied with kubectl, for the adoption report. */
  readonly adoptFrom?: string;
  readonly config: Record<string, unknown>;
  /** With --diff: print the resource tree and outputs after the changes. */
  readonly tree: boolean;
  /** With --diff: list every resource and path (offline/diff-render.ts). */
  readonly verbose: boolean;
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
  "diff-ref": { type: "string" },
  "adopt-from": { type: "string" },
  config: { type: "string", multiple: true },
  tree: { type: "boolean" },
  verbose: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** The options that take a value, with the word USAGE shows for it. */
const VALUE_OPTIONS = {
  stack: "NAME",
  out: "DIR",
  diff: "FILE",
  head: "FILE",
  "diff-ref": "REF",
  "adopt-from": "FILE",
  config: "KEY=VALUE",
} as const;
type ValueOption = keyof typeof VALUE_OPTIONS;
type ValueOptions = {
  stack?: string;
  out?: string;
  diff?: string;
  head?: string;
  "diff-ref"?: string;
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
  // `--diff` with no FILE after it (at the end, or before another option): the stack's last plan.
  const bareDiff = argv.findIndex(
    (arg, i) => arg === "--diff" && (i === argv.length - 1 || argv[i + 1].startsWith("-")),
  );
  const args = argv.filter((_, i) => i !== bareDiff);
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: OPTIONS }));
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
  const stack = merged.stack ?? "dev";
  const out = resolved(merged.out) ?? path.join(PROJECT_ROOT, "out");
  const diff = resolved(merged.diff) ?? (bareDiff >= 0 ? path.join(out, stack, "resources.json") : undefined);
  const head = resolved(merged.head);
  const diffRef = merged["diff-ref"];
  if (diffRef !== undefined && diff !== undefined) {
    throw new UsageError(
      "--diff and --diff-ref both name the plan to compare with: give --diff-ref REF (the stack as a git ref has it) or --diff [FILE] (a saved plan, by default the last local run's), not both",
    );
  }
  if (diffRef !== undefined && head !== undefined) {
    throw new UsageError(
      "--head compares two saved plans (--diff FILE --head FILE); --diff-ref compares this working copy's plan with a git ref's: give one",
    );
  }
  if (diffRef === "")
    throw new UsageError("--diff-ref needs a git ref: a branch, tag or commit (main, HEAD~1)");
  const adoptFrom = resolved(merged["adopt-from"]);
  return {
    stack,
    out,
    ...(diff !== undefined ? { diff } : {}),
    ...(head !== undefined ? { head } : {}),
    ...(diffRef !== undefined ? { diffRef } : {}),
    ...(adoptFrom !== undefined ? { adoptFrom } : {}),
    config: Object.fromEntries((merged.config ?? []).map(parseConfigOverride)),
    // `npm start --tree`, before --, arrives as npm_config_tree=true.
    tree: values.tree ?? (env.npm_lifecycle_event === "start" && env.npm_config_tree === "true"),
    // Only after --: before it, npm takes --verbose as its own log level.
    verbose: values.verbose ?? false,
    help: values.help ?? false,
  };
}
