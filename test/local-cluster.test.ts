/**
 * What the local cluster creates, without starting it: Nodes shaped like a stack's node groups, Fargate
 * nodes, the resources of an instance type, and kwok's Stages.
 */
import * as assert from "node:assert/strict";
import YAML from "yaml";
import { deployableStacks, evaluateStack } from "../offline/engine";
import { fargateNodes, nodesOfGroup, numbered, stackNodes } from "../local-cluster/nodes";
import {
  instanceShape,
  nodeResources,
  reservedMemoryMiB,
  reservedMillicores,
} from "../local-cluster/instance-types";
import { stages, stagesYaml } from "../local-cluster/stages";

describe("local cluster nodes", function () {
  this.timeout(120_000);

  it("copies each node group at its desiredSize, with its labels, taints and the labels EKS sets", async () => {
    const evaluation = await evaluateStack("staging");
    const nodes = numbered(stackNodes(evaluation, "us-west-2"));
    assert.deepEqual(
      nodes.map((n) => n.metadata.name),
      [
        "cluster-general-node-1",
        "cluster-general-node-2",
        "cluster-general-node-3",
        "cluster-system-node-1",
        "cluster-system-node-2",
      ],
    );
    const system = nodes[3];
    assert.deepEqual(system.spec.taints, [{ key: "dedicated", value: "system", effect: "NoSchedule" }]);
    assert.equal(system.metadata.labels.dedicated, "system");
    assert.equal(system.metadata.labels["eks.amazonaws.com/nodegroup"], "cluster-system");
    assert.equal(system.metadata.labels["node.kubernetes.io/instance-type"], "m6i.large");
    assert.equal(system.metadata.labels["eks.amazonaws.com/capacityType"], "ON_DEMAND");
    assert.equal(system.metadata.labels["kubernetes.io/hostname"], "cluster-system-node-1");
    assert.equal(system.metadata.labels["kubernetes.io/os"], "linux");
    assert.equal(system.metadata.labels["kubernetes.io/arch"], "amd64");
    // Spread over the group's three zones in turn.
    assert.deepEqual(
      nodes.slice(0, 3).map((n) => n.metadata.labels["topology.kubernetes.io/zone"]),
      ["us-west-2a", "us-west-2b", "us-west-2c"],
    );
    assert.deepEqual(nodes[0].spec, {});
    assert.deepEqual(nodes[0].status.allocatable, { cpu: "1930m", memory: "7518Mi", pods: "29" });
    assert.equal(new Set(nodes.map((n) => n.status.addresses[0].address)).size, nodes.length);
  });

  it("gives a group's nodes its taints in Kubernetes spelling, and arm64 for an ARM AMI type", () => {
    const group = nodesOfGroup("cluster-system", {
      scalingConfig: { minSize: 1, desiredSize: 2, maxSize: 9 },
      labels: { dedicated: "system" },
      taints: [{ key: "dedicated", value: "system", effect: "NO_EXECUTE" }],
      amiType: "AL2023_ARM_64_STANDARD",
    });
    assert.equal(group.length, 2);
    assert.deepEqual(group[0].taints, [{ key: "dedicated", value: "system", effect: "NoExecute" }]);
    assert.equal(group[1].labels["kubernetes.io/arch"], "arm64");
    assert.notEqual(group[0].labels["kubernetes.io/hostname"], group[1].labels["kubernetes.io/hostname"]);
  });

  it("shapes a node after every instance type the stack files use", async () => {
    for (const stack of deployableStacks()) {
      const evaluation = await evaluateStack(stack);
      assert.ok(stackNodes(evaluation, "us-west-2").length > 0, stack);
    }
  });

  it("makes Fargate nodes tainted and labelled as EKS does", () => {
    const [node] = fargateNodes(1, "eu-west-1");
    assert.equal(node.metadata.labels["eks.amazonaws.com/compute-type"], "fargate");
    assert.deepEqual(node.spec.taints, [
      { key: "eks.amazonaws.com/compute-type", value: "fargate", effect: "NoSchedule" },
    ]);
  });
});

describe("instance types", () => {
  it("knows the m, c, r families by size and the burstable types one by one", () => {
    assert.deepEqual(instanceShape("m6i.large"), { vcpus: 2, memoryMiB: 8192 });
    assert.deepEqual(instanceShape("c7g.2xlarge"), { vcpus: 8, memoryMiB: 16384 });
    assert.deepEqual(instanceShape("r6a.xlarge"), { vcpus: 4, memoryMiB: 32768 });
    assert.deepEqual(instanceShape("t3.large"), { vcpus: 2, memoryMiB: 8192 });
    assert.equal(instanceShape("x2gd.large"), undefined);
    assert.equal(instanceShape("m4.large"), undefined);
  });

  it("reserves what the EKS AMI's kubelet reserves", () => {
    assert.equal(reservedMillicores(1), 60);
    assert.equal(reservedMillicores(2), 70);
    assert.equal(reservedMillicores(4), 80);
    assert.equal(reservedMillicores(8), 90);
    assert.equal(reservedMemoryMiB(29), 674);
    assert.deepEqual(nodeResources("m6i.xlarge").allocatable, {
      cpu: "3920m",
      memory: "15391Mi",
      pods: "58",
    });
  });

  it("refuses a type it cannot shape, naming it", () => {
    assert.throws(() => nodeResources("x2gd.large"), /instance type x2gd.large/);
  });
});

describe("kwok stages", () => {
  it("readies nodes, starts scheduled pods after the configured delay, completes Job pods, removes deleted pods", () => {
    const list = stages({ podStartSeconds: 20 }) as {
      metadata: { name: string };
      spec: Record<string, unknown>;
    }[];
    assert.deepEqual(
      list.map((s) => s.metadata.name),
      ["node-ready", "pod-running", "job-pod-succeeded", "pod-deleted"],
    );
    assert.deepEqual(list[1].spec.delay, { durationMilliseconds: 20_000 });
    assert.equal(stages()[1] !== undefined && "delay" in (stages()[1] as { spec: object }).spec, false);
    const documents = YAML.parseAllDocuments(stagesYaml()).map((d) => d.toJS() as { kind: string });
    assert.deepEqual(
      documents.map((d) => d.kind),
      ["Stage", "Stage", "Stage", "Stage"],
    );
  });
});
