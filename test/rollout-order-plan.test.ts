/**
 * The rollout order of a deployed stack's change of Calico release, as the program registers it: which of
 * Typha's Deployment and the calico-node DaemonSet waits for the other, and what follows Calico waits
 * for; and the refusal, before any resource, of a change no order can make with every Felix connected
 * (stacks/calico-rollout.ts). What is expected of each release pair is written here from
 * projectcalico/calico (v3.32 Typha disconnects a v3.31 Felix: v3.32.1 typha/pkg/syncserver/sync_server.go;
 * a v3.32 Felix reads a v3.31 Typha), and of the operator from tigera/operator v1.42.3, which applies
 * Typha and calico-node in one pass (pkg/controller/installation/core_controller.go).
 */
import * as assert from "node:assert/strict";
import type { StackEvaluation } from "../offline/engine";
import { ConfigError } from "../stacks";
import { type Deployed, changedResources, deploy, planAgainst } from "./deployed-stack";
import { dependsOn, one, unwrapped } from "./helpers";

const DAEMONSET = "kubernetes:apps/v1:DaemonSet";
const DEPLOYMENT = "kubernetes:apps/v1:Deployment";
const NAMESPACE = "kubernetes:core/v1:Namespace";

const manifest = (version: string) => ({ stack: "dev", config: { "eks-calico:calico.version": version } });
const operator = (version: string) => ({
  stack: "dev",
  config: { "eks-calico:calico.version": version, "eks-calico:calico.installer": "operator" },
});

/** Which of calico-node and Typha waits for the other, and whether the autoscaler and probe wait for both. */
function order(evaluation: StackEvaluation) {
  const node = one(evaluation, DAEMONSET, "calico-daemonset-calico-node");
  const typha = one(evaluation, DEPLOYMENT, "calico-deployment-calico-typha");
  const autoscaler = one(evaluation, DEPLOYMENT, "calico-deployment-calico-typha-autoscaler");
  const probe = one(evaluation, NAMESPACE, "calico-probe-namespace");
  return {
    nodeWaitsForTypha: dependsOn(evaluation, node, typha),
    typhaWaitsForNode: dependsOn(evaluation, typha, node),
    autoscalerWaitsForTypha: dependsOn(evaluation, autoscaler, typha),
    probeWaitsForBoth: dependsOn(evaluation, probe, node) && dependsOn(evaluation, probe, typha),
  };
}

const TYPHA_FIRST = {
  nodeWaitsForTypha: true,
  typhaWaitsForNode: false,
  autoscalerWaitsForTypha: true,
  probeWaitsForBoth: true,
};
const CALICO_NODE_FIRST = { ...TYPHA_FIRST, nodeWaitsForTypha: false, typhaWaitsForNode: true };

describe("the rollout order of a deployed stack's Calico release change", function () {
  this.timeout(300_000);
  let atV331: Deployed;
  let atV332: Deployed;
  before(async () => {
    atV331 = await deploy(manifest("v3.31.7"));
    atV332 = await deploy(manifest("v3.32.1"));
  });

  it("installs Typha first, on every line", () => {
    assert.deepEqual(order(atV331.evaluation), TYPHA_FIRST);
    assert.deepEqual(order(atV332.evaluation), TYPHA_FIRST);
  });

  it("v3.31.7 → v3.32.1 rolls calico-node first: the new Typha would disconnect every v3.31 Felix", async () => {
    const { evaluation, diff } = await planAgainst(atV331, manifest("v3.32.1"));
    assert.deepEqual(order(evaluation), CALICO_NODE_FIRST);
    const changed = changedResources(diff);
    assert.ok(changed.includes(`update ${DAEMONSET} calico-daemonset-calico-node`), changed.join("\n"));
    assert.ok(changed.includes(`update ${DEPLOYMENT} calico-deployment-calico-typha`), changed.join("\n"));
  });

  it("v3.32.1 → v3.31.7 rolls Typha first: a v3.32 Felix keeps a v3.31 Typha, a v3.31 Felix not a v3.32 one", async () => {
    const { evaluation } = await planAgainst(atV332, manifest("v3.31.7"));
    assert.deepEqual(order(evaluation), TYPHA_FIRST);
  });

  it("a patch release rolls Typha first, as before", async () => {
    const { evaluation } = await planAgainst(atV331, manifest("v3.31.6"));
    assert.deepEqual(order(evaluation), TYPHA_FIRST);
  });

  it("the update after the upgrade changes nothing, and orders Typha first again", async () => {
    const upgraded = await deploy(manifest("v3.32.1"), atV331);
    const { evaluation, diff } = await planAgainst(upgraded, manifest("v3.32.1"));
    assert.deepEqual(changedResources(diff), []);
    assert.deepEqual(order(evaluation), TYPHA_FIRST);
  });
});

describe("a Calico release change in operator install mode", function () {
  this.timeout(300_000);

  it("is refused from v3.31.7 to v3.32.1 before any resource: the operator rolls Typha first", async () => {
    const deployed = await deploy(operator("v3.31.7"));
    for (const preview of [true, false]) {
      await assert.rejects(planAgainst(deployed, operator("v3.32.1"), { preview }), (error: unknown) => {
        assert.ok(ConfigError.isConfigError(error), String(error));
        const text = unwrapped(error.message);
        assert.deepEqual(
          error.problems.map((p) => [p.path, p.value]),
          [["calico.version", "v3.32.1"]],
        );
        assert.match(
          text,
          /calico\.version: cannot move the deployed Calico from v3\.31\.7 to v3\.32\.1 with every Felix connected: the Tigera operator v1\.42\.3 rolls Typha and calico-node together, Typha first/,
        );
        assert.match(text, /Typha first: each v3\.31 Felix meets a v3\.32 Typha, which disconnects it/);
        assert.match(text, /keep calico\.version at v3\.31\.7: no sequence of the releases the operator/);
        return true;
      });
    }
  });

  it("goes back from v3.32.1 to v3.31.7: a v3.32 Felix keeps the v3.31 Typha the operator rolls first", async () => {
    const deployed = await deploy(operator("v3.32.1"));
    const { diff } = await planAgainst(deployed, operator("v3.31.7"));
    assert.ok(changedResources(diff).length > 0);
  });
});
