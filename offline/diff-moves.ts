/**
 * Resources that keep their state under another URN. Pulumi matches a registration to the resource one of
 * its aliases names and updates that one in place (https://www.pulumi.com/docs/iac/concepts/options/aliases/),
 * so the diff does too. A child of a remote component is not in a plan (offline/records.ts); an alias to
 * one is matched to the component of the child's name, with the inputs the component passed its child.
 */
import type { ResourceEntry } from "./plan";

/**
 * What @pulumi/eks v4.3.0's ManagedNodeGroup passed its aws.eks.NodeGroup of the same name, given
 * `now`, the node group the stack registers itself: its own inputs without `cluster`, `nodeRole` and
 * `ignoreScalingChanges`, the cluster's name and the role's ARN, and ignoreChanges on the desired size
 * under ignoreScalingChanges (createManagedNodeGroup, nodejs/eks/nodes/nodegroup.ts). The cluster and
 * role are the same where `now` takes its name and ARN from the resources the component named.
 */
function managedNodeGroupChild(component: ResourceEntry, now: ResourceEntry): ResourceEntry {
  const { cluster, nodeRole, ignoreScalingChanges, ...passed } = component.inputs;
  const same = (ref: unknown, input: string) =>
    now.propertyDependencies[input]?.length === 1 && now.propertyDependencies[input][0] === ref;
  return {
    ...now,
    inputs: {
      ...passed,
      clusterName: same(cluster, "clusterName") ? now.inputs.clusterName : cluster,
      nodeRoleArn: same(nodeRole, "nodeRoleArn") ? now.inputs.nodeRoleArn : nodeRole,
    },
    options: {
      ...component.options,
      ignoreChanges: ignoreScalingChanges === true ? ["scalingConfig.desiredSize"] : [],
    },
  };
}

/** The children remote components build, by component type and child type. */
const REMOTE_CHILDREN: Readonly<
  Record<string, Readonly<Record<string, (component: ResourceEntry, now: ResourceEntry) => ResourceEntry>>>
> = {
  "eks:index:ManagedNodeGroup": { "aws:eks/nodeGroup:NodeGroup": managedNodeGroupChild },
};

/** A resource of the base plan that `now` continues, by one of its aliases. */
export interface Move {
  /** The base plan's entry, as the resource's old state. */
  readonly was: ResourceEntry;
  /** The base identity it was known by: a remote component's, where it was that component's child. */
  readonly from: string;
}

/** The base resource `now` continues through one of its aliases (by identity), or undefined. */
export function movedFrom(
  now: ResourceEntry,
  aliases: readonly string[],
  old: ReadonlyMap<string, ResourceEntry>,
): Move | undefined {
  for (const identity of aliases) {
    const same = old.get(identity);
    if (same !== undefined) return { was: same, from: identity };
    const [chain, name] = identity.split("::");
    const parentChain = chain.split("$").slice(0, -1).join("$");
    const component = old.get(`${parentChain}::${name}`);
    const child = component?.remote === true ? REMOTE_CHILDREN[component.type]?.[now.type] : undefined;
    if (component !== undefined && child !== undefined) {
      return { was: child(component, now), from: `${parentChain}::${name}` };
    }
  }
  return undefined;
}
