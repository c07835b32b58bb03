/** `network`: the VPC's address range, its AZs, its NAT gateways and its VPC endpoints. */
import { uniqueEntries } from "./lists";
import { z } from "zod";
import {
  MAX_ZONES,
  PRIVATE_SLOT_BITS,
  PUBLIC_SLOT_BITS,
  parseCidr,
  slotPrefixes,
} from "../../components/network/subnets";
import { VPC_FORBIDDEN_RANGES, forbiddenVpcRange } from "../../components/network/cidr-ranges";
import { isRecord } from "./records";
import { described } from "./described";

/** AWS accepts VPC CIDR blocks between /16 and /28. */
const VPC_PREFIX_RANGE = { min: 16, max: 28 } as const;
/** What `network` defaults to. */
export const NETWORK_DEFAULTS = { cidr: "10.0.0.0/16", availabilityZones: 2 } as const;

/** The smallest subnet AWS accepts. */
export const MIN_SUBNET_PREFIX = 28;
/**
 * The smallest VPC whose per-AZ slots (components/network/subnets.ts) are all subnets AWS accepts: the
 * public slots are the smallest.
 */
export const MAX_VPC_PREFIX = MIN_SUBNET_PREFIX - PUBLIC_SLOT_BITS;

const ZONES_RULE = `must be a whole number from 2 to ${MAX_ZONES}`;

/**
 * An AZ by name (`us-east-1a`, `us-gov-west-1b`) or by zone ID (`use1-az1`, `usgw1-az2`): the two forms
 * DescribeAvailabilityZones answers in ZoneName and ZoneId
 * (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_AvailabilityZone.html).
 */
const ZONE = /^(?:[a-z]{2}(?:-[a-z]+)+-\d+[a-z]|[a-z]+\d+-az\d+)$/;
const ZONE_RULE = "must be an AZ name such as us-east-1a or a zone ID such as use1-az1";

/** A list of AZs by name or zone ID, each once. */
const zoneList = (what: string) =>
  z
    .array(z.string({ error: ZONE_RULE }).regex(ZONE, { error: ZONE_RULE }), {
      error: `must be a list of AZ names or zone IDs (${what})`,
    })
    .superRefine(uniqueEntries((zone: string) => zone));

/** How many AZs `network` asks for: `availabilityZones`, else as many as `zones` lists, else the default. */
export function zoneCount(network: Record<string, unknown>): unknown {
  return (
    network.availabilityZones ??
    (Array.isArray(network.zones) ? network.zones.length : NETWORK_DEFAULTS.availabilityZones)
  );
}

/** The subnets of the smallest VPC the layout takes. */
const SMALLEST_SLOTS = slotPrefixes(MAX_VPC_PREFIX);

const CHANGING_THE_NETWORK = "[Changing the network](stacks.md#changing-the-network)";

