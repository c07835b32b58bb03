/**
 * The AWS provider's ForceNew arguments for every AWS resource type the program registers (and the one
 * @pulumi/eks builds inside its components), read from the terraform-provider-aws schema. One row per
 * type, Terraform names (snake_case, nested blocks joined with "."), the one record of them: replacements.ts
 * derives its rules' replaceOn from it in Pulumi names (forceNewInputs).
 */

import { OPTION_ROWS } from "./aws-force-new-options";
import type { ForceNewRow } from "./force-new-row";

export type { ForceNewRow } from "./force-new-row";

/** Which provider build the rows describe, and which copies of the source they were read from. */
export const TF_AWS_SOURCE = {
  repository: "https://github.com/hashicorp/terraform-provider-aws",
  /** package-lock.json. */
  pulumiAws: "@pulumi/aws 7.48.0",
  /**
   * pulumi-aws builds on the upstream provider through its `upstream` submodule (provider/go.mod replaces
   * github.com/hashicorp/terraform-provider-aws with ../upstream). Release v7.45.0 (2026-09-08) upgraded it
   * to v6.63.0 (pulumi/pulumi-aws#6647); 7.48.0 followed on 2026-09-22, so v6.63.0 or a later v6.
   */
  upstream: "terraform-provider-aws v6.63.0 or later (v6)",
  /**
   * The snapshot of hashicorp/terraform-provider-aws is too large to fetch whole: each file was read from
   * the stored copy named by `readAt`, and cross-checked against the fork pulumi/terraform-provider-aws
   * (branch patched-v5.14.0, commit 122a58103640), where the two differ the newer copy wins.
   */
  fork: "pulumi/terraform-provider-aws patched-v5.14.0@122a58103640",
} as const;

const EC2 = "internal/service/ec2";
const EKS = "internal/service/eks";

