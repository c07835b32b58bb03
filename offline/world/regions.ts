/**
 * AWS Regions, as data. The list matches botocore 1.43.67 (`botocore/data/endpoints.json` and
 * `partitions.json`, 2026-08-07), whose newest commercial Regions are ap-east-2 and ap-southeast-6 (2025);
 * a Region launched since is missing. Left out: the aws-iso* partitions and the European Sovereign Cloud.
 * A Region's partition is the one components/cluster/partitions.ts matches its name to.
 * optIn: only Regions launched before 2019-03-20 are enabled by default
 * (https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-regions.html); China and GovCloud
 * need none. AZ letters are the publicly documented set without Local and Wavelength Zones (AWS AZ-ID
 * tables, getmoto/moto `moto/ec2/models/availability_zones_and_regions.py`, describe-availability-zones
 * output quoted in public issues); an account may see a subset, and old accounts other letters
 * (https://docs.aws.amazon.com/global-infrastructure/latest/regions/az-ids.html).
 */
export interface RegionFacts {
  readonly optIn: boolean;
  /** AZ letter suffixes that need no opt-in (Local/Wavelength zones excluded), in order */
  readonly zones: readonly string[];
}

export const REGIONS: Readonly<Record<string, RegionFacts>> = {
  // ---- Commercial partition (aws): 34 Regions ----
  // Six AZs; some older accounts see only five.
  "us-east-1": { optIn: false, zones: ["a", "b", "c", "d", "e", "f"] },
  "us-east-2": { optIn: false, zones: ["a", "b", "c"] },
  // Only two AZs per account; which two letters varies (a+c, a+b and b+c are all seen in the wild).
  "us-west-1": { optIn: false, zones: ["a", "c"] },
  // Four AZs.
  "us-west-2": { optIn: false, zones: ["a", "b", "c", "d"] },
  "af-south-1": { optIn: true, zones: ["a", "b", "c"] },
  "ap-east-1": { optIn: true, zones: ["a", "b", "c"] },
  "ap-east-2": { optIn: true, zones: ["a", "b", "c"] },
  "ap-south-1": { optIn: false, zones: ["a", "b", "c"] },
  "ap-south-2": { optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-1": { optIn: false, zones: ["a", "b", "c"] },
  "ap-southeast-2": { optIn: false, zones: ["a", "b", "c"] },
  "ap-southeast-3": { optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-4": { optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-5": { optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-6": { optIn: true, zones: ["a", "b", "c"] },
  "ap-southeast-7": { optIn: true, zones: ["a", "b", "c"] },
  // Four AZ IDs, three open to an account; commonly a, c, d (moto: apne1-az4, -az1, -az2). No "b".
  "ap-northeast-1": { optIn: false, zones: ["a", "c", "d"] },
  // Four AZs.
  "ap-northeast-2": { optIn: false, zones: ["a", "b", "c", "d"] },
  "ap-northeast-3": { optIn: false, zones: ["a", "b", "c"] },
  // No "c": ca-central-1c is not offered to accounts; the third AZ is "d" (cac1-az4).
  "ca-central-1": { optIn: false, zones: ["a", "b", "d"] },
  "ca-west-1": { optIn: true, zones: ["a", "b", "c"] },
  "eu-central-1": { optIn: false, zones: ["a", "b", "c"] },
  "eu-central-2": { optIn: true, zones: ["a", "b", "c"] },
  "eu-west-1": { optIn: false, zones: ["a", "b", "c"] },
  "eu-west-2": { optIn: false, zones: ["a", "b", "c"] },
  "eu-west-3": { optIn: false, zones: ["a", "b", "c"] },
  "eu-south-1": { optIn: true, zones: ["a", "b", "c"] },
  "eu-south-2": { optIn: true, zones: ["a", "b", "c"] },
  "eu-north-1": { optIn: false, zones: ["a", "b", "c"] },
  "il-central-1": { optIn: true, zones: ["a", "b", "c"] },
  "me-south-1": { optIn: true, zones: ["a", "b", "c"] },
  "me-central-1": { optIn: true, zones: ["a", "b", "c"] },
  "mx-central-1": { optIn: true, zones: ["a", "b", "c"] },
  "sa-east-1": { optIn: false, zones: ["a", "b", "c"] },

  // ---- China partition (aws-cn) ----
  // No "c": the third Beijing AZ is "d".
  "cn-north-1": { optIn: false, zones: ["a", "b", "d"] },
  "cn-northwest-1": { optIn: false, zones: ["a", "b", "c"] },

  // ---- GovCloud partition (aws-us-gov) ----
  "us-gov-east-1": { optIn: false, zones: ["a", "b", "c"] },
  "us-gov-west-1": { optIn: false, zones: ["a", "b", "c"] },
};
