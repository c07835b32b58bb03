/**
 * The VPC CNI network-policy agent's hand-over step (components/existing-cluster/hand-over-step.ts) run by
 * the real engine, as `pulumi up` runs it for an existing cluster turning a running agent off
 * (test/cluster/programs/existing-cluster-steps.ts registers it alone). `up` fails with its message before
 * calico-node exists, and while a NetworkPolicy or an object of the agent's API group (networking.k8s.aws,
 * served here by CRDs of the same shape) is left, naming each, in the words of the step's own refusal
 * (handOverRefusal, unit-tested in test/network-policy-agent.test.ts); it passes once they are gone. What
 * the step finds is known after up in the offline plan. Calico comes first from this program itself (a
 * kubeconfig stack on the same cluster, its probe off: in an existing-cluster stack the probe follows
 * the step).
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { type AwsSimulation, type ConfigOverrides, evaluateStack } from "../../offline/engine";
import { HAND_OVER_TYPE } from "../../components/existing-cluster/hand-over-step";
import { handOverRefusal } from "../../components/existing-cluster/agent-hand-over";
import { EngineStack } from "../../local-cluster/pulumi";
import { compare, disagreements, summary } from "./agreement";
import { EngineCase, assertSucceeded, engineChanges } from "./engine-case";

const STACK = "existing.example";
const CONFIG: ConfigOverrides = { "eks-calico:cluster.existing.networkPolicyAgent": "off" };
const AGENT_ON: AwsSimulation = {
  existingCluster: { vpcCni: { managed: true, configurationValues: '{"enableNetworkPolicy":"true"}' } },
};
const PROGRAM = path.join(__dirname, "programs", "existing-cluster-steps.ts");

/** A CRD of the agent's API group, as its controller serves it: any spec, listed across namespaces. */
function agentCrd(plural: string, kind: string, scope: "Namespaced" | "Cluster") {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.networking.k8s.aws` },
    spec: {
      group: "networking.k8s.aws",
      names: { plural, kind, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope,
      versions: [
        {
          name: "v1alpha1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
            },
          },
        },
      ],
    },
  };
}

/** What a cluster that ran the agent still has: a policy, the endpoint derived from it, a cluster policy. */
const LEFT = [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: "web", namespace: "shop" },
    spec: { podSelector: { matchLabels: { app: "web" } }, policyTypes: ["Ingress"] },
  },
  {
    apiVersion: "networking.k8s.aws/v1alpha1",
    kind: "PolicyEndpoint",
    metadata: { name: "web-x7k2", namespace: "shop" },
    spec: { policyRef: { name: "web", namespace: "shop" } },
  },
  {
    apiVersion: "networking.k8s.aws/v1alpha1",
    kind: "ClusterNetworkPolicy",
    metadata: { name: "deny-metadata" },
    spec: { priority: 10 },
  },
];
const LEFT_NAMES = [
  "ClusterNetworkPolicy deny-metadata",
  "NetworkPolicy shop/web",
  "PolicyEndpoint shop/web-x7k2",
];

/** The refusal's own text, wherever an error message carries it, without a stack trace after it. */
function refusalOf(message: string): string {
  const text = /the VPC CNI's network-policy agent on [^]*$/.exec(message)?.[0] ?? `(no refusal) ${message}`;
  return text.split(/\n\s+at /)[0].trim();
}

describe("the network-policy agent's hand-over step, run by the real engine", function () {
  this.timeout(20 * 60_000);

  it("fails up until calico-node is ready and nothing is left for the agent, naming what is, in the step's words", async function () {
    const planned = (await evaluateStack(STACK, { config: CONFIG, simulate: AGENT_ON })).resources.find(
      (r) => r.type === HAND_OVER_TYPE,
    );
    assert.ok(planned, "the existing-cluster plan turning the agent off has the hand-over step");
    const c = await EngineCase.start("hand-over", {
      stack: "dev",
      program: PROGRAM,
      // The existing cluster's name, which the messages name.
      config: { "eks-calico-test:step": "hand-over", "eks-calico-test:cluster": planned.inputs.cluster },
    });
    try {
      /** `pulumi up` of the step, which must fail; its message as the user reads it. */
      const refused = async () => {
        const up = await c.engine.run("up");
        assert.equal(up.ok, false, "pulumi up fails");
        // The step's own diagnostic, as the engine shows it for the resource.
        return up.errors.find((e) => e.includes("network-policy agent")) ?? up.error ?? "";
      };
      // Before Calico: nothing enforces once the agent is off.
      assert.match(
        await refused(),
        /Calico does not enforce yet: DaemonSet kube-system\/calico-node does not exist/,
      );

      // Calico, deployed by this program on the same cluster.
      const calico = new EngineStack({
        ...c.engine.options,
        stack: "calico",
        dir: path.join(c.engine.options.dir, "..", "calico"),
        program: undefined,
        config: { "eks-calico:calico.probe.enabled": false },
      });
      assertSucceeded(await calico.run("up"), "pulumi up of Calico");

      // What the agent left: refused, every object named, as the step's refusal names them.
      for (const crd of [
        agentCrd("policyendpoints", "PolicyEndpoint", "Namespaced"),
        agentCrd("clusternetworkpolicies", "ClusterNetworkPolicy", "Cluster"),
      ]) {
        const applied = c.cluster.kubectl(["apply", "-f", "-"], JSON.stringify(crd));
        assert.ok(applied.ok, applied.output);
        c.cluster.kubectl([
          "wait",
          "--for=condition=Established",
          "--timeout=60s",
          `crd/${crd.metadata.name}`,
        ]);
      }
      for (const object of LEFT) {
        const applied = c.cluster.kubectl(["apply", "-f", "-"], JSON.stringify(object));
        assert.ok(applied.ok, applied.output);
      }
      const real = refusalOf(await refused());
      assert.ok(
        LEFT_NAMES.every((name) => real.includes(name)),
        real,
      );
      compare(
        "hand-over: what is left is refused, in the step's own words",
        refusalOf(String(handOverRefusal(String(planned.inputs.cluster), { remaining: LEFT_NAMES }))),
        real,
        "engine",
      );

      // Gone (the agent's CRDs still served, empty): the step passes.
      for (const object of LEFT.filter((o) => o.kind !== "Namespace")) {
        const deleted = c.cluster.kubectl(["delete", "-f", "-", "--wait=true"], JSON.stringify(object));
        assert.ok(deleted.ok, deleted.output);
      }
      const passed = await c.engine.run("up");
      assertSucceeded(passed, "pulumi up once nothing is left");
      compare("hand-over: nothing left, the step passes", [], passed.outputs.remaining, "engine");
      // While it exists the hand-over is pending: every preview plans it to run again (checking-step.ts).
      const preview = await c.engine.run("preview");
      assertSucceeded(preview, "pulumi preview");
      assert.ok(
        Object.keys(engineChanges(preview.steps)).some((id) => id.includes("NetworkPolicyAgentHandOver")),
        "the step runs again",
      );
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });
});
