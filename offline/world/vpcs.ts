/**
 * Which of the region's AZs AWS offers now: aws.getAvailabilityZones, with the AZs the simulation says are
 * not offered (state impaired or unavailable) left out of those in state available.
 */
import { OFFLINE_ZONE_IDS_NOTE, availabilityZones } from "./aws-calls";

/** What the simulation says about the stack's network on AWS. */
export interface NetworkSimulation {
  /** AZs AWS does not offer now (state impaired or unavailable): getAvailabilityZones lists them only without `state`. */
  unavailableZones?: readonly string[];
}

/** The invoke tokens answered here. */
export const NETWORK_CALLS = ["aws:index/getAvailabilityZones:getAvailabilityZones"] as const;

export class DeployedNetworkWorld {
  constructor(
    private readonly simulation: NetworkSimulation = {},
    /** Where the world notes what it simulated, for the plan to show. */
    private readonly notes: string[],
  ) {}

  /** aws.getAvailabilityZones: with `state: available`, without the AZs simulated as not offered now. */
  availabilityZones(inputs: Record<string, unknown>, region: string): Record<string, unknown> {
    const answer = availabilityZones(region);
    const ids = OFFLINE_ZONE_IDS_NOTE(region, answer);
    if (!this.notes.includes(ids)) this.notes.push(ids);
    const unavailable = this.simulation.unavailableZones ?? [];
    if (inputs.state !== "available" || unavailable.length === 0) return answer;
    const names = (answer.names as string[]).filter((name) => !unavailable.includes(name));
    const note = `AZs not offered now: ${unavailable.join(", ")}`;
    if (!this.notes.includes(note)) this.notes.push(note);
    return {
      ...answer,
      names,
      zoneIds: (answer.zoneIds as string[]).filter(
        (_, i) => !unavailable.includes((answer.names as string[])[i]),
      ),
    };
  }
}
