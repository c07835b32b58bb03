/**
 * `npm start -- --diff-ref REF`'s base: the offline plan of a stack as a git commit has it, its program and
 * its Pulumi.<stack>.yaml both. The commit's tracked files are extracted (`git archive`) into a temporary
 * directory beside this working copy's node_modules, and that tree's own `npm start` plans the stack, as
 * the pull-request comment plans the base branch (.github/scripts/offline-plan.sh). The temporary
 * directory is removed whatever happens, an interrupt included. A stack with no file at the commit is
 * new there: its base is an empty plan.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";
import { projectName } from "../offline/config";
import { parseResourcesDocument } from "../offline/diff";
import { RESOURCES_FORMAT_VERSION, type ResourcesDocument } from "../offline/plan";
import { EXIT } from "./start-args";

/** The plan a diff against a ref compares with. */
export interface RefPlan {
  /** How the diff names its base: the ref and its commit, as in `main (5d86a3b)`. */
  readonly label: string;
  readonly doc: ResourcesDocument;
  /** False where the commit has no Pulumi.<stack>.yaml: the plan is empty, and the stack is new there. */
  readonly stackAtRef: boolean;
  /** What the comparison cannot hold apart (dependencies other than the commit's). */
  readonly warnings: string[];
}

/** A ref that names no commit (EXIT.refused), or a plan at it that failed (EXIT.failed). */
export class RefPlanError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "RefPlanError";
  }
}

/** Lines of the failed plan's output the error quotes: its last ones, where the reason is. */
const QUOTED_LINES = 40;
/** The signals that end `npm start` from a terminal or a CI runner: each still removes the checkout. */
const ENDING_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** `git ARGS` in `root`, its output as bytes; a RefPlanError where git cannot run at all. */
function git(root: string, args: string[]) {
  const result = spawnSync("git", args, { cwd: root, maxBuffer: 1 << 30 });
  if (result.error !== undefined) {
    throw new RefPlanError(`--diff-ref needs git: ${result.error.message}`, EXIT.failed);
  }
  return result;
}

/** The commit `ref` names, full and short; a RefPlanError naming it where there is none. */
export function resolveCommit(ref: string, root = PROJECT_ROOT): { commit: string; short: string } {
  const found = git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
  const commit = found.stdout.toString().trim();
  if (found.status !== 0 || commit === "") {
    const why = found.stderr.toString().trim();
    throw new RefPlanError(
      `--diff-ref ${ref}: no commit ${JSON.stringify(ref)} in ${root}` +
        (why !== "" ? ` (git: ${why})` : ": give a branch, tag or commit it has, such as main or HEAD~1"),
      EXIT.refused,
    );
  }
  const short = git(root, ["rev-parse", "--short", commit]).stdout.toString().trim() || commit.slice(0, 12);
  return { commit, short };
}

/**
 * The stack's offline plan at `ref`, planned by that commit's own program in a temporary checkout;
 * `planning` hears the label once the ref is known to name a commit with the stack, before the plan runs.
 */
export async function planAtRef(
  ref: string,
  stack: string,
  planning: (label: string) => void = () => {},
  root = PROJECT_ROOT,
): Promise<RefPlan> {
  const { commit, short } = resolveCommit(ref, root);
  const label = commit.startsWith(ref) ? short : `${ref} (${short})`;
  if (git(root, ["cat-file", "-e", `${commit}:Pulumi.${stack}.yaml`]).status !== 0) {
    const empty = { formatVersion: RESOURCES_FORMAT_VERSION, project: projectName(root), stack };
    return { label, doc: { ...empty, resources: [], outputs: {} }, stackAtRef: false, warnings: [] };
  }
  const warnings: string[] = [];
  const lock = git(root, ["show", `${commit}:package-lock.json`]);
  const ownLock = path.join(root, "package-lock.json");
  if (lock.status === 0 && fs.existsSync(ownLock) && !lock.stdout.equals(fs.readFileSync(ownLock))) {
    warnings.push(
      `package-lock.json differs at ${label}: its plan ran with this working copy's node_modules, so a dependency change does not show in the diff`,
    );
  }

  planning(label);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-ref-"));
  const tree = path.join(tmp, "tree");
  const out = path.join(tmp, "out");
  let run: NpmRun;
  try {
    fs.mkdirSync(tree);
    const archive = git(root, ["archive", "--format=tar", commit]);
    const extract =
      archive.status === 0
        ? spawnSync("tar", ["-x", "-f", "-", "-C", tree], { input: archive.stdout })
        : archive;
    if (extract.status !== 0) {
      const why = extract.stderr.toString().trim();
      throw new RefPlanError(
        `--diff-ref ${ref}: cannot check out ${label} into ${tree}: ${why}`,
        EXIT.failed,
      );
    }
    fs.symlinkSync(path.join(root, "node_modules"), path.join(tree, "node_modules"));
    run = await npmStart(tree, ["--stack", stack, "--out", out]);
    if (run.code === 0) {
      const file = path.join(out, stack, "resources.json");
      try {
        return {
          label,
          doc: parseResourcesDocument(fs.readFileSync(file, "utf8"), label),
          stackAtRef: true,
          warnings,
        };
      } catch (error) {
        throw new RefPlanError(
          `--diff-ref ${ref}: the plan at ${label} cannot be compared: ${(error as Error).message}`,
          EXIT.failed,
        );
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (run.interrupted !== undefined) {
    // This process was asked to end while the commit's plan ran: end as asked, the checkout removed.
    process.kill(process.pid, run.interrupted);
  }
  const output = (run.stderr.trim() !== "" ? run.stderr : run.stdout).trimEnd().split("\n");
  throw new RefPlanError(
    `--diff-ref ${ref}: the plan of stack ${stack} at ${label} failed (its npm start ${run.signal !== null ? `was ended by ${run.signal}` : `exited ${String(run.code)}`}):\n` +
      output
        .slice(-QUOTED_LINES)
        .map((line) => `  ${line}`)
        .join("\n"),
    EXIT.failed,
  );
}

/** How the commit's `npm start` ended, and what it printed. */
interface NpmRun {
  readonly code: number | null;
  /** The signal that ended it, if one did. */
  readonly signal: NodeJS.Signals | null;
  /** A signal this process received while it ran (passed on to it). */
  readonly interrupted?: NodeJS.Signals;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `npm start --silent -- ARGS` in `tree`, its output collected. npm's variables are left out of its
 * environment: under `npm start` they hold this run's own options (npm_config_diff_ref among them), which
 * the tree's npm would read as its own.
 */
function npmStart(tree: string, args: string[]): Promise<NpmRun> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$)/i.test(name)),
  );
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["start", "--silent", "--", ...args], {
      cwd: tree,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let interrupted: NodeJS.Signals | undefined;
    const forward = (signal: NodeJS.Signals) => {
      interrupted ??= signal;
      child.kill(signal);
    };
    const listen = (on: boolean) => {
      for (const signal of ENDING_SIGNALS) {
        if (on) process.on(signal, forward);
        else process.off(signal, forward);
      }
    };
    listen(true);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => {
      listen(false);
      reject(error);
    });
    child.on("close", (code, signal) => {
      listen(false);
      resolve({
        code,
        signal,
        ...(interrupted !== undefined ? { interrupted } : {}),
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
  });
}
