/**
 * The pods this stack runs that may share one node of a node group: what a node's pod capacity must
 * hold. Each workload with the most of its pods one node can get, and the taints it tolerates; a group
 * whose NoSchedule or NoExecute taints a workload does not tolerate never gets its pods.
 */
import { COREDNS_DEFAULT_TOLERATIONS } from "../../components/cluster/addons";
import { CALICO_NODE, CALICO_TYPHA, CALICO_TYPHA_AUTOSCALER } from "../../components/calico/names";
import { OPERATOR_NAME } from "../../components/calico/operator/settings";
import { TOLERATE_EVERY_TAINT } from "../../components/calico/scheduling";

export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: string;
}

/** A workload's pods on one node: `everyNode` for a DaemonSet, else those its tolerations let in. */
export interface NodeWorkload {
  readonly name: string;
  /** The most of its pods that may run on one node at once. */
  readonly perNode: number;
  readonly everyNode?: true;
  readonly tolerations?: readonly Toleration[];
}

/**
 * Whether a toleration matches a taint: k8s.io/api core/v1 toleration.go ToleratesTaint (an effect and a
 * key, when set, must equal the taint's; Exists matches any value, Equal (the default) the same value).
 */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== "" && toleration.effect !== taint.effect) {
    return false;
  }
  if (toleration.key !== undefined && toleration.key !== "" && toleration.key !== taint.key) return false;
  return toleration.operator === "Exists" || (toleration.value ?? "") === taint.value;
}

/** Taints that keep a pod without a matching toleration off the node (PreferNoSchedule does not). */
const REPELLING = new Set(["NoSchedule", "NoExecute"]);

/** Whether a workload's pods may run on a node with these taints. */
export function mayRun(workload: NodeWorkload, taints: readonly Taint[]): boolean {
  if (workload.everyNode === true) return true;
  const tolerations = workload.tolerations ?? [];
  return taints.every(
    (taint) => !REPELLING.has(taint.effect) || tolerations.some((t) => tolerates(t, taint)),
  );
}

// DaemonSets with a pod on every node. aws-node and kube-proxy: the "+2 for the pods that use
// host-networking (AWS CNI and kube-proxy)" of amazon-vpc-cni-k8s misc/eni-max-pods.txt.
const AWS_NODE: NodeWorkload = { name: "aws-node", perNode: 1, everyNode: true };
const KUBE_PROXY: NodeWorkload = { name: "kube-proxy", perNode: 1, everyNode: true };
const CALICO_NODE_PODS: NodeWorkload = { name: CALICO_NODE, perNode: 1, everyNode: true };

/**
 * CoreDNS: EKS runs "a Deployment of two replicas" (EKS user guide, "Scale CoreDNS Pods for high DNS
 * traffic"), spread by a preferred, not a required, anti-affinity (kubernetes
 * cluster/addons/dns/coredns/coredns.yaml.base), so both may share a node. It tolerates EKS's defaults and
 * the taints of the groups marked clusterAddons (components/cluster/addons.ts coreDnsConfiguration).
 */
function coreDns(addonTaints: readonly Taint[]): NodeWorkload {
  return {
    name: "coredns",
    perNode: 2,
    tolerations: [
      ...COREDNS_DEFAULT_TOLERATIONS,
      ...addonTaints.map((t) => ({ key: t.key, operator: "Equal", value: t.value, effect: t.effect })),
    ],
  };
}

/**
 * The enforcement probe (components/calico/probe): the server with its same-node pair of client Jobs, or
 * the anchor with the other-node pair (the anchor keeps off the server's node), three pods on one node at
 * most. They tolerate no taint.
 */
const PROBE: NodeWorkload = { name: "probe server and clients", perNode: 3, tolerations: [] };

/**
 * Manifest mode (components/calico): Typha, one replica per node (required anti-affinity, typha.ts), and
 * its autoscaler, one replica; both tolerate every taint (scheduling.ts).
 */
const MANIFEST: readonly NodeWorkload[] = [
  { name: CALICO_TYPHA, perNode: 1, tolerations: TOLERATE_EVERY_TAINT },
  { name: CALICO_TYPHA_AUTOSCALER, perNode: 1, tolerations: TOLERATE_EVERY_TAINT },
];

// tigera/operator pkg/render/common/meta/meta.go (v1.40.15, v1.42.3): TolerateAll, TolerateControlPlane
// and TolerateCriticalAddonsAndControlPlane.
const CONTROL_PLANE: readonly Toleration[] = [
  { key: "node-role.kubernetes.io/master", effect: "NoSchedule" },
  { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
];
const CRITICAL: Toleration = { key: "CriticalAddonsOnly", operator: "Exists" };
const ANY_NO_SCHEDULE: readonly Toleration[] = [
  { effect: "NoSchedule", operator: "Exists" },
  { effect: "NoExecute", operator: "Exists" },
];
const OPERATOR_ALL: readonly Toleration[] = [CRITICAL, ...ANY_NO_SCHEDULE];

/**
 * Operator mode: the operator (one replica, every taint: operator/objects.ts) and what it renders
 * (tigera/operator pkg/render, v1.40.15 and v1.42.3): the csi-node-driver DaemonSet (csi.go; EKS's
 * kubeletVolumePluginPath deploys it), Typha (typha.go, one per node), calico-kube-controllers (one replica,
 * kubecontrollers/kube-controllers.go), the API server (ControlPlaneReplicas, 2 by default in
 * pkg/controller/installation/core_controller.go, preferred anti-affinity only: apiserver.go), Goldmane and
 * Whisker (one replica each: goldmane/component.go, whisker/component.go).
 */
function operatorWorkloads(apiServer: boolean, observability: boolean): NodeWorkload[] {
  const critical = [...CONTROL_PLANE, CRITICAL];
  return [
    { name: "csi-node-driver", perNode: 1, everyNode: true },
    { name: OPERATOR_NAME, perNode: 1, tolerations: ANY_NO_SCHEDULE },
    { name: CALICO_TYPHA, perNode: 1, tolerations: OPERATOR_ALL },
    { name: "calico-kube-controllers", perNode: 1, tolerations: critical },
    ...(apiServer ? [{ name: "calico-apiserver", perNode: 2, tolerations: CONTROL_PLANE }] : []),
    ...(observability
      ? [
          { name: "goldmane", perNode: 1, tolerations: critical },
          { name: "whisker", perNode: 1, tolerations: critical },
        ]
      : []),
  ];
}

export interface NodePodSettings {
  readonly installer: "manifest" | "operator";
  readonly apiServer: boolean;
  readonly observability: boolean;
  readonly probe: boolean;
  /** The taints of every node group marked clusterAddons: CoreDNS tolerates them. */
  readonly clusterAddonTaints: readonly Taint[];
}

/** Every workload of the stack that runs on nodes, with how many of its pods one node may get. */
export function stackWorkloads(settings: NodePodSettings): NodeWorkload[] {
  return [
    AWS_NODE,
    KUBE_PROXY,
    CALICO_NODE_PODS,
    ...(settings.installer === "operator"
      ? operatorWorkloads(settings.apiServer, settings.observability)
      : MANIFEST),
    coreDns(settings.clusterAddonTaints),
    ...(settings.probe ? [PROBE] : []),
  ];
}

/** The workloads whose pods may run on a node of a group with these taints. */
export function podsOnOneNode(settings: NodePodSettings, taints: readonly Taint[]): NodeWorkload[] {
  return stackWorkloads(settings).filter((workload) => mayRun(workload, taints));
}
