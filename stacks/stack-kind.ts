/**
 * A deployed stack keeps its kind: a stack that made its own cluster (VPC, EKS, node groups), Calico
 * alone on an EKS cluster made elsewhere (`cluster.existing`), or Calico alone on a cluster a kubeconfig
 * reaches (`cluster.kubeconfig`). Each kind registers other resources under another provider, so a stack
 * file rewritten as another kind would make the engine delete everything the last update deployed (the
 * cluster with every workload in it, or Calico on every node) and create the new kind's resources beside
 * it. Refused before any resource is registered, naming what is deployed and the way to get the new kind:
 * a stack of its own.
 */
import { isText } from "./schema/records";
import type { ConfigProblem } from "./problems";
import type { PreviousOutputs } from "./previous-outputs";
import { deployedCluster } from "./deployed-cluster";

export type StackKind = "cluster" | "existing" | "kubeconfig";

/**
 * The kind the last update deployed, from its outputs (index.ts): a full stack exports `clusterName` and
 * `vpcId`, an existing-cluster stack `clusterName` without `vpcId`, a kubeconfig stack
 * `kubeconfigContext`. Undefined for a stack never deployed (or destroyed: its outputs are gone).
 */
export function deployedKind(previous: PreviousOutputs): StackKind | undefined {
  if (deployedCluster(previous) !== undefined) return "cluster";
  if (isText(previous.clusterName)) return "existing";
  if (isText(previous.kubeconfigContext)) return "kubeconfig";
  return undefined;
}

/** The kind the stack file asks for: its `cluster.existing`, its `cluster.kubeconfig`, or neither. */
export function configuredKind(cluster: { existing?: unknown; kubeconfig?: unknown }): StackKind {
  if (cluster.existing !== undefined) return "existing";
  if (cluster.kubeconfig !== undefined) return "kubeconfig";
  return "cluster";
}

/** What the stack runs, as deployed; and what an update of another kind would delete of it. */
function deployedText(kind: StackKind, previous: PreviousOutputs): { runs: string; deletes: string } {
  const name = isText(previous.clusterName) ? `"${previous.clusterName}"` : "";
  switch (kind) {
    case "cluster":
      return {
        runs: `its own EKS cluster ${name} with its VPC and node groups`,
        deletes: `the cluster ${name}, its VPC and its node groups, with every workload in them`,
      };
    case "existing":
      return {
        runs: `Calico alone on the EKS cluster ${name}, made elsewhere (cluster.existing)`,
        deletes: `this stack's Calico on ${name}, leaving no node there enforcing NetworkPolicy`,
      };
    case "kubeconfig":
      return {
        runs: "Calico alone on the cluster its kubeconfig reaches (cluster.kubeconfig)",
        deletes: "this stack's Calico on that cluster, leaving no node there enforcing NetworkPolicy",
      };
  }
}

const NEW_KIND: Record<StackKind, string> = {
  cluster: "a cluster of its own",
  existing: "Calico alone on an EKS cluster made elsewhere",
  kubeconfig: "Calico alone on a cluster a kubeconfig reaches",
};

/**
 * The problem of a stack file rewritten as another kind than the one deployed, or none. Its key is the
 * one that says the new kind (`cluster.existing`, `cluster.kubeconfig`), or the deployed one, removed.
 */
export function kindChangeProblems(
  previous: PreviousOutputs,
  cluster: { existing?: unknown; kubeconfig?: unknown },
): ConfigProblem[] {
  const deployed = deployedKind(previous);
  const configured = configuredKind(cluster);
  if (deployed === undefined || deployed === configured) return [];
  const key = configured === "cluster" ? `cluster.${deployed}` : `cluster.${configured}`;
  const { runs, deletes } = deployedText(deployed, previous);
  return [
    {
      path: key,
      value: configured === "cluster" ? undefined : cluster[configured],
      rule: `${configured === "cluster" ? "was removed" : "is set"}, but the stack's last update deployed ${runs}: a stack keeps the kind it was deployed as, and this update would delete ${deletes}, then deploy ${NEW_KIND[configured]}`,
      hint: `put the stack file back as it was deployed; for ${NEW_KIND[configured]}, make a stack of its own:`,
      steps: [
        "copy the new stack file to Pulumi.<new-stack>.yaml, and `pulumi stack init <new-stack>`",
        "`pulumi up --stack <new-stack>`",
        "once nothing needs the old one: `pulumi destroy --stack <stack>` (see docs/destroy.md)",
      ],
    },
  ];
}
