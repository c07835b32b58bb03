/**
 * The EKS component (Cluster): the control plane with its KMS key and log group, the vpc-cni, kube-proxy
 * and CoreDNS add-ons, the node role and managed node groups, access entries, the CI runners' ingress,
 * and the Kubernetes provider every in-cluster object uses. Wiring only; the values come from the plain
 * modules beside it: a node group's settings from nodegroups.ts (its roll from node-rolls.ts, its AMI type
 * from ami-types.ts), an add-on's configuration from addons.ts, IAM from policies.ts and access.ts, the
 * provider from provider.ts. A cluster made elsewhere is components/existing-cluster/ or
 * components/kubeconfig-cluster/.
 */
import * as aws from "@pulumi/aws";
import * as eks from "@pulumi/eks";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { type AccessGrant, createAccessEntries, partitionOf } from "./access";
import { type RunnerSources, admitRunners } from "./runner-access";
import {
  type AddonKey,
  type AddonVersions,
  type VpcCniSettings,
  coreDnsConfiguration,
  createAddon,
  vpcCniConfiguration,
} from "./addons";
import type { NodeGroupSpec } from "./nodegroups";
import { createNodeGroup, createNodeRole } from "./nodes";
import {
  VPC_CNI_SERVICE_ACCOUNT,
  serviceAccountTrustPolicy,
  vpcCniPolicy,
  vpcResourceControllerPolicy,
} from "./policies";
import { type ClusterAccess, clusterProvider } from "./provider";

export * from "./access";
export * from "./addons";
export * from "./ami-types";
export * from "./nodegroups";
export * from "./policies";
export * from "./runner-access";

export interface ClusterArgs {
  /** EKS cluster name. Changing it replaces the cluster. */
  clusterName: string;
  /** AWS region of the cluster; its partition prefixes the access-policy ARNs. */
  region: string;
  /**
   * Kubernetes minor version, e.g. "1.35", of the control plane and every node group. Upgrades in
   * place, one minor at a time: control plane, then vpc-cni and kube-proxy, node groups, CoreDNS.
   */
  version: string;
  /** EKS's policy at the end of the version's standard support: STANDARD upgrades, EXTENDED bills. */
  upgradePolicy: "STANDARD" | "EXTENDED";
  vpcId: pulumi.Input<string>;
  /** Subnets for internet-facing load balancers. */
  publicSubnetIds: pulumi.Input<string[]>;
  /** Subnets for nodes, pods and the control plane's network interfaces. */
  privateSubnetIds: pulumi.Input<string[]>;
  /**
   * What gives the private subnets egress (route tables with their NAT routes, subnet associations).
   * Node groups are created after it and deleted before it: nodes without egress never join.
   */
  nodeEgress: pulumi.Resource[];
  /** CIDRs allowed to the public API endpoint; empty turns the public endpoint off. */
  publicAccessCidrs: string[];
  /** Control-plane log types sent to CloudWatch. */
  logTypes: string[];
  /** Days CloudWatch keeps control-plane logs. */
  logRetentionDays: number;
  /** Pinned add-on versions; unset ones follow EKS's default for `version`. @default {} */
  addonVersions?: AddonVersions;
  /** Principals given access to the Kubernetes API, besides the cluster's creator. @default [] */
  access?: AccessGrant[];
  /**
   * Self-hosted CI runners admitted to the private API endpoint on 443, by CIDR or security group (one
   * ingress rule each on the security group only the control plane carries). @default none
   */
  runners?: RunnerSources;
  /**
   * The VPC CNI's settings (addons.ts vpcCniConfiguration): /28 prefixes, security groups for pods (which
   * also give the cluster's role AmazonEKSVPCResourceController). @default both off
   */
  vpcCni?: VpcCniSettings;
  /**
   * The VPC CNI takes its role through EKS Pod Identity (an association the add-on owns) instead of IRSA;
   * needs `podIdentityAgent`. @default false
   */
  vpcCniPodIdentity?: boolean;
  /** One managed node group per entry, in the private subnets. */
  nodeGroups: NodeGroupSpec[];
  /**
   * The eks-pod-identity-agent add-on, for roles EKS Pod Identity hands to pods (the VPC CNI's with
   * `vpcCniPodIdentity`, Karpenter's controller).
   * Its DaemonSet tolerates every taint, the startup taint included (aws/eks-pod-identity-agent
   * charts/eks-pod-identity-agent/values.yaml, `tolerations: [{operator: Exists}]`). @default false
   */
  podIdentityAgent?: boolean;
  /** Tags for every AWS resource. */
  tags: Record<string, string>;
  /** Protect the cluster, its secrets key and its log group from deletion. @default false */
  protect?: boolean;
}

