/**
 * This repository's program run by the real Pulumi engine on a local cluster: a stack in the
 * `cluster.kubeconfig` mode pointed at the cluster, its state in a local file backend, and each operation
 * in a fresh Node process (./operation.ts) with the CLI, the Kubernetes provider and the Node.js plugins
 * `npm run tools` provides (tools/catalog.ts, tools/plugins.ts). Nothing is downloaded: automatic plugin
 * acquisition is off, so a missing plugin is an error naming it.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { type ConfigOverrides, PROJECT_ROOT, loadStackConfig } from "../../offline/config";
import { decodeConfigValue } from "../../stacks/config-values";
import { PLUGINS } from "../../tools/plugins";
import { killTree } from "../process-tree";
import type { Operation, OperationRequest, OperationResult, StepEvent } from "./operation";

export type { EngineStep, Operation, OperationResult, PolicyViolation, StepEvent } from "./operation";

/** The stack file the engine's stacks start from: the mode for a cluster reached through a kubeconfig. */
export const KUBECONFIG_STACK = "kubeconfig.example";

/** Binaries the engine needs in the tools directory. */
export const ENGINE_TOOLS = ["pulumi", "pulumi-resource-kubernetes", ...Object.keys(PLUGINS)] as const;

export interface EngineStackOptions {
  /** The engine's stack name. */
  readonly stack: string;
  /** Holds the stack's Pulumi.yaml, Pulumi.<stack>.yaml, its file backend and the CLI's home. */
  readonly dir: string;
  /** The tools directory (TOOLS_BIN). */
  readonly bin: string;
  /** The local cluster's kubeconfig file and context. */
  readonly kubeconfig: string;
  readonly context: string;
  /** Nodes the cluster runs: the stack's `cluster.kubeconfig.maxNodes`. */
  readonly nodes: number;
  /** The fewest nodes it keeps: the stack's `cluster.kubeconfig.minNodes`. @default 1 */
  readonly minNodes?: number;
  /** The stack file whose `eks-calico:calico` settings the stack takes (a full stack's, e.g. dev). */
  readonly from?: string;
  /** Config on top, as `npm start --config` takes it. */
  readonly config?: ConfigOverrides;
  /**
   * The program to run, a module exporting its function as index.ts does (default: index.ts). A test
   * program of a few of this repository's resources runs with the same stack config.
   */
  readonly program?: string;
}

/**
 * The config overrides that turn the kubeconfig example stack into one for the local cluster with
 * `from`'s Calico settings: the same overrides give the offline plan of that stack (evaluateStack).
 */
export function engineOverrides(options: Omit<EngineStackOptions, "stack" | "dir" | "bin">): ConfigOverrides {
  const calico =
    options.from === undefined
      ? {}
      : { "eks-calico:calico": decodeConfigValue(loadStackConfig(options.from).values["eks-calico:calico"]) };
  return {
    ...calico,
    "eks-calico:cluster.kubeconfig.path": options.kubeconfig,
    "eks-calico:cluster.kubeconfig.context": options.context,
    "eks-calico:cluster.kubeconfig.maxNodes": Math.max(1, options.nodes),
    ...(options.minNodes === undefined ? {} : { "eks-calico:cluster.kubeconfig.minNodes": options.minNodes }),
    ...options.config,
  };
}

/** A stack's state as `pulumi stack export` writes it (apitype.UntypedDeployment). */
export interface StackState {
  readonly version: number;
  readonly deployment: {
    readonly resources?: { urn: string; type: string; outputs?: Record<string, unknown> }[];
    readonly [key: string]: unknown;
  };
}

/** A stack of the engine's: where it lives and how its operations run. */
export class EngineStack {
  readonly workDir: string;
  private readonly env: Record<string, string>;

