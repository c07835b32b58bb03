/**
 * A stack as deployed, for tests of later updates: the offline engine runs the program as `pulumi up`
 * does, its stack outputs are stored as the engine stores them, and the next plan reads them back as the
 * program reads its own (stacks/previous-outputs.ts). Its resources are the state the next plan is
 * diffed against.
 *
 * Stored as the engine stores them: the Node SDK sends the stack's outputs to the engine as a protobuf
 * Struct (runtime/resource.js registerResourceOutputs, serializeProperties then Struct.fromJavaScript),
 * secret ones wrapped in the secret signature, and the next update gets them back the same way (the
 * built-in readStackOutputs function's answer). A Struct's object keys come back sorted
 * (google-protobuf jspb.Map), so the round trip here is through the very Struct class the SDK uses,
 * resolved from @pulumi/pulumi's own dependencies, not through a JavaScript object.
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import fc from "fast-check";
import type * as structProto from "google-protobuf/google/protobuf/struct_pb";
import { type EvaluateOptions, type StackEvaluation, evaluateStack } from "../offline/engine";
import { type PlanDiff, diffDocuments } from "../offline/diff";
import { resourcesDocument } from "../offline/plan";
import { ConfigError } from "../stacks";
import type { GeneratedStack } from "./generated-configs";

/** google-protobuf's Struct, as @pulumi/pulumi requires it (runtime/rpc.js, runtime/resource.js). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Struct } = require(
  require.resolve("google-protobuf/google/protobuf/struct_pb", {
    paths: [require.resolve("@pulumi/pulumi")],
  }),
) as typeof structProto;

/** The stack outputs as the engine stores them and the next update reads them: through the SDK's Struct. */
export function storedOutputs(evaluation: StackEvaluation): Record<string, unknown> {
  const secret = new Set(evaluation.secretOutputs);
  const sent = Object.fromEntries(
    Object.entries(evaluation.outputs).map(([key, value]) => [
      key,
      secret.has(key) ? { [specialSigKey]: specialSecretSig, value } : value,
    ]),
  );
  return Struct.fromJavaScript(sent as Parameters<typeof Struct.fromJavaScript>[0]).toJavaScript();
}

/** A stack after its `pulumi up`: what it registered, and its outputs as stored. */
export interface Deployed {
  readonly evaluation: StackEvaluation;
  readonly outputs: Record<string, unknown>;
}

/** Runs `case` as `pulumi up` on a stack whose last outputs are `previous` (none: a new stack). */
export async function deploy(
  generated: GeneratedStack,
  previous?: Deployed,
  options: Omit<EvaluateOptions, "config" | "previousOutputs" | "preview"> = {},
): Promise<Deployed> {
  const evaluation = await evaluateStack(generated.stack, {
    ...options,
    config: generated.config,
    preview: false,
    ...(previous === undefined ? {} : { previousOutputs: previous.outputs }),
  });
  return { evaluation, outputs: storedOutputs(evaluation) };
}

/**
 * Deploys `generated`, or drops the case from a property (fc.pre) when the program refuses its config,
 * counting the refused keys in `refusals`.
 */
export async function deployOrDrop(
  generated: GeneratedStack,
  refusals: Map<string, number>,
): Promise<Deployed> {
  try {
    return await deploy(generated);
  } catch (error) {
    if (!ConfigError.isConfigError(error)) throw error;
    for (const problem of error.problems) refusals.set(problem.path, (refusals.get(problem.path) ?? 0) + 1);
    fc.pre(false);
    throw error;
  }
}

/** What the next `pulumi preview` of `generated` plans against the deployed stack. */
export async function planAgainst(
  deployed: Deployed,
  generated: GeneratedStack,
  options: Omit<EvaluateOptions, "config" | "previousOutputs"> = {},
): Promise<{ evaluation: StackEvaluation; diff: PlanDiff }> {
  const evaluation = await evaluateStack(generated.stack, {
    ...options,
    config: generated.config,
    previousOutputs: deployed.outputs,
  });
  return {
    evaluation,
    diff: diffDocuments(resourcesDocument(deployed.evaluation), resourcesDocument(evaluation)),
  };
}

/** Each resource the diff does anything to, as `<op> <type> <name>`, sorted. */
export function changedResources(diff: PlanDiff): string[] {
  return [...diff.added, ...diff.changed, ...diff.removed]
    .filter((resource) => resource.op !== "same")
    .map((resource) => `${resource.op} ${resource.heading}`)
    .sort();
}
