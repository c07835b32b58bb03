/** How the offline world shows values only AWS or the cluster would know. */

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
