/**
 * What a full stack reads from AWS about what it deployed, beyond its last outputs: the Kubernetes version
 * its cluster runs (version-step.ts), EKS's add-on defaults against the versions it keeps
 * (addon-versions.ts), and the default routes still inline in its route tables (inline-routes.ts). One
 * problem list and one notice list, told with every other problem before any resource.
 */
import type { AddonVersions } from "../components/cluster/addons";
import { addonVersionsFor } from "./addon-versions";
import { deployedCluster } from "./deployed-cluster";
import { inlineRoutes } from "./inline-routes";
import type { PreviousOutputs } from "./previous-outputs";
import type { ConfigProblem } from "./problems";
import type { StackConfig } from "./schema";
import { runningVersion, versionStepProblem } from "./version-step";

export interface DeployedReads {
  /** The add-ons' versions: pinned, or kept as deployed; unset ones take EKS's default. */
  readonly addonVersions: AddonVersions;
  /** Route table ids by table name whose inline default route this update adopts. */
  readonly adoptDefaultRoutes: Readonly<Record<string, string>>;
  readonly problems: ConfigProblem[];
  readonly notices: string[];
}

/** A stack on a cluster made elsewhere reads none of it. */
export const NO_READS: DeployedReads = {
  addonVersions: {},
  adoptDefaultRoutes: {},
  problems: [],
  notices: [],
};

/** The reads of a full stack, `clusterName` its cluster (a new stack reads only the add-on pins). */
export async function deployedReads(
  config: Pick<StackConfig, "cluster" | "network">,
  previous: PreviousOutputs,
  clusterName: string,
): Promise<DeployedReads> {
  const running = deployedCluster(previous) === undefined ? undefined : await runningVersion(clusterName);
  const step =
    running !== undefined && "version" in running
      ? versionStepProblem(config.cluster.version, running.version)
      : undefined;
  const addons = await addonVersionsFor(config.cluster, previous);
  const routes = await inlineRoutes(previous, config.network.natGateways);
  return {
    addonVersions: addons.versions,
    adoptDefaultRoutes: routes.adopt,
    problems: [...(step === undefined ? [] : [step]), ...routes.problems],
    notices: [
      ...(running !== undefined && "notice" in running ? [running.notice] : []),
      ...addons.notices,
      ...routes.notices,
    ],
  };
}
