/**
 * Warnings for values newer than a table the program recorded on a date: EC2 instance types
 * (stacks/schema/instance-types.ts) and Kubernetes versions (stacks/schema/cluster.ts). AWS releases new
 * ones every month, so these are never refused for being new: EC2 and EKS answer at `up`. What a table
 * knows is wrong (a name that is no instance type, a version past extended support) the schema refuses.
 */
import {
  KUBERNETES_VERSIONS_READ,
  SUPPORTED_KUBERNETES_VERSIONS,
  type StackConfig,
  newerKubernetesVersion,
} from "./schema";
import { unknownInstanceTypeNotice } from "./schema/instance-types";

/** Every warning for a value newer than its table, with its key path. */
export function newerThanTables(config: StackConfig): string[] {
  const version = config.cluster.version;
  const versionNotice = newerKubernetesVersion(version)
    ? [
        `cluster.version: ${version} is newer than the versions recorded in stacks/schema/cluster.ts (${SUPPORTED_KUBERNETES_VERSIONS.join(", ")}, EKS's release calendar in ${KUBERNETES_VERSIONS_READ}): EKS answers at \`up\` whether it offers it; its end of standard support and its add-ons' default versions are not known here`,
      ]
    : [];
  const typeNotices = (config.nodeGroups ?? []).flatMap((group, index) =>
    group.instanceTypes.flatMap(
      (name, i) => unknownInstanceTypeNotice(`nodeGroups[${index}].instanceTypes[${i}]`, name) ?? [],
    ),
  );
  return [...versionNotice, ...typeNotices];
}
