/**
 * Whether the cluster's Kubernetes version is past EKS standard support, and what that costs or does
 * under its upgrade policy (stacks/schema/cluster.ts END_OF_STANDARD_SUPPORT, UPGRADE_POLICIES).
 */
import { END_OF_STANDARD_SUPPORT } from "./schema";

/** A warning for a version past standard support on `today`, or undefined while it is in standard support. */
export function extendedSupportNotice(version: string, policy: "STANDARD" | "EXTENDED", today: Date) {
  const end = END_OF_STANDARD_SUPPORT[version];
  if (end === undefined || today.toISOString().slice(0, 10) <= end) return undefined;
  const what =
    policy === "EXTENDED"
      ? "EKS bills the cluster extended support for every hour it stays on it"
      : "EKS may upgrade the control plane to the next version at any time (cluster.upgradePolicy: STANDARD)";
  return `cluster.version ${version} left EKS standard support on ${end}: ${what}. Upgrade one minor version at a time (docs/upgrades.md).`;
}
