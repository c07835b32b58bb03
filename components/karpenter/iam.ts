/**
 * The IAM documents of Karpenter's controller and nodes: plain data, no Pulumi. The controller's six
 * policies are scoped as upstream's getting-started CloudFormation scopes them (aws/karpenter-provider-aws
 * website/content/en/preview/getting-started/getting-started-with-karpenter/cloudformation.yaml, which the
 * guide and the provider's own e2e setup deploy; test/fixtures/karpenter/cloudformation.yaml, held equal
 * by test/karpenter-iam.test.ts): what Karpenter launches, tags and deletes must carry the cluster's
 * `kubernetes.io/cluster/<name>: owned` and a `karpenter.sh/nodepool` tag.
 */

/** What the controller's policies are scoped to. */
export interface ControllerScope {
  readonly partition: string;
  readonly region: string;
  readonly accountId: string;
  readonly clusterName: string;
  readonly nodeRoleArn: string;
  readonly queueArn: string;
}

interface Statement {
  Sid: string;
  Effect: "Allow";
  Resource: string | string[];
  Action: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocument {
  Version: "2012-10-17";
  Statement: Statement[];
}

/** The controller's policies by upstream's name stem (`KarpenterController<stem>Policy`). */
export type ControllerPolicies = Record<
  "NodeLifecycle" | "IAMIntegration" | "EKSIntegration" | "Interruption" | "ZonalShift" | "ResourceDiscovery",
  PolicyDocument
>;

const allow = (statement: Omit<Statement, "Effect">): Statement => ({ Effect: "Allow", ...statement });
const document = (...statements: Statement[]): PolicyDocument => ({
  Version: "2012-10-17",
  Statement: statements,
});

export function controllerPolicies(s: ControllerScope): ControllerPolicies {
  const ec2 = (resource: string, account = "*") =>
    `arn:${s.partition}:ec2:${s.region}:${account}:${resource}`;
  const profiles = `arn:${s.partition}:iam::${s.accountId}:instance-profile/*`;
  const cluster = `arn:${s.partition}:eks:${s.region}:${s.accountId}:cluster/${s.clusterName}`;
  const owned = (scope: "ResourceTag" | "RequestTag") => ({
    [`aws:${scope}/kubernetes.io/cluster/${s.clusterName}`]: "owned",
  });
  const named = { "aws:RequestTag/eks:eks-cluster-name": s.clusterName };
  const inPool = (scope: "ResourceTag" | "RequestTag") => ({ [`aws:${scope}/karpenter.sh/nodepool`]: "*" });
  const launched = [
    "fleet/*",
    "instance/*",
    "volume/*",
    "network-interface/*",
    "launch-template/*",
    "spot-instances-request/*",
  ].map((resource) => ec2(resource));
  const region = (scope: "ResourceTag" | "RequestTag") => ({
    [`aws:${scope}/topology.kubernetes.io/region`]: s.region,
  });
  const ofClass = (scope: "ResourceTag" | "RequestTag") => ({
    [`aws:${scope}/karpenter.k8s.aws/ec2nodeclass`]: "*",
  });
  return {
    NodeLifecycle: document(
      allow({
        Sid: "AllowScopedEC2InstanceAccessActions",
        Resource: [
          ec2("image/*", ""),
          ec2("snapshot/*", ""),
          ec2("security-group/*"),
          ec2("subnet/*"),
          ec2("capacity-reservation/*"),
          ec2("placement-group/*"),
        ],
        Action: ["ec2:RunInstances", "ec2:CreateFleet"],
      }),
      allow({
        Sid: "AllowScopedEC2LaunchTemplateAccessActions",
        Resource: ec2("launch-template/*"),
        Action: ["ec2:RunInstances", "ec2:CreateFleet"],
        Condition: { StringEquals: owned("ResourceTag"), StringLike: inPool("ResourceTag") },
      }),
      allow({
        Sid: "AllowScopedEC2InstanceActionsWithTags",
        Resource: launched,
        Action: ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
        Condition: { StringEquals: { ...owned("RequestTag"), ...named }, StringLike: inPool("RequestTag") },
      }),
      allow({
        Sid: "AllowScopedResourceCreationTagging",
        Resource: launched,
        Action: "ec2:CreateTags",
        Condition: {
          StringEquals: {
            ...owned("RequestTag"),
            ...named,
            "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
          },
          StringLike: inPool("RequestTag"),
        },
      }),
      allow({
        Sid: "AllowScopedResourceTagging",
        Resource: ec2("instance/*"),
        Action: "ec2:CreateTags",
        Condition: {
          StringEquals: owned("ResourceTag"),
          StringLike: inPool("ResourceTag"),
          StringEqualsIfExists: named,
          "ForAllValues:StringEquals": {
            "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"],
          },
        },
      }),
      allow({
        Sid: "AllowScopedDeletion",
        Resource: [ec2("instance/*"), ec2("launch-template/*")],
        Action: ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
        Condition: { StringEquals: owned("ResourceTag"), StringLike: inPool("ResourceTag") },
      }),
    ),
    IAMIntegration: document(
      allow({
        Sid: "AllowPassingInstanceRole",
        Resource: s.nodeRoleArn,
        Action: "iam:PassRole",
        Condition: { StringEquals: { "iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"] } },
      }),
      allow({
        Sid: "AllowScopedInstanceProfileCreationActions",
        Resource: profiles,
        Action: ["iam:CreateInstanceProfile"],
        Condition: {
          StringEquals: { ...owned("RequestTag"), ...named, ...region("RequestTag") },
          StringLike: ofClass("RequestTag"),
        },
      }),
      allow({
        Sid: "AllowScopedInstanceProfileTagActions",
        Resource: profiles,
        Action: ["iam:TagInstanceProfile"],
        Condition: {
          StringEquals: {
            ...owned("ResourceTag"),
            ...region("ResourceTag"),
            ...owned("RequestTag"),
            ...named,
            ...region("RequestTag"),
          },
          StringLike: { ...ofClass("ResourceTag"), ...ofClass("RequestTag") },
        },
      }),
      allow({
        Sid: "AllowScopedInstanceProfileActions",
        Resource: profiles,
        Action: [
          "iam:AddRoleToInstanceProfile",
          "iam:RemoveRoleFromInstanceProfile",
          "iam:DeleteInstanceProfile",
        ],
        Condition: {
          StringEquals: { ...owned("ResourceTag"), ...region("ResourceTag") },
          StringLike: ofClass("ResourceTag"),
        },
      }),
    ),
    EKSIntegration: document(
      allow({ Sid: "AllowAPIServerEndpointDiscovery", Resource: cluster, Action: "eks:DescribeCluster" }),
    ),
    Interruption: document(
      allow({
        Sid: "AllowInterruptionQueueActions",
        Resource: s.queueArn,
        Action: ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
      }),
    ),
    ZonalShift: document(
      allow({
        Sid: "AllowZonalShiftStatusReadOnly",
        Resource: "*",
        Action: ["arc-zonal-shift:GetManagedResource"],
        Condition: { StringEquals: { "arc-zonal-shift:ResourceIdentifier": cluster } },
      }),
    ),
    ResourceDiscovery: document(
      allow({
        Sid: "AllowRegionalReadActions",
        Resource: "*",
        Action: [
          "ec2:DescribeCapacityReservations",
          "ec2:DescribeImages",
          "ec2:DescribeInstances",
          "ec2:DescribeInstanceStatus",
          "ec2:DescribeInstanceTypeOfferings",
          "ec2:DescribeInstanceTypes",
          "ec2:DescribeLaunchTemplates",
          "ec2:DescribePlacementGroups",
          "ec2:DescribeSecurityGroups",
          "ec2:DescribeSpotPriceHistory",
          "ec2:DescribeSubnets",
        ],
        Condition: { StringEquals: { "aws:RequestedRegion": s.region } },
      }),
      allow({
        Sid: "AllowSSMReadActions",
        Resource: `arn:${s.partition}:ssm:${s.region}::parameter/aws/service/*`,
        Action: "ssm:GetParameter",
      }),
      allow({ Sid: "AllowPricingReadActions", Resource: "*", Action: "pricing:GetProducts" }),
      allow({
        Sid: "AllowUnscopedInstanceProfileListAction",
        Resource: "*",
        Action: "iam:ListInstanceProfiles",
      }),
      allow({ Sid: "AllowInstanceProfileReadActions", Resource: profiles, Action: "iam:GetInstanceProfile" }),
    ),
  };
}
