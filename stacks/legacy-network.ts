/**
 * What AWS has for a stack last updated before the `network` output: that update exported only ids
 * (`vpcId`, `privateSubnetIds`, `publicSubnetIds`), so its VPC's CIDR and each subnet's AZ and CIDR are
 * read back with the aws.ec2.getVpc and aws.ec2.getSubnet data sources (invokes, answered at plan time:
 * https://www.pulumi.com/registry/packages/aws/api-docs/ec2/getvpc/,
 * https://www.pulumi.com/registry/packages/aws/api-docs/ec2/getsubnet/), never assumed from the config or
 * from the AZs the region offers now. A read that fails is refused with the command that shows why.
 */
import * as aws from "@pulumi/aws";
import type { SubnetPair } from "../components/network/subnets";
import type { LegacyNetwork } from "./previous-network";
import type { PreviousOutputs } from "./previous";
import type { ConfigProblem } from "./problems";

const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

/** A problem reading the deployed network, with the command that shows what AWS answers. */
function unreadable(rule: string, command: string): { problem: ConfigProblem } {
  return {
    problem: {
      path: "network",
      value: undefined,
      rule: `cannot be checked against the deployed network: ${rule}`,
      hint: `\`${command}\` shows what AWS answers; the deployer needs ec2:DescribeVpcs and ec2:DescribeSubnets`,
    },
  };
}

/**
 * The deployed network of a stack whose last outputs have `privateSubnetIds` but no `network`; undefined
 * for any other stack.
 */
export async function readLegacyNetwork(
  previous: PreviousOutputs,
): Promise<LegacyNetwork | undefined | { problem: ConfigProblem }> {
  const privateIds = previous.privateSubnetIds;
  if (previous.network !== undefined || !Array.isArray(privateIds) || privateIds.length === 0)
    return undefined;
  const publicIds = previous.publicSubnetIds;
  const vpcId = previous.vpcId;
  if (
    !isText(vpcId) ||
    !privateIds.every(isText) ||
    !Array.isArray(publicIds) ||
    !publicIds.every(isText) ||
    publicIds.length !== privateIds.length
  ) {
    return unreadable(
      "the last outputs name private subnets but not the VPC and one public subnet per private one (vpcId, publicSubnetIds)",
      "pulumi stack output --json",
    );
  }
  let cidr: string;
  try {
    cidr = (await aws.ec2.getVpc({ id: vpcId })).cidrBlock;
  } catch (error) {
    return unreadable(
      `AWS did not describe VPC ${vpcId}: ${(error as Error).message}`,
      `aws ec2 describe-vpcs --vpc-ids ${vpcId}`,
    );
  }
  const ids = [...privateIds, ...publicIds] as string[];
  let subnets: { availabilityZone: string; cidrBlock: string }[];
  try {
    subnets = await Promise.all(ids.map((id) => aws.ec2.getSubnet({ id })));
  } catch (error) {
    return unreadable(
      `AWS did not describe the stack's subnets: ${(error as Error).message}`,
      `aws ec2 describe-subnets --subnet-ids ${ids.join(" ")}`,
    );
  }
  const privates = subnets.slice(0, privateIds.length);
  const publics = subnets.slice(privateIds.length);
  const zones = new Map<string, SubnetPair>();
  for (const subnet of privates) {
    const paired = publics.filter((p) => p.availabilityZone === subnet.availabilityZone);
    if (paired.length !== 1 || zones.has(subnet.availabilityZone)) {
      return unreadable(
        `its subnets are not one private and one public per AZ (${subnets.map((s) => `${s.availabilityZone} ${s.cidrBlock}`).join(", ")})`,
        `aws ec2 describe-subnets --subnet-ids ${ids.join(" ")}`,
      );
    }
    zones.set(subnet.availabilityZone, { private: subnet.cidrBlock, public: paired[0].cidrBlock });
  }
  return { cidr, zones };
}
