/**
 * What the plans of every stack file need from the IAM policies of docs/iam/ (./iam-documents.ts), shared by
 * test/fork.test.ts and test/deploy-policy.test.ts: which AWS services and caller actions each resource
 * type and each invoke needs, and what @pulumi/eks creates unseen. What the plans register and call is
 * ./iam-planned.ts.
 */
import { READ_STACK_OUTPUTS } from "../stacks/previous-outputs";

/**
 * The IAM service prefixes a resource type's create, update and delete call. @pulumi/eks's Cluster is
 * remote (its children are invisible offline), so its are what pulumi-eks creates for the inputs the
 * program gives: an aws:eks/cluster with its IAM role, OIDC provider (`createOidcProvider`), security
 * groups and rules, and a grant on the secrets key it is given (EKS CreateCluster's encryptionConfig needs
 * kms:DescribeKey and kms:CreateGrant). A node group passes its role (iam:PassRole) and has EKS read its
 * launch template (ec2) and create the role's access entry.
 *
 * Karpenter's (components/karpenter): its interruption queue and the queue's policy are SQS (the Service
 * Authorization Reference, "Actions, resources, and condition keys for Amazon SQS": CreateQueue,
 * SetQueueAttributes and the rest name the `queue` resource, arn:aws:sqs:<region>:<account>:<name>); its
 * rules and their targets are EventBridge's (`events`; "... for Amazon EventBridge": PutRule, PutTargets
 * and the rest name `rule-on-default-event-bus`, arn:aws:events:<region>:<account>:rule/<name>); the
 * discovery tag on the cluster security group is ec2:CreateTags; the controller's six policies are IAM
 * customer managed policies (`policy`, arn:aws:iam::<account>:policy/<name>). A Pod Identity association
 * is EKS's (`podidentityassociation`, arn:aws:eks:<region>:<account>:podidentityassociation/<cluster>/<id>;
 * CreatePodIdentityAssociation itself names the `cluster`) and passes its role (iam, CALLER_ACTIONS).
 */
export const TYPE_SERVICES: Readonly<Record<string, readonly string[]>> = {
  "aws:cloudwatch/logGroup:LogGroup": ["logs"],
  "aws:cloudwatch/eventRule:EventRule": ["events"],
  "aws:cloudwatch/eventTarget:EventTarget": ["events"],
  "aws:ec2/eip:Eip": ["ec2"],
  "aws:ec2/internetGateway:InternetGateway": ["ec2"],
  "aws:ec2/launchTemplate:LaunchTemplate": ["ec2"],
  "aws:ec2/natGateway:NatGateway": ["ec2"],
  "aws:ec2/route:Route": ["ec2"],
  "aws:ec2/routeTable:RouteTable": ["ec2"],
  "aws:ec2/routeTableAssociation:RouteTableAssociation": ["ec2"],
  "aws:ec2/securityGroup:SecurityGroup": ["ec2"],
  "aws:ec2/vpcEndpoint:VpcEndpoint": ["ec2"],
  "aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation": ["ec2"],
  "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": ["ec2"],
  "aws:ec2/subnet:Subnet": ["ec2"],
  "aws:ec2/tag:Tag": ["ec2"],
  "aws:ec2/vpc:Vpc": ["ec2"],
  "aws:eks/accessEntry:AccessEntry": ["eks"],
  "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": ["eks"],
  "aws:eks/addon:Addon": ["eks"],
  "aws:eks/podIdentityAssociation:PodIdentityAssociation": ["eks", "iam"],
  "aws:iam/policy:Policy": ["iam"],
  "aws:iam/role:Role": ["iam"],
  "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ["iam"],
  "aws:kms/key:Key": ["kms"],
  "aws:sqs/queue:Queue": ["sqs"],
  "aws:sqs/queuePolicy:QueuePolicy": ["sqs"],
  "aws:eks/nodeGroup:NodeGroup": ["ec2", "eks", "iam"],
  "eks:index:Cluster": ["ec2", "eks", "iam", "kms"],
};

