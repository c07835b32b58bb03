/**
 * Calico's objects on a real control plane (kube-apiserver, kube-controller-manager, kube-scheduler, etcd,
 * kwok for the kubelets), against the offline plan case by case: the API server must accept every object
 * the plan renders, and the DaemonSet and Typha counts the real controllers report must equal the
 * `calico` outputs the offline plan predicts, for the stacks' node shapes and across a list of changes.
 */
import * as assert from "node:assert/strict";
import * as os from "node:os";
import * as path from "node:path";
import type { ConfigOverrides, ResourceRecord, StackEvaluation } from "../../offline/engine";
import { diffDocuments, identityOf } from "../../offline/diff";
import { resourcesDocument } from "../../offline/plan";
import { calicoObjects } from "../../offline/calico-yaml";
import { listStacks } from "../../offline/engine";
import { compare, summary } from "./agreement";
import { LocalCluster, offlineCounts, plan, planObjects, plannedOf } from "../../local-cluster/deploy";
import { addNodes, nodeCount } from "../../local-cluster";
import { numbered, stackNodes } from "../../local-cluster/nodes";

const DIR = path.join(os.tmpdir(), `eks-calico-cluster-test-${process.pid}`);

function namespaceOf(evaluation: StackEvaluation): string {
  return String((evaluation.outputs.calico as { namespace: string }).namespace);
}

/** Stacks with node groups (full stacks), from the stack files: a new stack file is tested too. */
const SHAPES = listStacks().filter((stack) => !stack.endsWith(".example"));

