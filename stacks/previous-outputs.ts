/**
 * What the stack last deployed, for the changes that depend on it (switching `calico.installer` on a live
 * cluster, the network and node-group changes AWS can make), read from the stack's own last outputs: a new
 * stack has none; every update sees the outputs of the last one.
 *
 * They are read with the engine's built-in `pulumi:pulumi:readStackOutputs` function, the one a
 * StackReference's read calls (pulumi/pulumi v3.248.0 pkg/resource/deploy/builtins.go: Invoke and Read
 * both call readStackReference), not with a StackReference resource. A StackReference is a read
 * resource in the state, and `pulumi refresh` diffs a read resource's outputs (step.go,
 * RefreshStep.ResultOp: "The resource is external ... only looking at outputs"): the reference holds the
 * outputs from before the update, so every refresh after every `up` reported it changed, and drift
 * detection (`pulumi refresh --preview-only --expect-no-changes`) could never pass. A function call
 * leaves nothing in the state (docs/layout.md).
 */
import * as pulumi from "@pulumi/pulumi";
import { isRpcSecret, unwrapRpcSecret } from "@pulumi/pulumi/runtime/rpc";

/** The stack outputs later updates depend on. */
export const PREVIOUS_OUTPUT_NAMES = [
  "calico",
  "network",
  // With no `network`: a stack 0.1.0 last updated (stacks/previous-network.ts).
  "vpcId",
  "nodeGroupScaling",
  "clusterCreator",
  "vpcCni",
  // The cluster a full stack made, and where: a rename or a region change would replace it
  // (stacks/deployed-cluster.ts).
  "clusterName",
  "region",
  // The cluster's upgrade policy: EKS keeps a cluster in extended support there (stacks/support.ts).
  "upgradePolicy",
  // Only a kubeconfig stack exports it: with clusterName and vpcId, the kind of stack deployed (stack-kind.ts).
  "kubeconfigContext",
] as const;
export type PreviousOutputName = (typeof PREVIOUS_OUTPUT_NAMES)[number];

/** The last update's outputs by name; a name the last update did not export (or a new stack) is absent. */
export type PreviousOutputs = Readonly<Partial<Record<PreviousOutputName, unknown>>>;

/** The engine's built-in function that reads a stack's outputs (builtins.go readStackOutputs). */
export const READ_STACK_OUTPUTS = "pulumi:pulumi:readStackOutputs";

/** The outputs of the stack's last update that later updates depend on; empty for a stack never deployed. */
export async function readPreviousOutputs(): Promise<PreviousOutputs> {
  const self = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
  const answer = (await pulumi.runtime.invoke(READ_STACK_OUTPUTS, { name: self })) as
    { outputs?: Record<string, unknown> } | undefined;
  const all = answer?.outputs ?? {};
  const outputs: Partial<Record<PreviousOutputName, unknown>> = {};
  for (const name of PREVIOUS_OUTPUT_NAMES) {
    const value = revealed(all[name]);
    if (value !== undefined && value !== null) outputs[name] = value;
  }
  return outputs;
}

/**
 * A value with its secrets unwrapped: the function's answer keeps an output's secret values marked, at
 * any depth (the SDK unwraps only its top-level keys, runtime/invoke.js deserializeResponse). Read as a
 * StackReference's getOutputDetails gave them before (its value, or its secretValue).
 */
function revealed(value: unknown): unknown {
  if (isRpcSecret(value)) return revealed(unwrapRpcSecret(value));
  if (Array.isArray(value)) return value.map(revealed);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, revealed(item)]));
}
