/**
 * The CrossGuard pack in operator install mode: every stack passes every policy, and each operator rule
 * catches an Installation or a dependency broken in exactly what it checks.
 */
import * as assert from "node:assert/strict";
import {
  calicoInstallationAwaited,
  calicoInstallationEks,
  calicoNodeEverywhere,
  calicoOperatorResourcesAfterOperator,
  policies,
  waitConditions,
} from "../policy/policies";
import type { ResourceRecord, StackEvaluation } from "../offline/engine";
import { STACKS, evaluatedWith, evaluatedWithOperator, one } from "./helpers";
import { runPack, runPolicy } from "./policy-harness";
import { type Inputs, broken, expectOne, replaced } from "./policy-records";

const INSTALLATION = "kubernetes:operator.tigera.io/v1:Installation";
const APISERVER = "kubernetes:operator.tigera.io/v1:APIServer";

function annotations(inputs: Inputs): Record<string, string> {
  return (inputs.metadata as { annotations: Record<string, string> }).annotations;
}

function spec(inputs: Inputs): Record<string, unknown> {
  return inputs.spec as Record<string, unknown>;
}

describe("policy pack in operator mode", () => {
  const plans = new Map<string, StackEvaluation>();
  before(async () => {
    for (const stack of STACKS) plans.set(stack, await evaluatedWithOperator(stack));
  });
  const plan = (stack = "staging") => plans.get(stack) as StackEvaluation;

  for (const stack of STACKS) {
    it(`passes every policy on ${stack}, and every operator rule applies`, async () => {
      const resources = plan(stack).resources;
      assert.deepEqual(await runPack(policies, resources), []);
      assert.deepEqual(await runPolicy(calicoOperatorResourcesAfterOperator, resources), {
        violations: [],
        notApplicable: [],
      });
    });
  }

  it("calico-operator-resources-after-operator does not apply to the manifest install", async () => {
    const manifest = await evaluatedWith("dev", {});
    assert.deepEqual(
      (await runPolicy(calicoOperatorResourcesAfterOperator, manifest.resources)).notApplicable,
      ["no tigera-operator Deployment with operator custom resources in this stack"],
    );
  });

  it("calico-installation-eks-policy-only: Calico's own CNI, BGP on and no provider, in one message", async () => {
    const installation = broken(one(plan(), INSTALLATION), (i) => {
      spec(i).cni = { type: "Calico" };
      spec(i).calicoNetwork = { bgp: "Enabled" };
      delete spec(i).kubernetesProvider;
    });
    await expectOne(
      calicoInstallationEks,
      replaced(plan().resources, installation),
      installation.urn,
      /spec\.kubernetesProvider is unset, not "EKS"; spec\.cni\.type is "Calico", not "AmazonVPC"; spec\.calicoNetwork\.bgp is "Enabled", not "Disabled"/,
    );
  });

  it("calico-installation-awaited: no waitFor, a Ready-only wait, and skipAwait each fail", async () => {
    const cases: [(a: Record<string, string>) => void, RegExp][] = [
      [(a) => delete a["pulumi.com/waitFor"], /unset.*no condition=Ready; no jsonpath/],
      [
        (a) => (a["pulumi.com/waitFor"] = "condition=Ready"),
        /"condition=Ready"\): no jsonpath=\{\.status\.calicoVersion\}=<release>\./,
      ],
      [(a) => (a["pulumi.com/skipAwait"] = "true"), /pulumi\.com\/skipAwait is "true"\./],
      [(a) => (a["pulumi.com/waitFor"] = "[not json"), /no condition=Ready; no jsonpath/],
    ];
    for (const [edit, message] of cases) {
      const installation = broken(one(plan(), INSTALLATION), (i) => edit(annotations(i)));
      await expectOne(
        calicoInstallationAwaited,
        replaced(plan().resources, installation),
        installation.urn,
        message,
      );
    }
  });

  it("calico-node-on-every-node: an Installation overriding calico-node's tolerations keeps Exists", async () => {
    const withTolerations = (tolerations: unknown[]) =>
      broken(one(plan(), INSTALLATION), (i) => {
        spec(i).calicoNodeDaemonSet = { spec: { template: { spec: { tolerations } } } };
      });
    const narrow = withTolerations([{ key: "dedicated", operator: "Exists", effect: "NoSchedule" }]);
    await expectOne(
      calicoNodeEverywhere,
      replaced(plan().resources, narrow),
      narrow.urn,
      /overrides calico-node's tolerations .* replace the operator's toleration of every taint/,
    );
    const wide = withTolerations([{ operator: "Exists" }]);
    assert.deepEqual(
      (await runPolicy(calicoNodeEverywhere, replaced(plan().resources, wide))).violations,
      [],
    );
  });

  it("calico-operator-resources-after-operator: an Installation that does not wait for the operator", async () => {
    const operator = one(plan(), "kubernetes:apps/v1:Deployment", "calico-deployment-tigera-operator");
    const original = one(plan(), INSTALLATION);
    const installation: ResourceRecord = {
      ...original,
      dependencies: original.dependencies.filter((urn) => urn !== operator.urn),
    };
    // The APIServer still reaches the operator through its own edge: only the Installation is reported.
    assert.ok(one(plan(), APISERVER).dependencies.includes(operator.urn));
    await expectOne(
      calicoOperatorResourcesAfterOperator,
      replaced(plan().resources, installation),
      installation.urn,
      /Installation calico-installation-default does not depend on the tigera-operator Deployment/,
    );
  });

  it("reads pulumi.com/waitFor as one condition or a JSON array of them", () => {
    assert.deepEqual(waitConditions("condition=Ready"), ["condition=Ready"]);
    assert.deepEqual(waitConditions('["condition=Ready","jsonpath={.status.calicoVersion}=v3.31.7"]'), [
      "condition=Ready",
      "jsonpath={.status.calicoVersion}=v3.31.7",
    ]);
    assert.equal(waitConditions("[1, 2]"), undefined);
    assert.equal(waitConditions(""), undefined);
    assert.equal(waitConditions(undefined), undefined);
  });
});
