/**
 * The stack's `calico` output: what `kubectl get daemonset calico-node` shows (DESIRED, CURRENT,
 * UP-TO-DATE, READY, AVAILABLE), how Calico was installed, and the proof of enforcement. The same shape
 * for both install modes, and for the update of a reinstall that removes Calico (installer "none").
 */
import * as pulumi from "@pulumi/pulumi";
import type { CalicoPolicyOnly } from "./index";
import type { CalicoOperator } from "./operator";

export function calicoOutputs(calico: CalicoPolicyOnly | CalicoOperator | undefined) {
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
    // Proven, not assumed: a blocked and an admitted connection (false when the probe is off).
    policyEnforced: calico.policyEnforced,
    probe: calico.probe,
  };
}
