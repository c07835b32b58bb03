/**
 * The `calico` output's readiness fields from what the cluster reports (./live-status.ts reads it): the
 * counts `kubectl get daemonset calico-node` shows, Typha's ready replicas, and `isReady`. Every counter
 * is 0 when the API server omits it: k8s.io/api apps/v1 DaemonSetStatus and DeploymentStatus mark their
 * counters `omitempty`, so a zero, or one the controller has not written yet, is absent.
 */
import type { Output } from "@pulumi/pulumi";
import { calicoAvailable, type TigeraStatus } from "./operator/status";

/** The DaemonSet status counters read here; any of them may be missing before the controller reports. */
export interface DaemonSetCounts {
  desiredNumberScheduled?: number;
  currentNumberScheduled?: number;
  updatedNumberScheduled?: number;
  numberReady?: number;
  numberAvailable?: number;
}

/** Of a Deployment: the replicas its spec asks for (`spec.replicas`) and those ready (`status.readyReplicas`). */
export interface ReplicaCounts {
  replicas?: number;
  readyReplicas?: number;
}

/** What the cluster reports of Calico, as one read at the end of `pulumi up` saw it. */
export interface CalicoStatus {
  /** The calico-node DaemonSet's status; undefined when the DaemonSet does not exist. */
  readonly calicoNode: DaemonSetCounts | undefined;
  /** Typha's Deployment; undefined when it does not exist. */
  readonly typha: ReplicaCounts | undefined;
  /** The status of TigeraStatus `calico` (operator install mode only); undefined when it does not exist. */
  readonly tigeraStatus?: TigeraStatus["status"];
}

export type Installer = "manifest" | "operator";

/** A status counter, 0 when the status or the counter is missing. */
export function count(status: DaemonSetCounts | undefined, field: keyof DaemonSetCounts): number {
  return status?.[field] ?? 0;
}

/**
 * Every node that should run calico-node runs the current pod template and has it ready, and there is
 * at least one such node: what `kubectl rollout status daemonset calico-node` waits for (UP-TO-DATE and
 * READY equal DESIRED). Zero desired pods means no node runs Felix, which is not ready. Both counters are
 * per node (k8s.io/api apps/v1 DaemonSetStatus), so neither exceeds DESIRED.
 */
export function isDaemonSetReady(status: DaemonSetCounts | undefined): boolean {
  const desired = count(status, "desiredNumberScheduled");
  return (
    desired > 0 &&
    count(status, "updatedNumberScheduled") === desired &&
    count(status, "numberReady") === desired
  );
}

/**
 * The Deployment asks for at least one replica and has that many ready. At least, not exactly: during a
 * rolling update with surge more pods than asked for can be ready.
 */
export function allReplicasReady(deployment: ReplicaCounts | undefined): boolean {
  const wanted = deployment?.replicas ?? 0;
  return wanted > 0 && (deployment?.readyReplicas ?? 0) >= wanted;
}

/**
 * The `calico` output's `isReady`, in both install modes: calico-node ready on every node
 * (isDaemonSetReady) and every Typha replica ready (allReplicasReady: Felix reads the datastore through
 * Typha and programs no policy change without it); with the operator also TigeraStatus `calico`
 * Available. Typha is checked in the operator install too, as the operator's TigeraStatus `calico`
 * follows only calico-node and calico-kube-controllers (tigera/operator
 * pkg/controller/installation/core_controller.go: status.AddDaemonsets, status.AddDeployments).
 */
export function isCalicoReady(installer: Installer, status: CalicoStatus): boolean {
  return (
    isDaemonSetReady(status.calicoNode) &&
    allReplicasReady(status.typha) &&
    (installer === "manifest" || calicoAvailable(status.tigeraStatus))
  );
}

/** The readiness outputs: the DaemonSet's counters as kubectl's columns name them, Typha's, `isReady`. */
export function statusOutputs(installer: Installer, status: Output<CalicoStatus>) {
  const node = (field: keyof DaemonSetCounts) => status.apply((s) => count(s.calicoNode, field));
  return {
    desired: node("desiredNumberScheduled"),
    current: node("currentNumberScheduled"),
    updated: node("updatedNumberScheduled"),
    ready: node("numberReady"),
    available: node("numberAvailable"),
    isReady: status.apply((s) => isCalicoReady(installer, s)),
    typhaReadyReplicas: status.apply((s) => s.typha?.readyReplicas ?? 0),
  };
}
