/**
 * The name the stack reads its own last outputs by (stacks/previous-outputs.ts), against each kind of
 * backend's rule for it (pulumi/pulumi v3.248.0), the engine's function answering as it does: the
 * backend's ParseStackReference takes the name or refuses it. The real CLI on a file backend in both
 * layouts: test/cluster/state-backends.test.ts.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { DIY_ORGANIZATION, READ_STACK_OUTPUTS, readPreviousOutputs } from "../stacks/previous-outputs";

/** What the engine's function answers for a name: the stack's outputs, or the backend's refusal. */
type Backend = (name: string) => Record<string, unknown> | string;

/** sdk/go/common/tokens/stack_name.go ParseStackName, refusing the `/` of a qualified name. */
const SLASH_REFUSED =
  "a stack name may only contain alphanumeric, hyphens, underscores, or periods: invalid character '/' at position 12";
const OUTPUTS = { clusterName: "eks-calico-dev", vpcId: "vpc-0abc" };

/**
 * Runs readPreviousOutputs with the mock runtime in `organization`, the backend answering each read;
 * the names read, in order, and what it returned or the error it threw.
 */
async function readOn(
  organization: string,
  backend: Backend,
): Promise<{ names: string[]; outputs?: unknown; error?: string }> {
  const names: string[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: () => {
        throw new Error("no resource expected");
      },
      call: (args) => {
        assert.equal(args.token, READ_STACK_OUTPUTS);
        const name = String((args.inputs as { name?: unknown }).name);
        names.push(name);
        const answer = backend(name);
        // The SDK reports a failed invoke by its gRPC `details` (runtime/invoke.js), as the CLI sends it.
        if (typeof answer === "string") throw Object.assign(new Error(answer), { details: answer });
        return { name, outputs: answer, secretOutputNames: [] };
      },
    },
    "eks-calico",
    "dev",
    false,
    organization,
  );
  try {
    return { names, outputs: await readPreviousOutputs() };
  } catch (error) {
    return { names, error: (error as Error).message };
  }
}

describe("the stack's own last outputs, on every kind of backend", () => {
  it("Pulumi Cloud: by <org>/<project>/<stack> alone, never the bare name of the default org", async () => {
    // pkg/backend/httpstate/backend.go cloudBackend.ParseStackReference.
    const read = await readOn("acme", (name) => (name === "acme/eks-calico/dev" ? OUTPUTS : "not found"));
    assert.deepEqual(read, { names: ["acme/eks-calico/dev"], outputs: OUTPUTS });
    const failed = await readOn("acme", () => "[403] Forbidden");
    assert.deepEqual(failed, { names: ["acme/eks-calico/dev"], error: "[403] Forbidden" });
  });

  it("a self-managed backend in the project layout: by organization/<project>/<stack>", async () => {
    // pkg/backend/diy/store.go projectReferenceStore.ParseReference.
    const read = await readOn(DIY_ORGANIZATION, (name) =>
      name === "organization/eks-calico/dev" || name === "dev" ? OUTPUTS : "no such stack",
    );
    assert.deepEqual(read, { names: ["organization/eks-calico/dev"], outputs: OUTPUTS });
  });

  it("a self-managed backend in the legacy layout: by the stack's name once the qualified one is refused", async () => {
    // store.go legacyReferenceStore.ParseReference: tokens.ParseStackName alone.
    const read = await readOn(DIY_ORGANIZATION, (name) => (name.includes("/") ? SLASH_REFUSED : OUTPUTS));
    assert.deepEqual(read, { names: ["organization/eks-calico/dev", "dev"], outputs: OUTPUTS });
  });

  it("a self-managed backend refusing both names: fails naming both reads and `pulumi state upgrade`", async () => {
    const read = await readOn(DIY_ORGANIZATION, (name) =>
      name.includes("/") ? SLASH_REFUSED : "unreadable",
    );
    assert.deepEqual(read.names, ["organization/eks-calico/dev", "dev"]);
    assert.match(
      read.error ?? "",
      /as organization\/eks-calico\/dev \(.*invalid character '\/'.*\) nor as dev \(/,
    );
    assert.match(read.error ?? "", /unreadable\)\. .*`pulumi state upgrade` moves them/);
  });
});
