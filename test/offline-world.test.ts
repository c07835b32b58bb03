/**
 * The offline world as a model of a cluster: nodes from node groups, the scheduling rules Calico's pods
 * meet, and workloads that are ready only as far as they can be placed. These tests fail if the world is
 * made optimistic again (reporting replicas it could not place, or readiness it cannot know).
 */
import * as assert from "node:assert/strict";
import { renderCalicoObjects } from "../components/calico/objects";
import type { Deployment } from "../components/calico/types";
import { evaluatedWith, ofType } from "./helpers";
import type { StackEvaluation } from "../offline/engine";
import { DEFAULTS, find } from "./calico-fixtures";
import { SIMULATED_HEADING, renderTree } from "../offline/plan";
import { nodesOfGroup, type SimulatedNode } from "../offline/world/nodes";
import { CannotSimulate, onePerNode, tolerates, whyNot } from "../offline/world/scheduling";
import { SimulatedFailure, applyObject } from "../offline/world/workloads";

const DEPLOYMENT = "kubernetes:apps/v1:Deployment";
const DAEMON_SET = "kubernetes:apps/v1:DaemonSet";

function nodes(count: number, taints: SimulatedNode["taints"] = [], labels: Record<string, string> = {}) {
  return nodesOfGroup("cluster-general", {
    scalingConfig: { desiredSize: count },
    labels,
    taints: taints.map((t) => ({ ...t, effect: t.effect.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase() })),
  });
}

/** Calico's objects for `initialNodes` nodes. */
function calico(initialNodes: number) {
  return renderCalicoObjects({ ...DEFAULTS, initialNodes });
}

function apply(type: string, object: object, on: SimulatedNode[], notReadyNodes = 0) {
  return applyObject(type, object as Record<string, unknown>, on, { notReadyNodes }, []);
}

/** The metadata name of a probe client Job (`allowed` or `denied`), named from a hash of its inputs. */
/** The in-cluster name of a probe client Job, by its Pulumi name's tail (`allowed-client`, `other-node-probe-denied-client`). */
function jobName(evaluation: StackEvaluation, tail: string): string {
  const job = ofType(evaluation, "kubernetes:batch/v1:Job").find((j) => j.name === `calico-probe-${tail}`);
  return (job?.inputs.metadata as { name: string }).name;
}

describe("offline world: nodes", () => {
  it("starts each node group at its desiredSize, with its labels and taints in Kubernetes spelling", () => {
    const group = nodesOfGroup("cluster-system", {
      scalingConfig: { minSize: 1, desiredSize: 2, maxSize: 9 },
      labels: { dedicated: "system" },
      taints: [{ key: "dedicated", value: "system", effect: "NO_SCHEDULE" }],
      amiType: "AL2023_ARM_64_STANDARD",
    });
    assert.equal(group.length, 2);
    assert.deepEqual(group[0].taints, [{ key: "dedicated", value: "system", effect: "NoSchedule" }]);
    assert.equal(group[1].labels.dedicated, "system");
    assert.equal(group[1].labels["kubernetes.io/os"], "linux");
    assert.equal(group[1].labels["kubernetes.io/arch"], "arm64");
    assert.notEqual(group[0].labels["kubernetes.io/hostname"], group[1].labels["kubernetes.io/hostname"]);
  });
});

