/**
 * eks-calico: a VPC across availability zones, an EKS cluster on the amazon-vpc-cni, and Calico in
 * policy-only mode. Composition only: config comes from stacks/, resources from components/.
 */
import { Cluster } from "./components/cluster";
import { Network } from "./components/network";
import { loadStackSettings, resolveAvailabilityZones } from "./stacks";

export = async () => {
  // Validate every config key, and the AZ count against the region, before any resource exists.
  const settings = loadStackSettings();
  const zones = await resolveAvailabilityZones(settings);

  // VPC: a public and a private subnet per AZ, NAT per `network.natGateways`.
  const network = new Network("network", {
    cidr: settings.network.cidr,
    availabilityZones: zones,
    natGateways: settings.network.natGateways,
    tags: settings.resourceTags,
    protect: settings.protect,
  });

  // EKS with the VPC CNI add-on (its policy agent off) and the managed node groups.
  const cluster = new Cluster("cluster", {
    clusterName: settings.clusterName,
    version: settings.cluster.version,
    vpcId: network.vpcId,
    publicSubnetIds: network.publicSubnetIds,
    privateSubnetIds: network.privateSubnetIds,
    publicAccessCidrs: settings.cluster.publicAccessCidrs,
    logTypes: settings.cluster.logTypes,
    nodeGroups: settings.nodeGroups,
    tags: settings.resourceTags,
    protect: settings.protect,
  });

  return {
    vpcId: network.vpcId,
    publicSubnetIds: network.publicSubnetIds,
    privateSubnetIds: network.privateSubnetIds,
    clusterName: cluster.clusterName,
    kubeconfig: cluster.kubeconfig,
    nodeGroupNames: cluster.nodeGroupNames,
  };
};
