/** Operator install mode through the real program: objects, waits, deletion order, outputs. */
import * as assert from "node:assert/strict";
import { OPERATOR_RELEASES } from "../components/calico/operator/releases";
import { operatorTyphaReplicas } from "../components/calico/readiness";
import { KNOWN_AFTER_UP, type StackEvaluation } from "../offline/engine";
import { renderCalicoYaml } from "../offline/calico-yaml";
import { STACKS, dependsOn, evaluatedWith, input, one, ofType, stackValue } from "./helpers";

const INSTALLATION = "kubernetes:operator.tigera.io/v1:Installation";
const APISERVER = "kubernetes:operator.tigera.io/v1:APIServer";
const DEPLOYMENT = "kubernetes:apps/v1:Deployment";

function operatorPlan(stack: string, calico: Record<string, unknown> = {}): Promise<StackEvaluation> {
  return evaluatedWith(stack, { config: { "eks-calico:calico": { installer: "operator", ...calico } } });
}

describe("operator install mode", () => {
  for (const stack of STACKS) {
    it(`plans the operator install for ${stack}: no manifest objects, the operator and the Installation`, async () => {
      const plan = await operatorPlan(stack);
      assert.equal(ofType(plan, "eks-calico:calico:PolicyOnly").length, 0);
      // The only DaemonSet is the startup taint's remover: the operator runs calico-node.
      assert.deepEqual(
        ofType(plan, "kubernetes:apps/v1:DaemonSet").map((d) => d.name),
        ["calico-startup-taint-remover"],
      );
      assert.equal(ofType(plan, "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition").length, 0);
      const operator = one(plan, DEPLOYMENT, "calico-deployment-tigera-operator");
      const annotations = input<Record<string, string>>(one(plan, INSTALLATION), "metadata.annotations");
      const release = OPERATOR_RELEASES.find((r) => r.calico === annotations["eks-calico.io/calico-version"]);
      assert.ok(release, "the Installation names a release of the table");
      assert.equal(
        input<{ image: string }[]>(operator, "spec.template.spec.containers")[0].image,
        `quay.io/tigera/operator:${release.operator}`,
      );
      const outputs = plan.outputs.calico as Record<string, unknown>;
      assert.equal(outputs.installer, "operator");
      assert.equal(outputs.namespace, "calico-system");
      // What the operator reports is read back after its wait: known after up, as in a preview.
      for (const key of ["isReady", "policyEnforced", "current", "updated", "ready", "available"]) {
        assert.equal(outputs[key], KNOWN_AFTER_UP, key);
      }
      // calico-node on every node of the stack's groups: the operator's tolerates every taint too.
      const nodes = stackValue<{ desiredSize: number }[]>(stack, "nodeGroups").reduce(
        (sum, group) => sum + group.desiredSize,
        0,
      );
      assert.equal(outputs.desired, nodes);
      assert.equal(outputs.typhaReplicas, operatorTyphaReplicas(nodes));
    });
  }

  it("writes the Installation for EKS on the VPC CNI, with the registry, update strategy and waits", async () => {
    const plan = await operatorPlan("dev", {
      version: "v3.32.1",
      registry: "mirror.example.com:5000/team/calico",
      maxUnavailable: 2,
    });
    const installation = one(plan, INSTALLATION);
    assert.deepEqual(installation.inputs.spec, {
      kubernetesProvider: "EKS",
      cni: { type: "AmazonVPC" },
      calicoNetwork: { bgp: "Disabled" },
      controlPlaneTolerations: [
        { key: "CriticalAddonsOnly", operator: "Exists" },
        { effect: "NoSchedule", operator: "Exists" },
        { effect: "NoExecute", operator: "Exists" },
      ],
      registry: "mirror.example.com:5000/",
      imagePath: "team/calico",
      nodeUpdateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } },
    });
    const annotations = input<Record<string, string>>(installation, "metadata.annotations");
    assert.deepEqual(JSON.parse(annotations["pulumi.com/waitFor"]), [
      "condition=Ready",
      "jsonpath={.status.calicoVersion}=v3.32.1",
    ]);
    assert.equal(annotations["eks-calico.io/calico-version"], "v3.32.1");
    assert.ok(installation.options.customTimeouts?.create, "the wait has the stack's readiness timeout");
    const apiServer = one(plan, APISERVER);
    assert.deepEqual(
      JSON.parse(input<Record<string, string>>(apiServer, "metadata.annotations")["pulumi.com/waitFor"]),
      ["condition=Ready"],
    );
    assert.equal(
      input<{ image: string }[]>(
        one(plan, DEPLOYMENT, "calico-deployment-tigera-operator"),
        "spec.template.spec.containers",
      )[0].image,
      "quay.io/tigera/operator:v1.42.3",
    );
  });

  it("adds Goldmane and Whisker only with observability, never awaited; the API server only when asked", async () => {
    const plan = await operatorPlan("dev", { apiServer: false, observability: true });
    assert.equal(ofType(plan, APISERVER).length, 0);
    for (const kind of ["Goldmane", "Whisker"]) {
      const resource = one(plan, `kubernetes:operator.tigera.io/v1:${kind}`);
      const annotations = input<Record<string, string>>(resource, "metadata.annotations");
      assert.equal(annotations["pulumi.com/skipAwait"], "true");
      assert.equal(annotations["pulumi.com/waitFor"], undefined);
      assert.ok(dependsOn(plan, resource.urn, one(plan, INSTALLATION).urn));
    }
  });

  it("orders deletion: custom resources before the operator, the operator before its RBAC and namespace", async () => {
    const plan = await operatorPlan("dev", { observability: true });
    const operator = one(plan, DEPLOYMENT, "calico-deployment-tigera-operator").urn;
    for (const resource of plan.resources.filter((r) =>
      r.type.startsWith("kubernetes:operator.tigera.io/"),
    )) {
      assert.ok(dependsOn(plan, resource.urn, operator), `${resource.name} depends on the operator`);
    }
    for (const name of [
      "calico-namespace-tigera-operator",
      "calico-role-tigera-operator",
      "calico-binding-tigera-operator",
      "calico-namespacedbinding-tigera-operator-secrets",
    ]) {
      const object = plan.resources.find((r) => r.name === name);
      assert.ok(object, name);
      assert.ok(dependsOn(plan, operator, object.urn), `the operator depends on ${name}`);
    }
    // The probe runs once the operator reports Calico Ready.
    const probeNamespace = one(plan, "kubernetes:core/v1:Namespace", "calico-probe-namespace");
    assert.ok(dependsOn(plan, probeNamespace.urn, one(plan, INSTALLATION).urn));
  });

  it("writes calico.yaml with the operator objects and its custom resources after the Deployment", async () => {
    const yaml = renderCalicoYaml(await operatorPlan("dev"));
    assert.match(yaml, /Tigera operator/);
    const deployment = yaml.indexOf("name: tigera-operator\n  namespace: tigera-operator");
    const installation = yaml.indexOf("kind: Installation");
    assert.ok(deployment > 0 && installation > deployment, "the Installation comes after the operator");
    assert.doesNotMatch(yaml, /kind: CustomResourceDefinition/);
  });
});
