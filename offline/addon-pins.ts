/**
 * Pinned add-on versions the offline plan cannot vouch for. The schema checks a pin's form and kube-proxy's
 * minor (stacks/schema/cluster.ts); which builds EKS offers for a Kubernetes version only
 * `aws eks describe-addon-versions` answers, and the AWS provider has no data source that lists them
 * (`aws.eks.getAddonVersion` returns one version: the default, or the most recent). A pin EKS does not
 * offer fails CreateAddon/UpdateAddon at `up`, so the plan says it cannot tell instead of passing quietly.
 * A pin equal to the recorded default for its Kubernetes version (offline/world/addon-versions.ts, a
 * recording of describe-addon-versions) is offered, and needs no warning.
 */
import { ADDON_NAMES, type AddonKey } from "../components/cluster/addons";
import { DEFAULT_ADDON_VERSIONS } from "./world/addon-versions";
import type { StackConfig } from "../stacks/schema";

/** One warning per pinned add-on version the recorded defaults do not show offered for `cluster.version`. */
export function addonPinWarnings(config: Pick<StackConfig, "cluster">): string[] {
  const { cluster } = config;
  if (cluster.existing !== undefined || cluster.kubeconfig !== undefined) return [];
  const defaults = Object.hasOwn(DEFAULT_ADDON_VERSIONS, cluster.version)
    ? DEFAULT_ADDON_VERSIONS[cluster.version]
    : undefined;
  return (Object.keys(ADDON_NAMES) as AddonKey[]).flatMap((key) => {
    const pinned = cluster.addons[key].version;
    const name = ADDON_NAMES[key];
    if (pinned === undefined || defaults?.[name] === pinned) return [];
    return [
      `cluster.addons.${key}.version pins ${pinned}: the offline plan cannot tell whether EKS offers it for Kubernetes ${cluster.version}; \`aws eks describe-addon-versions --addon-name ${name} --kubernetes-version ${cluster.version}\` lists what it does, and \`pulumi up\` fails at the add-on if it is not there`,
    ];
  });
}
