/**
 * The Node objects of a local cluster shaped like a stack: each managed node group at its desiredSize,
 * with the group's labels and taints, the labels EKS and the kubelet put on a managed node, and the CPU,
 * memory and pods of its instance type.
 * https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html (labels EKS adds)
 */
import { STARTUP_TAINT } from "../components/startup-taint/objects";
import type { StackEvaluation } from "../offline/engine";
import { nodeResources } from "./instance-types";

/** A Node manifest, with the status kwok keeps (allocatable, capacity, addresses). */
export interface NodeObject {
  apiVersion: "v1";
  kind: "Node";
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { taints?: { key: string; value?: string; effect: string }[] };
  status: {
    capacity: Record<string, string>;
    allocatable: Record<string, string>;
    addresses: { type: string; address: string }[];
  };
}

/** Marks the nodes this project made, so `up` can add to them and tests can tell them apart. */
export const LOCAL_NODE_ANNOTATION = "eks-calico.local/simulated";

/** The EKS Fargate label and taint every Fargate pod's virtual node carries. */
const FARGATE_COMPUTE_TYPE = "eks.amazonaws.com/compute-type";

/** A node group's node: its name, labels and taints (in Kubernetes spelling). */
interface GroupNode {
  name: string;
  labels: Record<string, string>;
  taints: { key: string; value?: string; effect: string }[];
}

/** The EKS API's taint effects in Kubernetes spelling. */
const EFFECTS: Record<string, string> = {
  NO_SCHEDULE: "NoSchedule",
  PREFER_NO_SCHEDULE: "PreferNoSchedule",
  NO_EXECUTE: "NoExecute",
};

/** ARM AMI types boot arm64 nodes; every other EKS AMI type is amd64. */
function architecture(amiType: unknown): string {
  return typeof amiType === "string" && amiType.includes("ARM") ? "arm64" : "amd64";
}

/**
 * The nodes an aws.eks.NodeGroup starts with, from the inputs the program passed it: its
 * desiredSize, with the group's labels and taints and the labels the kubelet and EKS set on every node.
 */
export function nodesOfGroup(group: string, inputs: Record<string, unknown>): GroupNode[] {
  const scaling = inputs.scalingConfig as { desiredSize?: number } | undefined;
  const labels = (inputs.labels ?? {}) as Record<string, string>;
  // Without the startup taint: no remover runs in a kwok pod, so nothing would take it off.
  // test/cluster/startup-taint.test.ts runs the remover's script itself, against a tainted node.
  const taints = ((inputs.taints ?? []) as { key: string; value?: string; effect: string }[])
    .filter((t) => t.key !== STARTUP_TAINT.key)
    .map((t) => ({ key: t.key, value: t.value, effect: EFFECTS[t.effect] ?? t.effect }));
  return Array.from({ length: scaling?.desiredSize ?? 0 }, (_, i) => {
    const name = `${group}-node-${i + 1}`;
    return {
      name,
      labels: {
        ...labels,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": architecture(inputs.amiType),
        "kubernetes.io/hostname": name,
        "eks.amazonaws.com/nodegroup": group,
      },
      taints,
    };
  });
}

/** Node address n (1-based) as a string only: nothing connects to it. */
function nodeAddress(n: number): string {
  return `10.${100 + Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${n % 256}`;
}

/** Zone of each subnet placeholder id the offline plan gave (`<subnet-id:NAME>`). */
function subnetZones(evaluation: StackEvaluation): Map<string, string> {
  const zones = new Map<string, string>();
  for (const subnet of evaluation.resources.filter((r) => r.type === "aws:ec2/subnet:Subnet")) {
    const zone = subnet.inputs.availabilityZone;
    if (typeof zone === "string") zones.set(`<subnet-id:${subnet.name}>`, zone);
  }
  return zones;
}

/** The nodes of every managed node group of a planned stack, spread over the group's zones in turn. */
export function stackNodes(evaluation: StackEvaluation, region: string): NodeObject[] {
  const zones = subnetZones(evaluation);
  const nodes: NodeObject[] = [];
  for (const group of evaluation.resources.filter((r) => r.type === "aws:eks/nodeGroup:NodeGroup")) {
    const inputs = group.inputs;
    const instanceType = ((inputs.instanceTypes ?? []) as string[])[0] ?? "m6i.large";
    const groupZones = ((inputs.subnetIds ?? []) as string[]).map((id) => zones.get(id) ?? `${region}a`);
    const resources = nodeResources(instanceType);
    nodesOfGroup(group.name, inputs).forEach((node, i) => {
      const zone = groupZones[i % Math.max(1, groupZones.length)] ?? `${region}a`;
      nodes.push({
        apiVersion: "v1",
        kind: "Node",
        metadata: {
          name: node.name,
          labels: {
            ...node.labels,
            "node.kubernetes.io/instance-type": instanceType,
            "topology.kubernetes.io/region": region,
            "topology.kubernetes.io/zone": zone,
            "eks.amazonaws.com/capacityType":
              typeof inputs.capacityType === "string" ? inputs.capacityType : "ON_DEMAND",
          },
          annotations: { [LOCAL_NODE_ANNOTATION]: "true" },
        },
        spec: node.taints.length > 0 ? { taints: node.taints } : {},
        status: { ...resources, addresses: [] },
      });
    });
  }
  return nodes;
}

/** `count` EKS Fargate virtual nodes: tainted and labelled as EKS makes them. */
export function fargateNodes(count: number, region: string, first = 1): NodeObject[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `fargate-node-${first + i}`;
    return {
      apiVersion: "v1" as const,
      kind: "Node" as const,
      metadata: {
        name,
        labels: {
          [FARGATE_COMPUTE_TYPE]: "fargate",
          "kubernetes.io/os": "linux",
          "kubernetes.io/arch": "amd64",
          "kubernetes.io/hostname": name,
          "topology.kubernetes.io/region": region,
          "topology.kubernetes.io/zone": `${region}a`,
        },
        annotations: { [LOCAL_NODE_ANNOTATION]: "true" },
      },
      spec: { taints: [{ key: FARGATE_COMPUTE_TYPE, value: "fargate", effect: "NoSchedule" }] },
      status: {
        capacity: { cpu: "2", memory: "4Gi", pods: "1" },
        allocatable: { cpu: "2", memory: "4Gi", pods: "1" },
        addresses: [],
      },
    };
  });
}

/** Gives every node an internal address and its hostname, in order. */
export function numbered(nodes: NodeObject[], offset = 0): NodeObject[] {
  return nodes.map((node, i) => ({
    ...node,
    status: {
      ...node.status,
      addresses: [
        { type: "InternalIP", address: nodeAddress(offset + i + 1) },
        { type: "Hostname", address: node.metadata.name },
      ],
    },
  }));
}
