/**
 * Progress for long runs (`npm test`, `npm run bench`): each step says what it runs when it starts and how
 * long it took when it ends, and a step that prints nothing for a heartbeat interval gets a line saying
 * it is still running, so no stretch of the run is silent for longer than that.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";

/** The variable that sets the heartbeat interval, in milliseconds (the tests use a short one). */
export const HEARTBEAT_ENV = "EKS_CALICO_HEARTBEAT_MS";
export const DEFAULT_HEARTBEAT_MS = 10_000;

/** The heartbeat interval EKS_CALICO_HEARTBEAT_MS sets, or the default. */
export function heartbeatInterval(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[HEARTBEAT_ENV];
  if (raw === undefined || raw === "") return DEFAULT_HEARTBEAT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1) {
    throw new Error(`${HEARTBEAT_ENV}: must be a whole number of milliseconds, at least 1 (got "${raw}")`);
  }
  return ms;
}

/** `4.2 s`, or `3 min 12 s` from a minute on. */
export function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** Where progress goes, and how long a step may be silent before a heartbeat. */
export interface Progress {
  readonly heartbeatMs: number;
  write(text: string): void;
}

/** Progress on stdout, at the interval the environment sets. */
export function stdoutProgress(env: NodeJS.ProcessEnv = process.env): Progress {
  return { heartbeatMs: heartbeatInterval(env), write: (text) => process.stdout.write(text) };
}

/**
 * While a step runs: after each interval without output, `  still running <label>, <n> s`. Output passed
 * through `echo` restarts the interval; a heartbeat after a partial line starts on a line of its own.
 */
export class Heartbeat {
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;
  private atLineStart = true;

  constructor(
    private readonly label: string,
    private readonly progress: Progress,
  ) {
    this.timer = setTimeout(() => this.beat(), progress.heartbeatMs);
  }

  private beat(): void {
    const seconds = Math.round((Date.now() - this.started) / 1000);
    this.progress.write(`${this.atLineStart ? "" : "\n"}  still running ${this.label}, ${seconds} s\n`);
    this.atLineStart = true;
    this.timer.refresh();
  }

  /** Passes a step's output on, restarting the interval. */
  echo(text: string, to: (text: string) => void): void {
    if (text === "") return;
    to(text);
    this.atLineStart = text.endsWith("\n");
    this.timer.refresh();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** How a command ended: its exit code (1 for a signal) and, when not echoed, what it printed. */
export interface CommandResult {
  readonly code: number;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

/** The project's node_modules/.bin first on PATH, as npm puts it for a package.json script. */
function withProjectBin(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const bin = path.resolve(__dirname, "..", "node_modules", ".bin");
  const name = Object.keys(env).find((key) => key.toUpperCase() === "PATH") ?? "PATH";
  return { ...env, [name]: [bin, env[name]].filter((p) => p !== undefined && p !== "").join(path.delimiter) };
}

/**
 * Runs `command` in `cwd`: a string through the shell (as npm runs a package.json script), a list as the
 * program and its arguments. With `echo`, its output is passed on as it comes, through the running step's
 * heartbeat (stdout to the progress, stderr to stderr); without, it is kept for the result.
 */
export function runCommand(
  command: string | readonly string[],
  options: { readonly cwd: string; readonly echo?: { heartbeat: Heartbeat; progress: Progress } },
): Promise<CommandResult> {
  const output: string[] = [];
  return new Promise((resolve) => {
    const spawnOptions = {
      cwd: options.cwd,
      stdio: ["inherit", "pipe", "pipe"] as ["inherit", "pipe", "pipe"],
      env: withProjectBin(process.env),
    };
    const child =
      typeof command === "string"
        ? spawn(command, { ...spawnOptions, shell: true })
        : spawn(command[0], command.slice(1), spawnOptions);
    const pass = (to: (text: string) => void) => (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      if (options.echo !== undefined) options.echo.heartbeat.echo(text, to);
      else output.push(text);
    };
    const echo = options.echo;
    child.stdout.on(
      "data",
      pass((text) => echo?.progress.write(text)),
    );
    child.stderr.on(
      "data",
      pass((text) => process.stderr.write(text)),
    );
    const finish = (code: number | null, signal: NodeJS.Signals | null) =>
      resolve({ code: code ?? 1, signal, output: output.join("") });
    child.on("error", (error) => {
      output.push(`${error.message}\n`);
      finish(127, null);
    });
    child.on("close", finish);
  });
}

/** One step of a run: a name and the shell command it runs. */
export interface Step {
  readonly name: string;
  readonly command: string;
}

/**
 * Runs `steps` in order, echoing their output: `[1/5] typecheck: tsc -p tsconfig.check.json` as each
 * starts, heartbeats while it runs, its duration when it ends. Stops at the first step that fails and
 * resolves with its exit code (0 when every step passed); `run` names the whole in the last line.
 */
export async function runSteps(
  run: string,
  steps: readonly Step[],
  options: { readonly cwd: string; readonly progress: Progress },
): Promise<number> {
  const { progress } = options;
  const started = Date.now();
  for (const [i, step] of steps.entries()) {
    const tag = `[${i + 1}/${steps.length}] ${step.name}`;
    progress.write(`${tag}: ${step.command}\n`);
    const stepStarted = Date.now();
    const heartbeat = new Heartbeat(step.name, progress);
    const result = await runCommand(step.command, { cwd: options.cwd, echo: { heartbeat, progress } });
    heartbeat.stop();
    const took = duration(Date.now() - stepStarted);
    if (result.code !== 0) {
      const how = result.signal === null ? `exit ${result.code}` : `killed by ${result.signal}`;
      const skipped = steps.slice(i + 1).map((s) => s.name);
      progress.write(`${tag} failed (${how}) after ${took}\n`);
      progress.write(
        `${run}: stopped at ${step.name}${skipped.length > 0 ? `; not run: ${skipped.join(", ")}` : ""}\n`,
      );
      return result.code;
    }
    progress.write(`${tag} passed in ${took}\n`);
  }
  const count = steps.length === 1 ? "1 step" : `${steps.length} steps`;
  progress.write(`${run}: ${count} passed in ${duration(Date.now() - started)}\n`);
  return 0;
}

/**
 * Runs in-process work as a step: `label...` when it starts, heartbeats while it awaits, and its
 * duration when it ends. `log` prints a line of its own and restarts the interval.
 */
export async function timedStep<T>(
  label: string,
  progress: Progress,
  work: (log: (line: string) => void) => Promise<T>,
): Promise<T> {
  progress.write(`${label}...\n`);
  const started = Date.now();
  const heartbeat = new Heartbeat(label, progress);
  try {
    const result = await work((line) => heartbeat.echo(`${line}\n`, (text) => progress.write(text)));
    progress.write(`${label}: done in ${duration(Date.now() - started)}\n`);
    return result;
  } finally {
    heartbeat.stop();
  }
}
