/**
 * What an existing-cluster stack (`cluster.existing`) reads from AWS before any resource exists: the
 * cluster (endpoint, CA, version), how its VPC CNI is installed, and which settings this stack owns in
 * the add-on were changed outside it since its last update. A cluster AWS cannot show, and a
 * self-managed VPC CNI not yet stated configured, are refused as configuration problems.
 */
import * as aws from "@pulumi/aws";
import { ConfigError, type ConfigProblem } from "./problems";
import { type ExistingClusterConfig, SELF_MANAGED_STEPS } from "./schema";
import type { ExistingClusterFacts } from "../components/existing-cluster/facts";
import { type ExistingVpcCni, networkPolicyAgentOn } from "../components/existing-cluster/vpc-cni";
import { HAND_OVER_STEPS } from "../components/existing-cluster/agent-hand-over";
import { type SettingChangedElsewhere, changedElsewhere } from "../components/existing-cluster/vpc-cni-owner";
import { previousVpcCniSettings } from "./previous-vpc-cni";
import { type CalicoInstall, existingClusterBlockers } from "./existing-blockers";

export type { ExistingClusterFacts } from "../components/existing-cluster/facts";

/**
 * `aws.eks.getAddon` fails for an add-on the cluster does not have with the Terraform provider's
 * not-found error ("couldn't find resource"), or EKS's ResourceNotFoundException; anything else (access
 * denied, throttling) is not an answer and must not be read as "self-managed". aws.eks.getCluster fails
 * the same way for a cluster AWS does not have (stacks/creator.ts).
 */
export const NOT_FOUND = /couldn't find resource|ResourceNotFoundException/;

async function readVpcCni(name: string): Promise<ExistingVpcCni> {
  try {
    const addon = await aws.eks.getAddon({ clusterName: name, addonName: "vpc-cni" });
    return {
      managed: true,
      addonVersion: addon.addonVersion,
      configurationValues: addon.configurationValues ?? "",
      serviceAccountRoleArn: addon.serviceAccountRoleArn ?? "",
      podIdentityAssociations: (addon.podIdentityAssociations ?? []).map((a) => ({
        roleArn: a.roleArn,
        serviceAccount: a.serviceAccount,
      })),
      tags: addon.tags ?? {},
    };
  } catch (error) {
    if (NOT_FOUND.test((error as Error).message)) return { managed: false };
    throw error;
  }
}

/** The kube-proxy add-on's configuration values, or undefined for a self-managed kube-proxy. */
async function readKubeProxyConfiguration(name: string): Promise<string | undefined> {
  try {
    const addon = await aws.eks.getAddon({ clusterName: name, addonName: "kube-proxy" });
    return addon.configurationValues ?? "";
  } catch (error) {
    if (NOT_FOUND.test((error as Error).message)) return undefined;
    throw error;
  }
}

const AGENT_KEY = "cluster.existing.networkPolicyAgent";

/**
 * `cluster.existing.networkPolicyAgent` against the add-on's agent: while it enforces policy the stack
 * needs to be told whether to keep it on beside Calico or turn it off (the hand-over steps); there is no
 * agent to keep on where it is off, and none this stack can reach in a self-managed VPC CNI.
 */
function networkPolicyAgentProblems(
  existing: ExistingClusterConfig,
  vpcCni: ExistingVpcCni | undefined,
  elsewhere: readonly SettingChangedElsewhere[],
): ConfigProblem[] {
  const wanted = existing.networkPolicyAgent;
  if (vpcCni === undefined) return [];
  if (!vpcCni.managed) {
    return wanted === undefined
      ? []
      : [
          {
            path: AGENT_KEY,
            value: wanted,
            rule: `applies to the vpc-cni EKS add-on only, and ${existing.name}'s VPC CNI is self-managed: the agent is yours to change, as cluster.existing.vpcCniConfigured says`,
          },
        ];
  }
  let agentOn: boolean;
  try {
    agentOn = networkPolicyAgentOn(vpcCni.configurationValues);
  } catch (error) {
    return [{ path: "cluster.existing.name", value: existing.name, rule: (error as Error).message }];
  }
  if (agentOn && wanted === undefined) {
    // The agent this stack turned off, turned on again by another tool: that tool is the first thing to fix.
    const turnedOn = elsewhere.filter((c) => c.key === "enableNetworkPolicy");
    return [
      {
        path: AGENT_KEY,
        value: wanted,
        rule: `is unset, and ${existing.name}'s vpc-cni add-on runs its network-policy agent (enableNetworkPolicy: "true")${turnedOn.length === 0 ? "" : ", which this stack's last update had turned off: it was turned on outside this stack since"}: Calico takes over only once it enforces, and AWS requires every network policy deleted before the agent is turned off (https://docs.aws.amazon.com/eks/latest/userguide/network-policy-disable.html)`,
        hint:
          turnedOn.length === 0
            ? "hand over in order, with a policy enforced at every step:"
            : "first remove enableNetworkPolicy from the other tool's add-on configuration (eksctl addons[].configurationValues, Terraform aws_eks_addon configuration_values), so this stack alone sets it; then hand over in order, with a policy enforced at every step:",
        steps: [...HAND_OVER_STEPS],
      },
    ];
  }
  if (!agentOn && wanted === "on") {
    return [
      {
        path: AGENT_KEY,
        value: wanted,
        rule: `keeps a running agent on during a hand-over, and ${existing.name}'s vpc-cni add-on runs none (enableNetworkPolicy is not "true"): this stack never turns it on; set "off" or remove the key`,
      },
    ];
  }
  return [];
}

