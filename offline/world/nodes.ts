/**
 * The nodes the simulated cluster has: each managed node group at its desiredSize (what EKS starts it
 * with), with the group's labels and taints and the labels the kubelet and EKS set on every node.
 * https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html
 */

export interface Taint {
  key: string;
  value?: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

export interface SimulatedNode {
  name: string;
  /** The Pulumi name of the node group it belongs to. */
  group: string;
  labels: Record<string, string>;
  taints: Taint[];
}

const EFFECTS: Record<string, Taint["effect"]> = {
  NO_SCHEDULE: "NoSchedule",
  PREFER_NO_SCHEDULE: "PreferNoSchedule",
  NO_EXECUTE: "NoExecute",
};

/** ARM AMI types boot arm64 nodes; every other EKS AMI type is amd64. */
function architecture(amiType: unknown): string {
  return typeof amiType === "string" && amiType.includes("ARM") ? "arm64" : "amd64";
}

/** The nodes an eks:index:ManagedNodeGroup starts with, from the inputs the program passed it. */
export function nodesOfGroup(group: string, inputs: Record<string, unknown>): SimulatedNode[] {
  const scaling = inputs.scalingConfig as { desiredSize?: number } | undefined;
  const count = scaling?.desiredSize ?? 0;
  const labels = (inputs.labels ?? {}) as Record<string, string>;
  const taints = ((inputs.taints ?? []) as { key: string; value?: string; effect: string }[]).map((t) => ({
    key: t.key,
    value: t.value,
    effect: EFFECTS[t.effect] ?? (t.effect as Taint["effect"]),
  }));
  return Array.from({ length: count }, (_, i) => {
    const name = `${group}-node-${i + 1}`;
    return {
      name,
      group,
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
