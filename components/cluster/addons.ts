/**
 * The EKS managed add-ons this program owns (vpc-cni, kube-proxy, coredns, and eks-pod-identity-agent
 * where it is needed): their configuration as plain data, and the wiring that creates them with pinned
 * versions. Every add-on's version is explicit: a
 * config override, or the version EKS marks as default for the cluster's Kubernetes version, looked up
 * with `mostRecent: false`. @pulumi/eks would otherwise resolve kube-proxy and the VPC CNI with
 * `mostRecent: true` at every run (cluster/cluster.ts, addons/cni-addon.ts in pulumi/pulumi-eks v4.3.0), so
 * an `up` with no code change could upgrade them.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import type { KubernetesTaintEffect } from "./nodegroups";

/**
 * The add-ons, by the config key under `cluster.addons` that can pin each one's version. The EKS Pod
 * Identity agent is made only where a role is handed out through it (`cluster.podIdentity`, Karpenter).
 */
export const ADDON_NAMES = {
  vpcCni: "vpc-cni",
  kubeProxy: "kube-proxy",
  coreDns: "coredns",
  podIdentityAgent: "eks-pod-identity-agent",
} as const;
export type AddonKey = keyof typeof ADDON_NAMES;

/**
 * VPC CNI settings for Calico policy-only mode, as the add-on's configuration JSON:
 * - `enableNetworkPolicy: "false"`: the VPC CNI's own network-policy agent stays off; two enforcers on
 *   one node conflict (https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/eks).
 * - `ANNOTATE_POD_IP`: aws-node writes each pod's IP to an annotation, so Calico learns a new pod's address
 *   without waiting for the kubelet's status update.
 *
 * Deliberately left out, though eks.VpcCniAddon injects them (addons/cni-addon.ts `computeEnv`):
 * - `AWS_VPC_K8S_CNI_LOGLEVEL` / `AWS_VPC_K8S_PLUGIN_LOG_LEVEL=DEBUG`: debug logging on every node fills
 *   disks; the add-on's default level is the right one for production.
 * - `WARM_ENI_TARGET=1`, `AWS_VPC_ENI_MTU=9001`, `AWS_VPC_K8S_CNI_EXTERNALSNAT=false`,
 *   `AWS_VPC_K8S_CNI_VETHPREFIX=eni`, `ENABLE_POD_ENI=false` (unless POD_SECURITY_GROUPS_ENV),
 *   `AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG=false`,
 *   the log file paths and `init.env.DISABLE_TCP_EARLY_DEMUX=false`: each equals the add-on's own default,
 *   so setting them only pins today's defaults against future fixes. Felix's policy-only interface
 *   prefix (`eni`) relies on the default veth prefix, which is why it must stay the default.
 */
export const VPC_CNI_CONFIGURATION = {
  enableNetworkPolicy: "false",
  env: { ANNOTATE_POD_IP: "true" },
} as const;

/**
 * With `cluster.vpcCni.prefixDelegation`: ipamd assigns /28 prefixes, keeping one free prefix warm, the
 * setting the EKS User Guide's procedure gives (cni-increase-ip-addresses-procedure; amazon-vpc-cni-k8s
 * docs/prefix-and-ip-target.md: WARM_IP_TARGET and MINIMUM_IP_TARGET, which would override it, stay
 * unset). Calico needs nothing of it: pods keep their `eni` host interfaces and VPC addresses.
 */
export const PREFIX_DELEGATION_ENV = { ENABLE_PREFIX_DELEGATION: "true", WARM_PREFIX_TARGET: "1" } as const;

/**
 * With `cluster.vpcCni.podSecurityGroups`: security groups for pods (`ENABLE_POD_ENI`), in standard mode.
 * Strict mode, the default, names a branch-ENI pod's host interface `vlan…`, to opt it out of Calico;
 * standard mode gives it the veth prefix, `eni` (amazon-vpc-cni-k8s pkg/sgpp/utils.go), so Felix polices
 * it (EKS User Guide, security-groups-pods-deployment: Calico needs standard mode). The init container's
 * `DISABLE_TCP_EARLY_DEMUX` lets the kubelet's TCP probes reach such pods (the same page).
 */
export const POD_SECURITY_GROUPS_ENV = {
  ENABLE_POD_ENI: "true",
  POD_SECURITY_GROUP_ENFORCING_MODE: "standard",
} as const;
export const POD_SECURITY_GROUPS_INIT_ENV = { DISABLE_TCP_EARLY_DEMUX: "true" } as const;

/** The VPC CNI settings of `cluster.vpcCni` the add-on's configuration carries. */
export interface VpcCniSettings {
  readonly prefixDelegation: boolean;
  readonly podSecurityGroups: boolean;
}

