/**
 * The offline engine: evaluates the real program (index.ts) for a stack under Pulumi's mock runtime, as
 * `pulumi preview` runs it, with the stack's config loaded as the CLI would, and records every resource
 * registration (type, name, inputs, parent, provider, options) and the stack outputs. What a preview does
 * not know (what the cluster reports, what the dynamic steps find) is recorded as KNOWN_AFTER_UP.
 * Tests, `npm start` and the benchmark all use this one engine. No credentials, no CLI, no network.
 */
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { type ConfigOverrides, PROJECT_ROOT, loadStackConfig } from "./config";
import { type AwsSimulation, OfflineWorld } from "./world";

export {
  ConfigFileError,
  PROJECT_ROOT,
  deployableStacks,
  isExampleStack,
  listStacks,
  loadStackConfig,
  type ConfigOverrides,
} from "./config";
import { ConfigError, wrapLines } from "../stacks/problems";
import { decodeConfigValue } from "../stacks/config-values";
import { secretLeaves } from "../stacks/secrets";
import { type ComponentOutputs, byField, plainObject } from "./outputs";
export { placeholder, type AwsSimulation } from "./world";
export { KNOWN_AFTER_UP } from "./plan";
import type { ResourceRecord, StackEvaluation } from "./records";
export type { ResourceRecord, StackEvaluation } from "./records";

export interface EvaluateOptions {
  /** The directory with Pulumi.yaml and the stack's file (default: this project's). */
  root?: string;
  /** Config keys to set (fully qualified, e.g. `eks-calico:network`) or remove (undefined). */
  config?: ConfigOverrides;
  /**
   * Fully qualified config keys to treat as set with `pulumi config set --secret`, their values given in
   * plain text (offline, a stack file's `secure:` ciphertext cannot be decrypted).
   */
  secrets?: string[];
  /** How the offline world answers for AWS. */
  simulate?: AwsSimulation;
  /**
   * The stack outputs of the last update, as the program reads its own (stacks/previous-outputs.ts; a saved
   * plan's outputs); none for a stack never deployed.
   */
  previousOutputs?: Record<string, unknown>;
  /**
   * Run the program as `pulumi preview` does (`pulumi.runtime.isDryRun()` is true; the default), or, with
   * false, as `pulumi up` does: what the program decides only in an update, such as recording the cluster's
   * creator. What the cluster reports is unknown either way.
   */
  preview?: boolean;
  /**
   * The date the program's EKS support and certificate checks read (index.ts passes it to
   * loadStackSettings), so that a test does not follow the clock; default: today.
   */
  today?: Date;
  /** Called with each registration as it happens, also when the program fails later. */
  onRecord?: (resource: ResourceRecord) => void;
  /** Called with each invoke (a data source or provider function) the program makes, by token. */
  onCall?: (token: string) => void;
}

/** The subset of Pulumi's RegisterResourceRequest the engine reads. */
interface RegisterRequest {
  getType(): string;
  getName(): string;
  getParent(): string;
  getCustom(): boolean;
  getRemote(): boolean;
  getObject(): { toJavaScript(): unknown } | undefined;
  getProvider(): string;
  getDependenciesList(): string[];
  getPropertydependenciesMap(): {
    forEach(cb: (deps: { getUrnsList(): string[] }, key: string) => void): void;
  };
  getProtect(): boolean;
  getRetainondelete(): boolean;
  getDeletebeforereplace(): boolean;
  getIgnorechangesList(): string[];
  getAliasurnsList(): string[];
  getAliasesList(): AliasMessage[];
  getReplaceonchangesList(): string[];
  getCustomtimeouts(): { getCreate(): string; getUpdate(): string; getDelete(): string } | undefined;
  getImportid(): string;
}

/** An alias as the SDK sends it: a URN, or a spec of the parts that differ from the resource's own. */
interface AliasMessage {
  getUrn(): string;
  getSpec():
    | {
        getName(): string;
        getType(): string;
        getParenturn(): string;
        getNoparent(): boolean;
      }
    | undefined;
}

type Callback = (err: unknown, response?: unknown) => void;
interface MonitorLike {
  newUrn(parent: string, type: string, name: string): string;
  registerResource(req: RegisterRequest, callback: Callback): Promise<void>;
  registerResourceOutputs(
    req: { getUrn(): string; getOutputs(): { toJavaScript(): unknown } | undefined },
    callback: Callback,
  ): void;
}

/**
 * The URN the Pulumi engine gives a resource of `type` named `name` under `parentUrn` (none for the stack
 * itself): the parent's whole type chain, `$`, the type; the stack's own type is never part of a chain
 * (pulumi/pulumi sdk/go/common/resource/urn/urn.go New). Pulumi's mock monitor keeps only the parent's
 * last type, so every registration is named by this instead, as `pulumi preview` names it; aliases must
 * name a resource's old URN this way too.
 */
