/**
 * Ingress to the cluster security group for self-hosted CI runners (`deploy.runnerCidrs`,
 * `deploy.runnerSecurityGroupIds`): HTTPS on 443 from each, so `pulumi up` run there reaches the private API
 * endpoint. EKS creates that group with one inbound rule, all traffic from the group itself, and attaches it
 * to the control plane's network interfaces
 * (https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html); any other network that uses the
 * private endpoint needs "rules to allow ingress traffic on port 443"
 * (https://docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html). From outside the VPC that
 * endpoint is reached only with the public one off (stacks/deploy-path.ts says why).
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

/** The ingress rules for `sources` on the cluster security group. */
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
