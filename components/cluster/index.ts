import * as aws from "@pulumi/aws";
import * as eks from "@pulumi/eks";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { type NodeGroupSpec, toEksTaints } from "./nodegroups";
import {
  NODE_METADATA_OPTIONS,
  NODE_ROLE_POLICIES,
  VPC_CNI_POLICY,
  VPC_CNI_SERVICE_ACCOUNT,
  ec2TrustPolicy,
  serviceAccountTrustPolicy,
} from "./policies";

export { maxNodeCount, toEksTaints, type NodeGroupSpec } from "./nodegroups";
export * from "./policies";

/**
 * amazon-vpc-cni add-on settings for Calico policy-only mode: the VPC CNI keeps IPAM and routing, its
 * own network-policy agent stays off (two enforcers conflict), and ANNOTATE_POD_IP lets Calico learn a
 * new pod's IP without waiting (https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/eks).
 */
export const VPC_CNI_SETTINGS = {
  enableNetworkPolicy: false,
  configurationValues: { env: { ANNOTATE_POD_IP: "true" } },
} as const;

export interface ClusterArgs {
  /** EKS cluster name. Changing it replaces the cluster. */
  clusterName: string;
  /** Kubernetes minor version, e.g. "1.35". Upgrades in place, one minor at a time. */
  version: string;
  vpcId: pulumi.Input<string>;
  /** Subnets for internet-facing load balancers. */
  publicSubnetIds: pulumi.Input<string[]>;
  /** Subnets for nodes, pods and the control plane's network interfaces. */
  privateSubnetIds: pulumi.Input<string[]>;
  /** CIDRs allowed to the public API endpoint; empty turns the public endpoint off. */
  publicAccessCidrs: string[];
  /** Control-plane log types sent to CloudWatch. */
  logTypes: string[];
  /** Days CloudWatch keeps control-plane logs. */
  logRetentionDays: number;
  /** One managed node group per entry, in the private subnets. */
  nodeGroups: NodeGroupSpec[];
  /** Tags for every AWS resource. */
  tags: Record<string, string>;
  /** Protect the cluster, its secrets key and its log group from deletion. @default false */
  protect?: boolean;
}

/**
 * An EKS cluster secured by default: Kubernetes secrets encrypted with a rotating KMS key, control-plane
 * logs with a retention period, API (access-entry) authentication, an OIDC provider, the amazon-vpc-cni
 * add-on on its own IRSA role and set up for Calico policy-only mode, managed node groups in private
 * subnets with IMDSv2, and a Kubernetes provider for everything in-cluster.
 */
export class Cluster extends pulumi.ComponentResource {
  readonly clusterName: pulumi.Output<string>;
  readonly kubeconfig: pulumi.Output<string>;
  readonly nodeGroupNames: pulumi.Output<string[]>;
  /** The node groups, for resources that must wait for nodes (dependsOn). */
  readonly nodeGroups: eks.ManagedNodeGroup[];
  /** The provider every in-cluster resource must use. */
  readonly provider: k8s.Provider;

  constructor(name: string, args: ClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:cluster:Cluster", name, {}, opts);
    const protect = args.protect ?? false;

    const secretsKey = new aws.kms.Key(
      `${name}-secrets`,
      {
        description: `Encrypts Kubernetes secrets of EKS cluster ${args.clusterName}`,
        enableKeyRotation: true,
        deletionWindowInDays: 30,
        tags: args.tags,
      },
      { parent: this, protect },
    );
    // EKS writes to this fixed group name; creating it first sets retention (EKS would keep logs forever).
    const logGroup = new aws.cloudwatch.LogGroup(
      `${name}-logs`,
      {
        name: `/aws/eks/${args.clusterName}/cluster`,
        retentionInDays: args.logRetentionDays,
        tags: args.tags,
      },
      { parent: this, protect },
    );
    const cluster = new eks.Cluster(
      `${name}-eks`,
      {
        name: args.clusterName,
        version: args.version,
        vpcId: args.vpcId,
        publicSubnetIds: args.publicSubnetIds,
        privateSubnetIds: args.privateSubnetIds,
        // Node groups are declared explicitly below; no implicit default group.
        skipDefaultNodeGroup: true,
        authenticationMode: eks.AuthenticationMode.Api,
        endpointPrivateAccess: true,
        endpointPublicAccess: args.publicAccessCidrs.length > 0,
        publicAccessCidrs: args.publicAccessCidrs.length > 0 ? args.publicAccessCidrs : undefined,
        enabledClusterLogTypes: args.logTypes,
        encryptionConfigKeyArn: secretsKey.arn,
        createOidcProvider: true,
        // The VPC CNI add-on is managed below, on its own IRSA role (which needs this cluster's OIDC
        // provider, so it cannot be configured through the cluster itself).
        useDefaultVpcCni: true,
        tags: args.tags,
      },
      { parent: this, protect, dependsOn: [logGroup] },
    );

    const vpcCni = createVpcCniAddon(this, name, cluster, args);
    const nodeRole = createNodeRole(this, name, args.tags);
    this.nodeGroups = args.nodeGroups.map((group) =>
      createNodeGroup(this, `${name}-${group.name}`, group, {
        cluster,
        nodeRole,
        subnetIds: args.privateSubnetIds,
        tags: args.tags,
        // Nodes join once aws-node runs with its own role: they get pod addresses from the first pod on.
        dependsOn: [cluster, vpcCni],
      }),
    );

    // @pulumi/eks returns the kubeconfig in the clear (pulumi/pulumi-eks#725): mark it secret before
    // it reaches the provider's state or an output.
    this.kubeconfig = pulumi.secret(cluster.kubeconfigJson);
    this.provider = new k8s.Provider(
      `${name}-k8s`,
      { kubeconfig: this.kubeconfig, enableServerSideApply: true },
      { parent: this },
    );

    this.clusterName = cluster.eksCluster.name;
    this.nodeGroupNames = pulumi.all(this.nodeGroups.map((g) => g.nodeGroup.nodeGroupName));
    this.registerOutputs({
      clusterName: this.clusterName,
      kubeconfig: this.kubeconfig,
      nodeGroupNames: this.nodeGroupNames,
    });
  }
}

