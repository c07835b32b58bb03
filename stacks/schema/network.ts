/** `network`: the VPC's address range, its AZ count and its NAT gateways. */
import { z } from "zod";
import { parseCidr, subnetPrefixFor } from "../../components/network/subnets";
import { forbiddenVpcRange } from "../../components/network/cidr-ranges";
import { isRecord } from "./records";

/** AWS accepts VPC CIDR blocks between /16 and /28. */
const VPC_PREFIX_RANGE = { min: 16, max: 28 } as const;
/** What `network` defaults to. */
export const NETWORK_DEFAULTS = { cidr: "10.0.0.0/16", availabilityZones: 2 } as const;

/** The smallest subnet AWS accepts. */
export const MIN_SUBNET_PREFIX = 28;

export const networkSchema = z
  .strictObject({
    /** IPv4 CIDR of the VPC; split into one public and one private subnet per AZ. */
    cidr: z
      .cidrv4({ error: "must be an IPv4 CIDR block such as 10.0.0.0/16" })
      .default(NETWORK_DEFAULTS.cidr),
    /** How many availability zones to spread subnets and nodes over. */
    availabilityZones: z
      .number({ error: "must be a whole number from 2 to 6" })
      .int({ error: "must be a whole number from 2 to 6" })
      .min(2, { error: "must be at least 2 (EKS needs subnets in two AZs)" })
      .max(6, { error: "must be at most 6" })
      .default(NETWORK_DEFAULTS.availabilityZones),
    /** `single`: one NAT gateway for the VPC; `perAz`: one per AZ, so an AZ outage keeps egress. */
    natGateways: z.enum(["single", "perAz"], { error: "must be single or perAz" }).default("single"),
  })
  .superRefine(
    (network: unknown, ctx) => {
      // Runs even when the object failed its own checks: never assume its shape.
      if (!isRecord(network)) return;
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
      const zones = network.availabilityZones;
      if (vpcPrefix < VPC_PREFIX_RANGE.min || vpcPrefix > VPC_PREFIX_RANGE.max) {
        ctx.addIssue({
          code: "custom",
          path: ["cidr"],
          input: network.cidr,
          message: `prefix must be /${VPC_PREFIX_RANGE.min} to /${VPC_PREFIX_RANGE.max} (AWS VPC limits)`,
        });
      } else if (typeof zones === "number" && Number.isInteger(zones) && zones >= 1) {
        const prefix = subnetPrefixFor(vpcPrefix, zones);
        if (prefix > MIN_SUBNET_PREFIX) {
          ctx.addIssue({
            code: "custom",
            path: ["cidr"],
            input: network.cidr,
            message: `too small for ${2 * zones} subnets (a public and a private per AZ): each would be /${prefix}, AWS needs /${MIN_SUBNET_PREFIX} or larger`,
          });
        }
      }
    },
    { when: () => true },
  );
