/**
 * eks-calico: a VPC across availability zones, an EKS cluster on the amazon-vpc-cni, and Calico in
 * policy-only mode. Composition only: config comes from stacks/, resources from components/.
 */
import { CalicoPolicyOnly } from "./components/calico";
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

  // Calico policy-only: Felix on every node. After the node groups, so its readiness await sees nodes,
  // and destroyed before them.
  const calico = new CalicoPolicyOnly("calico", {
    provider: cluster.provider,
    nodes: cluster.nodeGroups,
    namespace: settings.calico.namespace,
    version: settings.calico.version,
    registry: settings.calico.registry,
    autoscalerRegistry: settings.calico.autoscalerRegistry,
    initialNodes: settings.initialNodes,
    maxUnavailable: settings.calico.maxUnavailable,
    readinessTimeoutMinutes: settings.calicoTimeoutMinutes,
    probe: settings.calico.probe.enabled
      ? {
          registry: settings.calico.probe.registry,
          timeoutMinutes: settings.calico.probe.timeoutMinutes,
          // The probe runs again when the nodes change: a Kubernetes upgrade, new AMIs, instance types,
          // labels or taints. Sizes are left out: autoscalers own them, so they change no node.
          nodes: {
            version: settings.cluster.version,
            groups: settings.nodeGroups.map(
              ({ minSize: _min, desiredSize: _desired, maxSize: _max, ...group }) => group,
            ),
          },
        }
      : undefined,
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
      // What `kubectl get daemonset calico-node` shows: DESIRED, CURRENT, UP-TO-DATE, READY, AVAILABLE.
      calico: {
        namespace: calico.namespace,
        version: calico.version,
        desired: calico.desired,
        current: calico.current,
        updated: calico.updated,
        ready: calico.ready,
        available: calico.available,
        isReady: calico.isReady,
        typhaReplicas: calico.typhaReplicas,
        typhaReadyReplicas: calico.typhaReadyReplicas,
        // Proven, not assumed: a blocked and an admitted connection (false when the probe is off).
        policyEnforced: calico.policyEnforced,
        probe: calico.probe,
      },
    },
    settings.secretLeaves,
  );
};
