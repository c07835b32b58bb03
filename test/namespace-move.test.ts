/**
 * Moving a deployed manifest install to another `calico.namespace` (stacks/previous.ts namespaceStep): in
 * one update it would create the new calico-node and Typha while the old ones run (pulumi-kubernetes
 * deletes a replaced object first only when name and namespace stay), so it is refused, and done in two
 * updates with `calico.reinstall`: the first removes the install, the second installs it in the new
 * namespace, never both at once.
 */
import * as assert from "node:assert/strict";
import { ConfigError } from "../stacks";
import { calicoStep } from "../stacks/previous";
import { CalicoConfig, stackConfigSchema } from "../stacks/schema";
import { changedResources, deploy, planAgainst } from "./deployed-stack";

const calico = (settings: Record<string, unknown>): CalicoConfig =>
  stackConfigSchema.parse({ calico: settings, nodeGroups: [{ name: "general" }] }).calico;
const KUBE_SYSTEM = { installer: "manifest" as const, namespace: "kube-system", version: "v3.31.7" };
const moved = { "eks-calico:calico.namespace": "calico-system" };

describe("moving a deployed Calico to another namespace", () => {
  it("is refused in one update, at calico.namespace, with the two updates that do it", () => {
    const result = calicoStep(KUBE_SYSTEM, calico({ namespace: "calico-system" }));
    assert.ok("problems" in result);
    const [problem] = result.problems;
    assert.equal(problem.path, "calico.namespace");
    assert.equal(problem.value, "calico-system");
    assert.match(
      problem.rule,
      /^cannot move the deployed Calico from kube-system to calico-system in one update/,
    );
    assert.match(
      problem.hint ?? "",
      /set it back to kube-system, or move it in two updates with calico\.reinstall: true/,
    );
    assert.equal(problem.steps?.length, 2);
  });

  it("is a reinstall with calico.reinstall; the same namespace, a new stack or the operator are not moves", () => {
    assert.deepEqual(calicoStep(KUBE_SYSTEM, calico({ namespace: "calico-system", reinstall: true })), {
      step: "remove-for-reinstall",
    });
    assert.deepEqual(calicoStep(KUBE_SYSTEM, calico({ namespace: "kube-system" })), { step: "install" });
    assert.deepEqual(calicoStep(undefined, calico({ namespace: "calico-system" })), { step: "install" });
    assert.deepEqual(calicoStep({ installer: "none" }, calico({ namespace: "calico-system" })), {
      step: "install",
    });
  });

  it("through the program: refused before any resource; with reinstall, removed, then installed, never both", async () => {
    const deployed = await deploy({ stack: "dev", config: {} });
    await assert.rejects(
      planAgainst(deployed, { stack: "dev", config: moved }),
      (error: unknown) =>
        ConfigError.isConfigError(error) && error.problems.some((p) => p.path === "calico.namespace"),
    );
    const reinstall = { stack: "dev", config: { ...moved, "eks-calico:calico.reinstall": true } };
    const removing = await planAgainst(deployed, reinstall);
    const first = changedResources(removing.diff);
    assert.ok(
      first.includes("delete kubernetes:apps/v1:DaemonSet calico-daemonset-calico-node"),
      first.join("\n"),
    );
    assert.deepEqual(
      first.filter((change) => !change.startsWith("delete ")),
      [],
      "the first update only removes",
    );
    assert.equal((removing.evaluation.outputs.calico as { installer: string }).installer, "none");

    const removed = await deploy(reinstall, deployed);
    const installing = await planAgainst(removed, reinstall);
    const second = changedResources(installing.diff);
    assert.ok(
      second.includes("create kubernetes:apps/v1:DaemonSet calico-daemonset-calico-node"),
      second.join("\n"),
    );
    assert.ok(second.includes("create kubernetes:core/v1:Namespace calico-namespace-calico-system"));
    assert.deepEqual(
      second.filter((change) => !change.startsWith("create ")),
      [],
      "the second update only creates",
    );
    assert.equal((installing.evaluation.outputs.calico as { namespace: string }).namespace, "calico-system");
  });
});
