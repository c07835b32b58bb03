/**
 * The EKS cluster a full stack creates, as aws.eks.getCluster finds it before the program registers it:
 * stacks/creator.ts asks who created it. AWS has it when an earlier `up` created it: the last outputs
 * name it (clusterName), unless the simulation says it was deleted outside Pulumi since
 * (`stackClusterExists: false`), or the simulation says a first `up` created it and then failed before
 * writing any output (`stackClusterExists: true`). Otherwise the answer is EKS's not-found.
 */
import * as pulumi from "@pulumi/pulumi";
import { clusterNameFor } from "../../stacks/collisions";
import { offlineArn, placeholder } from "./placeholders";

/** Whether `name` is the cluster this stack creates (stacks/index.ts names it `<project>-<stack>`). */
export function isStackCluster(name: unknown): boolean {
  return name === clusterNameFor(pulumi.getProject(), pulumi.getStack());
}

/**
 * aws.eks.getCluster for the stack's own cluster. A cluster AWS does not have fails with EKS's
 * ResourceNotFoundException text, as the existing-cluster world refuses an unknown name (existing.ts).
 */
export function stackClusterAnswer(
  name: string,
  region: string,
  exists: boolean | undefined,
  previousOutputs: Record<string, unknown>,
): Record<string, unknown> {
  if (!(exists ?? previousOutputs.clusterName === name)) {
    throw new Error(`ResourceNotFoundException: No cluster found for name: ${name}.`);
  }
  return {
    id: name,
    name,
    arn: offlineArn(region, "eks", `cluster/${name}`, true),
    endpoint: placeholder("cluster-endpoint", name),
    status: "ACTIVE",
  };
}
