/**
 * AWS partitions and the regions each holds, as the AWS SDKs decide it: botocore 1.43.67
 * `botocore/data/partitions.json`, each partition's `regionRegex` (the regexes do not overlap). Every ARN
 * this program writes starts `arn:<partition>:`; managed policies and EKS access policies live in each
 * partition under the same names (pulumi-eks 4.3.0 builds them the same way, from `aws.getPartition`).
 */
export const PARTITION_REGIONS = {
  aws: /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/,
  "aws-cn": /^cn-\w+-\d+$/,
  "aws-eusc": /^eusc-(de)-\w+-\d+$/,
  "aws-iso": /^us-iso-\w+-\d+$/,
  "aws-iso-b": /^us-isob-\w+-\d+$/,
  "aws-iso-e": /^eu-isoe-\w+-\d+$/,
  "aws-iso-f": /^us-isof-\w+-\d+$/,
  "aws-us-gov": /^us-gov-\w+-\d+$/,
} as const;

export type Partition = keyof typeof PARTITION_REGIONS;

export const PARTITIONS = Object.keys(PARTITION_REGIONS) as Partition[];

/** The partition whose regions `region` is one of, or undefined for a name no partition has. */
export function partitionOfRegion(region: string): Partition | undefined {
  return PARTITIONS.find((partition) => PARTITION_REGIONS[partition].test(region));
}

/** The ARN of an AWS managed IAM policy in `partition`. */
export function managedPolicyArn(partition: Partition, name: string): string {
  return `arn:${partition}:iam::aws:policy/${name}`;
}