/** The amazon-vpc-cni managed add-on, on an IRSA role that only `kube-system:aws-node` can assume. */
function createVpcCniAddon(
  parent: pulumi.Resource,
  name: string,
  cluster: eks.Cluster,
  args: ClusterArgs,
): eks.VpcCniAddon {
  const role = new aws.iam.Role(
    `${name}-vpc-cni`,
    {
      assumeRolePolicy: pulumi
        .all([cluster.oidcProviderArn, cluster.oidcIssuer])
        .apply(([arn, issuer]) => serviceAccountTrustPolicy(arn, issuer, VPC_CNI_SERVICE_ACCOUNT)),
      tags: args.tags,
    },
    { parent },
  );
  const attachment = new aws.iam.RolePolicyAttachment(
    `${name}-vpc-cni`,
    { role: role.name, policyArn: VPC_CNI_POLICY },
    { parent },
  );
  return new eks.VpcCniAddon(
    `${name}-vpc-cni`,
    {
      clusterName: cluster.eksCluster.name,
      clusterVersion: args.version,
      serviceAccountRoleArn: role.arn,
      ...VPC_CNI_SETTINGS,
      // Take over the aws-node DaemonSet EKS installs at cluster creation.
      resolveConflictsOnCreate: "OVERWRITE",
      resolveConflictsOnUpdate: "OVERWRITE",
      tags: [args.tags],
    },
    { parent, dependsOn: [attachment] },
  );
}

/** The IAM role EC2 worker nodes assume, with the managed policies nodes need. */
function createNodeRole(parent: pulumi.Resource, name: string, tags: Record<string, string>): aws.iam.Role {
  const role = new aws.iam.Role(`${name}-node`, { assumeRolePolicy: ec2TrustPolicy(), tags }, { parent });
  NODE_ROLE_POLICIES.forEach((policyArn) => {
    const policyName = policyArn.split("/").pop() ?? policyArn;
    new aws.iam.RolePolicyAttachment(
      `${name}-node-${policyName}`,
      { role: role.name, policyArn },
      { parent },
    );
  });
  return role;
}

/**
 * A managed node group on its own launch template (IMDSv2 only, hop limit 1); EKS maps the
 * Kubernetes-spelled taint effects to its own spelling.
 */
function createNodeGroup(
  parent: pulumi.Resource,
  resourceName: string,
  group: NodeGroupSpec,
  shared: {
    cluster: eks.Cluster;
    nodeRole: aws.iam.Role;
    subnetIds: pulumi.Input<string[]>;
    tags: Record<string, string>;
    dependsOn: pulumi.Resource[];
  },
): eks.ManagedNodeGroup {
  const launchTemplate = new aws.ec2.LaunchTemplate(
    resourceName,
    {
      description: `Nodes of node group ${group.name}: IMDSv2 required, hop limit 1`,
      metadataOptions: NODE_METADATA_OPTIONS,
      updateDefaultVersion: true,
      tags: shared.tags,
    },
    { parent },
  );
  return new eks.ManagedNodeGroup(
    resourceName,
    {
      cluster: shared.cluster,
      nodeRole: shared.nodeRole,
      subnetIds: shared.subnetIds,
      instanceTypes: group.instanceTypes,
      capacityType: group.capacityType,
      launchTemplate: { id: launchTemplate.id, version: pulumi.interpolate`${launchTemplate.latestVersion}` },
      scalingConfig: { minSize: group.minSize, desiredSize: group.desiredSize, maxSize: group.maxSize },
      // Cluster autoscalers own the desired size after creation; do not fight them on every `up`.
      ignoreScalingChanges: true,
      labels: group.labels,
      taints: toEksTaints(group.taints),
      tags: shared.tags,
    },
    { parent, dependsOn: shared.dependsOn },
  );
}
