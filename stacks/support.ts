/**
 * What EKS does and accepts at the end of a version's standard support (stacks/schema/cluster.ts
 * END_OF_STANDARD_SUPPORT, UPGRADE_POLICIES): the upgrade policy a stack gets, and the warning once its
 * version is past standard support. `today` is a parameter so that tests fix the date.
 *
 * The EKS rules, from the Amazon EKS User Guide (read 2026-11-28):
 * - "If your upgrade policy is STANDARD, it will be automatically upgraded" at the end of standard support
 *   (https://docs.aws.amazon.com/eks/latest/userguide/view-upgrade-policy.html); EXTENDED keeps the
 *   version and bills extended support.
 * - A new cluster on a version already in extended support: "you can not select standard support"
 *   (create-cluster.html).
 * - Extended support cannot be disabled once a cluster has entered it; only a cluster on standard support
 *   can disable it (disable-extended-support.html, its "Important" box, read in the German and Indonesian
 *   editions of the page).
 */
import { deployedCluster } from "./deployed-cluster";
import type { PreviousOutputs } from "./previous-outputs";
import type { ConfigProblem } from "./problems";
import { END_OF_STANDARD_SUPPORT, UPGRADE_POLICIES, type UpgradePolicy } from "./schema";

/** The day `today` is, in UTC, as the dates table writes days. */
const dayOf = (today: Date) => today.toISOString().slice(0, 10);

/** Whether `version` is past EKS standard support on `today` (a version missing from the table is not). */
export function pastStandardSupport(version: string, today: Date): boolean {
  const end = END_OF_STANDARD_SUPPORT[version];
  return end !== undefined && dayOf(today) > end;
}

/** A warning for a version past standard support on `today`, or undefined while it is in standard support. */
export function extendedSupportNotice(version: string, policy: UpgradePolicy, today: Date) {
  const end = END_OF_STANDARD_SUPPORT[version];
  if (end === undefined || !pastStandardSupport(version, today)) return undefined;
  const what =
    policy === "EXTENDED"
      ? "EKS bills the cluster extended support for every hour it stays on it"
      : "EKS may upgrade the control plane to the next version at any time (cluster.upgradePolicy: STANDARD)";
  return `cluster.version ${version} left EKS standard support on ${end}: ${what}. Upgrade one minor version at a time (docs/upgrades.md).`;
}

/** What the policy choice reads: the cluster's version, the configured policy, the deployed one. */
export interface UpgradePolicyInputs {
  readonly version: string;
  /** `cluster.upgradePolicy` as the stack file sets it; undefined when unset. */
  readonly configured?: UpgradePolicy;
  /** The deployed cluster's policy (the last outputs); undefined for a stack with no cluster yet. */
  readonly deployed?: UpgradePolicy;
  readonly today: Date;
}

/**
 * The upgrade policy EKS accepts for the cluster on `today`, or the problem with the configured one.
 * Unset, it is STANDARD (nothing billed) while the version is in standard support, and past it the
 * deployed cluster's policy (a STANDARD cluster stays STANDARD: EKS upgrades it, and no call changes it),
 * or EXTENDED for a new cluster, the only one EKS creates on such a version. Set to STANDARD past standard
 * support, it is refused unless the deployed cluster already has it: EKS creates no STANDARD cluster on
 * that version and turns no cluster in extended support back to STANDARD.
 */
export function upgradePolicyFor(
  inputs: UpgradePolicyInputs,
): { policy: UpgradePolicy } | { problem: ConfigProblem } {
  const { version, configured, deployed, today } = inputs;
  if (!pastStandardSupport(version, today)) return { policy: configured ?? "STANDARD" };
  if (configured === undefined) return { policy: deployed ?? "EXTENDED" };
  if (configured === "EXTENDED" || deployed === "STANDARD") return { policy: configured };
  const end = END_OF_STANDARD_SUPPORT[version] as string;
  const rule =
    deployed === undefined
      ? `must be EXTENDED for a new cluster on Kubernetes ${version}: its standard support ended on ${end}, and EKS creates a cluster on a version in extended support only with extended support ("you can not select standard support", EKS User Guide, create-cluster)`
      : `must stay EXTENDED: the cluster is on Kubernetes ${version}, whose standard support ended on ${end}, and EKS cannot turn extended support off once a cluster is in it (EKS User Guide, disable-extended-support)`;
  return {
    problem: {
      path: "cluster.upgradePolicy",
      value: configured,
      rule,
      hint: `remove cluster.upgradePolicy (or set EXTENDED); to stop paying for extended support, upgrade cluster.version one minor at a time to a version in standard support (docs/upgrades.md)`,
    },
  };
}

/**
 * The upgrade policy of the cluster the stack deployed: its last `upgradePolicy` output, or for a cluster
 * deployed before that output existed, the configured one, else STANDARD, the program's default until then.
 * Undefined when the stack has deployed no cluster of its own.
 */
export function deployedUpgradePolicy(
  previous: PreviousOutputs,
  configured: UpgradePolicy | undefined,
): UpgradePolicy | undefined {
  const recorded = previous.upgradePolicy;
  if ((UPGRADE_POLICIES as readonly unknown[]).includes(recorded)) return recorded as UpgradePolicy;
  return deployedCluster(previous) === undefined ? undefined : (configured ?? "STANDARD");
}
