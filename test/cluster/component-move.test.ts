/**
 * A resource moved out of a component, by the real engine (Pulumi CLI v3.248.0, pulumi-kubernetes
 * v4.25.0) on a local control plane. The stack's node groups were children of @pulumi/eks's
 * ManagedNodeGroup; the stack now registers each aws.eks.NodeGroup itself, under the component's parent,
 * with the alias builtByPulumiEks gives (components/cluster/nodes.ts), and one more input (updateConfig).
 * The rule under test: the engine updates the child in place under its new URN and deletes only the
 * component, and the next `up` has nothing to do. EKS cannot run here; the rule is the engine's, so a
 * ConfigMap in the same place shows it (test/cluster/programs/moved-out-of-component.ts). The offline diff
 * says the same of the node groups (offline/diff-moves.ts, test/diff-moves.test.ts).
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import type { OperationResult } from "../../local-cluster/pulumi";
import { EngineCase, assertSucceeded } from "./engine-case";

const PROGRAM = path.join(__dirname, "programs", "moved-out-of-component.ts");

/** Each resource's step, by type, for the ConfigMap and the component. */
function steps(result: OperationResult): Record<string, string[]> {
  const of = (type: string) => result.steps.filter((s) => s.type === type).map((s) => s.op);
  return {
    configMap: of("kubernetes:core/v1:ConfigMap"),
    component: of("eks:index:ManagedNodeGroup"),
  };
}

describe("a resource moved out of a component, by the real engine", function () {
  this.timeout(20 * 60_000);

  it("updates it in place under its new URN, deletes only the component, and then has nothing to do", async function () {
    const c = await EngineCase.start("moved out of a component", {
      stack: "dev",
      program: PROGRAM,
      config: { "eks-calico-test:layout": "component" },
    });
    try {
      const live = (name: string) => {
        const got = c.cluster.kubectl(["get", "configmap", "-n", "default", name, "-o", "json"]);
        assert.ok(got.ok, got.output);
        return JSON.parse(got.output) as { metadata: { uid: string }; data: Record<string, string> };
      };
      const first = await c.engine.run("up");
      assertSucceeded(first, "pulumi up inside the component");
      assert.deepEqual(steps(first), { configMap: ["create"], component: ["create"] });
      const name = String(first.outputs.name);
      const before = live(name);

      c.engine.configure({ "eks-calico-test:layout": "direct" });
      const preview = await c.engine.run("preview");
      assertSucceeded(preview, "pulumi preview, moved out");
      assert.deepEqual(steps(preview), { configMap: ["update"], component: ["delete"] });
      const moved = await c.engine.run("up");
      assertSucceeded(moved, "pulumi up, moved out");
      assert.deepEqual(steps(moved), { configMap: ["update"], component: ["delete"] });
      assert.equal(moved.outputs.name, name, "the same object");
      const after = live(name);
      assert.equal(after.metadata.uid, before.metadata.uid, "never deleted and created again");
      assert.deepEqual(after.data, { size: "3", maxUnavailable: "1" });

      assertSucceeded(
        await c.engine.run("preview", { expectNoChanges: true }),
        "pulumi preview --expect-no-changes after the move",
      );
    } finally {
      await c.stop();
    }
  });
});
