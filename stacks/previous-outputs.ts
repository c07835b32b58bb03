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
 * outputs from before the update, so every refresh after every `up` would report it changed, and drift
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
  // The add-on versions deployed, kept while cluster.version is unchanged (stacks/addon-versions.ts).
  "addons",
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
  const all = await readOwnOutputs();
  const outputs: Partial<Record<PreviousOutputName, unknown>> = {};
  for (const name of PREVIOUS_OUTPUT_NAMES) {
    const value = revealed(all[name]);
    if (value !== undefined && value !== null) outputs[name] = value;
  }
  return outputs;
}

/**
 * The one organization of a self-managed (DIY) backend: the engine gives it to every program there
 * (pulumi/pulumi v3.248.0 pkg/backend/diy/state.go getTarget), in both layouts.
 */
export const DIY_ORGANIZATION = "organization";

/**
 * The stack's own outputs, read by a name its backend takes as this stack and no other. The function
 * hands the name to the backend's ParseStackReference (pkg/backend/backend.go
 * backendClient.GetStackOutputs), and each kind of backend has its own rule (pulumi/pulumi v3.248.0):
 * - Pulumi Cloud takes `<org>/<project>/<stack>`; a bare stack name gets the user's default org, which
 *   need not be the stack's (pkg/backend/httpstate/backend.go cloudBackend.ParseStackReference).
 * - A self-managed backend in the project layout takes `organization/<project>/<stack>`, and a bare name
 *   in the current project (pkg/backend/diy/store.go projectReferenceStore.ParseReference).
 * - One in the legacy layout takes only a stack name (store.go legacyReferenceStore.ParseReference):
 *   tokens.ParseStackName refuses the `/` (sdk/go/common/tokens/stack_name.go). Its stacks have no
 *   project, so the bare name is the stack's whole identity. A backend keeps that layout while it holds
 *   stacks from before `.pulumi/meta.yaml` existed, or was made with PULUMI_DIY_BACKEND_LEGACY_LAYOUT
 *   (pkg/backend/diy/meta.go ensurePulumiMeta, backend.go New).
 * So: the qualified name; on a self-managed backend that refuses it, the bare one, which there names the
 * same stack in either layout.
 */
async function readOwnOutputs(): Promise<Record<string, unknown>> {
  const organization = pulumi.getOrganization();
  const stack = pulumi.getStack();
  const qualified = `${organization}/${pulumi.getProject()}/${stack}`;
  let refused: unknown;
  try {
    return await outputsOf(qualified);
  } catch (error) {
    if (organization !== DIY_ORGANIZATION) throw error;
    refused = error;
  }
  try {
    return await outputsOf(stack);
  } catch (error) {
    throw new Error(
      `cannot read the stack's last outputs as ${qualified} (${messageOf(refused)}) nor as ${stack} ` +
        `(${messageOf(error)}). If this self-managed backend holds stacks from before the project ` +
        "layout, `pulumi state upgrade` moves them to it.",
      { cause: error },
    );
  }
}

async function outputsOf(name: string): Promise<Record<string, unknown>> {
  const answer = (await pulumi.runtime.invoke(READ_STACK_OUTPUTS, { name })) as
    { outputs?: Record<string, unknown> } | undefined;
  return answer?.outputs ?? {};
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
