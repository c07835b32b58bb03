/** How the offline world shows values only AWS or the cluster would know. */
import { partitionOfRegion } from "../../components/cluster/partitions";

/** The simulated account: obviously not a real one. */
export const OFFLINE_ACCOUNT_ID = "000000000000";

/** A value only AWS or the cluster knows, shown as a marked placeholder. */
export function placeholder(kind: string, resourceName: string): string {
  return `<${kind}:${resourceName}>`;
}

/** `aws:ec2/natGateway:NatGateway` becomes `natGateway`. */
export function shortType(type: string): string {
  return type.split(":")[1]?.split("/").pop() ?? type;
}

/**
 * An ARN of the simulated account in `region`'s partition: `arn:<partition>:<service>:<region or
 * nothing for a global service>:000000000000:<resource>`.
 */
export function offlineArn(region: string, service: string, resource: string, regional: boolean): string {
  const partition = partitionOfRegion(region) ?? "aws";
  return `arn:${partition}:${service}:${regional ? region : ""}:${OFFLINE_ACCOUNT_ID}:${resource}`;
}
