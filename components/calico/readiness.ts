/**
 * The `calico` output's readiness fields, computed from what the cluster reports, for both install modes
 * (./readiness-read.ts reads it during `pulumi up`; ./outputs.ts is the output's shape): the counts
 * `kubectl get daemonset calico-node` shows, Typha's ready replicas, `isReady`, and with the operator its
 * TigeraStatus and the Typha replicas it runs. Every counter is 0 when the API server omits it: k8s.io/api
 * apps/v1 DaemonSetStatus and DeploymentStatus mark their counters `omitempty`, so a zero, or one the
 * controller has not written yet, is absent.
 */
import type { Output } from "@pulumi/pulumi";

/** The DaemonSet status counters read here; any of them may be missing before the controller reports. */
export interface DaemonSetCounts {
  desiredNumberScheduled?: number;
  currentNumberScheduled?: number;
  updatedNumberScheduled?: number;
  numberReady?: number;
  numberAvailable?: number;
}

/**
 * A DaemonSet's rollout as kubectl reads it: its `metadata.generation` (the spec's version, bumped by the
 * API server on every spec change) beside its status, whose `observedGeneration` is the generation the
 * DaemonSet controller last acted on. Counters the controller wrote for an older spec say nothing of the
 * current one.
 */
export interface DaemonSetRollout extends DaemonSetCounts {
  generation?: number;
  observedGeneration?: number;
}

/**
 * A Deployment's rollout as kubectl reads it: `spec.replicas` (as `replicas`), `metadata.generation`,
 * and the status' observedGeneration, replicas (`statusReplicas`: every pod, old ones included),
 * updatedReplicas, readyReplicas, availableReplicas and the Progressing condition's reason.
 */
export interface ReplicaCounts {
  replicas?: number;
  readyReplicas?: number;
  generation?: number;
  observedGeneration?: number;
  statusReplicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  progressingReason?: string;
}

/** A TigeraStatus (cluster-scoped, written by the operator): conditions Available, Progressing, Degraded. */
export interface TigeraStatus {
  status?: { conditions?: { type?: string; status?: string }[] };
}

/** TigeraStatus `calico` says Available: calico-node rolled out everywhere and kube-controllers available. */
export function calicoAvailable(status: TigeraStatus["status"] | undefined): boolean {
  return status?.conditions?.some((c) => c.type === "Available" && c.status === "True") ?? false;
}

/** What the cluster reports of Calico, as one read at the end of `pulumi up` saw it. */
export interface CalicoStatus {
  /** The calico-node DaemonSet's rollout; undefined when the DaemonSet does not exist. */
  readonly calicoNode: DaemonSetRollout | undefined;
  /** Typha's Deployment; undefined when it does not exist. */
  readonly typha: ReplicaCounts | undefined;
  /** The status of TigeraStatus `calico` (operator install mode only); undefined when it does not exist. */
  readonly tigeraStatus?: TigeraStatus["status"];
  /**
   * Pods of the Felix cleanup (felix-cleanup/template.ts CLEANUP_LABEL) that exist: calico-node turned into
   * the cleanup by a removal that did not finish, or the operator install's cleanup DaemonSet left behind.
   * Such a pod runs no Felix, and its node enforces no policy. Undefined: not read (counted as none).
   */
  readonly cleanupPods?: number;
}

export type Installer = "manifest" | "operator";

/** A status counter, 0 when the status or the counter is missing. */
export function count(status: DaemonSetCounts | undefined, field: keyof DaemonSetCounts): number {
  return status?.[field] ?? 0;
}

