/**
 * The IAM policies of docs/iam/ and what the plans of every stack file need from them, shared by
 * test/fork.test.ts and test/deploy-policy.test.ts: which AWS services and caller actions each resource
 * type and each invoke needs, what @pulumi/eks creates unseen, and the plans' types, calls, attached
 * managed policies and roles.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT, evaluateStack, listStacks, loadStackConfig } from "../offline/engine";
import { READ_STACK_OUTPUTS } from "../stacks/previous-outputs";

/**
 * The IAM service prefixes a resource type's create, update and delete call. @pulumi/eks's Cluster is
 * remote (its children are invisible offline), so its are what pulumi-eks creates for the inputs the
 * program gives: an aws:eks/cluster with its IAM role, OIDC provider (`createOidcProvider`), security
 * groups and rules, and a grant on the secrets key it is given (EKS CreateCluster's encryptionConfig needs
 * kms:DescribeKey and kms:CreateGrant). A node group passes its role (iam:PassRole) and has EKS read its
 * launch template (ec2) and create the role's access entry.
 */
export const TYPE_SERVICES: Readonly<Record<string, readonly string[]>> = {
  "aws:cloudwatch/logGroup:LogGroup": ["logs"],
  "aws:ec2/eip:Eip": ["ec2"],
  "aws:ec2/internetGateway:InternetGateway": ["ec2"],
  "aws:ec2/launchTemplate:LaunchTemplate": ["ec2"],
  "aws:ec2/natGateway:NatGateway": ["ec2"],
  "aws:ec2/route:Route": ["ec2"],
  "aws:ec2/routeTable:RouteTable": ["ec2"],
  "aws:ec2/routeTableAssociation:RouteTableAssociation": ["ec2"],
  "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": ["ec2"],
  "aws:ec2/subnet:Subnet": ["ec2"],
  "aws:ec2/vpc:Vpc": ["ec2"],
  "aws:eks/accessEntry:AccessEntry": ["eks"],
  "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": ["eks"],
  "aws:eks/addon:Addon": ["eks"],
  "aws:iam/role:Role": ["iam"],
  "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ["iam"],
  "aws:kms/key:Key": ["kms"],
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
 */
export const CALLER_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  "aws:eks/nodeGroup:NodeGroup": ["ec2:RunInstances", "ec2:DescribeLaunchTemplateVersions", "iam:PassRole"],
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
 * IAM writes that would let a principal change what a role may do or who may assume it, or act as it
 * (cloudsplaining's privilege escalation methods, and iam:PassRole). The Service Authorization Reference
 * lists the `role` resource for each, so each can name the roles it may touch.
 */
export const ROLE_WRITES = [
  "iam:CreateRole",
  "iam:DeleteRole",
  "iam:UpdateRole",
  "iam:UpdateAssumeRolePolicy",
  "iam:TagRole",
  "iam:UntagRole",
  "iam:AttachRolePolicy",
  "iam:DetachRolePolicy",
  "iam:PutRolePolicy",
  "iam:DeleteRolePolicy",
  "iam:PutRolePermissionsBoundary",
  "iam:PassRole",
];

/** The IAM actions each invoke (data source) the program calls needs. */
export const CALL_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  "aws:index/getAvailabilityZones:getAvailabilityZones": ["ec2:DescribeAvailabilityZones"],
  "aws:eks/getAddonVersion:getAddonVersion": ["eks:DescribeAddonVersions"],
  "aws:eks/getAddon:getAddon": ["eks:DescribeAddon"],
  "aws:eks/getCluster:getCluster": ["eks:DescribeCluster"],
  "aws:eks/getNodeGroup:getNodeGroup": ["eks:DescribeNodegroup"],
  "aws:ec2/getRouteTables:getRouteTables": ["ec2:DescribeRouteTables"],
  "aws:ec2/getRouteTable:getRouteTable": ["ec2:DescribeRouteTables"],
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

export interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
  Principal?: { Federated?: string };
}
export interface PolicyDocument {
  Version: string;
  Statement: Statement[];
}

export const IAM_DIR = path.join(PROJECT_ROOT, "docs", "iam");
export const ROLES = ["deploy", "preview", "drift"] as const;
export const policyFile = (role: string, kind: "policy" | "trust") => `${role}-${kind}.json`;
export const readPolicy = (file: string) =>
  JSON.parse(fs.readFileSync(path.join(IAM_DIR, file), "utf8")) as PolicyDocument;
export const list = (value: string | string[]) => (Array.isArray(value) ? value : [value]);
export const allowed = (policy: PolicyDocument) =>
  policy.Statement.filter((s) => s.Effect === "Allow").flatMap((s) => list(s.Action));

/** Whether an IAM action pattern (`*` and `?` wildcards, case-insensitive) matches `action`. */
export function matches(pattern: string, action: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${regex}$`, "i").test(action);
}
export const grants = (policy: PolicyDocument, action: string) =>
  allowed(policy).some((pattern) => matches(pattern, action));
export const services = (policy: PolicyDocument) => new Set(allowed(policy).map((a) => a.split(":")[0]));

export interface Planned {
  types: Set<string>;
  calls: Set<string>;
  /** The managed policies attached, the plans' own and those @pulumi/eks attaches (COMPONENT_IAM). */
  policies: Set<string>;
  /** The logical names of the roles created, whose physical names Pulumi derives from them. */
  roles: Set<string>;
}

/** What every stack file's plans register and call, as `pulumi preview` and as `pulumi up` run them. */
export async function planned(): Promise<Planned> {
  const plan: Planned = { types: new Set(), calls: new Set(), policies: new Set(), roles: new Set() };
  for (const stack of listStacks()) {
    // A later update too, of the stack as deployed with its default routes still inline: the reads only a
    // deployed stack makes (its cluster's version, its route tables).
    const { network, ...deployed } = (await evaluateStack(stack, { preview: false })).outputs;
    const inline = Object.fromEntries(Object.entries(network ?? {}).filter(([key]) => key !== "routes"));
    const later = network === undefined ? deployed : { ...deployed, network: inline };
    // And with each node group on its `latest` AMI release: the read of AWS's public parameter it makes.
    const listed = loadStackConfig(stack).values["eks-calico:nodeGroups"];
    const groups = listed === undefined ? [] : (JSON.parse(listed) as object[]);
    const latest =
      groups.length === 0
        ? undefined
        : { "eks-calico:nodeGroups": groups.map((g) => ({ ...g, amiReleaseVersion: "latest" })) };
    for (const [preview, previousOutputs, config] of [
      [true, undefined, undefined],
      [false, undefined, undefined],
      [true, later, undefined],
      [false, later, undefined],
      ...(latest === undefined ? [] : ([[true, undefined, latest]] as const)),
    ] as const) {
      const onCall = (token: string) => plan.calls.add(token);
      const evaluation = await evaluateStack(stack, { preview, onCall, previousOutputs, config });
      for (const resource of evaluation.resources) {
        plan.types.add(resource.type);
        const component = COMPONENT_IAM[resource.type] as (typeof COMPONENT_IAM)[string] | undefined;
        for (const role of component?.roles(resource.name) ?? []) plan.roles.add(role);
        for (const name of component?.policies ?? []) plan.policies.add(`arn:aws:iam::aws:policy/${name}`);
        if (resource.type === "aws:iam/role:Role") plan.roles.add(resource.name);
        if (resource.type === "aws:iam/rolePolicyAttachment:RolePolicyAttachment") {
          plan.policies.add(String(resource.inputs.policyArn));
        }
      }
    }
  }
  return plan;
}
