/**
 * eks-calico: a VPC across availability zones, an EKS cluster on the amazon-vpc-cni, and Calico in
 * policy-only mode (from this program's manifests, or through the Tigera operator). Composition only: config comes from stacks/, resources from components/.
 */
import { CalicoPolicyOnly } from "./components/calico";
import { CalicoOperator } from "./components/calico/operator";
import { calicoOutputs } from "./components/calico/outputs";
import { Cluster, accessSummary } from "./components/cluster";
import { Network } from "./components/network";
import { loadStackSettings } from "./stacks";
import { carrySecretsIntoInputs, withSecretOutputs } from "./stacks/secrets";

export = async () => {
  // Validate every config key, and the AZ count against the region, before any resource exists.
  const settings = await loadStackSettings();
  // A value set with --secret stays secret in every input and output that holds it.
  carrySecretsIntoInputs(settings.secretLeaves);
  const zones = settings.zones;

  // VPC: a public and a private subnet per AZ, NAT per `network.natGateways`.
  const network = new Network("network", {
    cidr: settings.network.cidr,
    availabilityZones: zones,
    natGateways: settings.network.natGateways,
    tags: settings.resourceTags,
    protect: settings.protect,
  });

  // EKS with pinned add-ons (the VPC CNI's policy agent off), access entries and the managed node
  // groups, which start once the private subnets have egress.
  const cluster = new Cluster("cluster", {
    clusterName: settings.clusterName,
    region: settings.region,
    version: settings.cluster.version,
    vpcId: network.vpcId,
    publicSubnetIds: network.publicSubnetIds,
    privateSubnetIds: network.privateSubnetIds,
    nodeEgress: network.privateEgress,
    publicAccessCidrs: settings.cluster.publicAccessCidrs,
    logTypes: settings.cluster.logTypes,
    logRetentionDays: settings.cluster.logRetentionDays,
    addonVersions: {
      vpcCni: settings.cluster.addons.vpcCni.version,
      kubeProxy: settings.cluster.addons.kubeProxy.version,
      coreDns: settings.cluster.addons.coreDns.version,
    },
    access: settings.cluster.access,
    nodeGroups: settings.nodeGroups,
    tags: settings.resourceTags,
    protect: settings.protect,
  });

  // The enforcement probe runs again when the nodes change: a Kubernetes upgrade, new AMIs, instance
  // types, labels or taints. Sizes are left out: autoscalers own them, so they change no node.
  const probe = settings.calico.probe.enabled
    ? {
        registry: settings.calico.probe.registry,
        timeoutMinutes: settings.calico.probe.timeoutMinutes,
        nodes: {
          version: settings.cluster.version,
          groups: settings.nodeGroups.map(
            ({ minSize: _min, desiredSize: _desired, maxSize: _max, ...group }) => group,
          ),
        },
      }
    : undefined;

  // Calico for policy: Felix on every node, after the node groups (so its readiness await sees nodes)
  // and destroyed before them. Installed by this program's manifests, or by the Tigera operator.
  // The first update of a reinstall (README "Switching install mode") removes the deployed install only.
  const calico =
    settings.calicoStep === "remove-for-reinstall"
      ? undefined
      : settings.calico.installer === "operator"
        ? new CalicoOperator("calico", {
            provider: cluster.provider,
            nodes: cluster.nodeGroups,
            version: settings.calico.version,
            registry: settings.calico.registry,
            operatorRegistry: settings.calico.operatorRegistry,
            initialNodes: settings.initialNodes,
            maxUnavailable: settings.calico.maxUnavailable,
            apiServer: settings.calico.apiServer,
            observability: settings.calico.observability,
            readinessTimeoutMinutes: settings.calicoTimeoutMinutes,
            probe,
          })
        : new CalicoPolicyOnly("calico", {
            provider: cluster.provider,
            nodes: cluster.nodeGroups,
            namespace: settings.calico.namespace,
            version: settings.calico.version,
            registry: settings.calico.registry,
            autoscalerRegistry: settings.calico.autoscalerRegistry,
            initialNodes: settings.initialNodes,
            maxUnavailable: settings.calico.maxUnavailable,
            readinessTimeoutMinutes: settings.calicoTimeoutMinutes,
            probe,
          });

  return withSecretOutputs(
    {
      region: settings.region,
      vpcId: network.vpcId,
      publicSubnetIds: network.publicSubnetIds,
      privateSubnetIds: network.privateSubnetIds,
      clusterName: cluster.clusterName,
      kubeconfig: cluster.kubeconfig,
      nodeGroupNames: cluster.nodeGroupNames,
      // What application stacks read through a StackReference (IRSA roles, security group rules).
      clusterEndpoint: cluster.clusterEndpoint,
      clusterSecurityGroupId: cluster.clusterSecurityGroupId,
      oidcProviderArn: cluster.oidcProviderArn,
      oidcIssuerUrl: cluster.oidcIssuerUrl,
      nodeRoleArn: cluster.nodeRoleArn,
      // Who can use the Kubernetes API: the cluster's creator (EKS bootstrap admin) and cluster.access.
      clusterAccess: accessSummary(settings.cluster.access),
      // What `kubectl get daemonset calico-node` shows, how Calico was installed, and the enforcement proof.
      calico: calicoOutputs(calico),
    },
    settings.secretLeaves,
  );
};