export function childUrn(parentUrn: string, type: string, name: string): string {
  const [prefix, project, parentType] = parentUrn.split("::");
  const chain = (parentType ?? "").replace(/^pulumi:pulumi:Stack(\$|$)/, "");
  const stackPrefix = prefix || `urn:pulumi:${pulumi.getStack()}`;
  return [stackPrefix, project || pulumi.getProject(), chain === "" ? type : `${chain}$${type}`, name].join(
    "::",
  );
}

function record(monitor: MonitorLike, req: RegisterRequest): ResourceRecord {
  const dependencies = new Set(req.getDependenciesList());
  const propertyDependencies: Record<string, string[]> = {};
  req.getPropertydependenciesMap().forEach((deps, key) => {
    const urns = deps.getUrnsList();
    urns.forEach((urn) => dependencies.add(urn));
    if (urns.length > 0) propertyDependencies[key] = [...urns].sort();
  });
  const timeouts = req.getCustomtimeouts();
  const customTimeouts = timeouts && {
    ...(timeouts.getCreate() ? { create: timeouts.getCreate() } : {}),
    ...(timeouts.getUpdate() ? { update: timeouts.getUpdate() } : {}),
    ...(timeouts.getDelete() ? { delete: timeouts.getDelete() } : {}),
  };
  const { values, secretKeys } = plainObject(req.getObject()?.toJavaScript());
  const provider = req.getProvider().split("::").slice(0, -1).join("::");
  const aliases = [
    ...req.getAliasurnsList(),
    ...req.getAliasesList().map((alias) => {
      const spec = alias.getSpec();
      if (spec === undefined) return alias.getUrn();
      const parent = spec.getNoparent() ? "" : spec.getParenturn() || req.getParent();
      return childUrn(parent, spec.getType() || req.getType(), spec.getName() || req.getName());
    }),
  ].sort();
  return {
    urn: monitor.newUrn(req.getParent(), req.getType(), req.getName()),
    type: req.getType(),
    name: req.getName(),
    custom: req.getCustom(),
    remote: req.getRemote(),
    parent: req.getParent() || undefined,
    provider: provider || undefined,
    dependencies: [...dependencies].sort(),
    propertyDependencies: Object.fromEntries(
      Object.entries(propertyDependencies).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
    inputs: values,
    secretInputs: secretKeys,
    aliases,
    options: {
      protect: req.getProtect() === true,
      retainOnDelete: req.getRetainondelete() === true,
      deleteBeforeReplace: req.getDeletebeforereplace() === true,
      ignoreChanges: req.getIgnorechangesList(),
      replaceOnChanges: req.getReplaceonchangesList(),
      ...(customTimeouts && Object.keys(customTimeouts).length > 0 ? { customTimeouts } : {}),
      ...(req.getImportid() ? { importId: req.getImportid() } : {}),
    },
  };
}

/**
 * Kubernetes objects and the dynamic steps: the offline world answers only their inputs (what the cluster
 * reports, what a step finds, it does not know), and the outputs it leaves out are unknown.
 */
function reportsUnknowns(entry: ResourceRecord): boolean {
  return (
    entry.custom && (entry.type.startsWith("kubernetes:") || entry.type.startsWith("pulumi-nodejs:dynamic/"))
  );
}

/**
 * A registration's response that keeps the outputs it lacks unknown in an update as in a preview: the SDK
 * does so for a step that did not succeed (sdk/nodejs/runtime/resource.js, `keepUnknowns` when
 * `getResult()` is not SUCCESS), and otherwise resolves them as known and absent in an update.
 */
function withUnknownOutputs(response: unknown): unknown {
  if (response === null || typeof response !== "object") return response;
  const skipped = Object.create(response) as { getResult: () => number };
  skipped.getResult = () => RESULT_SKIP;
  return skipped;
}

/** pulumirpc.Result.SKIP (proto/resource.proto). */
const RESULT_SKIP = 2;

/**
 * Clears the runtime's list of unsettled promises (sdk/nodejs/runtime/debuggable.ts `leakedPromises`,
 * internal to the SDK), which it reports at process exit by setting exit code 1.
 */
function forgetPendingPromises(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const debuggable = require("@pulumi/pulumi/runtime/debuggable") as { leakedPromises?: () => unknown };
  debuggable.leakedPromises?.();
}

/** The program's entry point: index.ts exports an async function, as Pulumi's nodejs host runs it. */
function loadProgram(): (today?: Date) => Promise<Record<string, unknown>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const program = require(path.join(PROJECT_ROOT, "index.ts")) as unknown;
  if (typeof program !== "function")
    throw new Error("index.ts must export an async function (export = async () => ...)");
  return program as (today?: Date) => Promise<Record<string, unknown>>;
}

// The Pulumi runtime is process-global: evaluations run one at a time.
let queue: Promise<unknown> = Promise.resolve();

/**
 * Evaluates index.ts for `stack` (its Pulumi.<stack>.yaml plus overrides). Rejects with the program's
 * error, e.g. a ConfigError, after recording whatever was registered before it.
 */
export function evaluateStack(stack: string, options: EvaluateOptions = {}): Promise<StackEvaluation> {
  const run = queue.then(() => evaluateNow(stack, options));
  queue = run.catch(() => undefined);
  return run;
}

