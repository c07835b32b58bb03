/**
 * What a Calico install hands to what must follow it: its resources that prove calico-node ready (the
 * DaemonSet, or the operator's Installation) and where calico-node runs. The enforcement probe waits for
 * whatever the hook returns (an existing cluster's network-policy agent turned off, for example). Here
 * rather than in components/calico/ because both sides use it: calico/ calls the hook, existing-cluster/
 * provides one, and neither imports the other.
 */
import type * as pulumi from "@pulumi/pulumi";

export interface CalicoRunning {
  readonly resources: pulumi.Resource[];
  /** The calico-node DaemonSet. */
  readonly calicoNode: { readonly namespace: string; readonly name: string };
}

/** Creates what follows Calico; returns what the probe must wait for. */
export type AfterCalico = (calico: CalicoRunning) => pulumi.Resource[];
