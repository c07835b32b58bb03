import * as aws from "@pulumi/aws";
import * as eks from "@pulumi/eks";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { type NodeGroupSpec, toEksTaints } from "./nodegroups";

export { maxNodeCount, toEksTaints, type NodeGroupSpec } from "./nodegroups";

/** Managed policies every EKS worker node needs (the CNI policy moves to an IRSA role later). */
export const NODE_ROLE_POLICIES: readonly string[] = [
  aws.iam.ManagedPolicy.AmazonEKSWorkerNodePolicy,
  aws.iam.ManagedPolicy.AmazonEC2ContainerRegistryReadOnly,
  aws.iam.ManagedPolicy.AmazonEKS_CNI_Policy,
];

/**
 * amazon-vpc-cni add-on settings for Calico policy-only mode: the VPC CNI keeps IPAM and routing,
 * its own network-policy agent stays off (two enforcers conflict), and ANNOTATE_POD_IP lets Calico
 * learn a new pod's IP without waiting (https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/eks).
 */
export const VPC_CNI_OPTIONS = {
  enableNetworkPolicy: false,
  configurationValues: { env: { ANNOTATE_POD_IP: "true" } },
} as const;

export interface ClusterArgs {
  /** EKS cluster name. Changing it replaces the cluster. */
  clusterName: string;
  /** Kubernetes minor version, e.g. "1.33". Upgrades in place, one minor at a time. */
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
  /** One managed node group per entry, in the private subnets. */
  nodeGroups: NodeGroupSpec[];
  /** Tags for every AWS resource. */
  tags: Record<string, string>;
  /** Protect the EKS cluster from deletion. @default false */
  protect?: boolean;
}

/**
 * An EKS cluster with API (access-entry) authentication, the amazon-vpc-cni managed add-on set up for
 * Calico policy-only mode, managed node groups in private subnets, and a Kubernetes provider for
 * everything in-cluster.
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

    const nodeRole = createNodeRole(this, name, args.tags);
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
        vpcCniOptions: VPC_CNI_OPTIONS,
        tags: args.tags,
      },
      { parent: this, protect: args.protect ?? false },
    );

    this.nodeGroups = args.nodeGroups.map((group) =>
      createNodeGroup(this, `${name}-${group.name}`, group, {
        cluster,
        nodeRole,
        subnetIds: args.privateSubnetIds,
        tags: args.tags,
      }),
    );

    this.provider = new k8s.Provider(
      `${name}-k8s`,
      { kubeconfig: cluster.kubeconfigJson, enableServerSideApply: true },
      { parent: this },
    );

    this.clusterName = cluster.eksCluster.name;
    this.kubeconfig = pulumi.secret(cluster.kubeconfigJson);
    this.nodeGroupNames = pulumi.all(this.nodeGroups.map((g) => g.nodeGroup.nodeGroupName));
    this.registerOutputs({
      clusterName: this.clusterName,
      kubeconfig: this.kubeconfig,
      nodeGroupNames: this.nodeGroupNames,
    });
  }
}

/** The IAM role EC2 worker nodes assume, with the managed policies nodes need. */
function createNodeRole(parent: pulumi.Resource, name: string, tags: Record<string, string>): aws.iam.Role {
  const role = new aws.iam.Role(
    `${name}-node`,
    {
      assumeRolePolicy: JSON.stringify({
        Version: "2012-10-17",
        Statement: [
          { Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" },
        ],
      }),
      tags,
    },
    { parent },
  );
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

/** A managed node group; EKS maps the Kubernetes-spelled taint effects to its own spelling. */
function createNodeGroup(
  parent: pulumi.Resource,
  resourceName: string,
  group: NodeGroupSpec,
  shared: {
    cluster: eks.Cluster;
    nodeRole: aws.iam.Role;
    subnetIds: pulumi.Input<string[]>;
    tags: Record<string, string>;
  },
): eks.ManagedNodeGroup {
  return new eks.ManagedNodeGroup(
    resourceName,
    {
      cluster: shared.cluster,
      nodeRole: shared.nodeRole,
      subnetIds: shared.subnetIds,
      instanceTypes: group.instanceTypes,
      capacityType: group.capacityType,
      scalingConfig: { minSize: group.minSize, desiredSize: group.desiredSize, maxSize: group.maxSize },
      // Cluster autoscalers own the desired size after creation; do not fight them on every `up`.
      ignoreScalingChanges: true,
      labels: group.labels,
      taints: toEksTaints(group.taints),
      tags: shared.tags,
    },
    { parent },
  );
}
