/**
 * The cluster's creator: the IAM principal EKS made cluster admin through an access entry of its own when
 * the cluster was created (components/cluster/access.ts BOOTSTRAP_ADMIN). The `up` that creates the
 * cluster records it as the `clusterCreator` stack output (the caller identity then); later updates read
 * it back from the stack's last outputs, since the creator never changes whoever runs the update. The
 * record belongs to the cluster the last outputs name (stacks/deployed-cluster.ts): a rename or a region
 * change that would create another is refused before this runs, and a cluster deleted outside Pulumi is
 * created again by the `up` that finds it gone, whose caller is then its creator. A first `up` that
 * created the cluster and then failed left no outputs: the Node.js SDK registers the stack's outputs once
 * the program's result resolves (sdk/nodejs/runtime/stack.ts, Stack.initialize), and a failed update
 * keeps only outputs the stack had or registered before failing (pulumi/pulumi#15754, fixing #14621). The
 * retry may run as another identity, so a cluster AWS already has gets no creator recorded. A `cluster.access`
 * entry for the same principal would fail every update, so it is refused before any resource exists.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { callerPrincipalArn, samePrincipal } from "../components/cluster/access";
import { deployedCluster } from "./deployed-cluster";
import { NOT_FOUND } from "./existing";
import type { ConfigProblem } from "./problems";
import type { PreviousOutputs } from "./previous-outputs";

/**
 * The creator as far as this update can know it, and the notices the update goes on with: a cluster gone
 * from AWS, a creator that changes or cannot be known.
 */
export interface CreatorReading {
  /** The creator's ARN (a role's without path, or a user's); absent when it cannot be known. */
  readonly creator?: string;
  readonly notices: string[];
}

/**
 * The creator of the cluster named `clusterName`. Unknown (no `creator`) for a stack deployed before the
 * `clusterCreator` output existed (its creator was never recorded), in a preview of an update that creates
 * the cluster (the previewing identity is not necessarily the one that will run the `up`), and for a
 * cluster that exists before the stack recorded anything (an earlier `up` created it and failed, perhaps as
 * another identity). A deployed stack asks AWS whether its cluster is still there: when it is not, this
 * `up` creates it again and its caller is the creator, with a notice naming the old and the new.
 */
export async function clusterCreator(
  previous: PreviousOutputs,
  clusterName: string,
  dryRun: boolean = pulumi.runtime.isDryRun(),
): Promise<CreatorReading> {
  if (deployedCluster(previous) === undefined) {
    if (dryRun || (await clusterExists(clusterName))) return { notices: [] };
    return { creator: await callerPrincipal(), notices: [] };
  }
  const recorded = recordedCreator(previous);
  let exists: boolean;
  try {
    exists = await clusterExists(clusterName);
  } catch (error) {
    // A preview changes nothing: it goes on without the check, which the `up` makes (or fails on).
    if (!dryRun) throw error;
    return {
      notices: [
        `clusterCreator: ${(error as Error).message}; this preview does not check cluster.access against the creator, and \`pulumi up\` stops on the same error`,
      ],
    };
  }
  if (exists) return recorded === undefined ? { notices: [] } : { creator: recorded, notices: [] };
  const gone = `EKS has no cluster ${clusterName}, though the stack's last update left it: it was deleted outside Pulumi`;
  if (dryRun) {
    const instead = recorded === undefined ? "" : `, in place of ${recorded}`;
    return {
      notices: [
        `clusterCreator: ${gone}, and the \`pulumi up\` that creates it again makes its caller the creator${instead}; this preview does not know that caller, so it does not check cluster.access against the creator`,
      ],
    };
  }
  const caller = await callerPrincipal();
  const instead =
    recorded === undefined
      ? ""
      : samePrincipal(recorded, caller)
        ? ", as before"
        : `, in place of ${recorded}`;
  return {
    creator: caller,
    notices: [
      `clusterCreator: ${gone}, and this update creates it again: EKS makes its caller, ${caller}, the creator${instead}, and clusterCreator records it. Pulumi creates the cluster only once its state no longer holds it: run \`pulumi up --refresh\``,
    ],
  };
}

/** The last outputs' `clusterCreator`, as the role of a session ARN; undefined when never recorded. */
function recordedCreator(previous: PreviousOutputs): string | undefined {
  const recorded = previous.clusterCreator;
  return typeof recorded === "string" && recorded !== "" ? callerPrincipalArn(recorded) : undefined;
}

/** The caller identity as EKS names the creator: an assumed-role session is its role, not the session. */
async function callerPrincipal(): Promise<string> {
  return callerPrincipalArn((await aws.getCallerIdentity({})).arn);
}

/**
 * Whether AWS has the cluster, by aws.eks.getCluster (DescribeCluster). Only a not-found error
 * (stacks/existing.ts NOT_FOUND) means it does not: any other (access denied, throttling) is no answer.
 */
async function clusterExists(name: string): Promise<boolean> {
  try {
    await aws.eks.getCluster({ name });
    return true;
  } catch (error) {
    if (NOT_FOUND.test((error as Error).message)) return false;
    throw new Error(
      `cannot tell whether EKS cluster ${name} exists, so who created it: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** A problem for each `cluster.access` entry that is the creator (same principal, any case or path). */
export function creatorAccessProblems(
  creator: string | undefined,
  access: readonly { principalArn: string }[],
): ConfigProblem[] {
  if (creator === undefined) return [];
  return access.flatMap((grant, index) =>
    samePrincipal(creator, grant.principalArn)
      ? [
          {
            path: `cluster.access[${index}].principalArn`,
            value: grant.principalArn,
            rule: `is the cluster's creator (${creator}, the stack's clusterCreator output), whom EKS made cluster admin through an access entry of its own: EKS refuses a second access entry for the same principal (ResourceInUseException), whatever the case or path of its name`,
            hint: "remove it from cluster.access: it is cluster admin already (docs/access.md)",
          },
        ]
      : [],
  );
}
