/**
 * Plain shapes of the Kubernetes objects this component renders: the @pulumi/kubernetes input types with
 * every `Input<T>` unwrapped to `T`, so builders return ordinary data that tests read directly and the
 * component passes straight to the typed resources (./typed-resources.ts). ./manifest.ts lists the
 * manifest install's objects in these shapes.
 */
import type * as k8s from "@pulumi/kubernetes";
import type { Unwrap } from "@pulumi/pulumi";

/** Names, namespace and labels: always explicit, so in-cluster names never depend on Pulumi naming. */
export interface ObjectMeta {
  name: string;
  /** Set on namespaced kinds only. */
  namespace?: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
}

interface Typed<ApiVersion extends string, Kind extends string> {
  apiVersion: ApiVersion;
  kind: Kind;
  metadata: ObjectMeta;
}

export type PolicyRule = Unwrap<k8s.types.input.rbac.v1.PolicyRule>;
export type Container = Unwrap<k8s.types.input.core.v1.Container>;
export type EnvVar = Unwrap<k8s.types.input.core.v1.EnvVar>;
export type Toleration = Unwrap<k8s.types.input.core.v1.Toleration>;
export type Affinity = Unwrap<k8s.types.input.core.v1.Affinity>;
export type Volume = Unwrap<k8s.types.input.core.v1.Volume>;
export type VolumeMount = Unwrap<k8s.types.input.core.v1.VolumeMount>;

export interface CustomResourceDefinition extends Typed<
  "apiextensions.k8s.io/v1",
  "CustomResourceDefinition"
> {
  spec: Unwrap<k8s.types.input.apiextensions.v1.CustomResourceDefinitionSpec>;
}

export type Namespace = Typed<"v1", "Namespace">;

export type ServiceAccount = Typed<"v1", "ServiceAccount">;

export interface ClusterRole extends Typed<"rbac.authorization.k8s.io/v1", "ClusterRole"> {
  rules: PolicyRule[];
}

export interface ClusterRoleBinding extends Typed<"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"> {
  roleRef: Unwrap<k8s.types.input.rbac.v1.RoleRef>;
  subjects: Unwrap<k8s.types.input.rbac.v1.Subject>[];
}

export interface Role extends Typed<"rbac.authorization.k8s.io/v1", "Role"> {
  rules: PolicyRule[];
}

export interface RoleBinding extends Typed<"rbac.authorization.k8s.io/v1", "RoleBinding"> {
  roleRef: Unwrap<k8s.types.input.rbac.v1.RoleRef>;
  subjects: Unwrap<k8s.types.input.rbac.v1.Subject>[];
}

export interface ConfigMap extends Typed<"v1", "ConfigMap"> {
  data: Record<string, string>;
}

export interface Secret extends Typed<"v1", "Secret"> {
  type: string;
  stringData: Record<string, string>;
}

export interface DaemonSet extends Typed<"apps/v1", "DaemonSet"> {
  spec: Unwrap<k8s.types.input.apps.v1.DaemonSetSpec>;
}

export interface Deployment extends Typed<"apps/v1", "Deployment"> {
  spec: Unwrap<k8s.types.input.apps.v1.DeploymentSpec>;
}

export interface Service extends Typed<"v1", "Service"> {
  spec: Unwrap<k8s.types.input.core.v1.ServiceSpec>;
}

export interface PodDisruptionBudget extends Typed<"policy/v1", "PodDisruptionBudget"> {
  spec: Unwrap<k8s.types.input.policy.v1.PodDisruptionBudgetSpec>;
}

/** Every kind this component renders. */
export type CalicoObject =
  | Namespace
  | CustomResourceDefinition
  | ServiceAccount
  | ClusterRole
  | ClusterRoleBinding
  | Role
  | RoleBinding
  | ConfigMap
  | Secret
  | Deployment
  | Service
  | PodDisruptionBudget
  | DaemonSet;
