/**
 * The stack's `calico` output: what `kubectl get daemonset calico-node` shows (DESIRED, CURRENT,
 * UP-TO-DATE, READY, AVAILABLE), how Calico was installed, and the proof of enforcement. The same shape
 * for both install modes, and for the update of a reinstall that removes Calico (installer "none").
 */
import * as pulumi from "@pulumi/pulumi";
import type { ProbeReport } from "./probe/report";

/**
 * The output's fields, as both install modes' components build them: CalicoPolicyOnly (index.ts) and
 * CalicoOperator (operator/index.ts) each have one as `outputs`, so this module depends on neither.
 */
export interface CalicoOutputs {
  /** How Calico was installed: "manifest" or "operator". */
  readonly installer: pulumi.Output<string>;
  /** calico-node's and Typha's namespace: the configured one, or the operator's calico-system. */
  readonly namespace: pulumi.Output<string>;
  readonly version: pulumi.Output<string>;
  /** calico-node pods that should run (DaemonSet `status.desiredNumberScheduled`). */
  readonly desired: pulumi.Output<number>;
  readonly current: pulumi.Output<number>;
  readonly updated: pulumi.Output<number>;
  readonly ready: pulumi.Output<number>;
  readonly available: pulumi.Output<number>;
  /**
   * calico-node up to date and ready on every node that should run it (at least one), every Typha
   * replica ready (at least one), and with the operator TigeraStatus `calico` Available: readiness.ts
   * isCalicoReady, on what the cluster reports in each `up`.
   */
  readonly isReady: pulumi.Output<boolean>;
  /** Typha's ready replicas, read from the cluster in each `up` once calico-node is applied. */
  readonly typhaReadyReplicas: pulumi.Output<number>;
  /**
   * Typha replicas at creation, for `initialNodes` (the manifest's ladder, or the operator's); the
   * autoscaler, or the operator, adjusts them as nodes come and go.
   */
  readonly typhaReplicas: number;
  /**
   * When the earliest of Typha's CA and leaf certificates expires (RFC 3339; certificate-expiry.ts). Null
   * with the operator: it issues Typha's and Felix's certificates and renews one that expires within its
   * grace period on its own (tigera/operator v1.40.15 pkg/controller/certificatemanager/certificatemanager.go,
   * "rotating the certificate because it is expiring soon").
   */
  readonly typhaCertificatesExpire: pulumi.Output<string | null>;
  /** True only when the probe proved both an allowed and a blocked connection; false without a probe. */
  readonly policyEnforced: pulumi.Output<boolean>;
  /** What each probe Job proved, or undefined without a probe. */
  readonly probe: pulumi.Output<ProbeReport | undefined>;
}

/** The output of an install, or without one (the first update of a reinstall) installer "none" and zeros. */
export function calicoOutputs(calico: { readonly outputs: CalicoOutputs } | undefined) {
  return (
    calico?.outputs ?? {
      installer: pulumi.output("none"),
      desired: 0,
      current: 0,
      updated: 0,
      ready: 0,
      available: 0,
      isReady: false,
      policyEnforced: false,
    }
  );
}
