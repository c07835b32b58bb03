/**
 * Which input changes make the provider replace a resource rather than update it, for every resource
 * type the program registers: one row per type, with the source of the fact. The diff (diff.ts) reads it
 * to say `+- replace` where `pulumi up` would, and cascades replacements to resources built from a
 * replaced one's id. Paths are input paths (`cidrBlock`, `spec.selector`); a change at or below one
 * forces replacement.
 */

export interface ReplacementRule {
  /** Input paths whose change replaces the resource. */
  readonly replaceOn: readonly string[];
  /** For remote components: input paths known to update in place inside the component. */
  readonly updateOn?: readonly string[];
  /** Every input change replaces it (resources the provider cannot update at all). */
  readonly replaceOnAnyChange?: boolean;
  /**
   * For remote components: what happens inside is decided by the component at deploy time; changes to
   * paths not listed in replaceOn are shown as unknown instead of as updates.
   */
  readonly remote?: string;
  /** Input paths the resource (or the component inside) ignores once created, when `when` holds. */
  readonly ignored?: {
    readonly path: string;
    readonly when: (inputs: Record<string, unknown>) => boolean;
    readonly why: string;
  }[];
  readonly source: string;
}

import { TAKEOVER_TYPE } from "../components/calico/takeover";

const TF_AWS = "https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources";
const K8S_DIFF = "pulumi/pulumi-kubernetes provider/pkg/provider/diff.go (forceNewProperties)";
const K8S_METADATA = ["metadata.name", "metadata.namespace"];

