/**
 * Whether every pod the install waits for has a node to run on. A group counts only while it has nodes:
 * a new group's desiredSize, a deployed group's size as it runs (previous-scaling.ts `nodes`), so an
 * untainted group at zero hosts nothing. The pods and their tolerations are the ones the per-node pod
 * check counts (schema/node-pods.ts); the DaemonSets run on every node and need no check.
 *
 * Refused before any resource, every unplaced workload at once: otherwise EKS reports the CoreDNS add-on
 * DEGRADED, or a Calico Deployment stays Pending, until `pulumi up` times out waiting for it.
 *
 * The Calico API server (operator mode) tolerates the Installation's `controlPlaneTolerations` plus the
 * control-plane taints only (tigera/operator v1.40.15 pkg/render/apiserver.go `tolerations()`, with
 * pkg/render/common/meta/meta.go `TolerateControlPlane`; host networking, which tolerates all, is for the
 * Calico CNI on EKS only: `hostNetwork()`). This stack sets no `controlPlaneTolerations`, and does not
 * add the groups' taints there: the field applies "globally to all resources created by the operator"
 * (api/v1/installation_types.go), so it would move every operator Deployment onto groups their owners
 * tainted to keep such pods off, and roll them on every deployed stack. A cluster whose every group with
 * nodes is tainted is refused instead, with the ways out.
 */
import type { NodeGroupConfig } from "./schema";
import {
  type NodePodSettings,
  type NodeWorkload,
  type Taint,
  mayRun,
  stackWorkloads,
} from "./schema/node-pods";
import type { ConfigProblem } from "./problems";

/** A node group as the check needs it: its taints and the nodes it has after this update. */
export interface GroupNodes {
  readonly name: string;
  readonly taints: readonly Taint[];
  readonly nodes: number;
}

/** What becomes of the install when the workload has no node, and what to change. */
const OUTCOMES: Readonly<Record<string, { readonly outcome: string; readonly hint: string }>> = {
  coredns: {
    outcome: "EKS reports the CoreDNS add-on DEGRADED until `pulumi up` fails at its 20-minute timeout",
    hint: "set clusterAddons: true on a tainted group that has nodes, or give an untainted group desiredSize >= 1",
  },
  "calico-apiserver": {
    outcome:
      "the Calico API server (APIServer default) never becomes available and `pulumi up` fails waiting for it",
    hint: "give an untainted group desiredSize >= 1, or set calico.apiServer: false",
  },
};

const PENDING = {
  outcome: "its pods stay Pending and `pulumi up` fails waiting for them",
  hint: "give an untainted group desiredSize >= 1",
};

function describeTaint(taint: Taint): string {
  return `${taint.key}${taint.value === "" ? "" : `=${taint.value}`}:${taint.effect}`;
}

function describeTolerations(workload: NodeWorkload): string {
  const tolerations = workload.tolerations ?? [];
  if (tolerations.length === 0) return "no taint";
  return tolerations
    .map((t) => {
      const key = t.key ?? "any key";
      const value = t.operator === "Exists" || t.value === undefined ? "" : `=${t.value}`;
      return `${key}${value}:${t.effect ?? "any effect"}`;
    })
    .join(", ");
}

/** One problem per workload the stack waits for that no group with nodes may run. */
export function podPlacementProblems(
  groups: readonly GroupNodes[],
  settings: NodePodSettings,
): ConfigProblem[] {
  if (groups.length === 0) return [];
  const withNodes = groups.filter((g) => g.nodes > 0);
  const empty = groups.filter((g) => g.nodes <= 0).map((g) => g.name);
  const value = groups.map((g) => ({ name: g.name, nodes: g.nodes, taints: g.taints.map(describeTaint) }));
  return stackWorkloads(settings)
    .filter((w) => w.everyNode !== true && !withNodes.some((g) => mayRun(w, g.taints)))
    .map((workload) => {
      const { outcome, hint } = OUTCOMES[workload.name] ?? PENDING;
      const tainted = withNodes.map(
        (g) => `${g.name} (${g.nodes}: ${g.taints.map(describeTaint).join(", ")})`,
      );
      const where = [
        ...(tainted.length > 0
          ? [`the groups with nodes carry taints it does not tolerate: ${tainted.join("; ")}`]
          : []),
        ...(empty.length > 0 ? [`${empty.join(", ")} ${empty.length === 1 ? "has" : "have"} no nodes`] : []),
      ].join(", and ");
      return {
        path: "nodeGroups",
        value,
        rule: `has no node ${workload.name} may run on: it tolerates ${describeTolerations(workload)}, but ${where}; ${outcome}`,
        hint,
      };
    });
}

/** The check's groups from the typed config and the nodes each has after this update. */
export function groupNodes(
  groups: readonly NodeGroupConfig[],
  nodes: (group: NodeGroupConfig) => number,
): GroupNodes[] {
  return groups.map((g) => ({
    name: g.name,
    taints: g.taints.map((t) => ({ key: t.key, value: t.value ?? "", effect: t.effect })),
    nodes: nodes(g),
  }));
}
