/**
 * The checking steps' diff (components/kubernetes/checking-step.ts): a changed input, work found in
 * the cluster, or a cluster that cannot be read makes the step run; otherwise a preview shows no change,
 * so `pulumi preview --expect-no-changes` passes on a cluster that did not move.
 */
import * as assert from "node:assert/strict";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { checkingStep } from "../components/kubernetes/checking-step";

interface Inputs {
  kubeconfig: string;
  names: string[];
}

function step(pending: (inputs: Inputs) => Promise<boolean>) {
  const asked: Inputs[] = [];
  const provider = checkingStep<Inputs, { found: string[] }>(
    "test-step",
    (inputs) => Promise.resolve({ found: inputs.names }),
    (inputs) => {
      asked.push(inputs);
      return pending(inputs);
    },
  );
  const diff = async (olds: Inputs & { found?: string[] }, news: Inputs) =>
    (await provider.diff?.("test-step", olds, news))?.changes;
  return { provider, asked, diff };
}

const inputs: Inputs = { kubeconfig: "k", names: ["a", "b"] };

describe("a checking step's diff", () => {
  it("is unchanged when the inputs are the same and the cluster has no work for it", async () => {
    const { diff, asked } = step(() => Promise.resolve(false));
    assert.equal(await diff({ ...inputs, found: ["a", "b"] }, inputs), false);
    assert.deepEqual(asked, [inputs], "the cluster is read with the new inputs");
  });

  it("runs when the cluster has work for it", async () => {
    const { diff } = step(() => Promise.resolve(true));
    assert.equal(await diff({ ...inputs, found: [] }, inputs), true);
  });

  it("runs when an input changed, without reading the cluster", async () => {
    const { diff, asked } = step(() => Promise.resolve(false));
    assert.equal(await diff({ ...inputs, found: [] }, { ...inputs, names: ["a"] }), true);
    assert.equal(await diff({ ...inputs, found: [] }, { ...inputs, kubeconfig: "rotated" }), true);
    assert.deepEqual(asked, []);
  });

  it("runs when the cluster cannot be read: the update's check then reports why", async () => {
    const { diff } = step(() => Promise.reject(new Error("connect ECONNREFUSED")));
    assert.equal(await diff({ ...inputs, found: [] }, inputs), true);
  });

  it("creates and updates with the check's findings beside the inputs", async () => {
    const { provider } = step(() => Promise.resolve(false));
    assert.deepEqual(await provider.create(inputs), {
      id: "test-step",
      outs: { ...inputs, found: ["a", "b"] },
    });
    assert.deepEqual(await provider.update?.("test-step", inputs, { ...inputs, names: ["c"] }), {
      outs: { ...inputs, names: ["c"], found: ["c"] },
    });
  });

  it("returns outputs the dynamic provider host can send: a finding left undefined is dropped", async () => {
    const provider = checkingStep<Inputs, { notReady?: string; found: string[] }>(
      "test-step",
      () => Promise.resolve({ notReady: undefined, found: [] }),
      () => Promise.resolve(false),
    );
    const created = await provider.create(inputs);
    const updated = await provider.update?.("test-step", inputs, inputs);
    // What @pulumi/pulumi cmd/dynamic-provider does with them; it throws on an undefined value.
    assert.doesNotThrow(() => Struct.fromJavaScript(created.outs as Record<string, never>));
    assert.doesNotThrow(() => Struct.fromJavaScript(updated?.outs as Record<string, never>));
    assert.deepEqual(created.outs, { ...inputs, found: [] });
    assert.throws(() => Struct.fromJavaScript({ notReady: undefined } as unknown as Record<string, never>));
  });
});
