/**
 * Typha's and calico-node's workload objects as the install creates them: the certificate expiry on their
 * pod templates, Typha's Service, PodDisruptionBudget and Deployment, and which workload rolls first.
 */
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { CERTIFICATE_EXPIRY_ANNOTATION } from "./typha-tls";
import type { CalicoObjectGroups } from "./manifest";
import { childResourceName } from "./manifest";
import { type RolloutOrder, rolloutOrder } from "./rollout-order";
import type { DaemonSet, Deployment } from "./object-shapes";

type Options = pulumi.CustomResourceOptions;

/**
 * A workload whose pod template carries its certificate's expiry: when @pulumi/tls renews the certificate
 * the value changes, so the workload rolls onto the new files (Typha and Felix read them at start).
 */
export function withTemplateAnnotation<T extends Deployment | DaemonSet>(
  workload: T,
  validUntil: pulumi.Output<string>,
) {
  const template = workload.spec.template;
  return {
    ...workload,
    spec: {
      ...workload.spec,
      template: {
        ...template,
        metadata: {
          ...template.metadata,
          annotations: { ...template.metadata?.annotations, [CERTIFICATE_EXPIRY_ANNOTATION]: validUntil },
        },
      },
    },
  };
}

/**
 * The order of Typha's and calico-node's rollouts from the deployed release to `version` (./rollout-order.ts);
 * a change no order can make with every Felix connected is an error (the stack refuses it before this).
 */
export function orderOf(deployed: string | undefined, version: string): RolloutOrder {
  const order = rolloutOrder(deployed, version);
  if (order === undefined) {
    throw new Error(
      `Calico ${deployed} to ${version}: no order of Typha and calico-node keeps every Felix connected (stacks/calico-rollout.ts)`,
    );
  }
  return order;
}

/** Typha's Service and PodDisruptionBudget, which need only their namespace. */
export function createTyphaService(name: string, typha: CalicoObjectGroups["typha"], opts: Options) {
  return {
    service: new k8s.core.v1.Service(childResourceName(name, typha.service), typha.service, opts),
    disruptionBudget: new k8s.policy.v1.PodDisruptionBudget(
      childResourceName(name, typha.disruptionBudget),
      typha.disruptionBudget,
      opts,
    ),
  };
}

/** Typha's Deployment, awaited like calico-node (its pods need the CRDs and RBAC of the foundations). */
export function typhaDeployment(name: string, deployment: Deployment, opts: Options) {
  return new k8s.apps.v1.Deployment(childResourceName(name, deployment), deployment, {
    ...opts,
    // The autoscaler owns the replica count after creation. With server-side apply, pulumi-kubernetes
    // leaves an ignored field out of its patch when another manager owns it, and re-sends the live
    // value otherwise (handleSSAIgnoreFields, provider/pkg/await/await.go): Pulumi never resets it.
    ignoreChanges: ["spec.replicas"],
  });
}
