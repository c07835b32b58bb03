/**
 * The startup taint's remover as typed resources (objects in ./objects.ts): a ServiceAccount, its roles,
 * the admission policy that narrows them, and the DaemonSet, beside calico-node in its namespace.
 */
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { renderRemover } from "./objects";

export { REMOVER, STARTUP_TAINT, removerObjectList } from "./objects";

/**
 * The remover's resources, named after `name`: cluster-scoped ones with `opts.cluster`, those in
 * `namespace` with `opts.namespaced` (after calico-node's namespace).
 */
export function createStartupTaintRemover(
  name: string,
  namespace: string,
  opts: { cluster: pulumi.CustomResourceOptions; namespaced: pulumi.CustomResourceOptions },
  options: { registry?: string; fieldManager?: string },
): pulumi.CustomResource[] {
  const o = renderRemover(namespace, options);
  const child = (kind: string) => `${name}-startup-taint-${kind}`;
  const inNamespace = opts.namespaced;
  const account = new k8s.core.v1.ServiceAccount(child("service-account"), o.serviceAccount, inNamespace);
  const roles = [
    new k8s.rbac.v1.ClusterRole(child("cluster-role"), o.clusterRole, opts.cluster),
    new k8s.rbac.v1.ClusterRoleBinding(child("cluster-role-binding"), o.clusterRoleBinding, opts.cluster),
    new k8s.rbac.v1.Role(child("role"), o.role, inNamespace),
    new k8s.rbac.v1.RoleBinding(child("role-binding"), o.roleBinding, inNamespace),
  ];
  const policy = new k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
    child("policy"),
    o.policy,
    opts.cluster,
  );
  // The binding after its policy: a binding to a policy not yet there denies nothing, but names one.
  const binding = new k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
    child("policy-binding"),
    o.policyBinding,
    { ...opts.cluster, dependsOn: [policy, ...dependencies(opts.cluster)] },
  );
  // The remover patches nodes only once the policy that narrows its patches binds.
  const daemonSet = new k8s.apps.v1.DaemonSet(child("remover"), o.daemonSet, {
    ...inNamespace,
    dependsOn: [account, ...roles, binding, ...dependencies(inNamespace)],
  });
  return [account, ...roles, policy, binding, daemonSet];
}

function dependencies(opts: pulumi.CustomResourceOptions): pulumi.Resource[] {
  const on = opts.dependsOn;
  return Array.isArray(on) ? (on as pulumi.Resource[]) : on === undefined ? [] : [on as pulumi.Resource];
}
