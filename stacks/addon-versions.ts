/**
 * The versions of the EKS add-ons a full stack owns (vpc-cni, kube-proxy, coredns, the Pod Identity agent),
 * kept as deployed.
 * An unpinned add-on takes EKS's default for the Kubernetes version when the cluster is created or its
 * version changes. After that, the `addons` output records what was deployed, and later updates keep it.
 * AWS moves a version's default forward from time to time (aws/amazon-vpc-cni-k8s#2357), and following it
 * at every run would roll the VPC CNI, kube-proxy and CoreDNS onto prod with the next unrelated merge, and
 * turn every drift check red with nothing drifted. So a newer default is a notice in the plan, and moves
 * only when `cluster.version` changes or a pin (`cluster.addons.<key>.version`) is set, changed or removed.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import {
  ADDON_NAMES,
  type AddonKey,
  type AddonVersions,
  defaultVersionQuery,
} from "../components/cluster/addons";
import type { PreviousOutputs } from "./previous-outputs";
import type { ClusterConfig } from "./schema";
import { isRecord, isText } from "./schema/records";

const KEYS = Object.keys(ADDON_NAMES) as AddonKey[];

/** One add-on as the `addons` output records it: the version EKS runs and whether a pin chose it. */
interface DeployedAddon {
  readonly version: string;
  readonly pinned: boolean;
}

/** The `addons` output: the Kubernetes version the add-ons were chosen for, and each add-on. */
export type AddonsOutput = { readonly kubernetesVersion: string } & Partial<Record<AddonKey, DeployedAddon>>;

/** The last update's `addons` output, where it recorded one. */
function deployedAddons(previous: PreviousOutputs): Partial<AddonsOutput> {
  const recorded = previous.addons;
  if (!isRecord(recorded) || !isText(recorded.kubernetesVersion)) return {};
  const addons: Partial<Record<AddonKey, DeployedAddon>> = {};
  for (const key of KEYS) {
    const addon = recorded[key];
    if (isRecord(addon) && isText(addon.version))
      addons[key] = { version: addon.version, pinned: addon.pinned === true };
  }
  return { kubernetesVersion: recorded.kubernetesVersion, ...addons };
}

/**
 * The version each add-on gets on this update: its pin; else the deployed version, when the last update
 * chose it for the same Kubernetes version and no pin; else undefined (EKS's default for the version).
 */
export function keptAddonVersions(
  cluster: Pick<ClusterConfig, "version" | "addons">,
  previous: PreviousOutputs,
) {
  const deployed = deployedAddons(previous);
  const versions: AddonVersions = {};
  const kept: AddonKey[] = [];
  for (const key of KEYS) {
    const pin = cluster.addons[key].version;
    const before = deployed[key];
    if (pin !== undefined) versions[key] = pin;
    else if (before !== undefined && !before.pinned && deployed.kubernetesVersion === cluster.version) {
      versions[key] = before.version;
      kept.push(key);
    }
  }
  return { versions, kept };
}

/**
 * The versions this update deploys (keptAddonVersions), and a notice for each kept add-on whose EKS
 * default for the Kubernetes version is now another version: what it is, and how to move to it.
 */
export async function addonVersionsFor(
  cluster: Pick<ClusterConfig, "version" | "addons">,
  previous: PreviousOutputs,
): Promise<{ versions: AddonVersions; notices: string[] }> {
  const { versions, kept } = keptAddonVersions(cluster, previous);
  const notices: string[] = [];
  for (const key of kept) {
    const name = ADDON_NAMES[key];
    const current = await aws.eks.getAddonVersion(defaultVersionQuery(key, cluster.version)).then(
      (answer) => answer.version,
      (error: Error) => {
        notices.push(
          `cluster.addons.${key}: cannot read EKS's default ${name} version (${error.message}); the cluster keeps ${versions[key]}`,
        );
        return versions[key];
      },
    );
    if (current === versions[key]) continue;
    notices.push(
      `cluster.addons.${key}: EKS's default ${name} for Kubernetes ${cluster.version} is now ${current}; the cluster keeps ${versions[key]} until cluster.version changes. To move now, pin it: cluster.addons.${key}.version: ${current} (docs/upgrades.md#add-on-versions)`,
    );
  }
  return { versions, notices };
}

/** The `addons` output: what each add-on runs after this update, and whether its pin chose it. */
export function addonsOutput(
  cluster: Pick<ClusterConfig, "version" | "addons">,
  deployed: Partial<Record<AddonKey, pulumi.Output<string>>>,
): pulumi.Output<AddonsOutput> {
  const entries = KEYS.filter((key) => deployed[key] !== undefined).map((key) =>
    (deployed[key] as pulumi.Output<string>).apply(
      (version) => [key, { version, pinned: cluster.addons[key].version !== undefined }] as const,
    ),
  );
  return pulumi
    .all(entries)
    .apply((added): AddonsOutput => ({ kubernetesVersion: cluster.version, ...Object.fromEntries(added) }));
}
