/**
 * The AWS limits the config schema refuses by: one row per limit, with where AWS states it and the day it
 * was read. A limit AWS raises is changed here and nowhere else; the schema, its messages, the docs'
 * tests and the limits' own test (test/aws-limits.test.ts) read these rows.
 *
 * `read` is the day the value was last checked against `source`.
 */

/** One platform limit as AWS states it. */
export interface PlatformLimit {
  /** The limit: a maximum unless the name says otherwise. */
  readonly value: number;
  /** What is limited, as AWS names it (a quota's console name where it is a quota). */
  readonly name: string;
  /** Where AWS states it: a URL, or a document and the place in it. */
  readonly source: string;
  /** The day the value was read in `source` (YYYY-MM-DD). */
  readonly read: string;
  /** An adjustable quota (raised in Service Quotas) rather than a fixed limit. */
  readonly adjustable: boolean;
}

const VPC_QUOTAS =
  "https://docs.aws.amazon.com/vpc/latest/userguide/amazon-vpc-limits.html#vpc-limits-security-groups";
/** Its table as read is test/fixtures/eks-service-quotas.json, which the limits' test holds these rows to. */
const EKS_QUOTAS =
  "Amazon EKS User Guide, service quotas (https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html), in its docs.amazonaws.cn edition";
const TAG_RESTRICTIONS =
  "AWS's tag restrictions as AWS::EKS::AccessEntry Tag (CloudFormation User Guide) and AWS Batch (Tag restrictions) state them: 50 tags per resource, keys of 128 and values of 256 Unicode characters";

/** The quotas AWS General Reference lists for Amazon VPC and Amazon EC2, with their Service Quotas codes. */
const REGION_QUOTAS =
  "AWS General Reference, Amazon Virtual Private Cloud endpoints and quotas (https://docs.aws.amazon.com/general/latest/gr/vpc-service.html) and Amazon EC2 endpoints and quotas";

export const AWS_LIMITS = {
  /** One per NAT gateway this program makes (components/network); Service Quotas ec2 L-0263D0A3. */
  elasticIpsPerRegion: {
    value: 5,
    name: "EC2-VPC Elastic IPs (Elastic IP addresses per Region)",
    source: `${REGION_QUOTAS}: default 5 per Region, adjustable; Service Quotas code L-0263D0A3`,
    read: "2026-12-03",
    adjustable: true,
  },
  /** One per full stack, beside the Region's default VPC; Service Quotas vpc L-F678F1CE. */
  vpcsPerRegion: {
    value: 5,
    name: "VPCs per Region",
    source: `${REGION_QUOTAS}: default 5 per Region, adjustable; Service Quotas code L-F678F1CE`,
    read: "2026-12-03",
    adjustable: true,
  },
  /** The default of the account's quota; deploy.securityGroupRuleQuota says where AWS raised it. */
  inboundRulesPerSecurityGroup: {
    value: 60,
    name: "Inbound rules per security group",
    source: `Amazon VPC User Guide, Amazon VPC quotas, Security groups (${VPC_QUOTAS}): default 60, adjustable, as repost.aws "Optimizing Security Groups in AWS" restates it`,
    read: "2026-11-28",
    adjustable: true,
  },
  /**
   * No raise of the rules quota goes past it: "This quota multiplied by the quota for security groups per
   * network interface cannot exceed 1,000", and an interface has at least one group.
   */
  rulesPerSecurityGroupTimesGroupsPerInterface: {
    value: 1000,
    name: "Inbound or outbound rules per security group x Security groups per network interface",
    source: `Amazon VPC User Guide, Amazon VPC quotas, Security groups (${VPC_QUOTAS}), the sentence as kubernetesinmyhead.net "Security Group Rules Limits" and repost.aws quote it; EC2 ValidateSecurityGroupQuotasForInterface checks the two quotas together (EC2 API Reference)`,
    read: "2026-11-28",
    adjustable: false,
  },
  /** The largest gp3 volume, the node groups' data volume type. */
  gp3VolumeSizeGiB: {
    value: 65536,
    name: "gp3 volume size (GiB)",
    source:
      "Amazon EC2 API Reference, CreateVolume, Size: gp3: 1 - 65,536 GiB (also ModifyVolume, Size; AWS SDK for Kotlin CreateVolumeRequest.size)",
    read: "2026-11-28",
    adjustable: false,
  },
  nodeGroupsPerCluster: {
    value: 30,
    name: "Managed node groups per cluster",
    source: EKS_QUOTAS,
    read: "2026-11-28",
    adjustable: true,
  },
  nodesPerNodeGroup: {
    value: 450,
    name: "Nodes per managed node group",
    source: EKS_QUOTAS,
    read: "2026-11-28",
    adjustable: true,
  },
  publicAccessCidrsPerCluster: {
    value: 40,
    name: "Public endpoint access CIDR ranges per cluster",
    source: EKS_QUOTAS,
    read: "2026-11-28",
    adjustable: false,
  },
  /** With a launch template, as this program's node groups have. */
  instanceTypesPerNodeGroup: {
    value: 20,
    name: "instanceTypes of a node group with a launch template",
    source:
      'EKS API, CreateNodegroup instanceTypes: "you can specify 0-20 instance types" (botocore 1.43.67 data/eks/2017-11-01/service-2.json)',
    read: "2026-11-26",
    adjustable: false,
  },
  tagsPerResource: {
    value: 50,
    name: "Tags per resource",
    source: TAG_RESTRICTIONS,
    read: "2026-11-28",
    adjustable: false,
  },
  tagKeyLength: {
    value: 128,
    name: "Tag key length (Unicode characters)",
    source: TAG_RESTRICTIONS,
    read: "2026-11-28",
    adjustable: false,
  },
  tagValueLength: {
    value: 256,
    name: "Tag value length (Unicode characters)",
    source: TAG_RESTRICTIONS,
    read: "2026-11-28",
    adjustable: false,
  },
  labelKeyLength: {
    value: 63,
    name: "Node group label or taint key length, prefix included",
    source: "EKS API shapes labelKey, taintKey (botocore data/eks/2017-11-01/service-2.json, August 2026)",
    read: "2026-11-24",
    adjustable: false,
  },
  labelValueLength: {
    value: 63,
    name: "Node group label or taint value length",
    source:
      "EKS API shapes labelValue, taintValue (botocore data/eks/2017-11-01/service-2.json, August 2026)",
    read: "2026-11-24",
    adjustable: false,
  },
  taintsPerNodeGroup: {
    value: 50,
    name: "Taints per managed node group",
    source:
      'Amazon EKS User Guide, "Node taints on managed node groups"; terraform-provider-aws internal/service/eks/node_group.go taint MaxItems 50',
    read: "2026-11-24",
    adjustable: false,
  },
} as const satisfies Record<string, PlatformLimit>;

export type AwsLimitName = keyof typeof AWS_LIMITS;