/** Like evaluateStack, but resolves with the error and what was registered instead of rejecting. */
export async function evaluateStackExpectingError(
  stack: string,
  options: EvaluateOptions = {},
): Promise<{ error: unknown; resources: ResourceRecord[] }> {
  const resources: ResourceRecord[] = [];
  try {
    await evaluateStack(stack, { ...options, onRecord: (r) => resources.push(r) });
  } catch (error) {
    return { error, resources };
  }
  throw new Error(`stack ${stack} evaluated without an error`);
}

async function evaluateNow(stack: string, options: EvaluateOptions): Promise<StackEvaluation> {
  const config = loadStackConfig(stack, options.config, options.root);
  const world = new OfflineWorld(
    config.values["aws:region"],
    options.simulate,
    options.previousOutputs,
    decodeConfigValue(config.values[`${config.project}:network`]),
  );
  const answer = world.call.bind(world);
  world.call = (args) => {
    options.onCall?.(args.token);
    return answer(args);
  };
  // The organization a self-managed backend reports; Pulumi Cloud reports the account's.
  await pulumi.runtime.setMocks(world, config.project, stack, options.preview !== false, "organization");
  const secretKeys = new Set([...config.secretKeys, ...(options.secrets ?? [])]);
  pulumi.runtime.setAllConfig(config.values, [...secretKeys]);
  const secretConfig = Object.fromEntries(
    [...secretKeys].map((k) => [k, decodeConfigValue(config.values[k])]),
  );

  const resources: ResourceRecord[] = [];
  let stackOutputs: { values: Record<string, unknown>; secretKeys: string[] } = {
    values: {},
    secretKeys: [],
  };
  const monitor = pulumi.runtime.getMonitor() as unknown as MonitorLike;
  monitor.newUrn = childUrn;
  const registerResource = monitor.registerResource.bind(monitor);
  const registerResourceOutputs = monitor.registerResourceOutputs.bind(monitor);
  // The first registration the world refuses ends the evaluation, as the engine ends `pulumi up`:
  // resources that depend on it would otherwise wait for it forever under the mock runtime.
  let refuse: (error: unknown) => void = () => undefined;
  const refused = new Promise<never>((_, reject) => (refuse = reject));
  refused.catch(() => undefined);
  monitor.registerResource = (req, callback) => {
    const entry = record(monitor, req);
    world.noteRegistration(entry.type, entry.name, entry.options.ignoreChanges);
    resources.push(entry);
    options.onRecord?.(entry);
    return registerResource(req, (error, response) => {
      if (error !== null && error !== undefined) refuse(error);
      callback(error, reportsUnknowns(entry) ? withUnknownOutputs(response) : response);
    });
  };
  // Components' outputs, field by field (the stack exports some of them as one value), by type.
  const componentOutputs: ComponentOutputs[] = [];
  monitor.registerResourceOutputs = (req, callback) => {
    if (req.getUrn().includes("::pulumi:pulumi:Stack::"))
      stackOutputs = plainObject(req.getOutputs()?.toJavaScript());
    else
      componentOutputs.push({
        type: req.getUrn().split("::")[2]?.split("$").pop() ?? "",
        ...plainObject(req.getOutputs()?.toJavaScript()),
      });
    registerResourceOutputs(req, callback);
  };

  // A failing program also rejects promises Pulumi's Stack resource holds internally; the CLI's host
  // absorbs those, so the engine does too, and surfaces only the program's own error.
  const stray: unknown[] = [];
  const onRejection = (reason: unknown) => stray.push(reason);
  process.on("unhandledRejection", onRejection);
  let failure: { error: unknown } | undefined;
  try {
    const run = async () => {
      const program = loadProgram();
      await pulumi.runtime.runInPulumiStack(() => program(options.today));
      await pulumi.runtime.disconnect();
    };
    await Promise.race([run(), refused]);
  } catch (error) {
    failure = { error };
    // What waited on the refused resource never settles: forget it, as the CLI's host does when the
    // engine ends the update, so the leak check at exit does not turn a finished plan into a failure.
    forgetPendingPromises();
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 0));
    process.off("unhandledRejection", onRejection);
  }
  if (failure !== undefined) throw withAssumptions(failure.error, world.assumed);
  if (stray.length > 0) throw stray[0];
  return {
    project: config.project,
    stack,
    resources,
    ...byField(stackOutputs, componentOutputs, world.nodeGroupNodes, secretLeaves(secretConfig, secretKeys)),
    simulated: [...world.simulated],
  };
}

/**
 * A refusal of a plan that assumed what its tables do not know, saying so: the real run may answer
 * otherwise (a region newer than the table may have the AZs refused here).
 */
function withAssumptions(error: unknown, assumed: readonly string[]): unknown {
  if (!ConfigError.isConfigError(error) || assumed.length === 0) return error;
  const lines = assumed.flatMap((note) => wrapLines(note, "  - ", "    "));
  error.message = [error.message, "", "The offline plan assumed, where only AWS can answer:", ...lines].join(
    "\n",
  );
  return error;
}
