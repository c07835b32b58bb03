/**
 * The EKS cluster a deployed full stack made, as its last outputs name it (`clusterName`, `region`), and
 * the changes that would make this update create another one and delete it. From these upstream facts:
 * - An EKS cluster's name cannot change: aws_eks_cluster `name` is ForceNew (hashicorp/terraform-provider-aws
 *   internal/service/eks/cluster.go; offline/aws-force-new.ts), and this program names the cluster
 *   `<project>-<stack>` (stacks/collisions.ts clusterNameFor). `pulumi stack rename` keeps the stack's state
 *   and outputs under the new name, and Pulumi's own advice is to rename back: "if this name is used as
 *   part of a resource's name, the next pulumi up will want to delete the old resource and create a new
 *   copy" (https://www.pulumi.com/docs/iac/cli/commands/pulumi_stack_rename/). It moves the stack's
 *   Pulumi.<stack>.yaml with it (pulumi/pulumi pkg/cmd/pulumi/stack_rename.go).
 * - A cluster cannot move to another region: every regional resource's `region` defaults to the provider's,
 *   and "Changing the value of `region` will force resource replacement" (terraform-provider-aws guide
 *   "Enhanced Region Support", How `region` works), which @pulumi/aws 7 builds on; pulumi-aws no longer
 *   moves a stack between regions in one update (pulumi/pulumi-aws#5656: `pulumi destroy`, then `up`).
 * Either change would replace the cluster with every workload in it, and make whoever runs the update its
 * creator (stacks/creator.ts), so both are refused before any resource is registered.
 */
import { isText } from "./schema/records";
import { clusterNameFor } from "./collisions";
import type { ConfigProblem } from "./problems";
import type { PreviousOutputs } from "./previous-outputs";

/** Where renaming a stack, changing its region and the way to do either are explained. */
const HOW_TO = "docs/stacks.md#renaming-a-stack-or-changing-its-region";

/** The cluster the stack's last update left: its name, and its region when the outputs say. */
export interface DeployedCluster {
  readonly name: string;
  readonly region?: string;
}

/**
 * The cluster the stack made, from its last outputs, or undefined for a stack that made none: never
 * deployed, or deployed on a cluster made elsewhere (its `clusterName` names a cluster it did not create,
 * and it exports no `vpcId`; a full stack has exported both since its first version).
 */
export function deployedCluster(previous: PreviousOutputs): DeployedCluster | undefined {
  const { clusterName, vpcId, region } = previous;
  if (!isText(clusterName) || !isText(vpcId)) return undefined;
  return { name: clusterName, ...(isText(region) ? { region } : {}) };
}

/** How to get the cluster under a new name or in a new region: a new stack beside the deployed one. */
function newStackSteps(newFile: string): string[] {
  return [
    `with this stack back as it was, copy its stack file to ${newFile}, and \`pulumi stack init <new-stack>\``,
    "`pulumi up --stack <new-stack>`, then move the workloads to its cluster",
    "`pulumi destroy --stack <stack>`, then `pulumi stack rm <stack>` (see docs/destroy.md)",
  ];
}

/**
 * A problem for each change that would replace the deployed cluster: a name that is no longer the one the
 * project and stack derive (the stack or the project renamed), and a region that is not the deployed one.
 */
export function clusterReplacementProblems(
  deployed: DeployedCluster | undefined,
  project: string,
  stack: string,
  region: string,
): ConfigProblem[] {
  if (deployed === undefined) return [];
  const name = clusterNameFor(project, stack);
  return [
    ...(deployed.name === name ? [] : [renameProblem(deployed.name, name, project, stack)]),
    ...(deployed.region === undefined || deployed.region === region
      ? []
      : [regionProblem(deployed.name, deployed.region, region)]),
  ];
}

/**
 * The stack (or its project) renamed since the last update. Which one is told by the part of the deployed
 * name that still matches: `<project>-` in front means the stack, `-<stack>` behind means the project. A
 * stack name with dots derives the same cluster name as with dashes, so the dashed one renames it back.
 */
function renameProblem(before: string, after: string, project: string, stack: string): ConfigProblem {
  const projectPrefix = clusterNameFor(project, "");
  const stackSuffix = clusterNameFor("", stack);
  const stackRenamed = before.startsWith(projectPrefix);
  const projectRenamed = !stackRenamed && before.endsWith(stackSuffix);
  const renamed = stackRenamed
    ? "the stack was"
    : projectRenamed
      ? "the project was"
      : "the stack and its project were";
  const back = stackRenamed
    ? `rename the stack back: \`pulumi stack rename ${before.slice(projectPrefix.length)}\` (it moves the stack file too)`
    : projectRenamed
      ? `rename the project back: \`pulumi stack rename <org>/${before.slice(0, -stackSuffix.length)}/${stack}\`, and its name in Pulumi.yaml`
      : "rename the stack and its project back (`pulumi stack rename <org>/<project>/<stack>`, and the name in Pulumi.yaml)";
  return {
    path: projectRenamed ? "(project name)" : "(stack name)",
    value: projectRenamed ? project : stack,
    rule: `derives the EKS cluster name "${after}", but the stack's deployed cluster is "${before}": a cluster's name cannot change (aws_eks_cluster name is ForceNew), so this update would create a new cluster and delete "${before}" with every workload in it`,
    details: [
      `the cluster is named <project>-<stack>, and ${renamed} renamed since the stack's last update`,
      "the new cluster's node groups, add-ons, access entries and Calico would be created anew, and whoever runs the update would be its creator (docs/access.md)",
    ],
    hint: `${back}; for a cluster under the new name, make a new stack instead (see ${HOW_TO}):`,
    steps: newStackSteps("Pulumi.<new-stack>.yaml"),
  };
}

/** `aws:region` changed on a deployed stack: from `before`, where its cluster `name` is, to `region`. */
function regionProblem(name: string, before: string, region: string): ConfigProblem {
  return {
    path: "aws:region",
    value: region,
    rule: `cannot change on a deployed stack (its cluster "${name}" is in ${before}): an EKS cluster cannot move to another region, so this update would create a new cluster, VPC and node groups in ${region} and delete those in ${before} with every workload in them`,
    details: [
      "every regional resource is in its provider's region, and a change of region replaces it (terraform-provider-aws, Enhanced Region Support)",
      "the new cluster's creator would be whoever runs the update (docs/access.md)",
    ],
    hint: `set it back to ${before} (\`pulumi config set aws:region ${before}\`); for a cluster in ${region}, make a new stack instead (see ${HOW_TO}):`,
    steps: newStackSteps(`Pulumi.<new-stack>.yaml with aws:region: ${region}`),
  };
}
