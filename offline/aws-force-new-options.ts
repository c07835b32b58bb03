/**
 * The ForceNew rows (aws-force-new.ts, the same shape and the same record) of the AWS types only an
 * optional feature registers: the interface endpoints' security group and the S3 gateway endpoint
 * (`network.endpoints`), and Karpenter's queue, rules, policies, Pod Identity association and discovery tag
 * (`karpenter.enabled`).
 */
import type { ForceNewRow } from "./force-new-row";

const EC2 = "internal/service/ec2";
const EKS = "internal/service/eks";

export const OPTION_ROWS: readonly ForceNewRow[] = [
  {
    type: "aws:ec2/securityGroup:SecurityGroup",
    tfResource: "aws_security_group",
    file: `${EC2}/vpc_security_group.go`,
    readAt: "01606926a0c0 (aws-sdk-go-v2)",
    forceNew: ["description", "name", "name_prefix", "vpc_id"],
    updates: ["egress", "ingress", "revoke_rules_on_delete", "tags"],
    note: "ingress and egress are Optional and Computed: unset, the group keeps its rules; a new group has AWS's allow-all egress revoked (resourceSecurityGroupCreate)",
  },
  {
    type: "aws:ec2/vpcEndpoint:VpcEndpoint",
    tfResource: "aws_vpc_endpoint",
    file: `${EC2}/vpc_endpoint.go`,
    readAt: "008db85aad5e (aws-sdk-go-v2)",
    forceNew: [
      "dns_options.private_dns_preference",
      "dns_options.private_dns_specified_domains",
      "resource_configuration_arn",
      "service_name",
      "service_network_arn",
      "service_region",
      "vpc_endpoint_type",
      "vpc_id",
    ],
    forceNewIf: [
      {
        path: "private_dns_enabled",
        when: "changed on an endpoint whose type is not Interface (CustomizeDiff)",
      },
    ],
    updates: ["private_dns_enabled", "route_table_ids", "security_group_ids", "subnet_ids", "tags"],
    note: "subnets, security groups and route tables update in place (ModifyVpcEndpoint, resourceVPCEndpointUpdate)",
  },
  {
    type: "aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation",
    tfResource: "aws_vpc_endpoint_route_table_association",
    file: `${EC2}/vpc_endpoint_route_table_association.go`,
    readAt: "16e76651d0ed",
    forceNew: ["route_table_id", "vpc_endpoint_id"],
    updates: [],
    note: "no update: create and delete are ModifyVpcEndpoint AddRouteTableIds and RemoveRouteTableIds",
  },
  {
    type: "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    tfResource: "aws_vpc_security_group_ingress_rule",
    file: `${EC2}/vpc_security_group_ingress_rule.go`,
    readAt: "d2b7f56a7c45 (plugin framework: RequiresReplace)",
    forceNew: ["security_group_id"],
    forceNewIf: [
      {
        path: "cidr_ipv4",
        when: "the rule's source kind changes (cidr_ipv4, cidr_ipv6, prefix_list_id, referenced_security_group_id: ModifyPlan)",
      },
    ],
    updates: ["cidr_ipv4", "description", "from_port", "ip_protocol", "tags", "to_port"],
    note: "a new value of the same source kind updates in place (ModifySecurityGroupRules)",
  },
  {
    type: "aws:cloudwatch/eventRule:EventRule",
    tfResource: "aws_cloudwatch_event_rule",
    file: "internal/service/events/rule.go",
    readAt: "9dfe6ffbc9e8",
    forceNew: ["event_bus_name", "name", "name_prefix"],
    updates: ["description", "event_pattern", "role_arn", "schedule_expression", "state", "tags"],
    note: "PutRule with the whole rule (resourceRuleUpdate)",
  },
  {
    type: "aws:cloudwatch/eventTarget:EventTarget",
    tfResource: "aws_cloudwatch_event_target",
    file: "internal/service/events/target.go",
    readAt: "bf84f8e534d8",
    forceNew: ["event_bus_name", "rule", "target_id"],
    updates: ["arn", "input", "input_path", "role_arn"],
    note: "PutTargets with the whole target (resourceTargetUpdate)",
  },
  {
    type: "aws:sqs/queue:Queue",
    tfResource: "aws_sqs_queue",
    file: "internal/service/sqs/queue.go",
    readAt: "cda04ab9f781",
    forceNew: ["fifo_queue", "name", "name_prefix"],
    updates: ["message_retention_seconds", "sqs_managed_sse_enabled", "tags", "visibility_timeout_seconds"],
    note: "SetQueueAttributes (resourceQueueUpdate)",
  },
  {
    type: "aws:sqs/queuePolicy:QueuePolicy",
    tfResource: "aws_sqs_queue_policy",
    file: "internal/service/sqs/queue_policy.go",
    readAt: "af55dfb90500",
    forceNew: ["queue_url"],
    updates: ["policy"],
  },
  {
    type: "aws:iam/policy:Policy",
    tfResource: "aws_iam_policy",
    file: "internal/service/iam/policy.go",
    readAt: "01ccd9a2d118 (aws-sdk-go-v2)",
    forceNew: ["description", "name", "name_prefix", "path"],
    updates: ["policy", "tags"],
    note: "a new document is a new default version (CreatePolicyVersion, then SetDefaultPolicyVersion)",
  },
  {
    type: "aws:eks/podIdentityAssociation:PodIdentityAssociation",
    tfResource: "aws_eks_pod_identity_association",
    file: `${EKS}/pod_identity_association.go`,
    readAt: "00a35305dc1b (plugin framework: RequiresReplace)",
    forceNew: ["cluster_name", "namespace", "service_account"],
    updates: ["role_arn", "tags"],
    note: "UpdatePodIdentityAssociation",
  },
  {
    type: "aws:ec2/tag:Tag",
    tfResource: "aws_ec2_tag",
    file: `${EC2}/tag.go`,
    readAt:
      "299594d1f62a of aws/resource_aws_ec2_tag.go, its copy before the internal/service layout (the stored copy has tag.go's tests, tag_test.go 021e60b20cb7, not tag.go)",
    forceNew: ["key", "resource_id"],
    updates: ["value"],
    note: "CreateTags with the new value (resourceAwsEc2TagUpdate)",
  },
];