/** The rules by type token. A type missing here is shown as unknown by the diff, never as an update. */
export const REPLACEMENT_RULES: Readonly<Record<string, ReplacementRule>> = {
  "aws:ec2/vpc:Vpc": {
    replaceOn: ["cidrBlock", "instanceTenancy"],
    source: `${TF_AWS}/vpc (cidr_block ForceNew)`,
  },
  "aws:ec2/subnet:Subnet": {
    replaceOn: ["vpcId", "cidrBlock", "availabilityZone", "availabilityZoneId"],
    source: `${TF_AWS}/subnet (vpc_id, cidr_block, availability_zone ForceNew)`,
  },
  "aws:ec2/internetGateway:InternetGateway": {
    replaceOn: [],
    source: `${TF_AWS}/internet_gateway (vpc_id updates by detach and attach)`,
  },
  "aws:ec2/eip:Eip": { replaceOn: ["domain"], source: `${TF_AWS}/eip (domain ForceNew)` },
  "aws:ec2/natGateway:NatGateway": {
    replaceOn: ["allocationId", "subnetId", "connectivityType", "privateIp"],
    source: `${TF_AWS}/nat_gateway (allocation_id, subnet_id ForceNew)`,
  },
  "aws:ec2/routeTable:RouteTable": {
    replaceOn: ["vpcId"],
    source: `${TF_AWS}/route_table (vpc_id ForceNew)`,
  },
  "aws:ec2/routeTableAssociation:RouteTableAssociation": {
    replaceOn: ["subnetId", "gatewayId"],
    source: `${TF_AWS}/route_table_association (subnet_id ForceNew; route_table_id updates in place)`,
  },
  "aws:ec2/launchTemplate:LaunchTemplate": {
    replaceOn: ["name", "namePrefix"],
    source: `${TF_AWS}/launch_template (other changes make a new version)`,
  },
  "aws:iam/role:Role": {
    replaceOn: ["name", "namePrefix", "path"],
    source: `${TF_AWS}/iam_role (name, path ForceNew)`,
  },
  "aws:iam/rolePolicyAttachment:RolePolicyAttachment": {
    replaceOn: ["role", "policyArn"],
    source: `${TF_AWS}/iam_role_policy_attachment (role, policy_arn ForceNew)`,
  },
  "aws:kms/key:Key": {
    replaceOn: ["customerMasterKeySpec", "keySpec", "keyUsage", "multiRegion"],
    source: `${TF_AWS}/kms_key (key_spec, key_usage, multi_region ForceNew)`,
  },
  "aws:cloudwatch/logGroup:LogGroup": {
    replaceOn: ["name", "namePrefix", "logGroupClass"],
    source: `${TF_AWS}/cloudwatch_log_group (name ForceNew)`,
  },
  "aws:eks/addon:Addon": {
    replaceOn: ["clusterName", "addonName"],
    source: `${TF_AWS}/eks_addon (cluster_name, addon_name ForceNew)`,
  },
  "aws:eks/accessEntry:AccessEntry": {
    replaceOn: ["clusterName", "principalArn", "type"],
    source: `${TF_AWS}/eks_access_entry (cluster_name, principal_arn, type ForceNew)`,
  },
  "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": {
    replaceOn: ["clusterName", "principalArn", "policyArn", "accessScope"],
    source: `${TF_AWS}/eks_access_policy_association (every argument ForceNew)`,
  },
  "eks:index:Cluster": {
    // EKS cannot rename a cluster or move it to another VPC; everything else is decided inside.
    replaceOn: ["name", "vpcId"],
    // Passed to aws.eks.Cluster, which updates them in place (UpdateClusterVersion, UpdateClusterConfig).
    updateOn: [
      "version",
      "enabledClusterLogTypes",
      "publicAccessCidrs",
      "endpointPublicAccess",
      "endpointPrivateAccess",
      "tags",
    ],
    remote: "decided inside @pulumi/eks (it may update the cluster, or replace it)",
    source: `pulumi/pulumi-eks nodejs/eks/cluster/cluster.ts; ${TF_AWS}/eks_cluster (version, logging, endpoint access update in place; name and VPC are fixed)`,
  },
  "eks:index:ManagedNodeGroup": {
    // Passed through to aws.eks.NodeGroup, whose arguments below are ForceNew.
    replaceOn: [
      "cluster",
      "nodeRole",
      "subnetIds",
      "instanceTypes",
      "capacityType",
      "amiType",
      "nodeGroupName",
    ],
    // UpdateNodegroupVersion (version, launch template version) and UpdateNodegroupConfig (sizes, labels, taints).
    updateOn: ["version", "launchTemplate", "scalingConfig", "labels", "taints", "tags"],
    remote: "decided inside @pulumi/eks",
    ignored: [
      {
        path: "scalingConfig.desiredSize",
        when: (inputs) => inputs.ignoreScalingChanges === true,
        why: "ignoreScalingChanges: @pulumi/eks sets ignoreChanges on it (nodes/nodegroup.ts)",
      },
    ],
    source: `pulumi/pulumi-eks nodejs/eks/nodes/nodegroup.ts; ${TF_AWS}/eks_node_group (subnet_ids, instance_types, capacity_type, ami_type, node_role_arn ForceNew)`,
  },
  "pulumi:providers:kubernetes": {
    // A kubeconfig for another cluster makes the provider, and every object it manages, new; so does
    // another clusterIdentifier (which, when set, is all DiffConfig compares).
    replaceOn: ["kubeconfig", "clusterIdentifier"],
    source:
      "pulumi/pulumi-kubernetes provider DiffConfig (a changed cluster replaces the provider's resources)",
  },
  [TAKEOVER_TYPE]: {
    // Its diff names no replaced property, so every change is an update that runs the step again.
    replaceOn: [],
    source: "components/calico/takeover/index.ts takeoverProvider.diff (changes, never replaces)",
  },
  "tls:index/privateKey:PrivateKey": {
    replaceOn: [],
    replaceOnAnyChange: true,
    source: "hashicorp/terraform-provider-tls (every attribute RequiresReplace)",
  },
  "tls:index/selfSignedCert:SelfSignedCert": {
    replaceOn: [],
    replaceOnAnyChange: true,
    source: "hashicorp/terraform-provider-tls (every attribute RequiresReplace)",
  },
  "tls:index/certRequest:CertRequest": {
    replaceOn: [],
    replaceOnAnyChange: true,
    source: "hashicorp/terraform-provider-tls (every attribute RequiresReplace)",
  },
  "tls:index/locallySignedCert:LocallySignedCert": {
    replaceOn: [],
    replaceOnAnyChange: true,
    source: "hashicorp/terraform-provider-tls (every attribute RequiresReplace)",
  },
  "kubernetes:core/v1:Namespace": { replaceOn: K8S_METADATA, source: K8S_DIFF },
  "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition": {
    replaceOn: K8S_METADATA,
    source: K8S_DIFF,
  },
  "kubernetes:core/v1:ServiceAccount": { replaceOn: K8S_METADATA, source: K8S_DIFF },
  "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole": { replaceOn: K8S_METADATA, source: K8S_DIFF },
  "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": {
    replaceOn: [...K8S_METADATA, "roleRef"],
    source: K8S_DIFF,
  },
  "kubernetes:rbac.authorization.k8s.io/v1:Role": { replaceOn: K8S_METADATA, source: K8S_DIFF },
  "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": {
    replaceOn: [...K8S_METADATA, "roleRef"],
    source: K8S_DIFF,
  },
  // The provider sets enableConfigMapMutable and enableSecretMutable (components/cluster): data updates.
  "kubernetes:core/v1:ConfigMap": { replaceOn: K8S_METADATA, source: `${K8S_DIFF}, enableConfigMapMutable` },
  "kubernetes:core/v1:Secret": {
    replaceOn: [...K8S_METADATA, "type"],
    source: `${K8S_DIFF}, enableSecretMutable`,
  },
  "kubernetes:core/v1:Service": { replaceOn: [...K8S_METADATA, "spec.clusterIP"], source: K8S_DIFF },
  "kubernetes:apps/v1:Deployment": { replaceOn: [...K8S_METADATA, "spec.selector"], source: K8S_DIFF },
  "kubernetes:apps/v1:DaemonSet": { replaceOn: [...K8S_METADATA, "spec.selector"], source: K8S_DIFF },
  "kubernetes:policy/v1:PodDisruptionBudget": {
    replaceOn: K8S_METADATA,
    source: `${K8S_DIFF} (only policy/v1beta1 replaces on spec)`,
  },
  "kubernetes:networking.k8s.io/v1:NetworkPolicy": { replaceOn: K8S_METADATA, source: K8S_DIFF },
  // The probe's anchor: the spec fields it sets (containers: every field but the name is force-new).
  "kubernetes:core/v1:Pod": {
    replaceOn: [
      ...K8S_METADATA,
      ...[
        "affinity",
        "automountServiceAccountToken",
        "enableServiceLinks",
        "nodeSelector",
        "restartPolicy",
        "securityContext",
        "containers",
      ].map((field) => `spec.${field}`),
    ],
    source: K8S_DIFF,
  },
  "kubernetes:batch/v1:Job": {
    replaceOn: [...K8S_METADATA, "spec.completions", "spec.parallelism", "spec.selector", "spec.template"],
    source: K8S_DIFF,
  },
};

/** Whether a change at `path` (an input path, `spec.selector.matchLabels`) is at or below `rulePath`. */
export function underPath(path: string, rulePath: string): boolean {
  return path === rulePath || path.startsWith(`${rulePath}.`) || path.startsWith(`${rulePath}[`);
}
