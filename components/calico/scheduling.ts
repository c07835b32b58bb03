/**
 * Where Calico pods may run. Both workloads are Linux-only and never go to Fargate, whose pods Calico
 * cannot see or police (EKS Fargate has no node to run calico-node on).
 */
import type { Affinity } from "./types";

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
