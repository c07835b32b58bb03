/**
 * Typha's cluster-proportional-autoscaler: the ladder is the operator's formula at every node count, its
 * RBAC is the least it needs, and it runs wherever Typha runs, pinned.
 */
import * as assert from "node:assert/strict";
import { AUTOSCALER_VERSION, ladderReplicas, typhaLadder } from "../components/calico/autoscaler";
import { typhaReplicas } from "../components/calico/typha";
import { find, render } from "./calico-fixtures";

describe("Typha's autoscaler", () => {
  it("has a ladder that gives the operator's Typha formula at every node count up to 5,000", () => {
    const ladder = typhaLadder();
    for (let nodes = 1; nodes <= 5000; nodes++) {
      assert.equal(ladderReplicas(ladder, nodes), typhaReplicas(nodes), `${nodes} nodes`);
    }
    // 1-2 nodes: 1; 3-4: 2; then at least 3, one more per 200 nodes, up to 20.
    assert.deepEqual(ladder.slice(0, 5), [
      [1, 1],
      [3, 2],
      [5, 3],
      [400, 4],
      [600, 5],
    ]);
    assert.deepEqual(ladder[ladder.length - 1], [3600, 20]);
  });

  it("never asks for more Typhas than the nodes it counts, one Typha per node (CPA gives 0 nodes the first step)", () => {
    const ladder = typhaLadder();
    assert.equal(ladderReplicas(ladder, 0), 1);
    for (let nodes = 1; nodes <= 5000; nodes++) {
      assert.ok(ladderReplicas(ladder, nodes) <= nodes, `${nodes} nodes`);
    }
  });

  it("reads that ladder from its ConfigMap, in cluster-proportional-autoscaler's ladder format", () => {
    const configMap = find(render(), "ConfigMap", "calico-typha-autoscaler");
    assert.deepEqual(Object.keys(configMap.data), ["ladder"]);
    assert.deepEqual(JSON.parse(configMap.data.ladder), { nodesToReplicas: typhaLadder() });
  });

  it("may list and watch nodes, read its own ConfigMap and scale calico-typha: nothing more", () => {
    const objects = render({ namespace: "calico-system" });
    assert.deepEqual(find(objects, "ClusterRole", "calico-typha-autoscaler").rules, [
      { apiGroups: [""], resources: ["nodes"], verbs: ["list", "watch"] },
    ]);
    assert.deepEqual(find(objects, "Role", "calico-typha-autoscaler").rules, [
      {
        apiGroups: [""],
        resources: ["configmaps"],
        resourceNames: ["calico-typha-autoscaler"],
        verbs: ["get"],
      },
      {
        apiGroups: ["apps"],
        resources: ["deployments/scale"],
        resourceNames: ["calico-typha"],
        verbs: ["get", "update"],
      },
    ]);
    const subject = [{ kind: "ServiceAccount", name: "calico-typha-autoscaler", namespace: "calico-system" }];
    const clusterBinding = find(objects, "ClusterRoleBinding", "calico-typha-autoscaler");
    assert.deepEqual(clusterBinding.roleRef, {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "calico-typha-autoscaler",
    });
    assert.deepEqual(clusterBinding.subjects, subject);
    const binding = find(objects, "RoleBinding", "calico-typha-autoscaler");
    assert.deepEqual(binding.roleRef, {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: "calico-typha-autoscaler",
    });
    assert.deepEqual(binding.subjects, subject);
  });

  it("runs the pinned image against calico-typha, wherever calico-node runs, as a locked-down non-root pod", () => {
    const deployment = find(render({ namespace: "calico-system" }), "Deployment", "calico-typha-autoscaler");
    const pod = deployment.spec.template.spec;
    assert.ok(pod);
    const [container] = pod.containers;
    assert.equal(
      container.image,
      `registry.k8s.io/cpa/cluster-proportional-autoscaler:${AUTOSCALER_VERSION}`,
    );
    assert.match(AUTOSCALER_VERSION, /^v\d+\.\d+\.\d+$/);
    assert.deepEqual(container.command, [
      "/cluster-proportional-autoscaler",
      "--namespace=calico-system",
      "--configmap=calico-typha-autoscaler",
      "--target=deployment/calico-typha",
      // Only the nodes Typha may run on: Linux, not Fargate (whose virtual nodes are Ready and schedulable).
      "--nodelabels=kubernetes.io/os=linux,eks.amazonaws.com/compute-type!=fargate",
      "--logtostderr=true",
      "--v=2",
    ]);
    assert.equal(deployment.spec.replicas, 1);
    assert.equal(pod.serviceAccountName, "calico-typha-autoscaler");
    assert.deepEqual(pod.tolerations, [{ operator: "Exists" }], "every taint, as calico-node");
    assert.deepEqual(pod.nodeSelector, { "kubernetes.io/os": "linux" });
    assert.equal(pod.securityContext?.runAsNonRoot, true);
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    assert.deepEqual(container.securityContext?.capabilities, { drop: ["ALL"] });
    assert.ok(container.resources?.requests && container.resources.limits?.memory);
  });

  it("pulls from the configured registry, and does not restart on a Calico upgrade", () => {
    const image = (objects: ReturnType<typeof render>) =>
      find(objects, "Deployment", "calico-typha-autoscaler").spec.template.spec?.containers[0].image;
    assert.equal(
      image(render({ autoscalerRegistry: "123456789012.dkr.ecr.us-west-2.amazonaws.com/cpa" })),
      `123456789012.dkr.ecr.us-west-2.amazonaws.com/cpa/cluster-proportional-autoscaler:${AUTOSCALER_VERSION}`,
    );
    const deployment = (version: string) =>
      find(render({ version }), "Deployment", "calico-typha-autoscaler");
    assert.deepEqual(deployment("v3.31.6"), deployment("v3.32.1"));
  });
});