/**
 * Packages whose resources make no AWS call: Kubernetes objects go to the cluster's API (the token from
 * `aws eks get-token` is a presigned sts:GetCallerIdentity, which needs no permission), TLS keys are made
 * where Pulumi runs, the dynamic steps read the cluster, the rest are components and Pulumi's own.
 */
export const NO_AWS = ["kubernetes:", "tls:", "eks-calico:", "pulumi-nodejs:dynamic/", "pulumi:"];

/**
 * The actions AWS checks on the caller itself, beyond the service, for a resource type. A managed node
 * group from a launch template: EKS authorizes the caller to launch instances with it (CreateNodegroup's
 * InvalidRequestException "You are not authorized to launch instances with this launch template", as
 * terraform-aws-modules/terraform-aws-eks#3199 shows it in CloudTrail), as EC2 Auto Scaling does ("An IAM
 * user or role that creates or updates an Auto Scaling group using a launch template must have permission
 * to use the ec2:RunInstances action", EC2 Auto Scaling User Guide, "Launch template support"); it reads
 * the template's version (UpdateNodegroupVersion: "You are not authorized to describe the launch template
 * version") and passes the node role.
 *
 * A Pod Identity association passes its role: "The IAM principal that is creating the association must
 * have iam:PassRole" (EKS User Guide, pod-id-association.html), passed to pods.eks.amazonaws.com (the EMR
 * on EKS Development Guide, setting-up-enable-IAM.html, grants the creator of an association iam:PassRole
 * with `iam:PassedToService: pods.eks.amazonaws.com`; aws-samples/appmod-blueprints#816 shows the
 * AccessDeniedException without it). The rest check nothing more on the caller: the Service Authorization
 * Reference lists no dependent action for eks:CreateAccessEntry (the node role's EC2_LINUX entry names the
 * role, it does not pass it), and an EventBridge target on an SQS queue takes no role: EventBridge sends
 * through the queue's resource-based policy ("For Lambda, Amazon SNS, Amazon SQS, and Amazon CloudWatch
 * Logs resources, EventBridge uses resource-based policies", EventBridge User Guide, eb-use-resource-based).
 */
export const CALLER_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  "aws:eks/nodeGroup:NodeGroup": ["ec2:RunInstances", "ec2:DescribeLaunchTemplateVersions", "iam:PassRole"],
  "aws:eks/podIdentityAssociation:PodIdentityAssociation": ["iam:PassRole"],
};

/**
 * The roles a resource type passes, by the input that names the role, and the service it passes them to
 * (`iam:PassedToService`): a Pod Identity association's role goes to EKS Pod Identity (see CALLER_ACTIONS).
 * The cluster's and the node groups' roles go to EKS and EC2, by the one statement on role/cluster-* that
 * fork.test.ts holds to those two.
 */
export const PASSED_ROLES: Readonly<Record<string, { input: string; service: string }>> = {
  "aws:eks/podIdentityAssociation:PodIdentityAssociation": {
    input: "roleArn",
    service: "pods.eks.amazonaws.com",
  },
};

/**
 * What @pulumi/eks creates inside a remote component, unseen offline (pulumi/pulumi-eks v4.3.0,
 * nodejs/eks/cluster/cluster.ts and servicerole.ts). The Cluster: the service role `<name>-eksRole-role`,
 * autonamed, with AmazonEKSClusterPolicy attached, and no instance role (skipDefaultNodeGroup, no
 * createInstanceRole). Its only inline policies (aws.iam.RolePolicy) come with creationRoleProvider or
 * customInstanceRolePolicy, which the program never sets.
 */
export const COMPONENT_IAM: Readonly<
  Record<string, { roles: (name: string) => string[]; policies: string[] }>
> = {
  "eks:index:Cluster": { roles: (name) => [`${name}-eksRole-role`], policies: ["AmazonEKSClusterPolicy"] },
};

/**
 * The EKS actions whose request names no resource, so a policy grants them on `*` only: the Service
 * Authorization Reference, "Actions defined by Amazon Elastic Kubernetes Service", lists no resource type
 * for them. Every other EKS action the deploy policy grants names the stack's cluster.
 */