/**
 * Whether a DaemonSet's rollout is complete, as `kubectl rollout status daemonset` decides it
 * (k8s.io/kubectl v0.35.4, kubernetes v1.35.4, pkg/polymorphichelpers/rollout_status.go,
 * DaemonSetStatusViewer.Status): the controller has observed the current spec
 * (`generation <= status.observedGeneration`), then `updatedNumberScheduled >= desiredNumberScheduled`
 * ("new pods have been updated"), then `numberAvailable >= desiredNumberScheduled` ("updated pods are
 * available"). Available, not ready: a pod counts once it has been ready for the DaemonSet's
 * minReadySeconds. kubectl applies this to a RollingUpdate DaemonSet only, which calico-node is in both
 * installs (daemonset.ts; the operator's from the Installation's nodeUpdateStrategy). A field the API
 * server omits is 0, as kubectl's Go structs read it; zero desired pods is complete.
 */
export function isRolledOut(daemonSet: DaemonSetRollout | undefined): boolean {
  if (daemonSet === undefined) return false;
  const desired = count(daemonSet, "desiredNumberScheduled");
  return (
    (daemonSet.generation ?? 0) <= (daemonSet.observedGeneration ?? 0) &&
    count(daemonSet, "updatedNumberScheduled") >= desired &&
    count(daemonSet, "numberAvailable") >= desired
  );
}

/**
 * calico-node rolled out as kubectl decides it (isRolledOut) on at least one node. kubectl calls a
 * DaemonSet with no node to run on rolled out; here zero desired pods means no node runs Felix, which is
 * not ready.
 */
export function isDaemonSetReady(daemonSet: DaemonSetRollout | undefined): boolean {
  return count(daemonSet, "desiredNumberScheduled") > 0 && isRolledOut(daemonSet);
}

/**
 * Typha's Deployment rolled out as `kubectl rollout status deployment` decides it (the same file,
 * DeploymentStatusViewer.Status): the controller has observed the current spec, the Progressing condition
 * is not ProgressDeadlineExceeded (deploymentutil.TimedOutReason), `updatedReplicas >= spec.replicas`, no old pod is left
 * (`status.replicas <= updatedReplicas`) and `availableReplicas >= updatedReplicas`; and, unlike
 * kubectl, it asks for at least one replica: with none, nothing serves calico-node.
 */
export function allReplicasReady(deployment: ReplicaCounts | undefined): boolean {
  if (deployment === undefined) return false;
  const wanted = deployment.replicas ?? 0;
  const updated = deployment.updatedReplicas ?? 0;
  return (
    wanted > 0 &&
    (deployment.generation ?? 0) <= (deployment.observedGeneration ?? 0) &&
    deployment.progressingReason !== "ProgressDeadlineExceeded" &&
    updated >= wanted &&
    (deployment.statusReplicas ?? 0) <= updated &&
    (deployment.availableReplicas ?? 0) >= updated
  );
}

/**
 * The `calico` output's `isReady`, in both install modes: calico-node ready on every node
 * (isDaemonSetReady), every Typha replica ready (allReplicasReady: Felix reads the datastore through
 * Typha and programs no policy change without it) and no Felix cleanup pod left (a Ready cleanup pod
 * counts in calico-node's status, and runs no Felix); with the operator also TigeraStatus `calico`
 * Available. Typha is checked in the operator install too, as the operator's TigeraStatus `calico`
 * follows only calico-node and calico-kube-controllers (tigera/operator
 * pkg/controller/installation/core_controller.go: status.AddDaemonsets, status.AddDeployments).
 */
export function isCalicoReady(installer: Installer, status: CalicoStatus): boolean {
  return (
    isDaemonSetReady(status.calicoNode) &&
    allReplicasReady(status.typha) &&
    (status.cleanupPods ?? 0) === 0 &&
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

/**
 * Typha replicas the operator runs for a node count (tigera/operator `pkg/common/autoscale.go`
 * GetExpectedTyphaScale): one per 200 nodes plus two, but 1 for up to 2 nodes, 2 for 3-4 and at least 3
 * beyond, always one fewer than the nodes where possible so a replica can be rescheduled.
 */
export function operatorTyphaReplicas(nodes: number): number {
  if (nodes <= 2) return 1;
  if (nodes <= 4) return 2;
  return Math.max(3, Math.floor(nodes / 200) + 2);
}