export const networkSchema = z
  .strictObject({
    cidr: z
      .cidrv4({ error: "must be an IPv4 CIDR block such as 10.0.0.0/16" })
      .default(NETWORK_DEFAULTS.cidr)
      .meta(
        described(
          `A network address, /${VPC_PREFIX_RANGE.min} to /${MAX_VPC_PREFIX}, outside the ranges AWS refuses for a VPC (${VPC_FORBIDDEN_RANGES.map((range) => range.cidr).join(", ")}).`,
          `Each AZ gets 1/${2 ** PRIVATE_SLOT_BITS} of it as its private subnet and 1/${2 ** PUBLIC_SLOT_BITS} as its public one, whatever the AZ count (a /${MAX_VPC_PREFIX} gives /${SMALLEST_SLOTS.private} and /${SMALLEST_SLOTS.public} subnets).`,
          `Cannot change on a deployed stack: ${CHANGING_THE_NETWORK}.`,
        ),
      ),
    // Deployed AZs: stacks/previous-network.ts and stacks/zones.ts.
    availabilityZones: z
      .number({ error: ZONES_RULE })
      .int({ error: ZONES_RULE })
      .min(2, { error: "must be at least 2 (EKS needs subnets in two AZs)" })
      .max(MAX_ZONES, { error: `must be at most ${MAX_ZONES}` })
      .optional()
      .meta(
        described(
          `Unset: as many as \`network.zones\` lists, else ${NETWORK_DEFAULTS.availabilityZones}. No more than the region has (checked against \`aws.getAvailabilityZones\`).`,
          "New AZs are taken from those AWS offers now, by name, leaving out `network.excludeZones` and the zone IDs EKS refuses.",
          "On a deployed stack AZs can be added, and removed if the cluster was not created in them. They are kept while AWS does not offer them.",
          `The cluster and its node groups stay in the AZs the cluster was created in: ${CHANGING_THE_NETWORK}.`,
        ),
      ),
    zones: zoneList("the AZs to use")
      .min(2, { error: "must list at least 2 AZs (EKS needs subnets in two AZs)" })
      .max(MAX_ZONES, { error: `must list at most ${MAX_ZONES} AZs` })
      .optional()
      .meta(
        described(
          "Exactly these AZs, by name (`us-east-1a`) or zone ID (`use1-az1`, the same AZ in every account), in this order for a new stack; `availabilityZones` may be left out or must equal its length.",
          "Refused: an AZ the region does not have, one AWS does not offer now, one EKS refuses for a new cluster ([Choosing the AZs](stacks.md#choosing-the-azs)), one also excluded, one listed twice.",
        ),
      ),
    excludeZones: zoneList("the AZs never to use")
      .default([])
      .meta(
        described(
          "AZs never used, by name or zone ID.",
          "On a deployed stack an AZ the cluster does not use is removed; one it was created in is refused.",
        ),
      ),
    natGateways: z
      .enum(["single", "perAz", "none"], { error: "must be single, perAz or none" })
      .default("single")
      .meta(
        described(
          "`single`: one NAT gateway, in the first AZ; `perAz`: one per AZ, which survives an AZ outage; `none`: no route out of the VPC, the nodes reaching AWS through `network.endpoints` alone.",
          "`none` needs `network.endpoints.s3` and `network.endpoints.interface`, and every image registry in ECR in the stack's region ([Private networking](private-networking.md)).",
        ),
      ),
    endpoints: z
      .strictObject({
        s3: z
          .boolean({ error: "must be true or false" })
          .default(true)
          .meta(
            described(
              "The S3 gateway endpoint on the private route tables: free, and ECR's image layers no longer pass the NAT gateway.",
            ),
          ),
        interface: z
          .boolean({ error: "must be true or false" })
          .default(false)
          .meta(
            described(
              "The interface endpoints private nodes need to join and run the add-ons, Calico and Karpenter, in every AZ's private subnet behind a security group admitting the VPC only ([Private networking](private-networking.md)).",
              "Each is billed per AZ and hour.",
            ),
          ),
      })
      .prefault({})
      .meta(described("VPC endpoints, so nodes reach AWS without a NAT gateway.")),
  })
  .superRefine(
    (network: unknown, ctx) => {
      // Runs even when the object failed its own checks: never assume its shape.
      if (!isRecord(network)) return;
      const { availabilityZones, zones } = network;
      if (availabilityZones !== undefined && Array.isArray(zones) && availabilityZones !== zones.length) {
        ctx.addIssue({
          code: "custom",
          path: ["availabilityZones"],
          input: availabilityZones,
          message: `must be the number of AZs network.zones lists (${zones.length}), or be left out`,
        });
      }
      if (typeof network.cidr !== "string" || !z.cidrv4().safeParse(network.cidr).success) return;
      let vpcPrefix: number;
      try {
        vpcPrefix = parseCidr(network.cidr).prefix;
      } catch (error) {
        ctx.addIssue({
          code: "custom",
          path: ["cidr"],
          input: network.cidr,
          message: (error as Error).message,
        });
        return;
      }
      const forbidden = forbiddenVpcRange(network.cidr);
      if (forbidden !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["cidr"],
          input: network.cidr,
          message: `overlaps ${forbidden.cidr} (${forbidden.what}), which AWS does not accept for a VPC`,
        });
      }
      if (vpcPrefix < VPC_PREFIX_RANGE.min || vpcPrefix > VPC_PREFIX_RANGE.max) {
        ctx.addIssue({
          code: "custom",
          path: ["cidr"],
          input: network.cidr,
          message: `prefix must be /${VPC_PREFIX_RANGE.min} to /${VPC_PREFIX_RANGE.max} (AWS VPC limits)`,
        });
      } else if (vpcPrefix > MAX_VPC_PREFIX) {
        // Beyond a /32 the slot is less than an address: no prefix to name.
        const smallest = slotPrefixes(vpcPrefix).public;
        const size = smallest <= 32 ? `, a /${smallest}` : "";
        ctx.addIssue({
          code: "custom",
          path: ["cidr"],
          input: network.cidr,
          message: `too small for the subnet layout: each AZ's public subnet is 1/${2 ** PUBLIC_SLOT_BITS} of the VPC${size}, and AWS's smallest subnet is a /${MIN_SUBNET_PREFIX}, so the VPC must be a /${MAX_VPC_PREFIX} or larger`,
          params: { hint: `use a /${MAX_VPC_PREFIX} or larger, such as 10.0.0.0/16` },
        });
      }
    },
    { when: () => true },
  )
  .transform((network) => ({
    ...network,
    availabilityZones:
      network.availabilityZones ?? network.zones?.length ?? NETWORK_DEFAULTS.availabilityZones,
  }));
