/**
 * Existing clusters on which Calico policy-only cannot hold NetworkPolicy, refused from what AWS shows
 * before any resource exists. Each refusal names the setting, the value found and the fix.
 * - EKS Auto Mode (`computeConfig.enabled`): "Amazon EKS Auto Mode doesn't support alternate CNI plugins
 *   or network policy plugins" (EKS User Guide, alternate-cni-plugins.html, "Considerations for Amazon EKS
 *   Auto Mode").
 * - Security groups for pods in strict mode: `ENABLE_POD_ENI` "true" with
 *   `POD_SECURITY_GROUP_ENFORCING_MODE` unset (strict is its default, amazon-vpc-cni-k8s README) or
 *   "strict". Such a pod's host interface is `vlan…` (amazon-vpc-cni-k8s pkg/sgpp), which Felix's `eni`
 *   interface prefix does not match, so its traffic is held to security groups only. Network policy
 *   beside security groups for pods needs standard mode (EKS Best Practices Guide, networking/sgpp,
 *   "Enforcing mode").
 * - A veth prefix other than `eni` (`AWS_VPC_K8S_CNI_VETHPREFIX`): calico-node's `FELIX_INTERFACEPREFIX`
 *   is `eni` (components/calico/defaults.ts), so Felix would find no pod's interface.
 * - kube-proxy in nftables mode (the kube-proxy add-on's `mode: nftables`) beside a Felix that programs
 *   iptables: Calico v3.31's `nftablesMode` defaults to Disabled (projectcalico/calico v3.31.7
 *   api/pkg/apis/projectcalico/v3/felixconfig.go; v3.32 defaults to Auto, which follows kube-proxy), and the
 *   operator sets Disabled for its default Iptables data plane on every line (tigera/operator v1.40.15 and
 *   v1.42.3 pkg/controller/installation/core_controller.go setNftablesMode). Calico's nftables page: its
 *   nftables mode needs kube-proxy's; kube-proxy's nftables mode beside iptables-mode Calico breaks it
 *   (kubernetes-sigs/kubespray#12198, projectcalico/calico#8025).
 * Read from the add-ons' configuration values; a self-managed VPC CNI is the owner's to state
 * (`cluster.existing.vpcCniConfigured`), and a self-managed kube-proxy's mode is not read.
 */
import type { ConfigProblem } from "./problems";
import { configuredSetting } from "../components/existing-cluster/vpc-cni";
import { FELIX_INTERFACE_PREFIX as VETH_PREFIX, calicoMinorOf } from "../components/calico/defaults";

/** What `aws.eks.getCluster` answers for Auto Mode: its `computeConfigs`, one entry where it was set. */
export interface ComputeConfig {
  readonly enabled: boolean;
}

/** The Calico this stack installs: which install, and which release. */
export interface CalicoInstall {
  readonly installer: "manifest" | "operator";
  readonly version: string;
}

/** Where the Felix this stack installs keeps iptables beside kube-proxy's nftables, and why; else undefined. */
function iptablesFelix(calico: CalicoInstall): string | undefined {
  if (calico.installer === "operator") {
    return "the Tigera operator sets FelixConfiguration nftablesMode: Disabled for its default Iptables data plane";
  }
  return calicoMinorOf(calico.version) === "3.31"
    ? `Felix ${calico.version} defaults nftablesMode to Disabled (Auto, which follows kube-proxy, comes with v3.32)`
    : undefined;
}

export function existingClusterBlockers(
  name: string,
  computeConfigs: readonly ComputeConfig[] | undefined,
  vpcCniConfiguration: string | undefined,
  /** The kube-proxy add-on's configuration values (undefined: self-managed), and the Calico to install. */
  kubeProxy: { configurationValues: string | undefined; calico: CalicoInstall },
): ConfigProblem[] {
  const problem = (rule: string, hint: string): ConfigProblem => ({
    path: "cluster.existing.name",
    value: name,
    rule,
    hint,
  });
  const problems: ConfigProblem[] = [];
  if ((computeConfigs ?? []).some((config) => config.enabled)) {
    problems.push(
      problem(
        "names a cluster in EKS Auto Mode (computeConfig.enabled: true), which supports no network policy plugin: Calico could not enforce there (EKS User Guide, alternate-cni-plugins.html)",
        "use Auto Mode's own network policy, or install Calico on a cluster without Auto Mode",
      ),
    );
  }
  const proxyMode =
    kubeProxy.configurationValues === undefined
      ? undefined
      : configuredSetting(kubeProxy.configurationValues, "mode");
  const felix = iptablesFelix(kubeProxy.calico);
  if (proxyMode === "nftables" && felix !== undefined) {
    problems.push(
      problem(
        `names a cluster whose kube-proxy add-on runs in nftables mode (mode: "nftables"), and ${felix}: Felix's iptables rules do not hold beside kube-proxy's nftables (projectcalico/calico#8025)`,
        kubeProxy.calico.installer === "operator"
          ? 'set mode: "iptables" in the kube-proxy add-on\'s configuration values before installing Calico'
          : "use a v3.32 release (calico.version), whose Felix follows kube-proxy's mode, or set mode: \"iptables\" in the kube-proxy add-on's configuration values",
      ),
    );
  }
  if (vpcCniConfiguration === undefined) return problems;
  const setting = (key: string) => configuredSetting(vpcCniConfiguration, `env.${key}`);
  const mode = setting("POD_SECURITY_GROUP_ENFORCING_MODE");
  if (setting("ENABLE_POD_ENI") === "true" && mode !== "standard") {
    problems.push(
      problem(
        `names a cluster whose vpc-cni add-on runs security groups for pods (env.ENABLE_POD_ENI: "true") in strict mode (env.POD_SECURITY_GROUP_ENFORCING_MODE: ${mode === undefined ? "unset, strict by default" : JSON.stringify(mode)}): those pods' interfaces are vlan…, not ${VETH_PREFIX}…, and Felix does not police them`,
        'set env.POD_SECURITY_GROUP_ENFORCING_MODE: "standard" in the add-on\'s configuration values (EKS Best Practices Guide, security groups for pods, "Enforcing mode"); new pods with security groups then get interfaces Felix polices',
      ),
    );
  }
  const prefix = setting("AWS_VPC_K8S_CNI_VETHPREFIX");
  if (prefix !== undefined && prefix !== VETH_PREFIX) {
    problems.push(
      problem(
        `names a cluster whose vpc-cni add-on names pod interfaces ${JSON.stringify(prefix)}… (env.AWS_VPC_K8S_CNI_VETHPREFIX): calico-node's FELIX_INTERFACEPREFIX is ${VETH_PREFIX}, so Felix would find no pod's interface`,
        `remove env.AWS_VPC_K8S_CNI_VETHPREFIX from the add-on's configuration values, or set it to "${VETH_PREFIX}", its default; pods started after that get ${VETH_PREFIX}… interfaces`,
      ),
    );
  }
  return problems;
}
