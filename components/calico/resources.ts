/** Typed resources for rendered Calico objects, shared by the manifest and the operator install. */
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { CalicoObject } from "./types";

type Options = pulumi.CustomResourceOptions;

/** The awaited workloads fail `pulumi up` after this long instead of the provider's default. */
export function readinessTimeouts(minutes: number): pulumi.CustomTimeouts {
  if (!Number.isInteger(minutes) || minutes < 1) {
    throw new Error(`readinessTimeoutMinutes must be a whole number of at least 1, got ${String(minutes)}`);
  }
  return { create: `${minutes}m`, update: `${minutes}m` };
}

/** A typed resource for an object of a kind with no options of its own. */
export function createObject(
  resourceName: string,
  object: CalicoObject,
  opts: Options,
): pulumi.CustomResource {
  switch (object.kind) {
    case "ServiceAccount":
      return new k8s.core.v1.ServiceAccount(resourceName, object, opts);
    case "ClusterRole":
      return new k8s.rbac.v1.ClusterRole(resourceName, object, opts);
    case "ClusterRoleBinding":
      return new k8s.rbac.v1.ClusterRoleBinding(resourceName, object, opts);
    case "Role":
      return new k8s.rbac.v1.Role(resourceName, object, opts);
    case "RoleBinding":
      return new k8s.rbac.v1.RoleBinding(resourceName, object, opts);
    case "ConfigMap":
      return new k8s.core.v1.ConfigMap(resourceName, object, opts);
    case "Deployment":
      return new k8s.apps.v1.Deployment(resourceName, object, opts);
    default:
      throw new Error(`no typed resource wired for ${object.kind} ${object.metadata.name}`);
  }
}
