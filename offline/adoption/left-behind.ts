/**
 * Why an object of an old Calico manifest is not part of this program's install, and whether to delete it
 * after the switch. Matched by name and kind, from the objects the amazon-vpc-cni-k8s `config/v1.x/
 * calico.yaml` manifests and Calico's own `calico-policy-only.yaml` ship.
 */
import type { ManifestObject } from "./objects";

export interface LeftBehind {
  readonly why: string;
  /** Delete it once this program's Calico runs; false: keep it (CRDs hold policies). */
  readonly delete: boolean;
}

interface Rule {
  readonly matches: (o: ManifestObject) => boolean;
  readonly reason: LeftBehind;
}

const named =
  (...names: string[]) =>
  (o: ManifestObject) =>
    names.includes(o.metadata.name);

const RULES: readonly Rule[] = [
  {
    matches: (o) => o.kind === "CustomResourceDefinition",
    reason: {
      why: "a Calico resource kind this release does not define; CRDs are never deleted here: objects of the kind (policies among them) would go with it",
      delete: false,
    },
  },
  {
    matches: named("calico-typha-horizontal-autoscaler", "typha-cpha"),
    reason: {
      why: "the ladder or RBAC of the old Typha autoscaler (cluster-proportional-autoscaler), which the takeover deletes with the old calico-typha: this program runs its own, calico-typha-autoscaler",
      delete: true,
    },
  },
  {
    matches: named("calico-kube-controllers"),
    reason: {
      why: "calico-kube-controllers: on the VPC CNI with the Kubernetes API as datastore it has nothing to do (its IPAM and node clean-up serve Calico IPAM, its policy controllers serve etcd); this program does not run it",
      delete: true,
    },
  },
  {
    matches: named("calico-cni-plugin"),
    reason: {
      why: "the identity of Calico's CNI plugin: on the VPC CNI, aws-node's plugin wires pods and Calico's is not installed",
      delete: true,
    },
  },
  {
    matches: (o) => o.kind === "ConfigMap" && o.metadata.name === "calico-config",
    reason: {
      why: "settings for Calico's CNI plugin and its installer, which policy-only on the VPC CNI does not use",
      delete: true,
    },
  },
];

const OTHER: LeftBehind = {
  why: "not part of this program's install; check that nothing else uses it before deleting it",
  delete: true,
};

export function leftBehind(object: ManifestObject): LeftBehind {
  return RULES.find((rule) => rule.matches(object))?.reason ?? OTHER;
}
