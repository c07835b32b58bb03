/**
 * The cluster's creator: the IAM principal EKS made cluster admin through an access entry of its own when
 * the cluster was created (components/cluster/access.ts BOOTSTRAP_ADMIN). The first `pulumi up` records it
 * as the `clusterCreator` stack output (the caller identity then); every later update reads it back from
 * the stack's last outputs, since the creator never changes whoever runs the update. A first `up` that
 * created the cluster and then failed left no outputs: the Node.js SDK registers the stack's outputs once
 * the program's result resolves (sdk/nodejs/runtime/stack.ts, Stack.initialize), and a failed update
 * keeps only outputs the stack had or registered before failing (pulumi/pulumi#15754, fixing #14621). The
 * retry may run as another identity, so a cluster AWS already has gets no creator recorded. A `cluster.access`
 * entry for the same principal would fail every update, so it is refused before any resource exists.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { callerPrincipalArn, samePrincipal } from "../components/cluster/access";
import { NOT_FOUND } from "./existing";
import type { ConfigProblem } from "./problems";
import type { PreviousOutputs } from "./previous";

/**
 * The creator's ARN (a role's without path, or a user's), or undefined when it cannot be known: a stack
 * deployed before the `clusterCreator` output existed (its creator was never recorded), a preview of a
 * stack never deployed (the previewing identity is not necessarily the one that will run the first `up`),
 * or a cluster that exists before the stack recorded anything (an earlier `up` created it and failed,
 * perhaps as another identity).
 */
export async function clusterCreator(
  previous: PreviousOutputs,
  clusterName: string,
  dryRun: boolean = pulumi.runtime.isDryRun(),
): Promise<string | undefined> {
  const recorded = previous.clusterCreator;
  if (typeof recorded === "string" && recorded !== "") return callerPrincipalArn(recorded);
  if (Object.keys(previous).length > 0 || dryRun) return undefined;
  if (await clusterExists(clusterName)) return undefined;
  // An assumed-role session is its role: EKS's access entry names the role, not the session.
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