/** Deploys `stack` (with `config`) on a fresh cluster and compares it with its offline plan. */
async function deployAndCompare(
  label: string,
  stack: string,
  options: { config?: ConfigOverrides; fargateNodes?: number } = {},
): Promise<{ cluster: LocalCluster; evaluation: StackEvaluation }> {
  const evaluation = await plan(stack, options.config);
  const cluster = await LocalCluster.start(stack, { ...options, dir: DIR });
  try {
    const objects = planObjects(evaluation);
    compare(`${label}: every Calico object the plan renders is created`, [], await cluster.create(objects));
    // As \`pulumi preview --expect-no-changes\` right after: applying the same objects again changes nothing.
    compare(`${label}: applying the plan again changes nothing`, [], await cluster.changed(objects));
    const counts = await cluster.settledCounts(namespaceOf(evaluation));
    compare(`${label}: calico outputs equal kubectl's counts`, offlineCounts(evaluation), counts);
    return { cluster, evaluation };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

// Once every case has run: the ledger of offline against real, whatever failed.
after(function () {
  for (const line of summary()) console.log(line);
});

describe("Calico on a real control plane, against the offline plan", function () {
  this.timeout(20 * 60_000);

  for (const stack of SHAPES) {
    it(`${stack}: the plan's objects apply and its outputs equal what the controllers report`, async function () {
      const { cluster, evaluation } = await deployAndCompare(stack, stack);
      try {
        const nodes = await cluster.podNodes(namespaceOf(evaluation), "k8s-app=calico-node");
        assert.equal(
          nodes.length,
          cluster.state.nodes,
          "one calico-node pod per node, tainted groups included",
        );
        assert.equal(new Set(nodes).size, nodes.length, "never two calico-node pods on one node");
      } finally {
        await cluster.stop();
      }
      assert.deepEqual(summary().slice(1), [], summary().join("\n"));
    });
  }

  it("cluster.kubeconfig: the stack mode for a cluster reached by kubeconfig, pointed at the local cluster", async function () {
    // Nodes shaped like dev's (untainted), as the offline world simulates the cluster behind a kubeconfig.
    const cluster = await LocalCluster.start("dev", { dir: DIR });
    try {
      const config = {
        "eks-calico:cluster.kubeconfig.path": cluster.state.kubeconfig,
        "eks-calico:cluster.kubeconfig.context": "local",
      };
      const evaluation = await plan("kubeconfig.example", config, {
        kubeconfigCluster: { nodes: cluster.state.nodes },
      });
      assert.ok(
        evaluation.resources.every((r) => !r.type.startsWith("aws:") && !r.type.startsWith("eks:")),
        "no AWS resource in this mode",
      );
      const objects = planObjects(evaluation);
      compare(
        "cluster.kubeconfig: every Calico object the plan renders is created",
        [],
        await cluster.create(objects),
      );
      compare(
        "cluster.kubeconfig: applying the plan again changes nothing",
        [],
        await cluster.changed(objects),
      );
      const counts = await cluster.settledCounts(namespaceOf(evaluation));
      compare("cluster.kubeconfig: calico outputs equal kubectl's counts", offlineCounts(evaluation), counts);
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });

  it("a tainted group and EKS Fargate nodes: calico-node and Typha on every node but Fargate", async function () {
    const { cluster, evaluation } = await deployAndCompare("staging with 2 Fargate nodes", "staging", {
      fargateNodes: 2,
    });
    try {
      const namespace = namespaceOf(evaluation);
      const calicoNodes = await cluster.podNodes(namespace, "k8s-app=calico-node");
      const typhaNodes = await cluster.podNodes(namespace, "k8s-app=calico-typha");
      assert.equal(calicoNodes.length, cluster.state.nodes - 2);
      assert.ok(
        calicoNodes.every((n) => !n.startsWith("fargate-")),
        calicoNodes.join(", "),
      );
      assert.ok(
        typhaNodes.every((n) => !n.startsWith("fargate-")),
        typhaNodes.join(", "),
      );
      // Every node of the tainted system group runs calico-node.
      assert.ok(
        calicoNodes.filter((n) => n.startsWith("cluster-system-")).length > 0,
        calicoNodes.join(", "),
      );
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });
});

describe("Nodes added to a deployed stack", function () {
  this.timeout(20 * 60_000);

  it("staging, 20 more nodes in a group: calico-node covers them as the plan at that size says", async function () {
    const grown = { "eks-calico:nodeGroups[0].desiredSize": 23, "eks-calico:nodeGroups[0].maxSize": 30 };
    const { cluster, evaluation } = await deployAndCompare("staging before growing", "staging");
    try {
      const before = await nodeCount(cluster.api);
      const shaped = stackNodes(await plan("staging", grown), "us-west-2");
      const existing = new Set(
        (await cluster.podNodes(namespaceOf(evaluation), "k8s-app=calico-node")).values(),
      );
      const added = numbered(
        shaped.filter((n) => !existing.has(n.metadata.name)),
        before,
      );
      assert.equal(added.length, 20);
      await addNodes(cluster.api, added);
      const counts = await cluster.settledCounts(namespaceOf(evaluation));
      // Typha's replicas follow the node count through the cluster-proportional-autoscaler, which cannot be
      // built here (docs/real-cluster.md): only calico-node's counts are compared.
      const daemonSet = (c: Record<string, number>) =>
        Object.fromEntries(["desired", "current", "ready", "updated", "available"].map((k) => [k, c[k]]));
      compare(
        "staging with 20 more nodes: calico-node counts equal the plan's at that size",
        daemonSet({ ...offlineCounts(await plan("staging", grown)) }),
        daemonSet({ ...counts }),
      );
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });
});

/** A change made to a deployed stack: its config (on top of the previous step's) and what it does to nodes. */
interface Step {
  readonly name: string;
  readonly config: ConfigOverrides;
  readonly nodes?: (cluster: LocalCluster) => void;
}

/** What EKS does to a group's nodes when its labels or taints change: `kubectl label|taint` on them. */
function onGroup(verb: "label" | "taint", group: string, value: string): (cluster: LocalCluster) => void {
  return (cluster) => {
    const result = cluster.kubectl([verb, "nodes", "-l", `eks.amazonaws.com/nodegroup=${group}`, value]);
    assert.ok(result.ok, result.output);
  };
}

const STEPS: readonly Step[] = [
  { name: "Calico patch release", config: { "eks-calico:calico.version": "v3.31.6" } },
  { name: "registry", config: { "eks-calico:calico.registry": "registry.example.com/calico" } },
  { name: "maxUnavailable", config: { "eks-calico:calico.maxUnavailable": 2 } },
  {
    name: "a label on a group",
    config: { "eks-calico:nodeGroups[0].labels.tier": "web" },
    nodes: onGroup("label", "cluster-general", "tier=web"),
  },
  {
    // On the system group, already tainted: the probe needs one untainted group.
    name: "a taint on a group",
    config: {
      "eks-calico:nodeGroups[1].taints": [
        { key: "dedicated", value: "system", effect: "NoSchedule" },
        { key: "maintenance", value: "true", effect: "NoExecute" },
      ],
    },
    nodes: onGroup("taint", "cluster-system", "maintenance=true:NoExecute"),
  },
  // The probe Jobs' activeDeadlineSeconds: planned as an in-place update, which the API server must allow.
  { name: "probe timeout", config: { "eks-calico:calico.probe.timeoutMinutes": 12 } },
  { name: "probe off", config: { "eks-calico:calico.probe.enabled": false } },
  { name: "probe on", config: { "eks-calico:calico.probe.enabled": true } },
];

describe("Changes to a deployed stack, applied as the offline diff plans them", function () {
  this.timeout(20 * 60_000);

  it("staging: each change is accepted as planned (update, replace, create, delete) and the counts follow", async function () {
    const stack = "staging";
    let config: ConfigOverrides = {};
    const { cluster, evaluation: first } = await deployAndCompare(`${stack} before the changes`, stack);
    let before = first;
    try {
      for (const step of STEPS) {
        config = { ...config, ...step.config };
        const after = await plan(stack, config);
        const diff = diffDocuments(resourcesDocument(before), resourcesDocument(after));
        // As the engine orders steps: deletions dependents first (reverse apply order), then replacements,
        // updates and creations in apply order (a namespace before what it holds).
        const order = (objects: ResourceRecord[]) => objects.map((r) => identityOf(r.urn));
        const deleting = order(calicoObjects(before)).reverse();
        const applying = order(calicoObjects(after));
        const ops = new Map([...diff.removed, ...diff.changed, ...diff.added].map((c) => [c.identity, c]));
        const refusals: string[] = [];
        for (const identity of deleting) {
          const change = ops.get(identity);
          const was = before.resources.find((r) => identityOf(r.urn) === identity);
          if (was === undefined || change === undefined || change.retained) continue;
          if (change.op === "delete" || change.op === "replace") {
            const failed = cluster.delete(plannedOf(before, was));
            if (failed) refusals.push(`${change.op} ${change.heading}: ${failed}`);
          }
        }
        for (const identity of applying) {
          const change = ops.get(identity);
          const record = after.resources.find((r) => identityOf(r.urn) === identity);
          if (record === undefined || change === undefined || change.op === "same") continue;
          // create and replace (its old object deleted above) create; update and unknown apply in place.
          const planned = [plannedOf(after, record)];
          const result =
            change.op === "create" || change.op === "replace"
              ? await cluster.create(planned)
              : await cluster.update(planned);
          refusals.push(...result.map((r) => `${change.op} ${change.heading}: ${r}`));
        }
        compare(`${stack}, ${step.name}: every planned step is accepted by the API server`, [], refusals);
        step.nodes?.(cluster);
        const counts = await cluster.settledCounts(namespaceOf(after));
        compare(
          `${stack}, ${step.name}: calico outputs equal kubectl's counts`,
          offlineCounts(after),
          counts,
        );
        // calico-node tolerates every taint: one pod on each node, whatever the step did to the nodes.
        const nodes = await cluster.podNodes(namespaceOf(after), "k8s-app=calico-node");
        assert.equal(
          new Set(nodes).size,
          cluster.state.nodes,
          `${step.name}: calico-node on ${nodes.join(", ")}`,
        );
        before = after;
      }
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });
});