/** The VPC CNI add-on's configuration values, as the JSON string EKS takes. */
export function vpcCniConfiguration(
  settings: VpcCniSettings = { prefixDelegation: false, podSecurityGroups: false },
): string {
  const env = {
    ...VPC_CNI_CONFIGURATION.env,
    ...(settings.prefixDelegation ? PREFIX_DELEGATION_ENV : {}),
    ...(settings.podSecurityGroups ? POD_SECURITY_GROUPS_ENV : {}),
  };
  return JSON.stringify({
    ...VPC_CNI_CONFIGURATION,
    env,
    ...(settings.podSecurityGroups ? { init: { env: POD_SECURITY_GROUPS_INIT_ENV } } : {}),
  });
}

/** EKS's own CoreDNS tolerations, kept when ours are added (the add-on replaces the list as a whole). */
export const COREDNS_DEFAULT_TOLERATIONS = [
  { key: "CriticalAddonsOnly", operator: "Exists" },
  { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
] as const;

export interface Toleration {
  key: string;
  operator: "Equal" | "Exists";
  value?: string;
  effect?: KubernetesTaintEffect;
}

/**
 * CoreDNS configuration: it tolerates the taints of the node groups marked `clusterAddons` (a tainted
 * `system` group is where cluster add-ons belong), besides EKS's defaults. Untainted groups need no
 * toleration. Undefined when nothing differs from EKS's defaults, so the add-on keeps them.
 */
export function coreDnsConfiguration(
  groups: readonly {
    clusterAddons: boolean;
    taints: readonly { key: string; value: string; effect: KubernetesTaintEffect }[];
  }[],
): string | undefined {
  const seen = new Set<string>();
  const tolerations: Toleration[] = [];
  for (const group of groups.filter((g) => g.clusterAddons)) {
    for (const taint of group.taints) {
      if (taint.effect === "PreferNoSchedule") continue;
      const id = `${taint.key}=${taint.value}:${taint.effect}`;
      if (seen.has(id)) continue;
      seen.add(id);
      tolerations.push({ key: taint.key, operator: "Equal", value: taint.value, effect: taint.effect });
    }
  }
  if (tolerations.length === 0) return undefined;
  return JSON.stringify({ tolerations: [...COREDNS_DEFAULT_TOLERATIONS, ...tolerations] });
}

/** Pinned add-on versions from config; unset ones follow EKS's default for the Kubernetes version. */
export type AddonVersions = Partial<Record<AddonKey, string>>;

export interface AddonArgs {
  clusterName: pulumi.Input<string>;
  /** Kubernetes minor version of the cluster: picks the default version when none is pinned. */
  kubernetesVersion: string;
  /** Pinned version, or undefined for EKS's default for `kubernetesVersion`. */
  version: string | undefined;
  configurationValues?: string;
  serviceAccountRoleArn?: pulumi.Input<string>;
  /** Pod Identity associations the add-on makes and owns (EKS replaces them as a whole on update). */
  podIdentityAssociations?: { roleArn: pulumi.Input<string>; serviceAccount: string }[];
  tags: Record<string, string>;
}

/**
 * The version an add-on runs: the pinned one, or the one EKS marks default for the Kubernetes version
 * (`mostRecent: false`; the most recent is often newer than what EKS has qualified as default).
 */
export function addonVersion(
  key: AddonKey,
  kubernetesVersion: string,
  pinned: string | undefined,
  parent: pulumi.Resource,
): pulumi.Input<string> {
  if (pinned !== undefined) return pinned;
  return aws.eks.getAddonVersionOutput(defaultVersionQuery(key, kubernetesVersion), { parent }).version;
}

/** The query for the version EKS marks default for the add-on on `kubernetesVersion` (not the newest). */
export function defaultVersionQuery(key: AddonKey, kubernetesVersion: string) {
  return { addonName: ADDON_NAMES[key], kubernetesVersion, mostRecent: false };
}

/**
 * An EKS managed add-on. OVERWRITE takes over the self-managed copy EKS installs at cluster creation
 * (and our own settings win over manual edits on update); `preserve` keeps the software running on the
 * cluster if the add-on resource is ever deleted, so a rename never strips pod networking or DNS.
 */
export function createAddon(
  resourceName: string,
  key: AddonKey,
  args: AddonArgs,
  opts: pulumi.CustomResourceOptions & { parent: pulumi.Resource },
): aws.eks.Addon {
  return new aws.eks.Addon(
    resourceName,
    {
      clusterName: args.clusterName,
      addonName: ADDON_NAMES[key],
      addonVersion: addonVersion(key, args.kubernetesVersion, args.version, opts.parent),
      configurationValues: args.configurationValues,
      serviceAccountRoleArn: args.serviceAccountRoleArn,
      podIdentityAssociations: args.podIdentityAssociations,
      resolveConflictsOnCreate: "OVERWRITE",
      resolveConflictsOnUpdate: "OVERWRITE",
      preserve: true,
      tags: args.tags,
    },
    opts,
  );
}
