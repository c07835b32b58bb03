/**
 * eks-calico: a VPC across availability zones, an EKS cluster on the amazon-vpc-cni, and Calico in
 * policy-only mode (from this program's manifests, or through the Tigera operator); or, with
 * `cluster.existing` or `cluster.kubeconfig`, Calico alone on a cluster made elsewhere. Composition only:
 * config comes from stacks/, resources from components/.
 */
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { CalicoPolicyOnly } from "./components/calico";
import { CalicoOperator } from "./components/calico/operator";
import { calicoOutputs } from "./components/calico/outputs";
import { Cluster, accessSummary } from "./components/cluster";
import { partitionOf } from "./components/cluster/access";
import { Karpenter } from "./components/karpenter";
import { DISCOVERY_TAG } from "./components/karpenter/node-pools";
import { ExistingCluster } from "./components/existing-cluster";
import { KubeconfigCluster } from "./components/kubeconfig-cluster";
import { type ClusterAccess, adoptingProvider } from "./components/cluster/provider";
import { Network, type NetworkLayout, interfaceEndpoints, layoutOutput } from "./components/network";
import { type StackSettings, loadStackSettings } from "./stacks";
import type { CalicoProbeArgs } from "./components/calico/probe";
import type { AfterCalico } from "./components/kubernetes/after-calico";
import { vpcCniConfiguration } from "./components/cluster/addons";
import { carrySecretsIntoInputs, withSecretOutputs } from "./stacks/secrets";
import { sizedNodeGroups } from "./stacks/previous-scaling";
import { nodeGroupScalingOutput } from "./stacks/scaling-output";
import { addonsOutput } from "./stacks/addon-versions";
import { NETWORK_NAME } from "./stacks/collisions";
import { probeNodes } from "./stacks/probe-nodes";

