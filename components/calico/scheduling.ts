/**
 * Where Calico pods may run. Both workloads are Linux-only and never go to Fargate, whose pods Calico
 * cannot see or police (EKS Fargate has no node to run calico-node on).
 */
import type { Affinity, Toleration } from "./types";

/**
 * One toleration of every taint: `operator: Exists` with no key and no effect. calico-node must run on
 * every node; Typha and its autoscaler must run wherever calico-node does, or a cluster whose node groups
 * are all tainted gets Felix without Typha (the Tigera operator's Typha tolerates every taint too).
 */
export const TOLERATE_EVERY_TAINT: readonly Toleration[] = [{ operator: "Exists" }];

/** Linux nodes only (Calico's manifests select on the well-known OS label). */
export const LINUX_NODE_SELECTOR: Readonly<Record<string, string>> = { "kubernetes.io/os": "linux" };

/** Required node affinity keeping pods off EKS Fargate's virtual nodes. */
export function notOnFargate(): NonNullable<Affinity["nodeAffinity"]> {
  return {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [
        {
          matchExpressions: [
            { key: "eks.amazonaws.com/compute-type", operator: "NotIn", values: ["fargate"] },
          ],
        },
      ],
    },
  };
}