/**
 * An EKS cluster secured by default: Kubernetes secrets encrypted with a rotating KMS key, control-plane
 * logs with a retention period, API (access-entry) authentication, an OIDC provider, the vpc-cni,
 * kube-proxy and CoreDNS managed add-ons at pinned versions (the VPC CNI on its own role, through IRSA
 * or EKS Pod Identity, set up for Calico policy-only mode), managed node groups in private subnets with IMDSv2 and encrypted disks,
 * access entries, and a Kubernetes provider for everything in-cluster.
 */
export class Cluster extends pulumi.ComponentResource {
  readonly clusterName: pulumi.Output<string>;
  /** The version each EKS add-on runs, as EKS reports it. */
  readonly addonVersions: Partial<Record<AddonKey, pulumi.Output<string>>>;
  /** The EKS Pod Identity agent, where `podIdentityAgent` asks for it. */
  readonly podIdentityAgent?: aws.eks.Addon;
  /** The Kubernetes version EKS reports for the control plane (it may upgrade it by itself). */
  readonly kubernetesVersion: pulumi.Output<string>;
  readonly kubeconfig: pulumi.Output<string>;
  readonly nodeGroupNames: pulumi.Output<string[]>;
  readonly clusterEndpoint: pulumi.Output<string>;
  /** The security group EKS creates and attaches to the control plane's ENIs and to managed nodes. */
  readonly clusterSecurityGroupId: pulumi.Output<string>;
  readonly oidcProviderArn: pulumi.Output<string>;
  /** The OIDC issuer URL, with https://. */
  readonly oidcIssuerUrl: pulumi.Output<string>;
  readonly nodeRoleArn: pulumi.Output<string>;
  /** The node groups, for resources that must wait for nodes (dependsOn). */
  readonly nodeGroups: aws.eks.NodeGroup[];
  /** The provider every in-cluster resource must use. */
  readonly provider: k8s.Provider;
  /** The EKS cluster's ARN: the Kubernetes providers' cluster identifier. */
  readonly clusterArn: pulumi.Output<string>;
  /** What every Kubernetes provider for this cluster is given: the kubeconfig and the ARN. */
  readonly access: ClusterAccess;

