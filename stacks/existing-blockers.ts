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
 * Read from the vpc-cni add-on's configuration values; a self-managed VPC CNI is the owner's to state
 * (`cluster.existing.vpcCniConfigured`).
 */
import type { ConfigProblem } from "./problems";
import { configuredSetting } from "../components/existing-cluster/vpc-cni";
import { FELIX_INTERFACE_PREFIX as VETH_PREFIX } from "../components/calico/defaults";

/** What `aws.eks.getCluster` answers for Auto Mode: its `computeConfigs`, one entry where it was set. */
export interface ComputeConfig {
  readonly enabled: boolean;
}

export function existingClusterBlockers(
  name: string,
  computeConfigs: readonly ComputeConfig[] | undefined,
  vpcCniConfiguration: string | undefined,
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
