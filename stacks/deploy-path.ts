/**
 * Whether the stack's CI jobs can reach its Kubernetes API from where `deploy` runs them: `pulumi up`
 * installs Calico through that API, so a runner that cannot reach the endpoint fails every deploy. The
 * offline plan (`npm start`) and the pull-request comment show these warnings; nothing is refused, since a
 * person may deploy from a network that can reach it (a VPN, an office range).
 */
import { coversWholeInternet, rangeOf } from "../components/network/cidr-ranges";
import type { StackConfig } from "./schema";

/** What the checks read: the cluster's endpoint settings, the VPC's range and the deploy path. */
export type DeployPathConfig = Pick<StackConfig, "cluster" | "deploy" | "network">;

/** Whether IPv4 block `inner` lies wholly inside block `outer`. */
function within(inner: string, outer: string): boolean {
  const a = rangeOf(inner);
  const b = rangeOf(outer);
  return a !== undefined && b !== undefined && a.start >= b.start && a.end <= b.end;
}

/**
 * The runner sources that sit outside the cluster's VPC: `runnerCidrs` entries outside `network.cidr`, and
 * security groups named with their account (`<account-id>/sg-...`), which only a peered VPC's can be.
 */
export function runnersOutsideVpc(config: DeployPathConfig): string[] {
  const { deploy, network } = config;
  return [
    ...deploy.runnerCidrs.filter((cidr) => !within(cidr, network.cidr)),
    ...deploy.runnerSecurityGroupIds.filter((id) => id.includes("/")),
  ];
}

/**
 * The warnings for a stack whose deploy runner cannot reach the endpoint; none for a cluster made elsewhere
 * (its endpoint settings are not in this stack's config).
 *
 * - GitHub-hosted runners come from thousands of address ranges (about 4,000 CIDRs in GitHub's meta API,
 *   github/docs#30693), which GitHub does not recommend allowing by IP
 *   (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-githubs-ip-addresses)
 *   and EKS's 40 public access blocks cannot hold: they reach only a public endpoint open to every address.
 * - Self-hosted runners reach the private endpoint only if the cluster security group admits them on 443:
 *   by default it admits only itself (https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html).
 * - With the public endpoint on, the private hosted zone EKS creates is associated with the cluster's VPC
 *   only (https://docs.aws.amazon.com/eks/latest/userguide/cluster-endpoint.html#cluster-endpoint-private),
 *   so from a peered VPC or a VPN the endpoint's name resolves to its public addresses; EKS advertises the
 *   private ones through public DNS only when the public endpoint is off
 *   (https://repost.aws/knowledge-center/eks-private-cluster-endpoint-vpc). Runners outside the VPC then
 *   reach the public endpoint, from their egress addresses.
 */
export function deployPathWarnings(config: DeployPathConfig): string[] {
  const { cluster, deploy } = config;
  if (cluster.existing !== undefined || cluster.kubeconfig !== undefined) return [];
  const cidrs = cluster.publicAccessCidrs;
  if (deploy.runner === "github-hosted") {
    if (cidrs.length === 0) {
      return [
        "deploy.runner is github-hosted, but cluster.publicAccessCidrs is [] (no public endpoint): GitHub-hosted " +
          "runners cannot reach the private endpoint, so `pulumi up` in CI cannot install Calico. Set deploy.runner: " +
          'self-hosted with runners that reach the VPC (docs/pull-requests.md, "Runners").',
      ];
    }
    if (!coversWholeInternet(cidrs)) {
      return [
        `deploy.runner is github-hosted, but the public endpoint admits only ${cidrs.join(", ")}: GitHub-hosted ` +
          "runners come from thousands of address ranges that cluster.publicAccessCidrs cannot hold, so `pulumi up` " +
          "in CI cannot reach the Kubernetes API. Set deploy.runner: self-hosted with runners inside those ranges or " +
          'the VPC (docs/pull-requests.md, "Runners").',
      ];
    }
    return [];
  }
  const outside = runnersOutsideVpc(config);
  if (cidrs.length > 0 && !coversWholeInternet(cidrs) && outside.length > 0) {
    return [
      `deploy.runner is self-hosted and the public endpoint is on, but ${outside.join(", ")} ` +
        `${outside.length === 1 ? "lies" : "lie"} outside the VPC (network.cidr ${config.network.cidr}): EKS's ` +
        "private DNS zone answers only inside the VPC, so from there the endpoint's name resolves to its public " +
        "addresses, and the runners' egress addresses must be in " +
        "cluster.publicAccessCidrs. Run the runners in the VPC, or turn the public endpoint off " +
        "(cluster.publicAccessCidrs: [] with cluster.deploysFromInsideVpc: true), or resolve the name through a " +
        'Route 53 Resolver inbound endpoint in the VPC (docs/pull-requests.md, "Runners").',
    ];
  }
  if (cidrs.length === 0 && deploy.runnerCidrs.length === 0 && deploy.runnerSecurityGroupIds.length === 0) {
    return [
      "deploy.runner is self-hosted and the endpoint is private only, but neither deploy.runnerCidrs nor " +
        "deploy.runnerSecurityGroupIds admits the runners: the cluster security group admits only itself on 443 by " +
        'default (docs/pull-requests.md, "Runners").',
    ];
  }
  return [];
}