  constructor(name: string, args: ClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:cluster:Cluster", name, {}, opts);
    const protect = args.protect ?? false;
    const versions = args.addonVersions ?? {};

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
        // Passed to aws.eks.Cluster, which updates it in place (UpdateClusterConfig).
        upgradePolicy: { supportType: args.upgradePolicy },
        vpcId: args.vpcId,
        publicSubnetIds: args.publicSubnetIds,
        privateSubnetIds: args.privateSubnetIds,
        // Node groups are declared explicitly below; no implicit default group.
        skipDefaultNodeGroup: true,
        // Access entries only. @pulumi/eks also makes the creator admin: see BOOTSTRAP_ADMIN in access.ts.
        authenticationMode: eks.AuthenticationMode.Api,
        endpointPrivateAccess: true,
        endpointPublicAccess: args.publicAccessCidrs.length > 0,
        publicAccessCidrs: args.publicAccessCidrs.length > 0 ? args.publicAccessCidrs : undefined,
        enabledClusterLogTypes: args.logTypes,
        encryptionConfigKeyArn: secretsKey.arn,
        createOidcProvider: true,
        // The three add-ons are created below at pinned versions; @pulumi/eks would resolve vpc-cni and
        // kube-proxy to the most recent version at every run, and leave CoreDNS self-managed.
        useDefaultVpcCni: true,
        kubeProxyAddonOptions: { enabled: false },
        corednsAddonOptions: { enabled: false },
        tags: args.tags,
      },
      { parent: this, protect, dependsOn: [logGroup] },
    );
    const clusterName = cluster.eksCluster.name;

    const vpcCni = this.createVpcCni(name, cluster, args, versions.vpcCni);
    const kubeProxy = createAddon(
      `${name}-kube-proxy`,
      "kubeProxy",
      { clusterName, kubernetesVersion: args.version, version: versions.kubeProxy, tags: args.tags },
      { parent: this },
    );

    // A DaemonSet, as kube-proxy: created before the nodes, so a pod given a role never starts without it.
    this.podIdentityAgent = args.podIdentityAgent
      ? createAddon(
          `${name}-pod-identity-agent`,
          "podIdentityAgent",
          {
            clusterName,
            kubernetesVersion: args.version,
            version: versions.podIdentityAgent,
            tags: args.tags,
          },
          { parent: this },
        )
      : undefined;

    const nodeRole = createNodeRole(this, name, args.tags, partitionOf(args.region));
    this.nodeGroups = args.nodeGroups.map((group) =>
      createNodeGroup(this, `${name}-${group.name}`, group, {
        cluster,
        clusterName: args.clusterName,
        version: args.version,
        nodeRole,
        subnetIds: args.privateSubnetIds,
        tags: args.tags,
        // aws-node (with its role) and kube-proxy run from the first node on; nodes need egress to
        // join; the role's policies must outlive the nodes on destroy.
        dependsOn: [
          cluster,
          vpcCni,
          kubeProxy,
          ...(this.podIdentityAgent === undefined ? [] : [this.podIdentityAgent]),
          ...nodeRole.attachments,
          ...args.nodeEgress,
        ],
      }),
    );

    // CoreDNS is a Deployment: without nodes EKS reports the add-on DEGRADED and the create times out.
    const coreDns = createAddon(
      `${name}-coredns`,
      "coreDns",
      {
        clusterName,
        kubernetesVersion: args.version,
        version: versions.coreDns,
        configurationValues: coreDnsConfiguration(args.nodeGroups),
        tags: args.tags,
      },
      { parent: this, dependsOn: this.nodeGroups },
    );

    createAccessEntries(name, args.access ?? [], {
      clusterName,
      partition: partitionOf(args.region),
      tags: args.tags,
      parent: this,
    });
    // Self-hosted CI runners reach the private endpoint through the group only the control plane carries.
    const runnerRules = admitRunners(name, args.runners ?? { cidrs: [], securityGroupIds: [] }, {
      securityGroupId: cluster.clusterSecurityGroupId,
      tags: args.tags,
      parent: this,
    });

    // @pulumi/eks returns the kubeconfig in the clear (pulumi/pulumi-eks#725): mark it secret before
    // it reaches the provider's state or an output.
    this.kubeconfig = pulumi.secret(cluster.kubeconfigJson);
    this.clusterArn = cluster.eksCluster.arn;
    this.access = { kubeconfig: this.kubeconfig, clusterIdentifier: this.clusterArn };
    // Everything in-cluster waits for the runners' rules: a deploy from there reaches the API only then.
    this.provider = clusterProvider(`${name}-k8s`, this.access, { parent: this, dependsOn: runnerRules });

    this.clusterName = clusterName;
    this.addonVersions = {
      vpcCni: vpcCni.addonVersion,
      kubeProxy: kubeProxy.addonVersion,
      coreDns: coreDns.addonVersion,
      ...(this.podIdentityAgent === undefined
        ? {}
        : { podIdentityAgent: this.podIdentityAgent.addonVersion }),
    };
    this.kubernetesVersion = cluster.eksCluster.version;
    this.nodeGroupNames = pulumi.all(this.nodeGroups.map((g) => g.nodeGroupName));
    this.clusterEndpoint = cluster.eksCluster.endpoint;
    // Not cluster.clusterSecurityGroupId: that is @pulumi/eks's own group, which managed nodes on our
    // launch template (no security groups in it) never get.
    this.clusterSecurityGroupId = cluster.eksCluster.vpcConfig.clusterSecurityGroupId;
    this.oidcProviderArn = cluster.oidcProviderArn;
    this.oidcIssuerUrl = cluster.oidcProviderUrl;
    this.nodeRoleArn = nodeRole.role.arn;
    this.registerOutputs({
      clusterName: this.clusterName,
      kubernetesVersion: this.kubernetesVersion,
      addonVersions: this.addonVersions,
      kubeconfig: this.kubeconfig,
      nodeGroupNames: this.nodeGroupNames,
      clusterEndpoint: this.clusterEndpoint,
      clusterSecurityGroupId: this.clusterSecurityGroupId,
      oidcProviderArn: this.oidcProviderArn,
      oidcIssuerUrl: this.oidcIssuerUrl,
      nodeRoleArn: this.nodeRoleArn,
    });
  }

  /**
   * The vpc-cni add-on on a role only `kube-system:aws-node` can assume: through IRSA, or with
   * `vpcCniPodIdentity` through the Pod Identity association the add-on makes (EKS User Guide,
   * update-addon-role.html), the role then trusting both (policies.ts serviceAccountTrustPolicy).
   */
  private createVpcCni(
    name: string,
    cluster: eks.Cluster,
    args: ClusterArgs,
    version: string | undefined,
  ): aws.eks.Addon {
    const podIdentity = args.vpcCniPodIdentity ?? false;
    const role = new aws.iam.Role(
      `${name}-vpc-cni`,
      {
        assumeRolePolicy: pulumi
          .all([cluster.oidcProviderArn, cluster.oidcIssuer])
          .apply(([arn, issuer]) =>
            serviceAccountTrustPolicy(arn, issuer, VPC_CNI_SERVICE_ACCOUNT, podIdentity),
          ),
        tags: args.tags,
      },
      { parent: this },
    );
    const attachment = new aws.iam.RolePolicyAttachment(
      `${name}-vpc-cni`,
      { role: role.name, policyArn: vpcCniPolicy(partitionOf(args.region)) },
      { parent: this },
    );
    return createAddon(
      `${name}-vpc-cni`,
      "vpcCni",
      {
        clusterName: cluster.eksCluster.name,
        kubernetesVersion: args.version,
        version,
        configurationValues: vpcCniConfiguration(args.vpcCni),
        ...(podIdentity
          ? { podIdentityAssociations: [{ roleArn: role.arn, serviceAccount: VPC_CNI_SERVICE_ACCOUNT.name }] }
          : { serviceAccountRoleArn: role.arn }),
        tags: args.tags,
      },
      { parent: this, dependsOn: [attachment, ...this.trunkAccess(name, cluster, args)] },
    );
  }

  /**
   * With security groups for pods, the cluster's role (@pulumi/eks's) gets AmazonEKSVPCResourceController:
   * EKS's VPC resource controller attaches the trunk and branch interfaces with it (EKS User Guide,
   * security-groups-pods-deployment, step 2, which finds the role's name in the cluster's `roleArn`).
   */
  private trunkAccess(name: string, cluster: eks.Cluster, args: ClusterArgs): aws.iam.RolePolicyAttachment[] {
    if (!(args.vpcCni?.podSecurityGroups ?? false)) return [];
    return [
      new aws.iam.RolePolicyAttachment(
        `${name}-vpc-resource-controller`,
        {
          role: cluster.eksCluster.roleArn.apply((arn) => arn.split("/").pop() ?? arn),
          policyArn: vpcResourceControllerPolicy(partitionOf(args.region)),
        },
        { parent: this },
      ),
    ];
  }
}
