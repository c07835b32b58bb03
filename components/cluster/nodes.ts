/**
 * The nodes: the IAM role they assume, and per node group a launch template and an EKS managed node
 * group. Pulumi wiring only; the values come from nodegroups.ts, ami-types.ts and policies.ts.
 */
import * as aws from "@pulumi/aws";
import * as eks from "@pulumi/eks";
import * as pulumi from "@pulumi/pulumi";
import { type NodeGroupSpec, launchBlockDevices, launchTagSpecifications, toEksTaints } from "./nodegroups";
import { NODE_METADATA_OPTIONS, ec2TrustPolicy, nodeRolePolicies } from "./policies";
import type { Partition } from "./partitions";

export interface NodeRole {
  role: aws.iam.Role;
  /** The managed-policy attachments: node groups wait for them and are deleted before them. */
  attachments: aws.iam.RolePolicyAttachment[];
}

/** The IAM role EC2 worker nodes assume, with the managed policies nodes need. */
export function createNodeRole(
  parent: pulumi.Resource,
  name: string,
  tags: Record<string, string>,
  partition: Partition,
): NodeRole {
  const role = new aws.iam.Role(`${name}-node`, { assumeRolePolicy: ec2TrustPolicy(), tags }, { parent });
  const attachments = nodeRolePolicies(partition).map((policyArn) => {
    const policyName = policyArn.split("/").pop() ?? policyArn;
    return new aws.iam.RolePolicyAttachment(
      `${name}-node-${policyName}`,
      { role: role.name, policyArn },
      { parent },
    );
  });
  return { role, attachments };
}

export interface NodeGroupWiring {
  cluster: eks.Cluster;
  clusterName: string;
  /** Kubernetes minor version: node groups follow the control plane on every upgrade. */
  version: string;
  nodeRole: NodeRole;
  subnetIds: pulumi.Input<string[]>;
  tags: Record<string, string>;
  /** What must exist before nodes start and outlive them: add-ons, private routes, role policies. */
  dependsOn: pulumi.Resource[];
}

/**
 * A managed node group on its own launch template: IMDSv2 only with hop limit 1, an encrypted gp3 data
 * volume, and the stack's tags on instances, volumes and network interfaces. The template sets no AMI,
 * so EKS picks the AMI from `amiType`, `version` and, when set, `releaseVersion`.
 */
export function createNodeGroup(
  parent: pulumi.Resource,
  resourceName: string,
  group: NodeGroupSpec,
  shared: NodeGroupWiring,
): eks.ManagedNodeGroup {
  const launchTemplate = new aws.ec2.LaunchTemplate(
    resourceName,
    {
      description: `Nodes of node group ${group.name}: IMDSv2 required, hop limit 1, encrypted gp3`,
      metadataOptions: NODE_METADATA_OPTIONS,
      blockDeviceMappings: launchBlockDevices(group),
      tagSpecifications: launchTagSpecifications(shared.tags, `${shared.clusterName}-${group.name}`),
      updateDefaultVersion: true,
      tags: shared.tags,
    },
    { parent },
  );
  return new eks.ManagedNodeGroup(
    resourceName,
    {
      cluster: shared.cluster,
      nodeRole: shared.nodeRole.role,
      subnetIds: shared.subnetIds,
      // @pulumi/eks copies the cluster's version only to node groups without a launch template
      // (nodes/nodegroup.ts in pulumi/pulumi-eks v4.3.0): without this, a cluster upgrade leaves the
      // nodes behind and EKS refuses the next control-plane upgrade.
      version: shared.version,
      amiType: group.amiType,
      // Unset sends nothing: release_version is Optional and Computed (terraform-provider-aws
      // internal/service/eks/node_group.go), so the group keeps what EKS runs, also after an update outside
      // Pulumi. The template sets no AMI, so EKS accepts a release (UpdateNodegroupVersion releaseVersion).
      releaseVersion: group.amiReleaseVersion,
      instanceTypes: group.instanceTypes,
      capacityType: group.capacityType,
      launchTemplate: { id: launchTemplate.id, version: pulumi.interpolate`${launchTemplate.latestVersion}` },
      scalingConfig: { minSize: group.minSize, desiredSize: group.desiredSize, maxSize: group.maxSize },
      // Cluster autoscalers own the desired size after creation; do not fight them on every `up`. Off only
      // for an update that must send it (a minSize or maxSize change): @pulumi/eks v4.3.0 maps this flag
      // to ignoreChanges on scalingConfig.desiredSize and nothing else (nodes/nodegroup.ts).
      ignoreScalingChanges: group.setDesiredSize !== true,
      labels: group.labels,
      taints: toEksTaints(group.taints),
      tags: shared.tags,
    },
    // In API auth mode @pulumi/eks orders the node group after nothing of ours: every edge is explicit.
    { parent, dependsOn: shared.dependsOn },
  );
}