export const EKS_WITHOUT_RESOURCE = [
  "eks:CreateCluster",
  "eks:DescribeAddonVersions",
  "eks:DescribeAddonConfiguration",
  "eks:DescribeClusterVersions",
  "eks:ListClusters",
  "eks:ListAccessPolicies",
];

/**
 * The role writes every role the program creates needs, whatever it holds: the AWS provider creates, tags,
 * updates and deletes an aws.iam.Role with these (its trust with UpdateAssumeRolePolicy, its description
 * and session length with UpdateRole). Attaching and passing are granted per role, by what the plans
 * attach and pass.
 */
export const ROLE_LIFECYCLE = [
  "iam:CreateRole",
  "iam:DeleteRole",
  "iam:UpdateRole",
  "iam:UpdateAssumeRolePolicy",
  "iam:TagRole",
  "iam:UntagRole",
];

/**
 * IAM writes that would let a principal change what a role may do or who may assume it, or act as it
 * (cloudsplaining's privilege escalation methods, and iam:PassRole). The Service Authorization Reference
 * lists the `role` resource for each, so each can name the roles it may touch.
 */
export const ROLE_WRITES = [
  ...ROLE_LIFECYCLE,
  "iam:AttachRolePolicy",
  "iam:DetachRolePolicy",
  "iam:PutRolePolicy",
  "iam:DeleteRolePolicy",
  "iam:PutRolePermissionsBoundary",
  "iam:PassRole",
];

/**
 * The writes of a customer managed policy the AWS provider makes (hashicorp/terraform-provider-aws
 * internal/service/iam/policy.go, aws_iam_policy): CreatePolicy with its tags, CreatePolicyVersion with
 * SetAsDefault for a new document after ListPolicyVersions and DeletePolicyVersion of the oldest of five
 * (SetDefaultPolicyVersion only with delay_after_policy_creation_in_ms, which the program leaves unset),
 * DeletePolicyVersion of the others then DeletePolicy on delete, TagPolicy and UntagPolicy. Each names the
 * `policy` resource (Service Authorization Reference, AWS Identity and Access Management).
 */
export const POLICY_WRITES = [
  "iam:CreatePolicy",
  "iam:CreatePolicyVersion",
  "iam:DeletePolicy",
  "iam:DeletePolicyVersion",
  "iam:TagPolicy",
  "iam:UntagPolicy",
];

/** The physical name Pulumi gives a resource of `logical` name: `<logical>-<7 random hex>` ("Autonaming"). */
export const autonamed = (logical: string) => `${logical}-0a1b2c3`;

/** One resource a type's calls name, and the calls: an update's (with its reads) and a refresh's. */
interface ProviderCalls {
  readonly resource: (name: string) => string;
  readonly update: readonly string[];
  readonly refresh: readonly string[];
}

/**
 * What the AWS provider calls for Karpenter's AWS resources, on the ARN each call names (Service
 * Authorization Reference: `queue`, `rule-on-default-event-bus`, `policy`, `cluster` and
 * `podidentityassociation`), from hashicorp/terraform-provider-aws internal/service: sqs/queue.go creates
 * with CreateQueue (tags included), waits and reads with GetQueueAttributes and its tags with
 * ListQueueTags, updates with SetQueueAttributes, TagQueue and UntagQueue, deletes with DeleteQueue; its
 * queue_policy.go sets the queue's Policy attribute (SetQueueAttributes, GetQueueAttributes), so it names the
 * queue. events/rule.go puts the rule (PutRule, tags included), reads it with DescribeRule and
 * ListTagsForResource, tags with TagResource and UntagResource, deletes it with DeleteRule; events/target.go
 * puts, lists and removes the rule's targets (PutTargets, ListTargetsByRule, RemoveTargets), so they name the
 * rule. iam/policy.go: POLICY_WRITES, read with GetPolicy and GetPolicyVersion. eks/pod_identity_association.go
 * creates on the cluster, then describes, updates, tags and deletes the association (its tags come with
 * DescribePodIdentityAssociation). A region stands in for the policies' `*`.
 */
