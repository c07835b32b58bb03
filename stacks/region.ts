/**
 * `aws:region`'s checks, told with every other problem before anything is asked of AWS: it is set, it is
 * a region of an AWS partition, every access entry names a principal of that partition, and EKS Pod
 * Identity is asked for only where it exists: not in AWS China ("Pod Identity is not available in China
 * Regions. Use IAM roles for service accounts.", EKS User Guide for China, pod-identities.html).
 */
import { parsePrincipalArn, partitionOf } from "../components/cluster/access";
import { partitionOfRegion } from "../components/cluster/partitions";
import type { ConfigProblem } from "./problems";
import type { StackConfig } from "./schema";

/** `aws:region`: set, a region name, and (for a valid `config`) the partition of every access entry. */
export function regionProblems(region: string, config: StackConfig | undefined): ConfigProblem[] {
  if (region === "") {
    return [{ path: "aws:region", value: undefined, rule: "is required (the AWS region to deploy into)" }];
  }
  if (partitionOfRegion(region) === undefined) {
    return [
      {
        path: "aws:region",
        value: region,
        rule: "must be an AWS region name such as us-west-2, eu-central-1, us-gov-west-1 or cn-north-1 (a region of an AWS partition, as the AWS SDKs match them)",
      },
    ];
  }
  return config === undefined
    ? []
    : [...accessPartitionProblems(config, region), ...podIdentityPartitionProblems(config, region)];
}

/** The partitions without EKS Pod Identity. */
export const NO_POD_IDENTITY_PARTITIONS: readonly string[] = ["aws-cn"];

/** `cluster.podIdentity` and Karpenter (whose controller takes its role through it) where it exists. */
function podIdentityPartitionProblems(config: StackConfig, region: string): ConfigProblem[] {
  const partition = partitionOf(region);
  if (!NO_POD_IDENTITY_PARTITIONS.includes(partition)) return [];
  const rule = `needs EKS Pod Identity, which ${region} (${partition}) does not offer`;
  return [
    ...(config.cluster.podIdentity
      ? [{ path: "cluster.podIdentity", value: true, rule, hint: "leave it false: the VPC CNI keeps IRSA" }]
      : []),
    ...(config.karpenter.enabled
      ? [
          {
            path: "karpenter.enabled",
            value: true,
            rule: `${rule}: Karpenter's controller takes its role through it`,
            hint: "scale with the managed node groups in this partition",
          },
        ]
      : []),
  ];
}

/** Access entries must name principals of the cluster's own partition (aws, aws-cn, aws-us-gov, ...). */
function accessPartitionProblems(config: StackConfig, region: string): ConfigProblem[] {
  const partition = partitionOf(region);
  return config.cluster.access.flatMap((grant, index) => {
    const parsed = parsePrincipalArn(grant.principalArn);
    if ("problem" in parsed || parsed.partition === partition) return [];
    return [
      {
        path: `cluster.access[${index}].principalArn`,
        value: grant.principalArn,
        rule: `is in partition ${parsed.partition}, but ${region} is in ${partition}: use arn:${partition}:iam::...`,
      },
    ];
  });
}
