/**
 * The Kubernetes versions a deployed cluster can move to: the one it runs, or the next minor. From the
 * Amazon EKS User Guide, "Update existing cluster to new Kubernetes version" (update-cluster.html, read
 * 2026-12-03): "You can't downgrade the Kubernetes of an Amazon EKS cluster", and "you can only update
 * to the next minor version" (UpdateClusterVersion refuses any other with InvalidParameterException).
 * The version compared with is the one EKS reports now (DescribeCluster through aws.eks.getCluster), not
 * the one the last update set: at the end of standard support EKS upgrades a STANDARD cluster by itself
 * (view-upgrade-policy.html), and the stack file must then follow it (docs/upgrades.md).
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { NOT_FOUND } from "./existing";
import type { ConfigProblem } from "./problems";

/** Where moving the version forward, and following an upgrade EKS made, are explained. */
const HOW_TO = "docs/upgrades.md#one-minor-version-at-a-time";

/** The minor of a `1.N` version; undefined for anything else (a value EKS did not report). */
function minorOf(version: string): number | undefined {
  const match = /^1\.(\d+)$/.exec(version);
  return match === null ? undefined : Number(match[1]);
}

/** The problem with moving a cluster that runs `running` to `configured`, if EKS would refuse it. */
export function versionStepProblem(configured: string, running: string): ConfigProblem | undefined {
  const [to, from] = [minorOf(configured), minorOf(running)];
  if (to === undefined || from === undefined || to === from || to === from + 1) return undefined;
  const next = `1.${from + 1}`;
  if (to < from) {
    return {
      path: "cluster.version",
      value: configured,
      rule: `is older than ${running}, the version the cluster runs: EKS never downgrades a cluster`,
      hint: `set cluster.version: "${running}", the version the cluster runs; where EKS upgraded it by itself, or someone outside Pulumi did, run \`pulumi refresh\` too (${HOW_TO})`,
    };
  }
  return {
    path: "cluster.version",
    value: configured,
    rule: `skips versions: the cluster runs ${running}, and EKS upgrades one minor version at a time`,
    hint: `set cluster.version: "${next}", run \`pulumi up\`, then the next minor version (${HOW_TO})`,
  };
}

/** What the update knows of the version the deployed cluster runs. */
export type RunningVersion = { version: string } | { notice: string } | { gone: true };

/**
 * The version EKS reports for the stack's cluster: gone when EKS has no such cluster (the `up` creates it
 * at `cluster.version`), a notice when the answer is no version (the offline plan of a stack whose last
 * update recorded none) or, in a preview, when AWS gives no answer: `pulumi up` asks again and stops then.
 */
export async function runningVersion(
  clusterName: string,
  dryRun: boolean = pulumi.runtime.isDryRun(),
): Promise<RunningVersion> {
  let version: string;
  try {
    version = (await aws.eks.getCluster({ name: clusterName })).version;
  } catch (error) {
    if (NOT_FOUND.test((error as Error).message)) return { gone: true };
    const cause = `cannot read the Kubernetes version EKS cluster ${clusterName} runs: ${(error as Error).message}`;
    if (!dryRun) throw new Error(cause, { cause: error });
    return { notice: `cluster.version: ${cause}; \`pulumi up\` reads it again and stops on the same error` };
  }
  if (minorOf(version) !== undefined) return { version };
  return {
    notice: `cluster.version: the version cluster ${clusterName} runs is not known here (${version}); \`pulumi up\` reads it from EKS and refuses anything but that version or the next minor`,
  };
}