describe("offline world: scheduling", () => {
  const taint = { key: "dedicated", value: "gpu", effect: "NoSchedule" as const };

  it("matches tolerations to taints as Kubernetes does", () => {
    assert.ok(tolerates({ operator: "Exists" }, taint));
    assert.ok(tolerates({ key: "dedicated", operator: "Exists" }, taint));
    assert.ok(tolerates({ key: "dedicated", value: "gpu" }, taint));
    assert.ok(tolerates({ key: "dedicated", value: "gpu", effect: "NoSchedule" }, taint));
    assert.ok(!tolerates({ key: "dedicated", value: "cpu" }, taint));
    assert.ok(!tolerates({ key: "dedicated", operator: "Exists", effect: "NoExecute" }, taint));
    assert.ok(!tolerates({ operator: "Exists", effect: "NoExecute" }, taint));
    assert.ok(!tolerates({ key: "other", operator: "Exists" }, taint));
    // An empty key with Equal matches nothing.
    assert.ok(!tolerates({ operator: "Equal", value: "gpu" }, taint));
  });

  it("keeps a pod off tainted nodes it does not tolerate, nodes its selector or affinity rule out", () => {
    const [node] = nodes(1, [taint]);
    assert.equal(whyNot({}, node), "taint dedicated=gpu:NoSchedule not tolerated");
    assert.equal(whyNot({ tolerations: [{ operator: "Exists" }] }, node), undefined);
    // PreferNoSchedule only discourages.
    assert.equal(whyNot({}, nodes(1, [{ key: "soft", effect: "PreferNoSchedule" }])[0]), undefined);
    const [plain] = nodes(1);
    assert.equal(
      whyNot({ nodeSelector: { "kubernetes.io/os": "windows" } }, plain),
      "nodeSelector kubernetes.io/os=windows does not match",
    );
    const fargateOnly = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: "eks.amazonaws.com/compute-type", operator: "In", values: ["fargate"] },
                ],
              },
            ],
          },
        },
      },
    };
    assert.equal(whyNot(fargateOnly, plain), "required node affinity does not match");
  });

  it("puts one replica per node for hostname anti-affinity or a host port, and refuses what it does not model", () => {
    const typha = find(calico(10), "Deployment", "calico-typha");
    const pod = typha.spec.template.spec ?? {};
    assert.ok(onePerNode(pod, typha.spec.template.metadata?.labels ?? {}));
    assert.ok(onePerNode({ hostNetwork: true, containers: [{ ports: [{ containerPort: 5473 }] }] }, {}));
    assert.ok(!onePerNode({ containers: [{ ports: [{ containerPort: 80 }] }] }, {}));
    assert.throws(
      () =>
        whyNot(
          {
            affinity: {
              podAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname" }],
              },
            },
          },
          nodes(1)[0],
        ),
      CannotSimulate,
    );
    assert.throws(
      () => whyNot({ topologySpreadConstraints: [{ whenUnsatisfiable: "DoNotSchedule" }] }, nodes(1)[0]),
      CannotSimulate,
    );
  });
});

describe("offline world: workloads", () => {
  it("fails a Deployment whose replicas cannot all be placed, as its await would, with the reason", () => {
    // Three Typha replicas (planned for 10 nodes) on a cluster of one node.
    const typha = find(calico(10), "Deployment", "calico-typha");
    assert.equal(typha.spec.replicas, 3);
    assert.throws(
      () => apply(DEPLOYMENT, typha, nodes(1)),
      (error: unknown) =>
        error instanceof SimulatedFailure &&
        error.message ===
          "calico-typha: 2 of 3 replicas cannot be scheduled: 1 node fits, one replica per node",
    );
  });

  it("fails Typha that does not tolerate the taint every node carries", () => {
    const typha = structuredClone<Deployment>(find(calico(3), "Deployment", "calico-typha"));
    const pod = typha.spec.template.spec;
    assert.ok(pod);
    pod.tolerations = [{ operator: "Exists", effect: "NoSchedule" }];
    const tainted = nodes(3, [{ key: "drain", value: "soon", effect: "NoExecute" }]);
    assert.throws(
      () => apply(DEPLOYMENT, typha, tainted),
      /2 replicas cannot be scheduled: 0 nodes fit.*taint drain=soon:NoExecute not tolerated/,
    );
    // As rendered, Typha tolerates every taint and places its 2 replicas.
    const rendered = apply(DEPLOYMENT, find(calico(3), "Deployment", "calico-typha"), tainted);
    assert.deepEqual((rendered.state.status as { readyReplicas: number }).readyReplicas, 2);
  });

  it("counts a DaemonSet's desired pods from the nodes it can run on, and fails pods that never get ready", () => {
    const node = find(calico(4), "DaemonSet", "calico-node");
    const cluster = [...nodes(3), ...nodes(1, [{ key: "gpu", effect: "NoExecute" }])];
    const status = apply(DAEMON_SET, node, cluster).state.status as {
      desiredNumberScheduled: number;
      numberReady: number;
    };
    assert.deepEqual([status.desiredNumberScheduled, status.numberReady], [4, 4]);
    const strict = structuredClone(node);
    delete strict.spec.template.spec?.tolerations;
    const partial = apply(DAEMON_SET, strict, cluster).state.status as { desiredNumberScheduled: number };
    assert.equal(partial.desiredNumberScheduled, 3);
    assert.throws(() => apply(DAEMON_SET, node, cluster, 1), /calico-node: 3 of 4 pods ready/);
  });
});

