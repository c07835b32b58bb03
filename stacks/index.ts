/**
 * The typed config layer: the only code that reads `pulumi.Config`. It turns a stack's configuration
 * into validated settings, or raises a ConfigError listing every problem before any resource exists.
 */
import * as pulumi from "@pulumi/pulumi";
import { deployedUpgradePolicy, upgradePolicyFor } from "./support";
import {
  CONFIG_NAMESPACE,
  ConfigError,
  type ConfigProblem,
  hideSecretValues,
  maskedProblem,
  problemsFromIssues,
} from "./problems";
import { namespaceValues } from "./config-values";
import { regionProblems } from "./region";
import { clusterNameFor, nameCollisions, projectDirectory, siblingStacks } from "./collisions";
import { type SecretLeaf, secretLeaves, secretNameProblems } from "./secrets";
import {
  type ExistingClusterConfig,
  type KubeconfigClusterConfig,
  type NodeGroupConfig,
  type ClusterConfig,
  type StackConfig,
  type UpgradePolicy,
  clusterSchema,
  clusterModeProblems,
  isKubeconfigStack,
  registryAddressProblems,
  knownKeysAt,
  maxRolloutNodes,
  stackConfigSchema,
} from "./schema";
import { derivedTimeoutMinutes, estimateRollout } from "../components/calico/rollout";
import { type CalicoStep, calicoStep, certificateNotice, lineNotice, previousCalico } from "./previous";
import { deployedCalicoVersion, rolloutProblems } from "./calico-rollout";
import { type PreviousOutputs, readPreviousOutputs } from "./previous-outputs";
import { type ExistingClusterFacts, readExistingCluster } from "./existing";
import { clusterCreator, creatorAccessProblems } from "./creator";
import { clusterReplacementProblems, deployedCluster } from "./deployed-cluster";
import { NO_READS, deployedReads } from "./deployed-reads";
import { resolveAmiReleases } from "./ami-releases";
import type { AddonVersions } from "../components/cluster/addons";
import { kindChangeProblems } from "./stack-kind";
import { type KubeconfigClusterFacts, readKubeconfigCluster } from "./kubeconfig";
import type { NetworkLayout } from "../components/network/layout";
import { networkLayout } from "./previous-network";
import type { RegionZones } from "./zones";
import { availabilityZones, zoneRequest } from "./region-zones";
import { layoutPodAddressProblems } from "./schema/pod-addresses";
import { nodePodSettings } from "./schema/pod-capacity";
import { groupNodes, podPlacementProblems } from "./pod-placement";
import { nodeCapacity } from "./node-capacity";
import { stackNotices } from "./stack-notices";
import { privateNetworkProblems } from "./private-network";
import { zoneCount } from "./schema/network";
import { karpenterNodeBounds } from "./schema/karpenter";
import { isRecord } from "./schema/records";
import { type NodeGroupSizing, keptNodes, nodeGroupSizing, runningNodes } from "./previous-scaling";

export { CONFIG_NAMESPACE, ConfigError, type ConfigProblem } from "./problems";
export * from "./schema";

