/**
 * Calico deployed by the real Pulumi engine (CLI 3.248, pulumi-resource-kubernetes v4.25.0) on a real
 * control plane (kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok for the kubelets),
 * case by case against the offline plan (test/cluster/engine-case.ts): for the stacks' node shapes, EKS
 * Fargate nodes, 20 added nodes and a list of changes, `pulumi up` with the policy pack must succeed, a
 * preview after it must change nothing, the engine's preview must plan the steps the offline diff plans,
 * and the `calico` outputs must equal what the offline plan claims (what the cluster reports it shows as
 * known after up) and what the controllers report.
 */
import * as assert from "node:assert/strict";
import type { ConfigOverrides } from "../../offline/engine";
import { deployableStacks } from "../../offline/engine";
import { addNodes, nodeCount } from "../../local-cluster";
import { numbered, stackNodes } from "../../local-cluster/nodes";
import { evaluateStack } from "../../offline/engine";
import { disagreements, summary } from "./agreement";
import { EngineCase } from "./engine-case";

/** The deployed stacks' node shapes, from the stack files: a new stack file is tested too. */
const SHAPES = deployableStacks();

/** Runs `body` on a fresh case, then stops its cluster; fails on any disagreement of the ledger. */
async function withCase(
  label: string,
  options: Parameters<typeof EngineCase.start>[1],
  body: (c: EngineCase) => Promise<void>,
): Promise<void> {
  const c = await EngineCase.start(label, options);
  try {
    await body(c);
  } finally {
    await c.stop();
  }
  assert.deepEqual(disagreements(), [], summary().join("\n"));
}

/** The nodes calico-node pods run on, one each. */
async function calicoNodes(c: EngineCase, namespace: string): Promise<string[]> {
  const nodes = await c.cluster.podNodes(namespace, "k8s-app=calico-node");
  assert.equal(new Set(nodes).size, nodes.length, "never two calico-node pods on one node");
  return nodes;
}

/** The stack whose deployment then takes each change of {@link STEPS} and 20 more nodes. */
const CHANGED = "staging";
if (!SHAPES.includes(CHANGED))
  throw new Error(`${CHANGED} is no deployable stack: name another for the changes`);

describe("Calico by the real Pulumi engine on a real control plane, against the offline plan", function () {
  this.timeout(40 * 60_000);

  for (const stack of SHAPES) {
    const then = stack === CHANGED ? "; then each change and 20 more nodes, applied the same way" : "";
    it(`${stack}'s nodes: pulumi up deploys, a preview changes nothing, outputs equal kubectl's${then}`, async function () {
      await withCase(stack, { stack }, async (c) => {
        const up = await c.up("first up");
        await c.kubectlAgrees("first up", up);
        const namespace = String((up.outputs.calico as { namespace: string }).namespace);
        assert.equal(
          (await calicoNodes(c, namespace)).length,
          c.cluster.state.nodes,
          "one calico-node pod per node, tainted groups included",
        );
        if (stack === CHANGED) {
          await applyChanges(c);
          await addTwentyNodes(c, namespace);
        }
      });
    });
  }
});

/** The JSON of `kubectl get`, failing with kubectl's output. */
function kubectlJson<T>(c: EngineCase, args: string[]): T {
  const result = c.cluster.kubectl(["get", ...args, "-o", "json"]);
  assert.ok(result.ok, result.output);
  return JSON.parse(result.output) as T;
}

interface NodeList {
  items: {
    metadata: { name: string };
    spec: { unschedulable?: boolean };
    status: { conditions?: { type: string; status: string }[] };
  }[];
}

/**
 * The Typha replicas Typha's cluster-proportional-autoscaler v1.10.3 sets (the image cannot be built
 * here): its node informer lists nodes with the Deployment's `--nodelabels` as the label selector, the
 * real API server answering; it counts the Ready, schedulable ones (k8sclient.go, GetClusterStatus) and
 * takes the ladder step with the largest node count <= that, or the first (ladder_controller.go).
 */
function autoscalerReplicas(c: EngineCase, namespace: string): { nodes: string[]; replicas: number } {
  type Deployment = { spec: { template: { spec: { containers: { command: string[] }[] } } } };
  const deployment = kubectlJson<Deployment>(c, ["deployment/calico-typha-autoscaler", "-n", namespace]);
  const flag = deployment.spec.template.spec.containers[0].command.find((a) => a.startsWith("--nodelabels="));
  const selector = flag === undefined ? [] : ["-l", flag.slice("--nodelabels=".length)];
  const nodes = kubectlJson<NodeList>(c, ["nodes", ...selector]).items.filter(
    (n) =>
      n.spec.unschedulable !== true &&
      (n.status.conditions ?? []).some((k) => k.type === "Ready" && k.status === "True"),
  );
  const configMap = kubectlJson<{ data: { ladder: string } }>(c, [
    "configmap/calico-typha-autoscaler",
    "-n",
    namespace,
  ]);
  const ladder = (JSON.parse(configMap.data.ladder) as { nodesToReplicas: [number, number][] })
    .nodesToReplicas;
  const step = [...ladder].reverse().find(([atLeast]) => atLeast <= nodes.length) ?? ladder[0];
  return { nodes: nodes.map((n) => n.metadata.name), replicas: step[1] };
}

