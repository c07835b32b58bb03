/**
 * The stack's `calico` output: what `kubectl get daemonset calico-node` shows (DESIRED, CURRENT,
 * UP-TO-DATE, READY, AVAILABLE), how Calico was installed, and the proof of enforcement. The same shape
 * for both install modes, and for the update of a reinstall that removes Calico (installer "none").
 */
import * as pulumi from "@pulumi/pulumi";
import type { ProbeReport } from "./probe/report";

/**
 * What both install modes' components expose for the output: CalicoPolicyOnly (index.ts) and
 * CalicoOperator (operator/index.ts) implement it, so this module depends on neither.
 */
export interface CalicoInstall {
  /** How Calico was installed: "manifest" or "operator". */
  readonly installer: pulumi.Output<string>;
  readonly namespace: pulumi.Output<string>;
  readonly version: pulumi.Output<string>;
  /** calico-node pods that should run (DaemonSet `status.desiredNumberScheduled`). */
  readonly desired: pulumi.Output<number>;
  readonly current: pulumi.Output<number>;
  readonly updated: pulumi.Output<number>;
  readonly ready: pulumi.Output<number>;
  readonly available: pulumi.Output<number>;
  readonly isReady: pulumi.Output<boolean>;
  /** Typha's ready replicas, read from the cluster. */
  readonly typhaReadyReplicas: pulumi.Output<number>;
  /** Typha replicas at creation, for `initialNodes`. */
  readonly typhaReplicas: number;
  /**
   * When the earliest of Typha's TLS certificates expires (RFC 3339; certificate-expiry.ts); null with
   * the operator, which issues Typha's certificates and rotates them before they expire.
   */
  readonly typhaCertificatesExpire: pulumi.Output<string | null>;
  /** True only when the probe proved both an allowed and a blocked connection; false without a probe. */
  readonly policyEnforced: pulumi.Output<boolean>;
  /** What each probe Job proved, or undefined without a probe. */
  readonly probe: pulumi.Output<ProbeReport | undefined>;
}

export function calicoOutputs(calico: CalicoInstall | undefined) {
  if (calico === undefined) {
    return {
      installer: pulumi.output("none"),
      desired: 0,
      current: 0,
      updated: 0,
      ready: 0,
      available: 0,
      isReady: false,
      policyEnforced: false,
    };
  }
  return {
    installer: calico.installer,
    namespace: calico.namespace,
    version: calico.version,
    desired: calico.desired,
    current: calico.current,
    updated: calico.updated,
    ready: calico.ready,
    available: calico.available,
    isReady: calico.isReady,
    typhaReplicas: calico.typhaReplicas,
    typhaReadyReplicas: calico.typhaReadyReplicas,
    typhaCertificatesExpire: calico.typhaCertificatesExpire,
    // Proven, not assumed: a blocked and an admitted connection (false when the probe is off).
    policyEnforced: calico.policyEnforced,
    probe: calico.probe,
  };
}
