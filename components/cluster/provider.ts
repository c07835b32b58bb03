/**
 * The Kubernetes provider settings every in-cluster object of this program is applied with, for a cluster
 * this stack creates or one made elsewhere, and the adopting variant that takes over objects that exist.
 */
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";

/**
 * Server-side apply. Secrets and ConfigMaps are updated in place: otherwise pulumi-kubernetes replaces them
 * (delete, then create, as their names are fixed) whenever their data changes (provider/pkg/provider/
 * diff.go), e.g. at every Typha certificate renewal. Workloads roll on their own pod-template annotation.
 */
const SETTINGS = {
  enableServerSideApply: true,
  enableSecretMutable: true,
  enableConfigMapMutable: true,
} as const;

export interface ClusterAccess {
  /** A kubeconfig for the cluster (secret). */
  readonly kubeconfig: pulumi.Input<string>;
  /**
   * What names the cluster, whatever the credentials (an EKS cluster's ARN, a kubeconfig cluster's API
   * server URL): pulumi-kubernetes replaces the provider, and every object it manages, only when this
   * changes (provider/pkg/provider/provider.go DiffConfig), so a renewed endpoint, CA or token is an update,
   * and objects can move between providers of the same cluster without being replaced.
   */
  readonly clusterIdentifier: pulumi.Input<string>;
  /** The kubeconfig context to use; unset: the kubeconfig's current-context. */
  readonly context?: pulumi.Input<string>;
}

/** The provider every in-cluster object uses. */
export function clusterProvider(name: string, access: ClusterAccess, opts: pulumi.CustomResourceOptions) {
  return new k8s.Provider(name, { ...access, ...SETTINGS }, opts);
}

/**
 * The provider for Calico objects that may already exist (`calico.adopt`): a create of an existing object
 * updates it (`upsertExistingObjects`, pulumi-kubernetes 4.29+ otherwise fails with AlreadyExists), and
 * server-side apply forces its field ownership (`enablePatchForce`), so fields owned by
 * `kubectl-client-side-apply` move to Pulumi instead of conflicting.
 */
export function adoptingProvider(name: string, access: ClusterAccess, opts: pulumi.CustomResourceOptions) {
  return new k8s.Provider(
    name,
    { ...access, ...SETTINGS, upsertExistingObjects: true, enablePatchForce: true },
    opts,
  );
}

/**
 * The provider for Calico's CRDs, which are retained on delete (deleting a CRD deletes every policy of its
 * kind) and so outlive a destroyed stack: a create of one that exists updates it
 * (`upsertExistingObjects`), so `pulumi up` after `pulumi destroy` takes them back instead of failing with
 * AlreadyExists. No forced ownership: the takeover step (components/calico/takeover) has made sure any that
 * exists is this program's, and a conflict with another manager fails instead of being overridden.
 */
export function crdProvider(name: string, access: ClusterAccess, opts: pulumi.CustomResourceOptions) {
  return new k8s.Provider(name, { ...access, ...SETTINGS, upsertExistingObjects: true }, opts);
}