describe("EKS Fargate nodes, by the real engine", function () {
  this.timeout(30 * 60_000);

  it("dev's 2 nodes and 3 Fargate nodes: calico-node on every node but Fargate, the autoscaler counts the 2, every Typha is scheduled, as the plan says", async function () {
    await withCase("dev with 3 Fargate nodes", { stack: "dev", fargateNodes: 3 }, async (c) => {
      const up = await c.up("first up");
      const calico = up.outputs.calico as { namespace: string; typhaReplicas: number };
      const ec2 = c.cluster.state.nodes - 3;
      assert.equal(ec2, 2, "dev has 2 EC2 nodes");
      const nodes = await calicoNodes(c, calico.namespace);
      assert.equal(nodes.length, ec2);
      assert.ok(!nodes.some((n) => n.startsWith("fargate-")), nodes.join(", "));
      const counted = autoscalerReplicas(c, calico.namespace);
      assert.equal(counted.nodes.length, ec2, `the autoscaler counts ${counted.nodes.join(", ")}`);
      assert.ok(!counted.nodes.some((n) => n.startsWith("fargate-")), counted.nodes.join(", "));
      // The offline plan's Typha count is what the autoscaler keeps on these nodes.
      assert.equal(counted.replicas, calico.typhaReplicas);
      const scaled = c.cluster.kubectl([
        "scale",
        "deployment/calico-typha",
        "-n",
        calico.namespace,
        `--replicas=${counted.replicas}`,
      ]);
      assert.ok(scaled.ok, scaled.output);
      const rollout = c.cluster.kubectl([
        "rollout",
        "status",
        "deployment/calico-typha",
        "-n",
        calico.namespace,
        "--timeout=120s",
      ]);
      assert.ok(rollout.ok, `every Typha the autoscaler asks for is scheduled: ${rollout.output}`);
      const typha = await c.cluster.podNodes(calico.namespace, "k8s-app=calico-typha");
      assert.equal(typha.length, counted.replicas);
      assert.ok(!typha.some((n) => n === "(unscheduled)" || n.startsWith("fargate-")), typha.join(", "));
    });
  });
});

/** 20 nodes join a group: refresh finds no drift, and up reports calico-node on every one. */
async function addTwentyNodes(c: EngineCase, namespace: string): Promise<void> {
  const grown = await evaluateStack(CHANGED, {
    config: { "eks-calico:nodeGroups[0].desiredSize": 23, "eks-calico:nodeGroups[0].maxSize": 30 },
  });
  const existing = new Set(await calicoNodes(c, namespace));
  const added = numbered(
    stackNodes(grown, "us-west-2").filter((n) => !existing.has(n.metadata.name)),
    await nodeCount(c.cluster.api),
  );
  assert.equal(added.length, 20);
  await addNodes(c.cluster.api, added);
  // Nodes joining is no drift: nothing the stack manages changed, and both refreshes say so.
  await c.refreshFindsNoDrift("after 20 nodes joined");
  const again = await c.up("after 20 nodes joined");
  const counts = await c.kubectlAgrees("after 20 nodes joined", again);
  assert.equal(counts.desired, c.cluster.state.nodes + added.length);
}

/** A change to a deployed stack: its config (on top of the previous step's) and what it does to nodes. */
interface Step {
  readonly name: string;
  readonly config: ConfigOverrides;
  /** What EKS does to groups' nodes (kubectl label or taint commands), before `pulumi up` runs. */
  readonly nodes?: readonly (readonly string[])[];
}

const STEPS: readonly Step[] = [
  { name: "Calico patch release", config: { "eks-calico:calico.version": "v3.31.6" } },
  { name: "registry", config: { "eks-calico:calico.registry": "registry.example.com/calico" } },
  { name: "maxUnavailable", config: { "eks-calico:calico.maxUnavailable": 2 } },
  // A group's label and taint are node-group keys, which a kubeconfig stack does not have: EKS applies
  // them to the nodes, and Calico must keep running on every node without a change of its own.
  {
    name: "a label and a taint on groups",
    config: {},
    nodes: [
      ["label", "nodes", "-l", "eks.amazonaws.com/nodegroup=cluster-general", "tier=web"],
      ["taint", "nodes", "-l", "eks.amazonaws.com/nodegroup=cluster-system", "maintenance=true:NoExecute"],
    ],
  },
  // The probe Jobs' activeDeadlineSeconds: planned as an in-place update, which the API server must allow.
  { name: "probe timeout", config: { "eks-calico:calico.probe.timeoutMinutes": 12 } },
  { name: "probe off", config: { "eks-calico:calico.probe.enabled": false } },
  { name: "probe on", config: { "eks-calico:calico.probe.enabled": true } },
];

/** Each step of {@link STEPS} on the deployed stack: previewed as the offline diff plans it, applied, settled. */
async function applyChanges(c: EngineCase): Promise<void> {
  for (const step of STEPS) {
    for (const command of step.nodes ?? []) {
      const result = c.cluster.kubectl([...command]);
      assert.ok(result.ok, result.output);
    }
    const up = await c.up(step.name, step.config);
    await c.kubectlAgrees(step.name, up);
    const namespace = String((up.outputs.calico as { namespace: string }).namespace);
    // calico-node tolerates every taint: one pod on each node, whatever the step did to the nodes.
    assert.equal((await calicoNodes(c, namespace)).length, c.cluster.state.nodes, step.name);
  }
}
