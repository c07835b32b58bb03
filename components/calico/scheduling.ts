/**
 * Where Calico pods may run. Both workloads are Linux-only and never go to Fargate, whose pods Calico
 * cannot see or police (EKS Fargate has no node to run calico-node on).
 */
import type { Affinity, Toleration } from "./object-shapes";

/**
 * One toleration of every taint: `operator: Exists` with no key and no effect. calico-node must run on
 * every node; Typha and its autoscaler must run wherever calico-node does, or a cluster whose node groups
 * are all tainted gets Felix without Typha (the Tigera operator's Typha tolerates every taint too).
 */
export const TOLERATE_EVERY_TAINT: readonly Toleration[] = [{ operator: "Exists" }];

/** Linux nodes only (Calico's manifests select on the well-known OS label). */
export const LINUX_NODE_SELECTOR: Readonly<Record<string, string>> = { "kubernetes.io/os": "linux" };

/** The label EKS puts on Fargate's virtual nodes, and its value there. */
const FARGATE_NODE_LABEL = { key: "eks.amazonaws.com/compute-type", value: "fargate" } as const;

/** Required node affinity keeping pods off EKS Fargate's virtual nodes. */
export function notOnFargate(): NonNullable<Affinity["nodeAffinity"]> {
  return {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [
        {
          matchExpressions: [
            { key: FARGATE_NODE_LABEL.key, operator: "NotIn", values: [FARGATE_NODE_LABEL.value] },
          ],
        },
      ],
    },
  };
}

/**
 * The nodes a Calico pod may run on, as a label selector string: {@link LINUX_NODE_SELECTOR} and
 * {@link notOnFargate} (`!=` also matches a node without the label, as NotIn does). Every taint is
 * tolerated, so labels alone decide.
 */
export function calicoNodesSelector(): string {
  return [
    ...Object.entries(LINUX_NODE_SELECTOR).map(([key, value]) => `${key}=${value}`),
    `${FARGATE_NODE_LABEL.key}!=${FARGATE_NODE_LABEL.value}`,
  ].join(",");
}

/**
 * Where a per-node agent runs (calico-node, the Felix cleanup, the startup taint's remover): every Linux
 * node but Fargate's whatever its taints, evicted last, since a node without its agent loses policy.
 */
export function nodeAgentPlacement() {
  return {
    nodeSelector: { ...LINUX_NODE_SELECTOR },
    affinity: { nodeAffinity: notOnFargate() },
    tolerations: [...TOLERATE_EVERY_TAINT],
    priorityClassName: "system-node-critical",
  };
}