/**
 * Reads the cluster `cluster.existing` names in `region`; every problem at once, as a ConfigError.
 * `previousVpcCni` is the stack's last `vpcCni` output (stacks/previous-outputs.ts), for what it set in the add-on.
 */
export async function readExistingCluster(
  stack: string,
  region: string,
  existing: ExistingClusterConfig,
  calico: CalicoInstall,
  previousVpcCni?: unknown,
): Promise<ExistingClusterFacts> {
  const problems: ConfigProblem[] = [];
  let cluster: aws.eks.GetClusterResult | undefined;
  try {
    cluster = await aws.eks.getCluster({ name: existing.name });
  } catch (error) {
    problems.push({
      path: "cluster.existing.name",
      value: existing.name,
      rule: `names no EKS cluster AWS can show in ${region}: ${(error as Error).message}`,
    });
  }
  if (cluster !== undefined && cluster.status !== "ACTIVE") {
    problems.push({
      path: "cluster.existing.name",
      value: existing.name,
      rule: `names a cluster in status ${cluster.status}: Calico installs only on an ACTIVE cluster`,
    });
  }
  const family = cluster?.kubernetesNetworkConfigs[0]?.ipFamily;
  if (family !== undefined && family !== "ipv4") {
    problems.push({
      path: "cluster.existing.name",
      value: existing.name,
      rule: `names a cluster whose ipFamily is ${family}: calico-node as this stack installs it enforces IPv4 only, so NetworkPolicy would not hold for the pods' IPv6 traffic`,
      hint: "FELIX_IPV6SUPPORT is false in the manifest (components/calico/daemonset.ts), and the Tigera operator sets it false for an Installation without nodeAddressAutodetectionV6 (tigera/operator pkg/render/node.go); install Calico on this cluster another way",
    });
  }
  const vpcCni = cluster === undefined ? undefined : await readVpcCni(existing.name);
  if (vpcCni?.managed === false && !existing.vpcCniConfigured) {
    problems.push({
      path: "cluster.existing.vpcCniConfigured",
      value: existing.vpcCniConfigured,
      rule: `is false, and ${existing.name}'s VPC CNI is self-managed (no EKS add-on vpc-cni), which this stack cannot configure`,
      hint: `before Calico, ${SELF_MANAGED_STEPS}; then set cluster.existing.vpcCniConfigured: true`,
    });
  }
  if (cluster !== undefined) {
    const configuration = vpcCni?.managed ? vpcCni.configurationValues : undefined;
    const kubeProxy = { configurationValues: await readKubeProxyConfiguration(existing.name), calico };
    problems.push(
      ...existingClusterBlockers(existing.name, cluster.computeConfigs, configuration, kubeProxy),
    );
  }
  const elsewhere = vpcCni?.managed ? changedElsewhereOrNone(previousVpcCni, vpcCni.configurationValues) : [];
  problems.push(...networkPolicyAgentProblems(existing, vpcCni, elsewhere));
  if (cluster === undefined || vpcCni === undefined || problems.length > 0) {
    throw new ConfigError(stack, problems);
  }
  return {
    name: existing.name,
    arn: cluster.arn,
    endpoint: cluster.endpoint,
    certificateAuthority: cluster.certificateAuthorities[0]?.data ?? "",
    version: cluster.version,
    vpcCni,
    vpcCniChangedElsewhere: elsewhere,
  };
}

/** changedElsewhere, or none for configuration values that are not a map (refused on their own). */
function changedElsewhereOrNone(previousVpcCni: unknown, configurationValues: string) {
  try {
    return changedElsewhere(previousVpcCniSettings(previousVpcCni), configurationValues);
  } catch {
    return [];
  }
}
