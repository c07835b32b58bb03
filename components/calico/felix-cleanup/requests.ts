/**
 * What the Felix cleanup (./index.ts) and its undoing (./restore.ts) share: the API paths, the poll, and
 * the shape of their dynamic resources.
 */
import * as pulumi from "@pulumi/pulumi";
import { CLEANUP_LABEL } from "./template";

/** Seconds between two reads of a rollout. */
export const POLL_SECONDS = 2;

export function daemonSetPath(namespace: string, name: string): string {
  return `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/daemonsets/${encodeURIComponent(name)}`;
}

export function podsPath(namespace: string, labels: Record<string, string>): string {
  const selector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods?labelSelector=${encodeURIComponent(selector)}`;
}

/**
 * The Felix cleanup's pods in `namespace` (CLEANUP_LABEL): of calico-node's template turned into the
 * cleanup, or of the operator install's cleanup DaemonSet.
 */
export function cleanupPodsPath(namespace: string): string {
  return podsPath(namespace, { [CLEANUP_LABEL]: "true" });
}

export function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, POLL_SECONDS * 1000));
}

/** A dynamic resource of module `calico` (type `pulumi-nodejs:dynamic/calico:<type>`), its kubeconfig secret. */
export class CalicoStep<A extends { readonly kubeconfig: pulumi.Input<string> }>
  extends pulumi.dynamic.Resource
{
  constructor(
    provider: pulumi.dynamic.ResourceProvider,
    type: string,
    name: string,
    args: A,
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(provider, name, { ...args, kubeconfig: pulumi.secret(args.kubeconfig) }, opts, "calico", type);
  }
}
