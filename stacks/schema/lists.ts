/**
 * Lists of the config that become one API list or one resource per entry: each entry once, compared as
 * the service compares them (a CIDR block by its network and prefix, a security group by its id whatever
 * account prefix it is written with). Two equal entries make two resources of one name (one Pulumi URN)
 * or a rule EC2 refuses (`InvalidPermission.Duplicate`,
 * https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html).
 */
import type { z } from "zod";
import { formatCidr, parseCidr } from "../../components/network/subnets";

/** A CIDR block as AWS stores it; the text itself when it is not one (its own rule says why). */
export function canonicalCidr(cidr: string): string {
  try {
    const { network, prefix } = parseCidr(cidr);
    return formatCidr(network, prefix);
  } catch {
    return cidr;
  }
}

/** A security group id without the `<account-id>/` prefix a peered VPC's group may be written with. */
export const securityGroupOf = (id: string): string => id.replace(/^\d{12}\//, "");

/**
 * A refinement of a list: an issue at each entry equal to an earlier one after `normalise`, naming the
 * earlier entry.
 */
export function uniqueEntries<T>(normalise: (entry: T) => string, sameWhen = "") {
  return (entries: readonly T[], ctx: z.core.$RefinementCtx): void => {
    const seen = new Map<string, number>();
    entries.forEach((entry, index) => {
      const key = normalise(entry);
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, index);
        return;
      }
      ctx.addIssue({
        code: "custom",
        path: [index],
        input: entry,
        message: `repeats entry ${first}${sameWhen === "" ? "" : ` (${sameWhen})`}: keep one`,
      });
    });
  };
}
