/**
 * The VPC CNI network-policy agent's hand-over step (components/existing-cluster/hand-over-step.ts) on a
 * real API server, as `pulumi up` runs it for an existing cluster turning a running agent off: loaded
 * from its serialized text, with the plan's inputs. It refuses before calico-node exists, refuses while a
 * NetworkPolicy or an object of the agent's API group (networking.k8s.aws, served here by CRDs of the same
 * shape) is left, naming each, and passes once they are gone; the offline plan, told what is left, says
 * the same.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import { LocalCluster, plan, planObjects } from "../../local-cluster/deploy";
import {
  type ConfigOverrides,
  type StackEvaluation,
  evaluateStackExpectingError,
} from "../../offline/engine";
import { dependenciesOf, dependencyGraph } from "../../offline/graph";
import type { ExistingClusterSimulation } from "../../offline/world/existing";
import {
  HAND_OVER_TYPE,
  type HandOverInputs,
  handOverProvider,
} from "../../components/existing-cluster/hand-over-step";
import { compare, summary } from "./agreement";

const DIR = path.join(os.tmpdir(), `eks-calico-hand-over-test-${process.pid}`);
const STACK = "existing.example";
const CONFIG: ConfigOverrides = { "eks-calico:cluster.existing.networkPolicyAgent": "off" };
const AGENT_ON: ExistingClusterSimulation = {
  vpcCni: { managed: true, configurationValues: '{"enableNetworkPolicy":"true"}' },
};

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

async function loadedProvider(): Promise<pulumi.dynamic.ResourceProvider> {
  const serialized = await pulumi.runtime.serializeFunction(() => handOverProvider, { allowSecrets: true });
  return (requireFromString(serialized.text) as { handler: () => pulumi.dynamic.ResourceProvider }).handler();
}

/** The refusal's own text, wherever an error message carries it. */
function refusalOf(message: string): string {
  return /the VPC CNI's network-policy agent on [^]*$/.exec(message)?.[0].trim() ?? `(no refusal) ${message}`;
}

after(function () {
  for (const line of summary()) console.log(line);
});

describe("the network-policy agent's hand-over step, on a real API server", function () {
  this.timeout(20 * 60_000);

  it("refuses until calico-node is ready and nothing is left for the agent, naming what is, as offline", async function () {
    const cluster = await LocalCluster.start("dev", { dir: DIR });
    try {
      const simulation = { existingCluster: { ...AGENT_ON, nodes: cluster.state.nodes } };
      const evaluation: StackEvaluation = await plan(STACK, CONFIG, simulation);
      const step = evaluation.resources.find((r) => r.type === HAND_OVER_TYPE);
      assert.ok(step, "the plan has the hand-over step");
      const provider = await loadedProvider();
      const inputs = {
        ...(step.inputs as unknown as HandOverInputs),
        kubeconfig: fs.readFileSync(cluster.state.kubeconfig, "utf8"),
        context: undefined,
      };

      // Before Calico: nothing enforces once the agent is off.
      await assert.rejects(
        provider.create(inputs),
        /Calico does not enforce yet: DaemonSet kube-system\/calico-node does not exist/,
      );

      // Calico's objects that come before the step in the plan (not the probe, which waits for the agent).
      const graph = dependencyGraph(evaluation);
      const beforeStep = planObjects(evaluation).filter((o) => !dependenciesOf(graph, o.urn).has(step.urn));
      assert.ok(
        planObjects(evaluation).some(
          (o) => !beforeStep.includes(o) && o.object.metadata.name.includes("probe"),
        ),
        "the probe follows the step",
      );
      compare("hand-over: Calico before the step is accepted", [], await cluster.create(beforeStep));
      const counts = await cluster.settledCounts("kube-system");
      assert.ok(counts.ready > 0 && counts.ready === counts.desired, JSON.stringify(counts));

      // What the agent left: refused, every object named, and the offline plan says the same.
      for (const crd of [
        agentCrd("policyendpoints", "PolicyEndpoint", "Namespaced"),
        agentCrd("clusternetworkpolicies", "ClusterNetworkPolicy", "Cluster"),
      ]) {
        const applied = cluster.kubectl(["apply", "-f", "-"], JSON.stringify(crd));
        assert.ok(applied.ok, applied.output);
        cluster.kubectl(["wait", "--for=condition=Established", "--timeout=60s", `crd/${crd.metadata.name}`]);
      }
      for (const object of LEFT) {
        const applied = cluster.kubectl(["apply", "-f", "-"], JSON.stringify(object));
        assert.ok(applied.ok, applied.output);
      }
      const real = await provider.create(inputs).then(
        () => "(accepted)",
        (error: Error) => refusalOf(error.message),
      );
      assert.ok(
        LEFT_NAMES.every((name) => real.includes(name)),
        real,
      );
      const offline = await evaluateStackExpectingError(STACK, {
        config: CONFIG,
        simulate: { existingCluster: { ...simulation.existingCluster, networkPolicies: LEFT_NAMES } },
      });
      compare(
        "hand-over: what is left is refused, in the same words",
        refusalOf(String(offline.error)),
        real,
      );

      // Gone (the agent's CRDs still served, empty): the step passes, and the add-on may change.
      for (const object of LEFT.filter((o) => o.kind !== "Namespace")) {
        const deleted = cluster.kubectl(["delete", "-f", "-", "--wait=true"], JSON.stringify(object));
        assert.ok(deleted.ok, deleted.output);
      }
      const passed = await provider.create(inputs);
      // The plan above was made with nothing left (the offline world's default), and completed.
      assert.ok(evaluation.simulated.some((line) => /hand-over step: .*none left/.test(line)));
      compare(
        "hand-over: nothing left, the step passes",
        [],
        (passed.outs as { remaining: string[] }).remaining,
      );
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });
});
