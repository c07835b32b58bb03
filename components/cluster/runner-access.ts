/**
 * Ingress for self-hosted CI runners (`deploy.runnerCidrs`, `deploy.runnerSecurityGroupIds`): HTTPS on 443
 * from each, so `pulumi up` run there reaches the private API endpoint, which any other network reaches only
 * with "rules to allow ingress traffic on port 443"
 * (https://docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html). From outside the VPC that
 * endpoint is reached only with the public one off (stacks/deploy-path.ts says why).
 *
 * The rules go on the control plane's own group, never on the cluster security group EKS creates: EKS
 * attaches that one to the control plane's network interfaces and to the "network interfaces of the nodes in
 * any managed node group", so a rule there opens 443 on every node and pod. The security groups given at
 * creation (`vpcConfig.securityGroupIds`) EKS "associates ... to the network interfaces that it creates for
 * your cluster. However, it doesn't associate them to any node groups"
 * (https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html, "Default cluster security group").
 * @pulumi/eks creates exactly one such group, `<name>-eksClusterSecurityGroup`, and passes it as
 * `vpcConfig.securityGroupIds` (pulumi-eks v4.3.0 nodejs/eks/cluster/cluster.ts: `eksClusterSecurityGroup`,
 * unless `skipDefaultSecurityGroups` or `clusterSecurityGroup` is set, which this program never does); its
 * `clusterSecurityGroupId` output is that group's id.
 */
import * as aws from "@pulumi/aws";
import type * as pulumi from "@pulumi/pulumi";

/** Where the runners connect from. */
export interface RunnerSources {
  /** IPv4 ranges (network addresses). */
  readonly cidrs: readonly string[];
  /** Security groups of the runners, in the cluster's VPC or a peered one (`<account-id>/sg-...`). */
  readonly securityGroupIds: readonly string[];
}

/** The Kubernetes API server's port on the EKS endpoint. */
export const API_PORT = 443;

/** One rule per source, named after it: adding or removing one source leaves the others' rules alone. */
export function runnerRuleName(componentName: string, source: string): string {
  return `${componentName}-runners-${source.replace(/[^A-Za-z0-9-]/g, "-")}`;
}

/** The ingress rules for `sources` on the control plane's security group `shared.securityGroupId`. */
export function admitRunners(
  componentName: string,
  sources: RunnerSources,
  shared: {
    securityGroupId: pulumi.Input<string>;
    tags: Record<string, string>;
    parent: pulumi.Resource;
  },
): aws.vpc.SecurityGroupIngressRule[] {
  const rule = (source: string, from: { cidrIpv4: string } | { referencedSecurityGroupId: string }) =>
    new aws.vpc.SecurityGroupIngressRule(
      runnerRuleName(componentName, source),
      {
        securityGroupId: shared.securityGroupId,
        description: "CI runners (deploy) to the Kubernetes API",
        ipProtocol: "tcp",
        fromPort: API_PORT,
        toPort: API_PORT,
        ...from,
        tags: shared.tags,
      },
      { parent: shared.parent },
    );
  return [
    ...sources.cidrs.map((cidr) => rule(cidr, { cidrIpv4: cidr })),
    ...sources.securityGroupIds.map((id) => rule(id, { referencedSecurityGroupId: id })),
  ];
}
