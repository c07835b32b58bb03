/**
 * The VPC CNI settings an existing-cluster stack's last update set in the vpc-cni add-on and verified on
 * aws-node: its `vpcCni` output's `settings` (components/existing-cluster/index.ts), read with the other
 * previous outputs (stacks/previous-outputs.ts, `vpcCni`). Absent for a new stack, a self-managed VPC CNI,
 * or a last output without them.
 */
import { isRecord } from "./schema/records";

/** `settings` of the last `vpcCni` output, when it is a map of strings; otherwise undefined. */
export function previousVpcCniSettings(vpcCni: unknown): Readonly<Record<string, string>> | undefined {
  if (!isRecord(vpcCni) || !isRecord(vpcCni.settings)) return undefined;
  const entries = Object.entries(vpcCni.settings);
  return entries.every(([, value]) => typeof value === "string")
    ? Object.fromEntries(entries as [string, string][])
    : undefined;
}