  constructor(
    readonly options: EngineStackOptions,
    readonly log: (text: string) => void = () => undefined,
  ) {
    const missing = ENGINE_TOOLS.filter((name) => !fs.existsSync(path.join(options.bin, name)));
    if (missing.length > 0) {
      throw new Error(`${missing.join(", ")} not found in ${options.bin}: run \`npm run tools\` first`);
    }
    this.workDir = path.join(options.dir, "project");
    const state = path.join(options.dir, "state");
    fs.mkdirSync(this.workDir, { recursive: true });
    fs.mkdirSync(state, { recursive: true });
    // The project as Pulumi.yaml declares it, but its `main`: the program is served from the operation's
    // process (./operation.ts), and the CLI checks that `main` exists in the working directory.
    const project = YAML.parse(fs.readFileSync(path.join(PROJECT_ROOT, "Pulumi.yaml"), "utf8")) as Record<
      string,
      unknown
    >;
    delete project.main;
    fs.writeFileSync(path.join(this.workDir, "Pulumi.yaml"), YAML.stringify(project));
    // Beside Pulumi.yaml, as in the repository: the dynamic provider host resolves the packages a
    // serialized provider requires from its working directory, the project's (@pulumi/pulumi
    // cmd/dynamic-provider loads it with require-from-string, which takes its paths from ".").
    const modules = path.join(this.workDir, "node_modules");
    if (!fs.existsSync(modules)) fs.symlinkSync(path.join(PROJECT_ROOT, "node_modules"), modules, "dir");
    this.configure(options.config ?? {});
    this.env = {
      PATH: `${options.bin}${path.delimiter}${process.env.PATH ?? ""}`,
      PULUMI_HOME: path.join(options.dir, "home"),
      PULUMI_BACKEND_URL: `file://${state}`,
      PULUMI_CONFIG_PASSPHRASE: "local-cluster",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
  }

  /** Writes Pulumi.<stack>.yaml: the kubeconfig example's config for the local cluster, then `config`. */
  configure(config: ConfigOverrides): void {
    const { values } = loadStackConfig(KUBECONFIG_STACK, engineOverrides({ ...this.options, config }));
    const decoded = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, decodeConfigValue(v)]));
    fs.writeFileSync(
      path.join(this.workDir, `Pulumi.${this.options.stack}.yaml`),
      YAML.stringify({ config: decoded }),
    );
  }

  /**
   * The stack's state as `pulumi stack export` writes it, and `pulumi stack import` of one: a state
   * changed by hand, as a user restoring or editing a checkpoint has it.
   */
  exportState(): StackState {
    const file = path.join(this.options.dir, "state-export.json");
    this.cli(["stack", "export", "--file", file]);
    return JSON.parse(fs.readFileSync(file, "utf8")) as StackState;
  }

  importState(state: StackState): void {
    const file = path.join(this.options.dir, "state-import.json");
    fs.writeFileSync(file, JSON.stringify(state));
    this.cli(["stack", "import", "--file", file]);
  }

  /** One `pulumi` command on the stack, in its project directory; fails with its output unless it succeeds. */
  private cli(args: readonly string[]): void {
    const run = spawnSync(path.join(this.options.bin, "pulumi"), [...args, "--stack", this.options.stack], {
      cwd: this.workDir,
      env: { ...process.env, ...this.env },
      encoding: "utf8",
    });
    if (run.status !== 0) {
      throw new Error(`pulumi ${args.join(" ")} exited ${run.status}: ${run.stderr || String(run.error)}`);
    }
  }

  /** Runs one operation in a fresh Node process; resolves with its result, failed or not. */
  async run(operation: Operation, options: RunOptions = {}): Promise<OperationResult> {
    const result = await this.start(operation, options).result;
    if (result === "killed") throw new Error(`pulumi ${operation} (${this.options.stack}) was killed`);
    return result;
  }

  /**
   * Starts one operation in a fresh Node process: `onStep` hears each step as it begins and ends, and
   * `kill` ends the driver, the CLI and every plugin at once (../process-tree.ts), as a lost machine
   * would; the result is then "killed".
   */
  start(operation: Operation, options: RunOptions = {}): RunningOperation {
    const request: OperationRequest = {
      operation,
      stack: this.options.stack,
      workDir: this.workDir,
      cliRoot: path.dirname(this.options.bin),
      env: this.env,
      policyPacks: options.policyPack ? [path.join(PROJECT_ROOT, "policy")] : [],
      expectNoChanges: options.expectNoChanges ?? false,
      refresh: options.refresh ?? false,
      previewOnly: options.previewOnly ?? false,
      program: this.options.program ?? path.join(PROJECT_ROOT, "index.ts"),
      resultFile: path.join(this.options.dir, `${operation}-result.json`),
      streamSteps: options.onStep !== undefined,
    };
    const requestFile = path.join(this.options.dir, `${operation}-request.json`);
    fs.writeFileSync(requestFile, JSON.stringify(request));
    fs.rmSync(request.resultFile, { force: true });
    const child = spawn(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", path.join(__dirname, "operation.ts"), requestFile],
      { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "pipe", "pipe"] },
    );
    let killed = false;
    let tail = "";
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-6000);
      this.log(text);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    let pending = "";
    (child.stdio[3] as NodeJS.ReadableStream | null)?.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line !== "") options.onStep?.(JSON.parse(line) as StepEvent);
    });
    const result = new Promise<OperationResult | "killed">((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => {
        if (killed) {
          resolve("killed");
          return;
        }
        if (code !== 0 || !fs.existsSync(request.resultFile)) {
          reject(
            new Error(`pulumi ${operation} (${this.options.stack}): the driver exited ${code}:\n${tail}`),
          );
          return;
        }
        resolve(JSON.parse(fs.readFileSync(request.resultFile, "utf8")) as OperationResult);
      });
    });
    return {
      result,
      kill: () => {
        killed = true;
        return child.pid === undefined ? [] : killTree(child.pid);
      },
    };
  }
}

export interface RunOptions {
  readonly policyPack?: boolean;
  readonly expectNoChanges?: boolean;
  readonly refresh?: boolean;
  readonly previewOnly?: boolean;
  /** Hears each step as it begins and as it ends. */
  readonly onStep?: (step: StepEvent) => void;
}

/** An operation under way (EngineStack.start). */
export interface RunningOperation {
  /** Its result, failed or not; "killed" once `kill` ended it. */
  readonly result: Promise<OperationResult | "killed">;
  /** Kills the driver, the CLI and every plugin at once; returns the PIDs killed. */
  kill(): number[];
}
