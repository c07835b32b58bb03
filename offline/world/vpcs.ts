/**
 * The VPC and subnets a stack already has on AWS, and which of the region's AZs AWS offers now. A stack
 * last updated before the `network` output exported only ids (`vpcId`, `privateSubnetIds`,
 * `publicSubnetIds`), which the program reads back with aws.ec2.getVpc and aws.ec2.getSubnet. The world
 * knows those ids from the last outputs; a subnet's AZ from its placeholder id (`<subnet-id:network-
 * private-us-west-2a>`); but no output holds the VPC's CIDR, so it is simulated (`legacyVpcCidr`) and
 * getVpc is refused without it. The subnets' CIDRs are the earlier equal split of that CIDR, which the
 * earlier program laid out. Lookups fail as the Terraform data sources fail: "no matching EC2 VPC found"
 * (internal/tfresource/not_found_error.go, SingularDataSourceFindError).
 */
import { legacySubnetPlan } from "../../components/network/subnets";
import { OFFLINE_ZONE_IDS_NOTE, UnanswerableCall, availabilityZones } from "./aws-calls";

/** What the simulation says about the stack's network on AWS. */
export interface NetworkSimulation {
  /**
   * The VPC CIDR of a stack last updated before the `network` output (no output holds it); unset: getVpc
   * is refused rather than guessed.
   */
  legacyVpcCidr?: string;
  /** AZs AWS does not offer now (state impaired or unavailable): getAvailabilityZones lists them only without `state`. */
  unavailableZones?: readonly string[];
  /** ec2:DescribeVpcs and ec2:DescribeSubnets are refused to the deployer. */
  readDenied?: boolean;
}

/** The invoke tokens answered here. */
export const NETWORK_CALLS = [
  "aws:index/getAvailabilityZones:getAvailabilityZones",
  "aws:ec2/getVpc:getVpc",
  "aws:ec2/getSubnet:getSubnet",
] as const;

const SUBNET_ID = /^<subnet-id:.+-(private|public)-(.+)>$/;
const DENIED = "api error UnauthorizedOperation: You are not authorized to perform this operation.";

export class DeployedNetworkWorld {
  constructor(
    private readonly previousOutputs: Record<string, unknown>,
    private readonly simulation: NetworkSimulation = {},
    /** Where the world notes what it simulated, for the plan to show. */
    private readonly notes: string[],
  ) {}

  /** The answer to `token`, one of NETWORK_CALLS. */
  call(token: string, inputs: Record<string, unknown>, region: string): Record<string, unknown> {
    if (token === "aws:ec2/getVpc:getVpc") return this.getVpc(inputs);
    if (token === "aws:ec2/getSubnet:getSubnet") return this.getSubnet(inputs);
    return this.availabilityZones(inputs, region);
  }

  /** aws.getAvailabilityZones: with `state: available`, without the AZs simulated as not offered now. */
  private availabilityZones(inputs: Record<string, unknown>, region: string): Record<string, unknown> {
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

  private ids(name: "privateSubnetIds" | "publicSubnetIds"): unknown[] {
    const ids = this.previousOutputs[name];
    return Array.isArray(ids) ? ids : [];
  }

  private getVpc(inputs: Record<string, unknown>): Record<string, unknown> {
    const id = String(inputs.id);
    if (this.simulation.readDenied === true) throw new Error(`reading EC2 VPC: ${DENIED}`);
    if (id !== this.previousOutputs.vpcId) throw new Error("no matching EC2 VPC found");
    const cidr = this.simulation.legacyVpcCidr;
    if (cidr === undefined) {
      throw new UnanswerableCall(
        `the CIDR of VPC ${id} is not known offline: no output of a stack from before the \`network\` output holds it (simulate network.legacyVpcCidr)`,
      );
    }
    this.notes.push(`VPC ${id}: ${cidr} (simulated)`);
    return { id, cidrBlock: cidr, state: "available" };
  }

  private getSubnet(inputs: Record<string, unknown>): Record<string, unknown> {
    const id = String(inputs.id);
    if (this.simulation.readDenied === true) throw new Error(`reading EC2 Subnet: ${DENIED}`);
    const match = SUBNET_ID.exec(id);
    const kind = match?.[1] as "private" | "public" | undefined;
    const index =
      kind === undefined
        ? -1
        : this.ids(kind === "private" ? "privateSubnetIds" : "publicSubnetIds").indexOf(id);
    if (match === null || kind === undefined || index < 0) throw new Error("no matching EC2 Subnet found");
    const cidr = this.simulation.legacyVpcCidr;
    if (cidr === undefined) {
      throw new UnanswerableCall(
        `the CIDR of subnet ${id} is not known offline (simulate network.legacyVpcCidr)`,
      );
    }
    const cidrBlock = legacySubnetPlan(cidr, this.ids("privateSubnetIds").length)[kind][index];
    return { id, availabilityZone: match[2], cidrBlock, vpcId: this.previousOutputs.vpcId };
  }
}