export const PROVIDER_CALLS: Readonly<Record<string, readonly ProviderCalls[]>> = {
  "aws:sqs/queue:Queue": [
    {
      resource: (name) => `arn:aws:sqs:us-west-2:<account-id>:${autonamed(name)}`,
      update: [
        "sqs:CreateQueue",
        "sqs:SetQueueAttributes",
        "sqs:TagQueue",
        "sqs:UntagQueue",
        "sqs:DeleteQueue",
      ],
      refresh: ["sqs:GetQueueAttributes", "sqs:ListQueueTags"],
    },
  ],
  "aws:cloudwatch/eventRule:EventRule": [
    {
      resource: (name) => `arn:aws:events:us-west-2:<account-id>:rule/${autonamed(name)}`,
      update: [
        "events:PutRule",
        "events:TagResource",
        "events:UntagResource",
        "events:DeleteRule",
        "events:PutTargets",
        "events:RemoveTargets",
      ],
      refresh: ["events:DescribeRule", "events:ListTagsForResource", "events:ListTargetsByRule"],
    },
  ],
  "aws:iam/policy:Policy": [
    {
      resource: (name) => `arn:aws:iam::<account-id>:policy/${autonamed(name)}`,
      update: [...POLICY_WRITES, "iam:ListPolicyVersions"],
      refresh: ["iam:GetPolicy", "iam:GetPolicyVersion"],
    },
  ],
  "aws:eks/podIdentityAssociation:PodIdentityAssociation": [
    {
      resource: () => "arn:aws:eks:us-west-2:<account-id>:cluster/<cluster-name>",
      update: ["eks:CreatePodIdentityAssociation"],
      refresh: [],
    },
    {
      resource: () =>
        "arn:aws:eks:us-west-2:<account-id>:podidentityassociation/<cluster-name>/a-0a1b2c3d4e5f6a7b8",
      update: [
        "eks:UpdatePodIdentityAssociation",
        "eks:TagResource",
        "eks:UntagResource",
        "eks:DeletePodIdentityAssociation",
      ],
      refresh: ["eks:DescribePodIdentityAssociation"],
    },
  ],
};

/** The IAM actions each invoke (data source) the program calls needs. */
export const CALL_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  "aws:index/getAvailabilityZones:getAvailabilityZones": ["ec2:DescribeAvailabilityZones"],
  "aws:eks/getAddonVersion:getAddonVersion": ["eks:DescribeAddonVersions"],
  "aws:eks/getAddon:getAddon": ["eks:DescribeAddon"],
  "aws:eks/getCluster:getCluster": ["eks:DescribeCluster"],
  "aws:eks/getNodeGroup:getNodeGroup": ["eks:DescribeNodegroup"],
  "aws:ec2/getRouteTables:getRouteTables": ["ec2:DescribeRouteTables"],
  "aws:ec2/getRouteTable:getRouteTable": ["ec2:DescribeRouteTables"],
  // Which AZs offer an interface endpoint's service (components/network/endpoints.ts).
  "aws:ec2/getVpcEndpointService:getVpcEndpointService": ["ec2:DescribeVpcEndpointServices"],
  // A node group's `latest` AMI release, from AWS's public parameter ("The IAM principal that you use must
  // have the ssm:GetParameter IAM permission", EKS User Guide, retrieve-ami-id.html). The policies grant it
  // on arn:aws:ssm:*:*:parameter/aws/service/* only: a public parameter's ARN has an empty account, which
  // `*` matches, and no account can name its own parameters so ("A parameter name can't be prefixed with
  // aws or ssm", SSM API reference, PutParameter).
  "aws:ssm/getParameter:getParameter": ["ssm:GetParameter"],
  // "No permissions are required to perform this operation" (STS API reference, GetCallerIdentity).
  "aws:index/getCallerIdentity:getCallerIdentity": [],
  // The stack's own last outputs, from Pulumi's state.
  [READ_STACK_OUTPUTS]: [],
};
