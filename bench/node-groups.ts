/** The dev stack's first node group scaled for the benchmark, split as EKS's per-group quota requires. */
import { loadStackConfig } from "../offline/engine";
import { EKS_QUOTAS } from "../stacks/schema/node-groups";

/**
 * Copies of the dev stack's first node group whose maxSize adds up to `maxSize`, each within EKS's quota
 * of nodes per managed node group. `running`: each copy starts full (min = desired = max); otherwise the
 * first starts with min(maxSize, 3) nodes and the others with none.
 */
export function devNodeGroupsAt(maxSize: number, running = false): Record<string, unknown>[] {
  const [group] = JSON.parse(loadStackConfig("dev").values["eks-calico:nodeGroups"]) as Record<
    string,
    unknown
  >[];
  const perGroup = EKS_QUOTAS.nodesPerNodeGroup.limit;
  return Array.from({ length: Math.ceil(maxSize / perGroup) }, (_, i) => {
    const size = Math.min(perGroup, maxSize - i * perGroup);
    return {
      ...group,
      name: i === 0 ? group.name : `${String(group.name)}-${i}`,
      minSize: running ? size : i === 0 ? 1 : 0,
      desiredSize: running ? size : i === 0 ? Math.min(maxSize, 3) : 0,
      maxSize: size,
    };
  });
}
