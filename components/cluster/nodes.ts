/**
 * The nodes: the IAM role they assume, and per node group a launch template and an EKS managed node
 * group. Pulumi wiring only; the values come from nodegroups.ts, node-rolls.ts, ami-types.ts and
 * policies.ts.
 */
import { STARTUP_TAINT, STARTUP_TAINT_VALUE } from "../startup-taint/objects";
import * as aws from "@pulumi/aws";
import type * as eks from "@pulumi/eks";
import * as pulumi from "@pulumi/pulumi";
import { type NodeGroupSpec, launchBlockDevices, launchTagSpecifications, toEksTaints } from "./nodegroups";
import { nodeGroupUpdateConfig, nodeGroupUpdateMinutes } from "./node-rolls";
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

/** The component type that built each node group before the stack registered it directly. */
export const PULUMI_EKS_NODE_GROUP = "eks:index:ManagedNodeGroup";

/**
 * The alias of a resource @pulumi/eks v4.3.0's ManagedNodeGroup `name` built under `parent` as its child
 * of the same name (createManagedNodeGroup, nodejs/eks/nodes/nodegroup.ts): registered directly under
 * `parent`, it keeps that child's state, and only the component leaves the state.
 */
export function builtByPulumiEks(name: string, parent: pulumi.Resource): pulumi.Alias {
  return { parent: pulumi.createUrn(name, PULUMI_EKS_NODE_GROUP, parent) };
}

/**
 * A managed node group on its own launch template: IMDSv2 only with hop limit 1, an encrypted gp3 data
 * volume, and the stack's tags on instances, volumes and network interfaces. The template sets no AMI,
 * so EKS picks the AMI from `amiType`, `version` and, when set, `releaseVersion`. A roll replaces a third
 * of the group's maximum size at a time, and `pulumi up` waits for it as long as that takes at the drain
 * limit (node-rolls.ts).
 */
export function createNodeGroup(
  parent: pulumi.Resource,
  resourceName: string,
  group: NodeGroupSpec,
  shared: NodeGroupWiring,
): aws.eks.NodeGroup {
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
  return new aws.eks.NodeGroup(
    resourceName,
    {
      clusterName: shared.cluster.eksCluster.name,
      nodeRoleArn: shared.nodeRole.role.arn,
      subnetIds: shared.subnetIds,
      // Node groups follow the control plane on every upgrade: without it EKS refuses the next one.
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
      updateConfig: nodeGroupUpdateConfig(group.maxSize),
      labels: group.labels,
      // The Calico startup taint last, after the group's own; either install's remover takes it off once
      // calico-node is Ready on the node (components/startup-taint). EKS updates a deployed group's taints
      // in place (UpdateNodegroupConfig), replacing no node.
      taints: toEksTaints([...group.taints, { ...STARTUP_TAINT, value: STARTUP_TAINT_VALUE }]),
      tags: shared.tags,
    },
    {
      parent,
      // Every edge is explicit: add-ons, private routes and the role's policies come first.
      dependsOn: shared.dependsOn,
      // Cluster autoscalers own the desired size after creation; do not fight them on every `up`. Off
      // only for an update that must send it (a minSize or maxSize change: stacks/previous-scaling.ts).
      ignoreChanges: group.setDesiredSize === true ? [] : ["scalingConfig.desiredSize"],
      customTimeouts: { update: `${nodeGroupUpdateMinutes(group.maxSize)}m` },
      // Deployed stacks have it as @pulumi/eks's child: the alias keeps it.
      aliases: [builtByPulumiEks(resourceName, parent)],
    },
  );
}
