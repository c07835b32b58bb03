/**
 * The stacks come from the Pulumi.<stack>.yaml files: a copied stack file (docs/stacks.md's way to add a
 * stack) is planned, and tested by every per-stack test, without editing a list.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT_ROOT, deployableStacks, evaluateStack, listStacks } from "../offline/engine";
import { STACKS, evaluated, one } from "./helpers";

describe("stack files", () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-stacks-"));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A project directory holding Pulumi.yaml and copies of the named stack files. */
  function project(copies: Record<string, string>): string {
    fs.copyFileSync(path.join(PROJECT_ROOT, "Pulumi.yaml"), path.join(tmp, "Pulumi.yaml"));
    for (const [stack, from] of Object.entries(copies)) {
      fs.copyFileSync(path.join(PROJECT_ROOT, `Pulumi.${from}.yaml`), path.join(tmp, `Pulumi.${stack}.yaml`));
    }
    return tmp;
  }

  it("takes every Pulumi.<stack>.yaml but the examples, a new file included", () => {
    const root = project({
      dev: "dev",
      staging: "staging",
      prod: "prod",
      qa: "staging",
      "existing.example": "existing.example",
      "kubeconfig.example": "kubeconfig.example",
    });
    fs.writeFileSync(path.join(root, "Pulumi.yml"), "");
    fs.writeFileSync(path.join(root, "README.md"), "");
    assert.deepEqual(listStacks(root), [
      "dev",
      "existing.example",
      "kubeconfig.example",
      "prod",
      "qa",
      "staging",
    ]);
    assert.deepEqual(deployableStacks(root), ["dev", "prod", "qa", "staging"]);
  });

  it("runs the per-stack tests on every stack file of the project but the examples", () => {
    const files = fs
      .readdirSync(PROJECT_ROOT)
      .filter((file) => /^Pulumi\..+\.yaml$/.test(file) && !file.endsWith(".example.yaml"));
    assert.deepEqual([...STACKS], files.map((file) => file.slice("Pulumi.".length, -".yaml".length)).sort());
    for (const stack of ["dev", "staging", "prod"]) assert.ok(STACKS.includes(stack), stack);
  });

  it("plans a copy of Pulumi.staging.yaml as staging, under its own name", async () => {
    const root = project({ qa: "staging" });
    const qa = await evaluateStack("qa", { root });
    const staging = await evaluated("staging");
    assert.equal(qa.stack, "qa");
    // The same resources (registration order follows the asynchronous program); the stack is named after it.
    const names = (evaluation: typeof qa) =>
      evaluation.resources
        .filter((r) => r.type !== "pulumi:pulumi:Stack")
        .map((r) => `${r.type} ${r.name}`)
        .sort();
    assert.ok(names(qa).length > 50, `${names(qa).length} resources`);
    assert.deepEqual(names(qa), names(staging));
    assert.equal(one(qa, "pulumi:pulumi:Stack").name, "eks-calico-qa");
    assert.deepEqual(Object.keys(qa.outputs).sort(), Object.keys(staging.outputs).sort());
    const cluster = one(qa, "eks:index:Cluster");
    assert.equal(cluster.inputs.name, "eks-calico-qa");
    assert.equal((cluster.inputs.tags as Record<string, string>)["pulumi:stack"], "qa");
  });
});
