/**
 * The VPC endpoints' cross-checks, with every other problem before any resource: interface endpoints only
 * where their services' names are known (components/network/endpoints.ts), and an isolated stack
 * (`network.natGateways: none`) only when its nodes reach everything they need without the internet. The
 * EKS User Guide's private-cluster requirements: "Your cluster must pull images from a container
 * registry that's in your VPC", the endpoints of its table, and private endpoint access (which the
 * cluster always has: components/cluster/index.ts). Karpenter in an isolated VPC needs an instance
 * profile the stack makes instead of its role (IAM has no endpoint), ISOLATED_VPC, and its controller
 * image mirrored (Karpenter's "Private Clusters"): not made here yet, so refused.
 */
import { partitionOfRegion } from "../components/cluster/partitions";
import { ENDPOINT_PARTITIONS } from "../components/network";
import type { ConfigProblem } from "./problems";
import type { StackConfig } from "./schema";

/** An ECR registry (FIPS too) of `region`, which the ECR endpoints serve, with any repository path. */
export function inRegionEcr(registry: string, region: string): boolean {
  return new RegExp(`^\\d{12}\\.dkr\\.ecr(-fips)?\\.${region}\\.amazonaws\\.com(/|$)`).test(registry);
}

/** The registry keys the stack's nodes pull from, by key path: the install's, the probe's when it runs. */
function registries(config: StackConfig): [string, string][] {
  const { calico } = config;
  const install: [string, string][] =
    calico.installer === "operator"
      ? [["calico.operatorRegistry", calico.operatorRegistry]]
      : [
          ["calico.autoscalerRegistry", calico.autoscalerRegistry],
          ["calico.startupTaintRegistry", calico.startupTaintRegistry],
        ];
  return [
    ["calico.registry", calico.registry],
    ...install,
    ...(calico.probe.enabled
      ? ([["calico.probe.registry", calico.probe.registry]] as [string, string][])
      : []),
  ];
}

export function privateNetworkProblems(config: StackConfig, region: string): ConfigProblem[] {
  if (config.cluster.existing !== undefined || config.cluster.kubeconfig !== undefined) return [];
  const { endpoints, natGateways } = config.network;
  const partition = partitionOfRegion(region);
  const problems: ConfigProblem[] = [];
  if (endpoints.interface && partition !== undefined && !ENDPOINT_PARTITIONS.includes(partition)) {
    problems.push({
      path: "network.endpoints.interface",
      value: true,
      rule: `is made in the ${ENDPOINT_PARTITIONS.join(" and ")} partitions only: ${region} is in ${partition}, where some endpoint services are named otherwise`,
      hint: "leave it false and keep a NAT gateway, or make the endpoints outside this stack",
    });
  }
  if (natGateways !== "none") return problems;
  const needs = (path: string, value: unknown, rule: string, hint?: string) =>
    problems.push({ path, value, rule, ...(hint === undefined ? {} : { hint }) });
  const why = "with network.natGateways none the nodes reach AWS through the endpoints alone";
  if (!endpoints.s3)
    needs("network.endpoints.s3", false, `must be true: ${why}, and ECR serves image layers from S3`);
  if (!endpoints.interface) needs("network.endpoints.interface", false, `must be true: ${why}`);
  if (config.karpenter.enabled) {
    needs(
      "karpenter.enabled",
      true,
      "is not yet made for network.natGateways none: Karpenter in an isolated VPC needs an instance profile instead of its node role (IAM has no VPC endpoint) and its controller image mirrored",
      "keep a NAT gateway (single) with network.endpoints.interface: true, which adds Karpenter's SQS, SSM and EKS Auth endpoints",
    );
  }
  for (const [path, registry] of registries(config)) {
    if (inRegionEcr(registry, region)) continue;
    needs(
      path,
      registry,
      `must be an ECR registry in ${region} (<account>.dkr.ecr.${region}.amazonaws.com/...): ${why}, and reach no other registry`,
      "copy the images into ECR in the stack's region (docs/private-networking.md) and point the key there",
    );
  }
  return problems;
}

/** What an isolated stack's plan says: what a pod that needs the internet gets. */
export function privateNetworkNotices(config: StackConfig): string[] {
  if (config.network.natGateways !== "none" || config.cluster.existing !== undefined) return [];
  return [
    "network.natGateways is none: the private subnets have no route out of the VPC. A node or pod reaches AWS only through network.endpoints; a connection to any other address outside the VPC (a public registry, an API on the internet) gets no answer and times out, and a name of an AWS service without an endpoint resolves to a public address it cannot reach (docs/private-networking.md)",
  ];
}