export const FORCE_NEW: readonly ForceNewRow[] = [
  // The optional features' types: the VPC endpoints and Karpenter (aws-force-new-options.ts).
  ...OPTION_ROWS,
  {
    type: "aws:ec2/vpc:Vpc",
    tfResource: "aws_vpc",
    file: `${EC2}/vpc_.go`,
    readAt: "00081ce41cc6 (aws-sdk-go-v2, names.Attr constants)",
    forceNew: ["cidr_block", "ipv4_ipam_pool_id", "ipv4_netmask_length"],
    updates: ["enable_dns_hostnames", "enable_dns_support", "instance_tenancy", "tags"],
    note: "instance_tenancy updates in place (resourceVPCUpdate: modifyVPCTenancy)",
  },
  {
    type: "aws:ec2/subnet:Subnet",
    tfResource: "aws_subnet",
    file: `${EC2}/vpc_subnet.go`,
    readAt: "00cda125a19d (2026 header, preIdentityVersion v6.8.0)",
    forceNew: [
      "availability_zone",
      "availability_zone_id",
      "cidr_block",
      "ipv4_ipam_pool_id",
      "ipv4_netmask_length",
      "ipv6_ipam_pool_id",
      "ipv6_native",
      "ipv6_netmask_length",
      "outpost_arn",
      "vpc_id",
    ],
    forceNewIf: [
      { path: "ipv6_cidr_block", when: "changed on a subnet with assign_ipv6_address_on_creation" },
    ],
    updates: ["map_public_ip_on_launch", "tags"],
  },
  {
    type: "aws:ec2/internetGateway:InternetGateway",
    tfResource: "aws_internet_gateway",
    file: `${EC2}/vpc_internet_gateway.go`,
    readAt: "08923b68b5ad, and a later aws-sdk-go-v2 copy",
    forceNew: [],
    updates: ["tags", "vpc_id"],
    note: "vpc_id updates by detaching and attaching (resourceInternetGatewayUpdate)",
  },
  {
    type: "aws:ec2/eip:Eip",
    tfResource: "aws_eip",
    file: `${EC2}/ec2_eip.go`,
    readAt: "01606926a0c0 (aws-sdk-go-v2; the v5 `vpc` argument is gone)",
    forceNew: ["address", "domain", "ipam_pool_id", "network_border_group", "public_ipv4_pool"],
    updates: ["tags"],
  },
  {
    type: "aws:ec2/natGateway:NatGateway",
    tfResource: "aws_nat_gateway",
    file: `${EC2}/vpc_nat_gateway.go`,
    readAt: "04088eaa5494 (aws-sdk-go-v2)",
    forceNew: [
      "allocation_id",
      "connectivity_type",
      "private_ip",
      "secondary_private_ip_address_count",
      "subnet_id",
    ],
    updates: ["tags"],
    note: "@pulumi/aws 7.48.0 also has availabilityMode, availabilityZoneAddresses and vpcId, newer than this copy; the program sets none",
  },
  {
    type: "aws:ec2/routeTable:RouteTable",
    tfResource: "aws_route_table",
    file: `${EC2}/vpc_route_table.go`,
    readAt: "022092419b7c (names.Attr constants)",
    forceNew: ["vpc_id"],
    updates: ["route", "tags"],
  },
  {
    type: "aws:ec2/route:Route",
    tfResource: "aws_route",
    file: `${EC2}/vpc_route.go`,
    readAt: "0128541e0711",
    forceNew: [
      "route_table_id",
      "destination_cidr_block",
      "destination_ipv6_cidr_block",
      "destination_prefix_list_id",
    ],
    updates: ["gateway_id", "nat_gateway_id", "transit_gateway_id", "vpc_peering_connection_id"],
    note: "a new target updates in place (ReplaceRoute, resourceRouteUpdate)",
  },
  {
    type: "aws:ec2/routeTableAssociation:RouteTableAssociation",
    tfResource: "aws_route_table_association",
    file: `${EC2}/vpc_route_table_association.go`,
    readAt: "0be71beb458a, and a later aws-sdk-go-v2 copy",
    forceNew: ["gateway_id", "subnet_id"],
    updates: ["route_table_id"],
    note: "route_table_id updates in place (ReplaceRouteTableAssociation)",
  },
  {
    type: "aws:ec2/launchTemplate:LaunchTemplate",
    tfResource: "aws_launch_template",
    file: `${EC2}/ec2_launch_template.go`,
    readAt: "025e4f81cab8, and a later aws-sdk-go-v2 copy (maintenance_options)",
    forceNew: ["name", "name_prefix"],
    updates: [
      "block_device_mappings",
      "description",
      "metadata_options",
      "tag_specifications",
      "tags",
      "update_default_version",
    ],
    noNewVersion: ["name", "name_prefix", "tags", "tags_all", "default_version", "update_default_version"],
    note:
      "a change to the template's data or its description makes a new version: resourceLaunchTemplateUpdate " +
      "calls CreateLaunchTemplateVersion when any of its updateKeys changes (description among them), while tags " +
      "and default_version only call UpdateTags and ModifyLaunchTemplate. The plan-time CustomizeDiff differs: it " +
      "marks latest_version computed for any change but name, name_prefix, description, default_version, " +
      "update_default_version, so `pulumi preview` shows a description change without the new version (and a " +
      "tags change with one that never comes); the offline diff follows the update",
  },
  {
    type: "aws:iam/role:Role",
    tfResource: "aws_iam_role",
    file: "internal/service/iam/role.go",
    readAt: "0040ea6911af; the fork agrees",
    forceNew: ["name", "name_prefix", "path"],
    updates: ["assume_role_policy", "tags"],
  },
  {
    type: "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
    tfResource: "aws_iam_role_policy_attachment",
    file: "internal/service/iam/role_policy_attachment.go",
    readAt: "04c79849dbe7; the fork agrees",
    forceNew: ["role", "policy_arn"],
    updates: [],
  },
  {
    type: "aws:kms/key:Key",
    tfResource: "aws_kms_key",
    file: "internal/service/kms/key.go",
    readAt: "00a35305dc1b (2026 header, preIdentityVersion v6.10.0)",
    forceNew: ["custom_key_store_id", "customer_master_key_spec", "key_usage", "multi_region", "xks_key_id"],
    updates: ["deletion_window_in_days", "description", "enable_key_rotation", "tags"],
  },
  {
    type: "aws:cloudwatch/logGroup:LogGroup",
    tfResource: "aws_cloudwatch_log_group",
    file: "internal/service/logs/group.go",
    readAt: "0073593e7d69 (preIdentityVersion v6.7.0)",
    forceNew: ["log_group_class", "name", "name_prefix"],
    updates: ["retention_in_days", "tags"],
  },
  {
    type: "aws:eks/addon:Addon",
    tfResource: "aws_eks_addon",
    file: `${EKS}/addon.go`,
    readAt: "00a35305dc1b (2026 header)",
    forceNew: ["addon_name", "cluster_name"],
    updates: [
      "addon_version",
      "configuration_values",
      "pod_identity_association",
      "preserve",
      "resolve_conflicts_on_create",
      "resolve_conflicts_on_update",
      "service_account_role_arn",
      "tags",
    ],
  },
  {
    type: "aws:eks/accessEntry:AccessEntry",
    tfResource: "aws_eks_access_entry",
    file: `${EKS}/access_entry.go`,
    readAt: "01f431114674 (aws-sdk-go-v2)",
    forceNew: ["cluster_name", "principal_arn", "type"],
    updates: ["tags"],
  },
  {
    type: "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
    tfResource: "aws_eks_access_policy_association",
    file: `${EKS}/access_policy_association.go`,
    readAt: "01f431114674 (aws-sdk-go-v2; no Update function)",
    forceNew: [
      "access_scope",
      "access_scope.namespaces",
      "access_scope.type",
      "cluster_name",
      "policy_arn",
      "principal_arn",
    ],
    updates: [],
  },
  {
    type: "eks:index:Cluster",
    tfResource: "aws_eks_cluster",
    file: `${EKS}/cluster.go`,
    readAt: "00555dc5b38f (compute_config, remote_network_config: 2025)",
    forceNew: [
      "access_config.bootstrap_cluster_creator_admin_permissions",
      "bootstrap_self_managed_addons",
      "kubernetes_network_config.ip_family",
      "kubernetes_network_config.service_ipv4_cidr",
      "name",
      "outpost_config.control_plane_instance_type",
      "outpost_config.control_plane_placement.group_name",
      "remote_network_config",
      "remote_network_config.remote_node_networks.cidrs",
      "remote_network_config.remote_pod_networks.cidrs",
      "role_arn",
    ],
    forceNewIf: [
      {
        path: "encryption_config",
        when: "removed (ForceNewIfChange: envelope encryption cannot be disabled)",
      },
      { path: "compute_config.node_role_arn", when: "changed from a set role" },
    ],
    updates: ["enabled_cluster_log_types", "tags", "upgrade_policy", "version", "vpc_config"],
    note: "vpc_config.subnet_ids and security_group_ids were ForceNew in the fork's v5.14.0 and update in place in this copy (UpdateClusterConfig), which EKS refuses for subnets of another VPC",
  },
  {
    type: "aws:eks/nodeGroup:NodeGroup",
    tfResource: "aws_eks_node_group",
    file: `${EKS}/node_group.go`,
    readAt: "012e0a32f068 (node_repair_config)",
    forceNew: [
      "ami_type",
      "capacity_type",
      "cluster_name",
      "disk_size",
      "instance_types",
      "launch_template.id",
      "launch_template.name",
      "node_group_name",
      "node_group_name_prefix",
      "node_role_arn",
      "remote_access",
      "remote_access.ec2_ssh_key",
      "remote_access.source_security_group_ids",
      "subnet_ids",
    ],
    updates: [
      "labels",
      "launch_template.version",
      "release_version",
      "scaling_config",
      "tags",
      "taint",
      "update_config",
      "version",
    ],
    note: "version, release_version and launch_template go to UpdateNodegroupVersion (a rolling replacement of the nodes), labels, scaling_config, taint and update_config to UpdateNodegroupConfig (resourceNodeGroupUpdate); release_version and version are Optional and Computed, so unset they take what DescribeNodegroup shows (resourceNodeGroupRead) and plan no change",
  },
];

/** The row for a type token, if the type is an AWS one (or built on one). */
export function forceNewRow(type: string): ForceNewRow | undefined {
  return FORCE_NEW.find((row) => row.type === type);
}

/** `cidr_block` becomes `cidrBlock`, `launch_template.id` becomes `launchTemplate.id`. */
export function pulumiName(tfPath: string): string {
  return tfPath
    .split(".")
    .map((part) => part.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()))
    .join(".");
}

/** Where a rule's fact comes from, for the rule's `source` and the diff's notes. */
export function rowSource(row: ForceNewRow): string {
  return `${TF_AWS_SOURCE.repository}/blob/main/${row.file} (${row.tfResource} schema, ForceNew), as built into ${TF_AWS_SOURCE.pulumiAws} (${TF_AWS_SOURCE.upstream})`;
}