// `today` is the date the EKS support and certificate checks read: the clock's under `pulumi`, which calls
// this with no argument; a fixed one when the offline engine evaluates a plan for a test.
export = async (today = new Date()) => {
  // Validate every config key, and the AZ count against the region, before any resource exists.
  const settings = await loadStackSettings(today);
  // A value set with --secret stays secret in every input and output that holds it.
  carrySecretsIntoInputs(settings.secretLeaves);
  if (settings.existingCluster !== undefined) return existingClusterStack(settings);
  if (settings.kubeconfigCluster !== undefined) return kubeconfigClusterStack(settings);
  const layout = settings.networkLayout as NetworkLayout;

  // VPC: a public and a private subnet per AZ, deployed ones kept as they are; NAT per `network.natGateways`,
  // VPC endpoints per `network.endpoints`.
  const network = new Network(NETWORK_NAME, {
    layout,
    natGateways: settings.network.natGateways,
    region: settings.region,
    endpoints: {
      s3: settings.network.endpoints.s3,
      interface: settings.network.endpoints.interface
        ? interfaceEndpoints({
            karpenter: settings.karpenter.enabled,
            podIdentity: settings.cluster.podIdentity,
          })
        : [],
    },
    tags: settings.resourceTags,
    protect: settings.protect,
    // Default routes a deployed stack still has inline, adopted unchanged (stacks/inline-routes.ts).
    adoptDefaultRoutes: settings.adoptDefaultRoutes,
    // Karpenter finds the nodes' subnets by this tag (components/karpenter/node-pools.ts).
    privateSubnetTags: settings.karpenter.enabled ? { [DISCOVERY_TAG]: settings.clusterName } : {},
  });

  // EKS with pinned add-ons (the VPC CNI's policy agent off), access entries and the managed node
  // groups, which start once the private subnets have egress.
  const cluster = new Cluster("cluster", {
    clusterName: settings.clusterName,
    region: settings.region,
    version: settings.cluster.version,
    upgradePolicy: settings.cluster.upgradePolicy,
    vpcId: network.vpcId,
    // Only the subnets of the AZs the cluster was created in: EKS takes no other AZ's (previous-network.ts).
    publicSubnetIds: network.clusterPublicSubnetIds,
    privateSubnetIds: network.clusterPrivateSubnetIds,
    nodeEgress: network.privateEgress,
    publicAccessCidrs: settings.cluster.publicAccessCidrs,
    logTypes: settings.cluster.logTypes,
    logRetentionDays: settings.cluster.logRetentionDays,
    // Pinned, or kept as deployed while cluster.version is unchanged (stacks/addon-versions.ts).
    addonVersions: settings.addonVersions,
    access: settings.cluster.access,
    runners: { cidrs: settings.deploy.runnerCidrs, securityGroupIds: settings.deploy.runnerSecurityGroupIds },
    nodeGroups: sizedNodeGroups(settings.nodeGroups, settings.nodeGroupSizing),
    vpcCni: settings.cluster.vpcCni,
    vpcCniPodIdentity: settings.cluster.podIdentity,
    // The agent hands out the roles of EKS Pod Identity: the VPC CNI's with cluster.podIdentity, Karpenter's.
    podIdentityAgent: settings.cluster.podIdentity || settings.karpenter.enabled,
    tags: settings.resourceTags,
    protect: settings.protect,
  });

  // The enforcement probe runs again on new nodes (a replaced node group, every node rolled) and on
  // labels or taints changed on the running ones: exactly the changes of stacks/probe-nodes.ts.
  const probe = probeArgs(
    settings,
    probeNodes(settings.cluster.version, settings.resourceTags, settings.nodeGroups),
    vpcCniConfiguration(settings.cluster.vpcCni),
  );

  const calico = installCalico(settings, cluster, cluster.nodeGroups, probe);

  // Karpenter's AWS side and NodePools, on the managed node groups (components/karpenter).
  const karpenter = settings.karpenter.enabled
    ? new Karpenter("karpenter", {
        clusterName: cluster.clusterName,
        region: settings.region,
        partition: partitionOf(settings.region),
        nodePools: settings.karpenter.nodePools,
        // One replica per node (required anti-affinity): 2 unless the groups keep fewer nodes.
        controllerReplicas: Math.min(
          2,
          Math.max(
            1,
            settings.nodeGroups.reduce((sum, g) => sum + g.minSize, 0),
          ),
        ),
        provider: cluster.provider,
        nodes: cluster.nodeGroups,
        clusterSecurityGroupId: cluster.clusterSecurityGroupId,
        tags: settings.resourceTags,
      })
    : undefined;

  return withSecretOutputs(
    {
      region: settings.region,
      vpcId: network.vpcId,
      publicSubnetIds: network.publicSubnetIds,
      privateSubnetIds: network.privateSubnetIds,
      // The VPC's CIDR, each AZ's subnets and the cluster's AZs: the next update keeps them.
      network: layoutOutput(layout),
      clusterName: cluster.clusterName,
      // The version EKS runs the control plane at, as the last update or refresh read it.
      kubernetesVersion: cluster.kubernetesVersion,
      // What each add-on runs, and for which Kubernetes version: the next update keeps it.
      addons: addonsOutput(settings.cluster, cluster.addonVersions),
      // The cluster's upgrade policy: the next update keeps it once the version is past standard support.
      upgradePolicy: settings.cluster.upgradePolicy,
      kubeconfig: cluster.kubeconfig,
      nodeGroupNames: cluster.nodeGroupNames,
      // Each node group's EKS name and sizes as deployed: the next update keeps the desired size it runs at.
      nodeGroupScaling: nodeGroupScalingOutput(
        settings.nodeGroups,
        settings.nodeGroupSizing,
        cluster.nodeGroups,
      ),
      // What application stacks read through a StackReference (IRSA roles, security group rules).
      clusterEndpoint: cluster.clusterEndpoint,
      clusterSecurityGroupId: cluster.clusterSecurityGroupId,
      oidcProviderArn: cluster.oidcProviderArn,
      oidcIssuerUrl: cluster.oidcIssuerUrl,
      nodeRoleArn: cluster.nodeRoleArn,
      // Who can use the Kubernetes API: the cluster's creator (EKS bootstrap admin) and cluster.access.
      clusterAccess: accessSummary(settings.cluster.access, settings.clusterCreator),
      // The principal EKS made cluster admin at creation, recorded by the first `pulumi up` (stacks/creator.ts).
      ...(settings.clusterCreator === undefined ? {} : { clusterCreator: settings.clusterCreator }),
      // What `kubectl get daemonset calico-node` shows, how Calico was installed, and the enforcement proof.
      calico: calicoOutputs(calico),
      // Karpenter's node role and interruption queue, when it is on.
      ...(karpenter === undefined
        ? {}
        : { karpenter: { nodeRoleArn: karpenter.nodeRoleArn, interruptionQueue: karpenter.queueName } }),
    },
    settings.secretLeaves,
  );
};

/** Calico alone, on the EKS cluster `cluster.existing` names: no VPC, cluster or node groups. */
function existingClusterStack(settings: StackSettings) {
  const { config, facts } = settings.existingCluster as NonNullable<StackSettings["existingCluster"]>;
  // The VPC CNI's configuration (when it is an EKS add-on), then Calico on the cluster's nodes.
  const cluster = new ExistingCluster("cluster", {
    facts,
    region: settings.region,
    tags: settings.resourceTags,
    // The first update of a reinstall runs no Calico: the agent is left as it is until Calico runs again.
    networkPolicyAgent: settings.calicoStep === "remove-for-reinstall" ? "on" : config.networkPolicyAgent,
  });
  // The probe runs again when the control plane's Kubernetes version changes; the nodes are not this
  // stack's, so their changes are not seen. While the VPC CNI's agent enforces the same policies beside
  // Calico, a blocked connection proves nothing about Calico: the probe waits until the agent is off.
  const probe = cluster.agentKeptOn
    ? undefined
    : probeArgs(
        settings,
        { version: facts.version, existingCluster: config.name },
        cluster.vpcCniConfiguration,
      );
  const calico = installCalico(settings, cluster, cluster.calicoAfter, probe, cluster.afterCalico);
  return withSecretOutputs(
    {
      region: settings.region,
      clusterName: cluster.clusterName,
      kubeconfig: cluster.kubeconfig,
      clusterEndpoint: cluster.clusterEndpoint,
      // How the cluster's VPC CNI is installed, and what this stack changed in its configuration.
      vpcCni: cluster.vpcCni,
      calico: calicoOutputs(calico),
    },
    settings.secretLeaves,
  );
}

