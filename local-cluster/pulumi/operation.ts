/**
 * One Pulumi operation (`up`, `preview`, `refresh`, `destroy`) of this repository's program, run by the
 * real Pulumi CLI through the Automation API: the program is served inline from this process (no
 * `pulumi-language-nodejs` needed, @pulumi/pulumi automation LocalWorkspace with `program`), and the CLI
 * runs it with `--client`. Started as a fresh Node process for every operation (./index.ts), so nothing
 * of the program is cached between runs. Reads a request file, writes the result file next to it; the
 * engine's own text goes to stderr as it comes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  type EngineEvent,
  LocalWorkspace,
  type StepEventMetadata,
  PulumiCommand,
  Stack,
  type OpType,
} from "@pulumi/pulumi/automation";

/**
 * `cancel` is what the engine asks for after a CLI was killed mid-update: the file backend keeps the dead
 * update's lock, and every later operation refuses until `pulumi cancel` deletes it (pulumi v3.248.0
 * pkg/backend/diy/lock.go checkForLock, backend.go CancelCurrentUpdate).
 */
export const OPERATIONS = ["up", "preview", "refresh", "destroy", "cancel"] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface OperationRequest {
  readonly operation: Operation;
  readonly stack: string;
  /** Holds Pulumi.yaml and Pulumi.<stack>.yaml. */
  readonly workDir: string;
  /** The directory whose `bin/pulumi` is the CLI (the tools cache). */
  readonly cliRoot: string;
  /** Environment for the CLI: backend, passphrase, PATH with the plugins. */
  readonly env: Readonly<Record<string, string>>;
  /** Policy pack directories to run. */
  readonly policyPacks: readonly string[];
  readonly expectNoChanges: boolean;
  /** Refresh before a preview or update (`--refresh`), as the drift check previews. */
  readonly refresh: boolean;
  /** A refresh that changes no state (`pulumi refresh --preview-only`), as Pulumi Cloud's drift detection runs. */
  readonly previewOnly: boolean;
  /** The program's entry (index.ts), loaded in this process. */
  readonly program: string;
  /** Where the result is written. */
  readonly resultFile: string;
  /**
   * Write each step event to file descriptor 3 as it arrives, one JSON {@link StepEvent} a line, so the
   * process that started the operation can act at a moment of the update (./index.ts start).
   */
  readonly streamSteps?: boolean;
}

/** A step as it begins (`pre`, a resource-pre event) or ends (`outputs`, a resource-outputs event). */
export interface StepEvent extends EngineStep {
  readonly event: "pre" | "outputs";
}

/** A step the engine took or planned, from its resource-pre events. */
export interface EngineStep {
  readonly op: OpType;
  readonly urn: string;
  readonly type: string;
  /** Top-level properties that differ, for an update or replace. */
  readonly diffs: readonly string[];
  /** The properties that force a replacement. */
  readonly keys: readonly string[];
}

export interface PolicyViolation {
  readonly policyPackName: string;
  readonly policyName: string;
  readonly enforcementLevel: string;
  readonly message: string;
  readonly resourceUrn?: string;
}

export interface OperationResult {
  readonly operation: Operation;
  readonly ok: boolean;
  /** The CLI's error output when the operation failed. */
  readonly error?: string;
  readonly steps: readonly EngineStep[];
  /**
   * The steps as they ended (resource-outputs events): for a refresh, a resource whose state it changed
   * ends as an `update`, the others as `same`.
   */
  readonly done: readonly EngineStep[];
  /** The stack's outputs after the operation, secrets revealed. */
  readonly outputs: Record<string, unknown>;
  readonly policyViolations: readonly PolicyViolation[];
  /** Error diagnostics the engine reported (a failed resource's message among them). */
  readonly errors: readonly string[];
  readonly seconds: number;
}

async function run(request: OperationRequest): Promise<OperationResult> {
  const started = Date.now();
  const steps: EngineStep[] = [];
  const done: EngineStep[] = [];
  const policyViolations: PolicyViolation[] = [];
  const errors: string[] = [];
  const stepOf = (metadata: StepEventMetadata): EngineStep => ({
    op: metadata.op,
    urn: metadata.urn,
    type: metadata.type,
    diffs: metadata.diffs ?? [],
    keys: metadata.keys ?? [],
  });
  const stream = (event: StepEvent["event"], step: EngineStep) => {
    if (request.streamSteps) fs.writeSync(3, `${JSON.stringify({ event, ...step })}\n`);
  };
  const onEvent = (event: EngineEvent) => {
    const pre = event.resourcePreEvent?.metadata;
    if (pre !== undefined) {
      steps.push(stepOf(pre));
      stream("pre", stepOf(pre));
    }
    const outputs = event.resOutputsEvent?.metadata;
    if (outputs !== undefined) {
      done.push(stepOf(outputs));
      stream("outputs", stepOf(outputs));
    }
    const policy = event.policyEvent;
    if (policy !== undefined) {
      policyViolations.push({
        policyPackName: policy.policyPackName,
        policyName: policy.policyName,
        enforcementLevel: policy.enforcementLevel,
        message: policy.message,
        resourceUrn: policy.resourceUrn,
      });
    }
    const diagnostic = event.diagnosticEvent;
    if (diagnostic !== undefined && diagnostic.severity === "error") errors.push(diagnostic.message.trim());
  };
  const onOutput = (text: string) => process.stderr.write(text);
  const pulumiCommand = await PulumiCommand.get({ root: request.cliRoot });
  const workspace = await LocalWorkspace.create({
    workDir: request.workDir,
    pulumiCommand,
    envVars: { ...request.env },
    // The program as the Node.js language host would run it: the module's exported function.
    program: async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const main = require(request.program) as unknown;
      if (typeof main !== "function") throw new Error(`${request.program} must export a function`);
      return (await (main as () => Promise<Record<string, unknown>>)()) ?? {};
    },
  });
  const stack = await Stack.createOrSelect(request.stack, workspace);
  const common = { onEvent, onOutput, color: "never" as const };
  let ok = true;
  let error: string | undefined;
  try {
    switch (request.operation) {
      case "up":
        await stack.up({ ...common, refresh: request.refresh, policyPacks: [...request.policyPacks] });
        break;
      case "preview":
        await stack.preview({
          ...common,
          diff: true,
          refresh: request.refresh,
          expectNoChanges: request.expectNoChanges,
          policyPacks: [...request.policyPacks],
        });
        break;
      case "refresh":
        await stack.refresh({
          ...common,
          expectNoChanges: request.expectNoChanges,
          previewOnly: request.previewOnly,
        });
        break;
      case "destroy":
        await stack.destroy({ ...common });
        break;
      case "cancel":
        await stack.cancel();
        break;
    }
  } catch (caught) {
    ok = false;
    error = (caught as Error).message;
  }
  const outputs = Object.fromEntries(
    Object.entries(await stack.outputs()).map(([name, output]) => [name, output.value as unknown]),
  );
  return {
    operation: request.operation,
    ok,
    ...(error === undefined ? {} : { error }),
    steps,
    done,
    outputs,
    policyViolations,
    errors,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

if (require.main === module) {
  const request = JSON.parse(fs.readFileSync(path.resolve(process.argv[2]), "utf8")) as OperationRequest;
  run(request).then(
    (result) => {
      fs.writeFileSync(request.resultFile, JSON.stringify(result, null, 2));
      process.exit(0);
    },
    (error: Error) => {
      console.error(error.stack ?? error.message);
      process.exit(1);
    },
  );
}