// EKS cluster names: letters, digits, '-' and '_', starting with a letter or digit, at most 100.
const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** Validated configuration plus what follows from the stack itself. */
export interface StackSettings extends Omit<StackConfig, "nodeGroups" | "cluster"> {
  /** `cluster`, its upgrade policy chosen for the version on the day (stacks/support.ts). */
  readonly cluster: StackConfig["cluster"] & { readonly upgradePolicy: UpgradePolicy };
  readonly project: string;
  readonly stack: string;
  readonly region: string;
  /** The EKS cluster's name: `<project>-<stack>`, the existing cluster's, or the kubeconfig context's. */
  readonly clusterName: string;
  /** The node groups this stack creates; none on an existing cluster. */
  readonly nodeGroups: NodeGroupConfig[];
  /** The add-ons' versions: pinned, or kept as deployed (addon-versions.ts); unset: EKS's default. */
  readonly addonVersions: AddonVersions;
  /** Route table ids by table name whose inline default route this update adopts (inline-routes.ts). */
  readonly adoptDefaultRoutes: Readonly<Record<string, string>>;
  /** Per node group name: its desired size on this update and the nodes it runs (previous-scaling.ts). */
  readonly nodeGroupSizing: Readonly<Record<string, NodeGroupSizing>>;
  /**
   * `cluster.existing`, and what AWS shows of that cluster: Calico only, on a cluster made elsewhere; no
   * VPC, cluster or node groups.
   */
  readonly existingCluster?: { readonly config: ExistingClusterConfig; readonly facts: ExistingClusterFacts };
  /**
   * `cluster.kubeconfig`, and what its file shows: Calico only, on the cluster a kubeconfig reaches; no AWS
   * call or resource at all.
   */
  readonly kubeconfigCluster?: {
    readonly config: KubeconfigClusterConfig;
    readonly facts: KubeconfigClusterFacts;
  };
  /** Tags for every AWS resource: the config's tags plus project and stack. */
  readonly resourceTags: Record<string, string>;
  /** The outputs of the stack's last update that this one depends on; empty for a new stack. */
  readonly previous: PreviousOutputs;
  /**
   * The cluster's creator, EKS's own admin (stacks/creator.ts); unknown until the `up` that creates the
   * cluster records it.
   */
  readonly clusterCreator?: string;
  /** Install the configured Calico, or (first half of a reinstall) remove the deployed one. */
  readonly calicoStep: CalicoStep;
  /**
   * The release the deployed install of the configured mode runs, undefined when Calico is installed anew:
   * it decides whether Typha or calico-node rolls first (stacks/calico-rollout.ts).
   */
  readonly calicoDeployedVersion?: string;
  /**
   * Nodes the node groups run once the update is done: desiredSize summed over new groups, the desired
   * size AWS shows for deployed ones; 1 on a cluster made elsewhere.
   */
  readonly initialNodes: number;
  /** The fewest nodes the cluster keeps: the node groups' minSize summed, or `minNodes` elsewhere. */
  readonly minNodes: number;
  /** How long `pulumi up` waits for Calico: `calico.readinessTimeoutMinutes`, or derived from the rollout. */
  readonly calicoTimeoutMinutes: number;
  /**
   * The AZ names to use: a deployed stack's AZs plus any added, else the first `network.availabilityZones`
   * the region offers now without opt-in (none on
   * an existing cluster).
   */
  readonly zones: string[];
  /**
   * The VPC's CIDR, each AZ's subnets and the AZs the cluster was created in: a new stack's from the
   * per-AZ slots, a deployed stack's as deployed plus any added AZ (previous-network.ts); none on a
   * cluster made elsewhere.
   */
  readonly networkLayout?: NetworkLayout;
  /**
   * The strings and numbers of the keys set with --secret: resource inputs and stack outputs that hold
   * one are marked secret (stacks/secrets.ts).
   */
  readonly secretLeaves: SecretLeaf[];
}

/** Validates the `eks-calico:*` keys (already JSON-decoded); every problem at once. */
export function validateConfig(
  raw: Record<string, unknown>,
): { ok: true; config: StackConfig } | { ok: false; problems: ConfigProblem[] } {
  const parsed = stackConfigSchema.safeParse(raw, { reportInput: true });
  const problems = [
    ...(parsed.success ? [] : problemsFromIssues(parsed.error.issues, (at) => knownKeysAt(at))),
    ...clusterModeProblems(raw),
    ...registryAddressProblems(raw),
  ];
  return parsed.success && problems.length === 0
    ? { ok: true, config: parsed.data }
    : { ok: false, problems };
}

/**
 * The `eks-calico:*` keys set with `pulumi config set --secret`. `allConfig()` gives their plain text
 * and drops the flag; the SDK's `runtime.isConfigSecret` (sdk/nodejs/runtime/config.ts, not in its
 * typings) reads the key list the CLI passes beside the config (PULUMI_CONFIG_SECRET_KEYS), or the one
 * given to `setAllConfig` under the mock runtime.
 */
