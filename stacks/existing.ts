/**
 * What an existing-cluster stack (`cluster.existing`) reads from AWS before any resource exists: the
 * cluster (endpoint, CA, version) and how its VPC CNI is installed. A cluster AWS cannot show, and a
 * self-managed VPC CNI not yet stated configured, are refused as configuration problems.
 */
import * as aws from "@pulumi/aws";
import { ConfigError, type ConfigProblem } from "./problems";
import { type ExistingClusterConfig, SELF_MANAGED_STEPS } from "./schema";
import type { ExistingClusterFacts } from "../components/existing-cluster/facts";
import type { ExistingVpcCni } from "../components/existing-cluster/vpc-cni";

export type { ExistingClusterFacts } from "../components/existing-cluster/facts";

/**
 * `aws.eks.getAddon` fails for an add-on the cluster does not have with the Terraform provider's
 * not-found error ("couldn't find resource"), or EKS's ResourceNotFoundException; anything else (access
 * denied, throttling) is not an answer and must not be read as "self-managed".
 */
const NOT_FOUND = /couldn't find resource|ResourceNotFoundException/;

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

/** Reads the cluster `cluster.existing` names in `region`; every problem at once, as a ConfigError. */
export async function readExistingCluster(
  stack: string,
  region: string,
  existing: ExistingClusterConfig,
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
  const vpcCni = cluster === undefined ? undefined : await readVpcCni(existing.name);
  if (vpcCni?.managed === false && !existing.vpcCniConfigured) {
    problems.push({
      path: "cluster.existing.vpcCniConfigured",
      value: existing.vpcCniConfigured,
      rule: `is false, and ${existing.name}'s VPC CNI is self-managed (no EKS add-on vpc-cni), which this stack cannot configure`,
      hint: `before Calico, ${SELF_MANAGED_STEPS}; then set cluster.existing.vpcCniConfigured: true`,
    });
  }
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
  };
}
