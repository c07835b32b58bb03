/**
 * The region's AZs as AWS lists them for this update, and what the `network` config asks of them: the
 * inputs of the AZ choice in zones.ts.
 */
import * as aws from "@pulumi/aws";
import type { ConfigProblem } from "./problems";
import type { StackConfig } from "./schema";
import type { RegionZones, ZoneRequest } from "./zones";

/** What `network` asks of the region's AZs (stacks/zones.ts). */
export function zoneRequest(network: StackConfig["network"]): ZoneRequest {
  return {
    count: network.availabilityZones,
    ...(network.zones !== undefined ? { zones: network.zones } : {}),
    exclude: network.excludeZones,
  };
}

/**
 * The region's AZs that need no opt-in (Local and Wavelength zones do), by name with their zone IDs, and
 * those AWS offers now (state available); or the problem: a region AWS cannot list (without `state` the
 * data source lists every AZ the account has, whatever its state:
 * https://www.pulumi.com/registry/packages/aws/api-docs/getavailabilityzones/). Which AZs a stack uses is
 * decided with what it has deployed (zones.ts, previous-network.ts).
 */
export async function availabilityZones(region: string): Promise<RegionZones | { problem: ConfigProblem }> {
  const filters = [{ name: "opt-in-status", values: ["opt-in-not-required"] }];
  try {
    const [every, available] = await Promise.all([
      aws.getAvailabilityZones({ filters }),
      aws.getAvailabilityZones({ state: "available", filters }),
    ]);
    const all = every.names
      .map((name, i) => ({ name, id: every.zoneIds[i] }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { region, all, offered: [...available.names].sort() };
  } catch (error) {
    // An unknown or disabled region fails here first: report it as the config key it comes from.
    return {
      problem: {
        path: "aws:region",
        value: region,
        rule: `AWS could not list the region's availability zones: ${(error as Error).message}`,
      },
    };
  }
}