describe("offline world: the plan", () => {
  it("plans one Typha replica for a group that starts at one node, and says every count is simulated", async () => {
    const evaluation = await evaluatedWith("dev", {
      config: { "eks-calico:nodeGroups": [{ name: "general", minSize: 1, desiredSize: 1, maxSize: 10 }] },
    });
    const calicoOutput = evaluation.outputs.calico as Record<string, unknown>;
    const anchor = (ofType(evaluation, "kubernetes:core/v1:Pod")[0].inputs.metadata as { name: string }).name;
    assert.deepEqual(
      [
        calicoOutput.desired,
        calicoOutput.ready,
        calicoOutput.isReady,
        calicoOutput.typhaReplicas,
        calicoOutput.typhaReadyReplicas,
      ],
      [1, 1, true, 1, 1],
    );
    assert.deepEqual(evaluation.simulated, [
      "zone IDs of us-west-2: us-west-2a usw2-az1, us-west-2b usw2-az2, us-west-2c usw2-az3, us-west-2d usw2-az4 (AWS maps AZ names to zone IDs per account: AZs chosen or left out by zone ID, network.zones, network.excludeZones and EKS's disallowed zone IDs, may be other names on AWS)",
      "cluster-general: 1 node (its desiredSize)",
      "calico-typha: 1 replica scheduled and ready on 1 eligible node",
      "calico-node: 1 pod desired and ready, one on each of 1 of 1 node",
      "calico-typha-autoscaler: 1 replica scheduled and ready on 1 eligible node",
      "probe-server: 1 replica scheduled and ready on 1 eligible node",
      // One node: the anchor has nowhere to go, the other-node pair does not run.
      `${anchor}: not scheduled: 0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.`,
      `${jobName(evaluation, "allowed-client")}: from cluster-general-node-1 (the server's node): connected (admitted by policy calico-policy-probe/allow-probe-clients ingress rule 0)`,
      `${jobName(evaluation, "other-node-probe-allowed-client")}: suspended, not run`,
      `${jobName(evaluation, "denied-client")}: from cluster-general-node-1 (the server's node): blocked on every attempt (the server pod is isolated by calico-policy-probe/default-deny-ingress, calico-policy-probe/allow-probe-clients and no rule admits the client)`,
      `${jobName(evaluation, "other-node-probe-denied-client")}: suspended, not run`,
    ]);
    const plan = renderTree(evaluation);
    assert.ok(plan.includes(`${SIMULATED_HEADING}\n  zone IDs of us-west-2: us-west-2a usw2-az1, `));
    assert.ok(plan.includes("\n  cluster-general: 1 node (its desiredSize)\n"));
  });

  it("plans a cluster whose every group is tainted NoExecute, Typha and the autoscaler included", async () => {
    const evaluation = await evaluatedWith("dev", {
      config: {
        "eks-calico:nodeGroups": [
          { name: "a", desiredSize: 2, taints: [{ key: "x", effect: "NoExecute" }], clusterAddons: true },
          { name: "b", minSize: 1, desiredSize: 1, taints: [{ key: "y", value: "z", effect: "NoSchedule" }] },
        ],
        // The probe's pods tolerate no taint; such a cluster must turn it off (a config rule says so).
        "eks-calico:calico.probe.enabled": false,
      },
    });
    assert.equal((evaluation.outputs.calico as { ready: number }).ready, 3);
  });
});