/** Calico alone, on the cluster a kubeconfig file reaches (`cluster.kubeconfig`): no AWS call or resource. */
function kubeconfigClusterStack(settings: StackSettings) {
  const { facts } = settings.kubeconfigCluster as NonNullable<StackSettings["kubeconfigCluster"]>;
  // The Kubernetes provider for the file's context; the cluster, its nodes and its VPC CNI are the user's.
  const cluster = new KubeconfigCluster("cluster", {
    kubeconfig: facts.kubeconfig,
    context: facts.context,
    server: facts.server,
  });
  // No version is known without asking the cluster and the nodes are not this stack's: the probe runs
  // again when the stack points at another cluster (the provider's identifier).
  const probe = probeArgs(settings, { kubeconfigCluster: facts.server });
  // Nothing of this stack's must run before Calico.
  const calico = installCalico(settings, cluster, [], probe);
  return withSecretOutputs(
    {
      clusterEndpoint: cluster.clusterEndpoint,
      kubeconfigContext: cluster.context,
      // The kubeconfig is not exported: it holds the user's credentials, and the user has the file.
      calico: calicoOutputs(calico),
    },
    settings.secretLeaves,
  );
}

/**
 * The enforcement probe as configured, run again whenever `nodes` (a description) or the configuration
 * values of a VPC CNI add-on this stack owns change.
 */
function probeArgs(settings: StackSettings, nodes: unknown, vpcCni?: string): CalicoProbeArgs | undefined {
  if (!settings.calico.probe.enabled) return undefined;
  return {
    registry: settings.calico.probe.registry,
    timeoutMinutes: settings.calico.probe.timeoutMinutes,
    nodes,
    ...(vpcCni === undefined ? {} : { vpcCni }),
  };
}

/**
 * Calico for policy: Felix on every node, after `after` (the node groups, so its readiness await sees
 * nodes) and destroyed before them. Installed by this program's manifests, or by the Tigera operator. The
 * first update of a reinstall (docs/install-modes.md) removes the deployed install only.
 */
function installCalico(
  settings: StackSettings,
  cluster: { provider: k8s.Provider; access: ClusterAccess },
  after: pulumi.Resource[],
  probe: CalicoProbeArgs | undefined,
  afterCalico?: AfterCalico,
): CalicoPolicyOnly | CalicoOperator | undefined {
  if (settings.calicoStep === "remove-for-reinstall") return undefined;
  // `calico.adopt`: Calico's objects take over those that exist (docs/adoption.md);
  // the probe keeps the ordinary provider. Both manage the same cluster (same kubeconfig,
  // context and cluster identifier), so turning adoption off moves the objects back without replacing them.
  const provider = settings.calico.adopt
    ? adoptingProvider("calico-adopt", cluster.access, {})
    : cluster.provider;
  const common = {
    provider,
    nodes: after,
    version: settings.calico.version,
    registry: settings.calico.registry,
    initialNodes: settings.initialNodes,
    minNodes: settings.minNodes,
    maxUnavailable: settings.calico.maxUnavailable,
    readinessTimeoutMinutes: settings.calicoTimeoutMinutes,
    cleanupTimeoutMinutes: settings.calico.cleanupTimeoutMinutes,
    probe: probe === undefined || !settings.calico.adopt ? probe : { ...probe, provider: cluster.provider },
    afterCalico,
    access: cluster.access,
  };
  return settings.calico.installer === "operator"
    ? new CalicoOperator("calico", {
        ...common,
        operatorRegistry: settings.calico.operatorRegistry,
        apiServer: settings.calico.apiServer,
        observability: settings.calico.observability,
        startupTaintRegistry: settings.calico.startupTaintRegistry,
      })
    : new CalicoPolicyOnly("calico", {
        ...common,
        namespace: settings.calico.namespace,
        autoscalerRegistry: settings.calico.autoscalerRegistry,
        startupTaintRegistry: settings.calico.startupTaintRegistry,
        felix: settings.calico.felix,
        adopt: settings.calico.adopt,
        deployedVersion: settings.calicoDeployedVersion,
      });
}
