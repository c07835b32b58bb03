/**
 * A replaced resource and `ignoreChanges`, by the real engine (Pulumi CLI v3.248.0, pulumi-kubernetes
 * v4.25.0) on a local control plane. The rule under test: when a resource is replaced, the replacement is
 * created with a property listed in `ignoreChanges` at the value in Pulumi's state, not the program's,
 * for a property nested in an object (`data.size` here, `scalingConfig.desiredSize` on a node group).
 *
 * How the engine comes to it (pulumi/pulumi pkg/v3 v3.248.0 resource/deploy/step_generator.go): before
 * it diffs, generateSteps puts each ignored property back to its value in state (`processIgnoreChanges`,
 * line 1154) in a copy of the program's inputs; a replacement is then created from the provider's Check
 * of the program's inputs again (`goal.Properties`, line 1889), not of that copy. The copy is shallow
 * (`PropertyMap.Copy`, sdk/v3 go/common/resource/properties.go), so putting back a nested property writes
 * into the object the program's inputs share, and the replacement gets the value from state. An ignored
 * top-level property is replaced in the copy alone: a replacement gets the program's value.
 *
 * This program depends on it for node groups (stacks/node-group-replacement.ts, offline/node-rollout.ts):
 * under `ignoreChanges: ["scalingConfig.desiredSize"]` (components/cluster/nodes.ts) a node group
 * replaced by an amiType, capacityType or instanceTypes change is created with the desired size from
 * state. EKS cannot run here; the rule is the engine's, so a Kubernetes resource shows it: an immutable
 * ConfigMap (test/cluster/programs/ignored-on-replace.ts), replaced when its `data.kind` changes, with
 * `data.size` ignored.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import type { OperationResult } from "../../local-cluster/pulumi";
import { EngineCase, assertSucceeded } from "./engine-case";

const PROGRAM = path.join(__dirname, "programs", "ignored-on-replace.ts");
const CONFIG_MAP = "kubernetes:core/v1:ConfigMap";

/** The engine's steps for the ConfigMap, in the order it reported them. */
function configMapSteps(result: OperationResult): string[] {
  return result.steps.filter((s) => s.type === CONFIG_MAP).map((s) => s.op);
}

/** The properties that force the ConfigMap's replacement, as the engine reported them. */
function replaceKeys(result: OperationResult): readonly string[] | undefined {
  return result.steps.find((s) => s.type === CONFIG_MAP && s.op === "replace")?.keys;
}

describe("ignoreChanges on a replaced resource, by the real engine", function () {
  this.timeout(20 * 60_000);

  it("creates the replacement with an ignored nested property's value from state, not the program's", async function () {
    const settings = (size: string, kind: string) => ({
      "eks-calico-test:size": size,
      "eks-calico-test:kind": kind,
    });
    const c = await EngineCase.start("ignoreChanges on replace", {
      stack: "dev",
      program: PROGRAM,
      config: settings("3", "a"),
    });
    try {
      /** The ConfigMap's data as the API server holds it; undefined when there is no such object. */
      const live = (name: string): Record<string, string> | undefined => {
        const got = c.cluster.kubectl(["get", "configmap", "-n", "default", name, "-o", "json"]);
        if (!got.ok && got.output.includes("NotFound")) return undefined;
        assert.ok(got.ok, got.output);
        return (JSON.parse(got.output) as { data: Record<string, string> }).data;
      };
      const up = async (step: string) => {
        const result = await c.engine.run("up");
        assertSucceeded(result, `pulumi up, ${step}`);
        return result;
      };

      // First deployment: nothing in state, so the program's size is created.
      const first = await up("size 3, kind a");
      assert.deepEqual(configMapSteps(first), ["create"]);
      const firstName = String(first.outputs.name);
      assert.deepEqual(live(firstName), { size: "3", kind: "a" });

      // size 6 and kind b: kind replaces the ConfigMap, and size is ignored.
      c.engine.configure(settings("6", "b"));
      const preview = await c.engine.run("preview");
      assertSucceeded(preview, "pulumi preview, size 6, kind b");
      const replaced = ["create-replacement", "replace", "delete-replaced"];
      assert.deepEqual(configMapSteps(preview), replaced, "the preview plans a replacement");
      const second = await up("size 6, kind b");
      assert.deepEqual(configMapSteps(second), replaced, "up replaces the ConfigMap");
      const secondName = String(second.outputs.name);
      assert.notEqual(secondName, firstName, "the replacement is a new object");
      assert.equal(live(firstName), undefined, "the replaced object is deleted");
      assert.deepEqual(
        live(secondName),
        { size: "3", kind: "b" },
        "the replacement has the new kind and the size from state",
      );
      assert.deepEqual(replaceKeys(second), ["data.kind"], "only kind forces the replacement");

      // The same config again: nothing left to change.
      assertSucceeded(
        await c.engine.run("preview", { expectNoChanges: true }),
        "pulumi preview --expect-no-changes, size 6, kind b",
      );
      const third = await up("size 6, kind b again");
      assert.deepEqual(configMapSteps(third), ["same"]);
      assert.equal(third.outputs.name, secondName);
      assert.deepEqual(live(secondName), { size: "3", kind: "b" });

      const destroyed = await c.destroy("destroy");
      assert.deepEqual(configMapSteps(destroyed), ["delete"]);
      assert.equal(live(secondName), undefined, "destroy deletes the ConfigMap");
    } finally {
      await c.stop();
    }
  });
});