function secretKeys(keys: readonly string[]): Set<string> {
  const runtime = pulumi.runtime as unknown as { isConfigSecret?: (key: string) => boolean };
  const listed = new Set<string>();
  try {
    const fromEnv = JSON.parse(process.env.PULUMI_CONFIG_SECRET_KEYS ?? "[]") as unknown;
    if (Array.isArray(fromEnv)) fromEnv.forEach((k) => typeof k === "string" && listed.add(k));
  } catch {
    // An unreadable list marks nothing; the runtime's own check below still applies.
  }
  return new Set(
    keys.filter((key) => {
      const full = `${CONFIG_NAMESPACE}:${key}`;
      return listed.has(full) || runtime.isConfigSecret?.(full) === true;
    }),
  );
}

/** The `eks-calico:*` keys of the stack's config, decoded (structured values arrive as JSON). */
function readNamespace(): Record<string, unknown> {
  return namespaceValues(pulumi.runtime.allConfig(), CONFIG_NAMESPACE);
}

/**
 * Reads and validates the current stack's configuration, and checks the AZ count against the region
 * (the only check that asks AWS) and what EKS supports on `today`. Throws one ConfigError with every problem,
 * before any resource exists.
 */
export async function loadStackSettings(today: Date): Promise<StackSettings> {
  const project = pulumi.getProject();
  const stack = pulumi.getStack();
  const raw = readNamespace();
  const validated = validateConfig(raw);
  const secrets = secretKeys(Object.keys(raw));
  // A kubeconfig stack's file and context, checked with the keys: every problem at once.
  const kubeconfig = await readKubeconfigCluster(raw, projectDirectory(), secrets.has("cluster"));
  // A value set with --secret is never echoed: its problems say which key and rule, not the value.
  const problems: ConfigProblem[] = [...(validated.ok ? [] : validated.problems), ...kubeconfig.problems].map(
    (p) => (secrets.has(p.path.split(/[.[]/)[0]) ? maskedProblem(p) : p),
  );
  if (validated.ok) problems.push(...secretNameProblems(validated.config, secrets));

  // A kubeconfig stack asks AWS nothing and names nothing in it: no region, cluster name or zones (an
  // aws:region set anyway is not used).
  const awsFree = isKubeconfigStack(raw);
  const region = new pulumi.Config("aws").get("region") ?? "";
  if (!awsFree) problems.push(...regionProblems(region, validated.ok ? validated.config : undefined));
  if (!awsFree && validated.ok) problems.push(...privateNetworkProblems(validated.config, region));
  const existing = validated.ok ? validated.config.cluster.existing : undefined;
  const elsewhere = existing ?? (validated.ok ? validated.config.cluster.kubeconfig : undefined);
  const clusterName = existing?.name ?? kubeconfig.facts?.context ?? clusterNameFor(project, stack);
  if (!awsFree && existing === undefined && !CLUSTER_NAME.test(clusterName)) {
    problems.push({
      path: "(stack name)",
      value: stack,
      rule: `gives the EKS cluster name "${clusterName}", which must be 1-100 letters, digits, '-' or '_'`,
    });
  }
  // An existing cluster is another program's: no names of ours to collide, no VPC to place.
  const siblings = siblingStacks(projectDirectory());
  if (!awsFree && region !== "" && existing === undefined) {
    problems.push(...nameCollisions(project, stack, region, siblings));
  }
  let regionZones: RegionZones = { region, all: [], offered: [] };
  // Asked only for a usable region (one problem per key is enough).
  if (!awsFree && existing === undefined && !problems.some((p) => p.path === "aws:region")) {
    const result = await availabilityZones(region);
    if ("problem" in result) problems.push(result.problem);
    else regionZones = result;
    // Told with every other problem: no request can have more AZs than the region has in any state.
    const wanted = isRecord(raw.network) ? zoneCount(raw.network) : undefined;
    const all = regionZones.all.map((zone) => zone.name);
    const counted = problems.some((p) => p.path.startsWith("network.availabilityZones"));
    if (!counted && typeof wanted === "number" && all.length > 0 && wanted > all.length) {
      problems.push({
        path: "network.availabilityZones",
        value: wanted,
        rule: `must be at most ${all.length}: ${region} offers ${all.join(", ")}`,
      });
    }
  }
  // A change of install mode or of the upgrade policy depends on what is deployed: the stack's last outputs.
  const previous = await readPreviousOutputs();
  // The upgrade policy EKS accepts for the version today, told with every other problem.
  // The cluster keys alone when another key is wrong: their problem is told with the others'.
  const clusterKeys = validated.ok
    ? validated.config.cluster
    : clusterSchema.safeParse(raw.cluster ?? {}).data;
  const policy =
    clusterKeys !== undefined && clusterKeys.existing === undefined && clusterKeys.kubeconfig === undefined
      ? upgradePolicyOf(clusterKeys, previous, today)
      : undefined;
  if (policy !== undefined && "problem" in policy) problems.push(policy.problem);
  if (!validated.ok || problems.length > 0) throw new ConfigError(stack, problems);

  const config = validated.config;
  const upgradePolicy = policy !== undefined && "policy" in policy ? policy.policy : "STANDARD";
  // A renamed stack or a new region would replace the deployed cluster: refused alone, since every later
  // check reads AWS by the cluster's name in the region, which would name a cluster the stack does not have.
  // So would a stack file rewritten as another kind of stack (stack-kind.ts).
  const kindChange = kindChangeProblems(previous, config.cluster);
  const replacing =
    kindChange.length > 0
      ? kindChange
      : elsewhere === undefined
        ? clusterReplacementProblems(deployedCluster(previous), project, stack, region)
        : [];
  if (replacing.length > 0) throw new ConfigError(stack, replacing);
  const deployed = previousCalico(previous);
  const step = calicoStep(deployed, config.calico);
  const installs = "step" in step && step.step === "install";
  const deployedVersion = installs ? deployedCalicoVersion(deployed, config.calico) : undefined;
  const expiring = certificateNotice(previous, today);
  if (expiring !== undefined) void pulumi.log.warn(expiring);
  const lineChange = installs ? lineNotice(deployed, config.calico) : undefined;
  if (lineChange !== undefined) void pulumi.log.warn(lineChange);
  // The network keeps what is deployed, and refuses what EKS cannot change in place (previous-network.ts).
  const network =
    elsewhere !== undefined
      ? { layout: undefined, notices: [] }
      : networkLayout(config.network.cidr, zoneRequest(config.network), regionZones, previous);
  const notices = [...("notices" in network ? network.notices : []), ...kubeconfig.notices];
  notices.forEach((notice) => void pulumi.log.warn(notice));
  // The Region's quotas the stack files share, extended support, newer values, Karpenter, no NAT.
  if (elsewhere === undefined) {
    stackNotices(config, { stack, region, siblings, upgradePolicy, today }).forEach(
      (notice) => void pulumi.log.warn(notice),
    );
  }
  // The cluster's version, the add-ons and the inline routes a deployed full stack has (deployed-reads.ts).
  const reads = elsewhere === undefined ? await deployedReads(config, previous, clusterName) : NO_READS;
  reads.notices.forEach((notice) => void pulumi.log.warn(notice));
  const layout = "layout" in network ? network.layout : undefined;
  const { groups: nodeGroups, problems: amiReleases } = await resolveAmiReleases(config);
  // Deployed node groups keep the desired size they run at; a change of their size range may need to set it.
  const sizing = await nodeGroupSizing(nodeGroups, previous, clusterName);
  // The principal EKS made admin at creation may not be listed in cluster.access again (stacks/creator.ts).
  const creator = elsewhere === undefined ? await clusterCreator(previous, clusterName) : { notices: [] };
  creator.notices.forEach((notice) => void pulumi.log.warn(notice));
  // Every node's pod addresses, at the sizes the groups run and at maxSize, in the cluster's subnets.
  const capacity =
    layout === undefined
      ? { problems: [], warnings: [] }
      : nodeCapacity(
          nodeGroups.map((g) => ({
            name: g.name,
            instanceTypes: g.instanceTypes,
            configured: "sizing" in sizing ? sizing.sizing[g.name].configured : g.desiredSize,
            nodes: "sizing" in sizing ? sizing.sizing[g.name].nodes : g.desiredSize,
            maxSize: g.maxSize,
          })),
          layout,
          config.cluster.vpcCni.prefixDelegation,
        );
  capacity.warnings.forEach((warning) => void pulumi.log.warn(warning));
  // Every pod the install waits for needs a group with nodes whose taints it tolerates.
  const podSettings = nodePodSettings(config, nodeGroups);
  const placement =
    "sizing" in sizing && podSettings !== undefined
      ? podPlacementProblems(
          groupNodes(nodeGroups, (g) => sizing.sizing[g.name].nodes),
          podSettings,
        )
      : [];
  // Every change the deployed stack cannot take, at once; a value set with --secret is not echoed.
  const deployedProblems = [
    ...("problems" in step ? step.problems : []),
    // A new release that no order of Typha and calico-node can roll out with every Felix connected.
    ...(installs ? rolloutProblems(deployed, config.calico) : []),
    ...("problems" in network ? network.problems : []),
    // Node groups' pod addresses against the deployed private subnets they get (a new stack's slots: the schema).
    ...(layout === undefined || previous.network === undefined
      ? []
      : layoutPodAddressProblems(nodeGroups, layout, config.cluster.vpcCni.prefixDelegation)),
    ...("problems" in sizing ? sizing.problems : []),
    ...capacity.problems,
    ...placement,
    ...creatorAccessProblems(creator.creator, config.cluster.access),
    ...reads.problems,
    ...amiReleases,
  ];
  if ("problems" in step || "problems" in network || "problems" in sizing || deployedProblems.length > 0) {
    throw new ConfigError(stack, hideSecretValues(deployedProblems, secretLeaves(raw, secrets)));
  }
  // A cluster made elsewhere has its rollout sized as one group of its maxNodes; Karpenter at its limits.
  const rolloutGroups =
    elsewhere === undefined
      ? [...nodeGroups, ...karpenterNodeBounds(config.karpenter)]
      : [{ maxSize: elsewhere.maxNodes }];
  return {
    ...config,
    cluster: { ...config.cluster, upgradePolicy },
    project,
    stack,
    region,
    clusterName,
    resourceTags: { ...config.tags, "pulumi:project": project, "pulumi:stack": stack },
    nodeGroups,
    nodeGroupSizing: sizing.sizing,
    addonVersions: reads.addonVersions,
    adoptDefaultRoutes: reads.adoptDefaultRoutes,
    ...(existing === undefined
      ? {}
      : {
          existingCluster: {
            config: existing,
            facts: await readExistingCluster(stack, region, existing, config.calico, previous.vpcCni),
          },
        }),
    ...(config.cluster.kubeconfig === undefined || kubeconfig.facts === undefined
      ? {}
      : { kubeconfigCluster: { config: config.cluster.kubeconfig, facts: kubeconfig.facts } }),
    // On a cluster made elsewhere the node count is not known before `up`: Typha starts at the size of
    // the fewest nodes it keeps, which schedules there, and its autoscaler follows the nodes there are.
    initialNodes: elsewhere === undefined ? runningNodes(sizing.sizing) : elsewhere.minNodes,
    minNodes: elsewhere === undefined ? keptNodes(nodeGroups) : elsewhere.minNodes,
    calicoTimeoutMinutes:
      config.calico.readinessTimeoutMinutes ??
      derivedTimeoutMinutes(estimateRollout(maxRolloutNodes(rolloutGroups), config.calico.maxUnavailable)),
    zones: network.layout?.zones.map((z) => z.zone) ?? [],
    networkLayout: network.layout,
    secretLeaves: secretLeaves(raw, secrets),
    calicoStep: step.step,
    ...(deployedVersion === undefined ? {} : { calicoDeployedVersion: deployedVersion }),
    previous,
    ...(creator.creator === undefined ? {} : { clusterCreator: creator.creator }),
  };
}

/** The upgrade policy of a stack that makes its cluster, as EKS accepts it on `today` (stacks/support.ts). */
function upgradePolicyOf(cluster: ClusterConfig, previous: PreviousOutputs, today: Date) {
  const configured = cluster.upgradePolicy;
  const deployed = deployedUpgradePolicy(previous, configured);
  return upgradePolicyFor({ version: cluster.version, configured, deployed, today });
}
