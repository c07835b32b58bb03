/**
 * The AMI release each node group is given on this update (stacks/schema/ami-release.ts has the rules).
 * A pin goes to EKS as it is. `latest` is read now from the AMI's public SSM parameter: AWS moves it
 * whenever it publishes a release, and the node group's `releaseVersion` moves with it, which rolls every
 * node of the group. So that never happens unannounced, every plan and `up` with `latest` prints the
 * release it read and what a new one does; the diff then shows whether it differs from the deployed one.
 * Unset, nothing is sent: the provider keeps whatever release EKS runs (`release_version` is Optional and
 * Computed, hashicorp/terraform-provider-aws internal/service/eks/node_group.go).
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import type { ConfigProblem } from "./problems";
import type { NodeGroupConfig, StackConfig } from "./schema";
import { LATEST_RELEASE, latestReleaseParameter } from "./schema/ami-release";

/**
 * The node groups with `latest` replaced by the release AWS publishes now, printing a notice for each, and
 * the problems of those whose parameter AWS did not show.
 */
export async function resolveAmiReleases(
  config: Pick<StackConfig, "nodeGroups" | "cluster">,
): Promise<{ groups: NodeGroupConfig[]; notices: string[]; problems: ConfigProblem[] }> {
  const kubernetesVersion = config.cluster.version;
  const notices: string[] = [];
  const problems: ConfigProblem[] = [];
  const resolved = await Promise.all(
    (config.nodeGroups ?? []).map(async (group, index): Promise<NodeGroupConfig> => {
      if (group.amiReleaseVersion !== LATEST_RELEASE) return group;
      const key = `nodeGroups[${index}].amiReleaseVersion`;
      // The schema refused the AMI types without a parameter already.
      const parameter = latestReleaseParameter(group.amiType, kubernetesVersion);
      if (!("name" in parameter)) return group;
      try {
        const answer = await aws.ssm.getParameter({ name: parameter.name, withDecryption: false });
        const release = answer.insecureValue;
        notices.push(
          `${key}: latest is ${release} for ${group.amiType} on Kubernetes ${kubernetesVersion} (SSM ${parameter.name}); when it differs from the release node group ${group.name} runs, this update rolls every node of the group onto it, and a release AWS publishes later rolls them on the next update (docs/upgrades.md#node-ami-releases)`,
        );
        return { ...group, amiReleaseVersion: release };
      } catch (error) {
        problems.push({
          path: key,
          value: LATEST_RELEASE,
          rule: `needs the newest release from the public SSM parameter ${parameter.name}, which AWS did not show (${(error as Error).message})`,
          hint: "allow ssm:GetParameter on AWS's public parameters, parameter/aws/service/* (docs/iam/), or pin a release",
        });
        return group;
      }
    }),
  );
  notices.forEach((notice) => void pulumi.log.warn(notice));
  return { groups: resolved, notices, problems };
}
