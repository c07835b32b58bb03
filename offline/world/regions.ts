/**
 * AWS Regions, as data, for the offline simulation.
 *
 * Currency: the Region list matches botocore 1.43.67 (`botocore/data/endpoints.json` and
 * `botocore/data/partitions.json`, commit of 2026-08-07) and the Region enum of the AWS Security
 * Incident Response API reference (`ImpactedAwsRegion`). The newest commercial Regions in that data are
 * ap-east-2 (Taipei) and ap-southeast-6 (New Zealand), both added to the SDK partitions file in 2025;
 * botocore's partitions file gained no new Region between then and 2026-08-07. A Region launched between
 * August and November 2026 would be missing here: none could be confirmed from a source.
 * Not included on purpose: the aws-iso* partitions and the AWS European Sovereign Cloud
 * (`eusc-de-east-1`, partition `aws-eusc`).
 *
 * optIn: AWS enables by default only the Regions launched before 2019-03-20; every later commercial
 * Region must be enabled first
 * (https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-regions.html).
 * China and GovCloud Regions live in their own partitions and need no opt-in there.
 *
 * AZ letters are the publicly documented set; real accounts may see a subset; the offline simulation uses
 * these. In the oldest Regions AWS maps AZ letters to physical AZs per account (accounts created from
 * November 2025 get one uniform mapping), so an old account may see other letters
 * (https://docs.aws.amazon.com/global-infrastructure/latest/regions/az-ids.html).
 * Local Zones and Wavelength Zones are excluded.
 * AZ sources: AWS AZ-ID tables (global-infrastructure guide, EFS One Zone AZ list), the zone tables in
 * getmoto/moto `moto/ec2/models/availability_zones_and_regions.py`, and describe-availability-zones
 * output quoted in public issues and gists.
 */
export interface RegionFacts {
  readonly partition: "aws" | "aws-cn" | "aws-us-gov";
  readonly optIn: boolean;
  /** AZ letter suffixes that need no opt-in (Local/Wavelength zones excluded), in order */
  readonly zones: readonly string[];
}

export const REGIONS: Readonly<Record<string, RegionFacts>> = {
  // ---- Commercial partition (aws): 34 Regions ----
  // Six AZs; some older accounts see only five.
  "us-east-1": { partition: "aws", optIn: false, zones: ["a", "b", "c", "d", "e", "f"] },
  "us-east-2": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  // Only two AZs per account; which two letters varies (a+c, a+b and b+c are all seen in the wild).
  "us-west-1": { partition: "aws", optIn: false, zones: ["a", "c"] },
  // Four AZs.
  "us-west-2": { partition: "aws", optIn: false, zones: ["a", "b", "c", "d"] },
  "af-south-1": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "ap-east-1": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "ap-east-2": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "ap-south-1": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  "ap-south-2": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-1": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  "ap-southeast-2": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  "ap-southeast-3": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-4": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-5": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-6": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-7": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  // Four AZ IDs, three open to an account; commonly a, c, d (moto: apne1-az4, -az1, -az2). No "b".
  "ap-northeast-1": { partition: "aws", optIn: false, zones: ["a", "c", "d"] },
  // Four AZs.
  "ap-northeast-2": { partition: "aws", optIn: false, zones: ["a", "b", "c", "d"] },
  "ap-northeast-3": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  // No "c": ca-central-1c is not offered to accounts; the third AZ is "d" (cac1-az4).
  "ca-central-1": { partition: "aws", optIn: false, zones: ["a", "b", "d"] },
  "ca-west-1": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "eu-central-1": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  "eu-central-2": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "eu-west-1": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  "eu-west-2": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  "eu-west-3": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  "eu-south-1": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "eu-south-2": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "eu-north-1": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },
  "il-central-1": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "me-south-1": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "me-central-1": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "mx-central-1": { partition: "aws", optIn: true, zones: ["a", "b", "c"] },
  "sa-east-1": { partition: "aws", optIn: false, zones: ["a", "b", "c"] },

  // ---- China partition (aws-cn) ----
  // No "c": the third Beijing AZ is "d".
  "cn-north-1": { partition: "aws-cn", optIn: false, zones: ["a", "b", "d"] },
  "cn-northwest-1": { partition: "aws-cn", optIn: false, zones: ["a", "b", "c"] },

  // ---- GovCloud partition (aws-us-gov) ----
  "us-gov-east-1": { partition: "aws-us-gov", optIn: false, zones: ["a", "b", "c"] },
  "us-gov-west-1": { partition: "aws-us-gov", optIn: false, zones: ["a", "b", "c"] },
};
