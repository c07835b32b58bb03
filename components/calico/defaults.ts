/**
 * Every Calico default lives here, once. The stack config schema (stacks/schema/) imports these, so
 * the schema, the docs and the component can never disagree about a default.
 */
import { VPC_CNI_VETH_PREFIX } from "../cluster/vpc-cni-veth";

/** Calico release installed when the stack does not pin one. Images are tagged with it. */
export const DEFAULT_CALICO_VERSION = "v3.31.7";

/** Registry holding Calico's `node` and `typha` images (Calico's own registry on quay.io). */
export const DEFAULT_CALICO_REGISTRY = "quay.io/calico";

/** Registry holding the Typha autoscaler's image, cluster-proportional-autoscaler (autoscaler.ts). */
export const DEFAULT_AUTOSCALER_REGISTRY = "registry.k8s.io/cpa";
/** The cluster-proportional-autoscaler's image in that registry (its release: autoscaler.ts). */
export const AUTOSCALER_IMAGE = "cluster-proportional-autoscaler";

/** Registry holding the startup taint remover's image (components/startup-taint). */
export const DEFAULT_REMOVER_REGISTRY = "registry.k8s.io";
/**
 * The remover's image: kubectl, whose image has bash (kubernetes/kubernetes#119592), published with every
 * Kubernetes release since v1.28 (kubernetes/kubernetes#116667), at the version `npm run tools` builds.
 */
export const REMOVER_IMAGE = { name: "kubectl", tag: "v1.35.4" } as const;

/** Namespace of calico-node and Typha; kube-system is where the classic policy-only install puts them. */
export const DEFAULT_CALICO_NAMESPACE = "kube-system";

/**
 * Felix's workload interface prefix on the VPC CNI: the VPC CNI's default veth prefix, which the operator
 * also sets for the AmazonVPC CNI.
 */
export const FELIX_INTERFACE_PREFIX = VPC_CNI_VETH_PREFIX;

/**
 * Calico release lines this component renders objects for. A line is listed only once its CRDs and
 * calico-node's RBAC have been checked against that line's own manifests (see crds.ts).
 */
export const SUPPORTED_CALICO_MINORS = ["3.31", "3.32"] as const;

/** A supported Calico release line, e.g. "3.31". */
export type CalicoMinor = (typeof SUPPORTED_CALICO_MINORS)[number];

const RELEASE = /^v(\d+)\.(\d+)\.(\d+)$/;

/** The release line of an exact release tag ("v3.31.7" -> "3.31"), or undefined if it is not a tag. */
export function calicoMinorOf(version: string): string | undefined {
  const match = RELEASE.exec(version);
  return match ? `${match[1]}.${match[2]}` : undefined;
}

/** True for an exact release tag (vX.Y.Z) of a supported line. */
export function isSupportedCalicoVersion(version: string): boolean {
  const minor = calicoMinorOf(version);
  return minor !== undefined && (SUPPORTED_CALICO_MINORS as readonly string[]).includes(minor);
}

/** The supported line of a release, or a clear error naming the supported lines. */
export function supportedMinorOf(version: string): CalicoMinor {
  const minor = calicoMinorOf(version);
  const supported = SUPPORTED_CALICO_MINORS.find((line) => line === minor);
  if (supported === undefined) {
    throw new Error(
      `Calico version ${JSON.stringify(version)} is not supported: expected vX.Y.Z of ` +
        SUPPORTED_CALICO_MINORS.map((line) => `v${line}`).join(" or "),
    );
  }
  return supported;
}
