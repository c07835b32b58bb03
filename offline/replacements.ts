/**
 * Which input changes make the provider replace a resource rather than update it, for every resource
 * type the program registers: one row per type, with the source of the fact. The diff (diff.ts) reads it
 * to say `+- replace` where `pulumi up` would, and cascades replacements to resources built from a
 * replaced one's id. Paths are input paths (`cidrBlock`, `spec.selector`); a change at or below one
 * forces replacement. AWS rows follow the provider's ForceNew schema (aws-force-new.ts, in Terraform's
 * names), which test/replacement-sources.test.ts holds them to. The rows of the program's own steps are
 * in step-replacements.ts.
 */
import { OPERATOR_API_VERSION, OPERATOR_KINDS } from "../components/calico/operator/custom-resources";
import { TLS_RULES } from "../tools/tls-provider/replace-rules";
import { forceNewRow, pulumiName, rowSource } from "./aws-force-new";
import { deployedDesiredSize, inPlaceUpdate, replacement, rollingUpdate } from "./node-rollout";
import type { ReplacementRule } from "./diff-types";
import { STEP_REPLACEMENTS } from "./step-replacements";

const K8S_DIFF = "pulumi/pulumi-kubernetes provider/pkg/provider/diff.go (forceNewProperties)";
const K8S_METADATA = ["metadata.name", "metadata.namespace"];

/** The source of an AWS rule: its row of aws-force-new.ts. */
function awsSource(type: string): string {
  const row = forceNewRow(type);
  if (row === undefined) throw new Error(`aws-force-new.ts has no row for ${type}`);
  return rowSource(row);
}

/**
 * The inputs that carry a Terraform path: those `names` gives for it or for its top-level block, else its
 * camelCase (`launch_template.id` is `launchTemplate.id`).
 */
export function inputsFor(names: Readonly<Record<string, readonly string[]>>, tfPath: string): string[] {
  if (Object.hasOwn(names, tfPath)) return [...names[tfPath]];
  const [head, ...rest] = tfPath.split(".");
  const tail = rest.length > 0 ? `.${pulumiName(rest.join("."))}` : "";
  return (Object.hasOwn(names, head) ? names[head] : [pulumiName(head)]).map((h) => `${h}${tail}`);
}

/**
 * A Terraform resource's ForceNew arguments (aws-force-new.ts, the one record of them) as the inputs that
 * carry them, each once; a nested argument only where its block is not ForceNew as a whole.
 */
export function forceNewInputs(
  type: string,
  names: Readonly<Record<string, readonly string[]>> = {},
): string[] {
  const row = forceNewRow(type);
  if (row === undefined) throw new Error(`aws-force-new.ts has no row for ${type}`);
  const inputs = [...new Set(row.forceNew.flatMap((tfPath) => inputsFor(names, tfPath)))];
  return inputs.filter((input) => !inputs.some((other) => other !== input && underPath(input, other)));
}

/** An AWS resource's rule: the ForceNew arguments of its Terraform resource, in Pulumi's names. */
function aws(type: string, more: Partial<ReplacementRule> = {}): ReplacementRule {
  const row = forceNewRow(type);
  return {
    replaceOn: forceNewInputs(type, more.tf?.names),
    ...more,
    tf: { resource: row?.tfResource ?? "", ...more.tf },
    source: awsSource(type),
  };
}

/**
 * The tls resources' rows, from terraform-provider-tls's schema as tools/tls-provider/replace-rules.ts
 * records it (the `tls` stand-in serves the same rules): a PEM input replaces while the state holds a PEM,
 * which it always does here; an input without RequiresReplace (`earlyRenewalHours`) updates in place.
 */
const TLS_REPLACEMENTS: Record<string, ReplacementRule> = Object.fromEntries(
  Object.entries(TLS_RULES).map(([type, rules]) => [
    type,
    {
      replaceOn: rules.inputs.filter((i) => i.rule.startsWith("replace")).map((i) => i.input),
      source: `hashicorp/terraform-provider-tls v4.2.1 ${rules.file} (RequiresReplace)`,
    },
  ]),
);

/** The rules by type token. A type missing here is shown as "may replace" by the diff, never as an update. */
export const REPLACEMENT_RULES: Readonly<Record<string, ReplacementRule>> = {
  "aws:ec2/vpc:Vpc": aws("aws:ec2/vpc:Vpc"),
  "aws:ec2/subnet:Subnet": aws("aws:ec2/subnet:Subnet"),
  // vpcId updates by detaching and attaching.
  "aws:ec2/internetGateway:InternetGateway": aws("aws:ec2/internetGateway:InternetGateway"),
  "aws:ec2/eip:Eip": aws("aws:ec2/eip:Eip"),
  "aws:ec2/natGateway:NatGateway": aws("aws:ec2/natGateway:NatGateway"),
  "aws:ec2/routeTable:RouteTable": aws("aws:ec2/routeTable:RouteTable", {
    tf: { resource: "aws_route_table", names: { route: ["routes"] } },
    ignored: [
      {
        path: "routes",
        when: (inputs) => inputs.routes === undefined,
        why: "routes unset: `route` is Optional and Computed (vpc_route_table.go), so the table keeps the routes it has",
      },
    ],
  }),
  "aws:ec2/securityGroup:SecurityGroup": aws("aws:ec2/securityGroup:SecurityGroup"),
  // A new source of the same kind updates in place (ModifySecurityGroupRules).
  "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": aws(
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
  ),
  // Karpenter's: its rules and targets (PutRule, PutTargets), queue and policy, policies (a new default
  // version), Pod Identity association (a new role in place) and discovery tag (a new value in place).
  ...Object.fromEntries(
    [
      "aws:cloudwatch/eventRule:EventRule",
      "aws:cloudwatch/eventTarget:EventTarget",
      "aws:sqs/queue:Queue",
      "aws:sqs/queuePolicy:QueuePolicy",
      "aws:iam/policy:Policy",
      "aws:eks/podIdentityAssociation:PodIdentityAssociation",
      "aws:ec2/tag:Tag",
    ].map((type) => [type, aws(type)]),
  ),
  // Subnets, security groups and route tables update in place (ModifyVpcEndpoint).
  "aws:ec2/vpcEndpoint:VpcEndpoint": aws("aws:ec2/vpcEndpoint:VpcEndpoint"),
  "aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation": aws(
    "aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation",
  ),
  // A new target updates in place (ReplaceRoute).
  "aws:ec2/route:Route": aws("aws:ec2/route:Route"),
  // routeTableId updates in place (ReplaceRouteTableAssociation).
  "aws:ec2/routeTableAssociation:RouteTableAssociation": aws(
    "aws:ec2/routeTableAssociation:RouteTableAssociation",
  ),
  "aws:ec2/launchTemplate:LaunchTemplate": aws("aws:ec2/launchTemplate:LaunchTemplate", {
    // resourceLaunchTemplateUpdate makes a new version (CreateLaunchTemplateVersion) when any argument of
    // the template's data or its description changes (updateKeys); name, tags and the default-version
    // settings make none. This is what AWS does, not what `pulumi preview` shows: the provider's
    // CustomizeDiff leaves latest_version known for a description change (aws-force-new.ts, its note).
    updateOutputs: {
      outputs: ["latestVersion"],
      except: (forceNewRow("aws:ec2/launchTemplate:LaunchTemplate")?.noNewVersion ?? []).map(pulumiName),
      why: "a new launch template version (CreateLaunchTemplateVersion)",
    },
    // EC2 tags an instance at launch from the template's tag specifications (EC2 User Guide, "Tag your
    // resources": launch templates), and EKS rolls a node group to a new template version by replacing
    // every node (managed-node-update-behavior.html).
    updateNotes: {
      tagSpecifications:
        "the stack's tags reach each node only at launch: a changed tag replaces every node of the group (docs/config-reference.md#tags)",
    },
  }),
  "aws:iam/role:Role": aws("aws:iam/role:Role"),
  "aws:iam/rolePolicyAttachment:RolePolicyAttachment": aws(
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
  ),
  "aws:kms/key:Key": aws("aws:kms/key:Key"),
  "aws:cloudwatch/logGroup:LogGroup": aws("aws:cloudwatch/logGroup:LogGroup"),
  "aws:eks/addon:Addon": aws("aws:eks/addon:Addon", {
    tf: { resource: "aws_eks_addon", names: { pod_identity_association: ["podIdentityAssociations"] } },
  }),
  "aws:eks/accessEntry:AccessEntry": aws("aws:eks/accessEntry:AccessEntry"),
  "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": aws(
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
  ),
  "eks:index:Cluster": {
    // @pulumi/eks passes `name` to aws.eks.Cluster (createCore, nodejs/eks/cluster/cluster.ts v4.3.0).
    replaceOn: ["name"],
    // Passed to aws.eks.Cluster, which updates them in place (UpdateClusterVersion, UpdateClusterConfig).
    updateOn: [
      "version",
      "enabledClusterLogTypes",
      "publicAccessCidrs",
      "endpointPublicAccess",
      "endpointPrivateAccess",
      "tags",
      "upgradePolicy",
    ],
    remote:
      "decided inside @pulumi/eks (nodejs/eks/cluster/cluster.ts), which builds resources from it the offline plan does not see",
    mayReplace: {
      vpcId:
        "@pulumi/eks builds the cluster's security group in it; the AWS provider updates vpc_config in place and EKS refuses another VPC's subnets (UpdateClusterConfig): replaced, or `pulumi up` fails",
      privateSubnetIds:
        "the AWS provider updates vpc_config.subnet_ids in place, and EKS refuses subnets of another VPC (UpdateClusterConfig)",
      publicSubnetIds:
        "the AWS provider updates vpc_config.subnet_ids in place, and EKS refuses subnets of another VPC (UpdateClusterConfig)",
    },
    tf: { resource: "aws_eks_cluster", partial: true },
    source: `pulumi/pulumi-eks nodejs/eks/cluster/cluster.ts v4.3.0; ${awsSource("eks:index:Cluster")}`,
  },
  // A new launch template version (`launchTemplate.version`), a version or an AMI release goes to
  // UpdateNodegroupVersion, which replaces every node (EKS managed node update behavior).
  "aws:eks/nodeGroup:NodeGroup": aws("aws:eks/nodeGroup:NodeGroup", {
    rollout: {
      rollOn: ["version", "releaseVersion", "launchTemplate"],
      deployed: deployedDesiredSize,
      roll: rollingUpdate,
      replace: replacement,
      inPlace: inPlaceUpdate,
    },
    tf: { resource: "aws_eks_node_group", names: { taint: ["taints"] } },
  }),
  "pulumi:providers:kubernetes": {
    // A kubeconfig for another cluster makes the provider, and every object it manages, new; so does
    // another clusterIdentifier (which, when set, is all DiffConfig compares).
    replaceOn: ["kubeconfig", "clusterIdentifier"],
    source:
      "pulumi/pulumi-kubernetes provider DiffConfig (a changed cluster replaces the provider's resources)",
  },
  ...STEP_REPLACEMENTS,
  ...TLS_REPLACEMENTS,
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
  // The startup taint's admission policy: forceNew has no row for its group (diff.go, v4.25.0).
  ...Object.fromEntries(
    ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"].map((kind) => [
      `kubernetes:admissionregistration.k8s.io/v1:${kind}`,
      { replaceOn: K8S_METADATA, source: `${K8S_DIFF}: no row for group admissionregistration.k8s.io` },
    ]),
  ),
  // The operator's custom resources: a group forceNew has no row for, so only their identity replaces
  // them (diff.go forceNewProperties: metadataForceNewProperties alone; checked at v4.25.0).
  ...Object.fromEntries(
    OPERATOR_KINDS.map((kind) => [
      `kubernetes:${OPERATOR_API_VERSION}:${kind}`,
      { replaceOn: K8S_METADATA, source: `${K8S_DIFF}: no row for group operator.tigera.io` },
    ]),
  ),
  // Karpenter's pools and node classes: a group forceNew has no row for either.
  ...Object.fromEntries(
    ["karpenter.sh/v1:NodePool", "karpenter.k8s.aws/v1:EC2NodeClass"].map((type) => [
      `kubernetes:${type}`,
      { replaceOn: K8S_METADATA, source: `${K8S_DIFF}: no row for group ${type.split("/")[0]}` },
    ]),
  ),
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

/** `launchTemplate.id` becomes `launch_template.id`: the Terraform path a Pulumi input path carries. */
function terraformPath(rule: ReplacementRule, path: string): string {
  const named = Object.entries(rule.tf?.names ?? {}).find(([, inputs]) =>
    inputs.some((input) => underPath(path, input)),
  );
  if (named !== undefined) return named[0];
  return path.replace(/\[\d+\]/g, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * A short name for why a change at `rulePath` replaces a resource of `type`, for the diff's lines: the
 * AWS provider's ForceNew argument and its schema file, or the rule's source.
 */
export function replacementRef(type: string, rulePath: string): string {
  const rule = Object.hasOwn(REPLACEMENT_RULES, type) ? REPLACEMENT_RULES[type] : undefined;
  if (rule === undefined) return "no rule";
  const row = forceNewRow(type);
  if (rule.tf === undefined || row === undefined) return rule.source;
  return `${rule.tf.resource} ${terraformPath(rule, rulePath)} ForceNew, terraform-provider-aws ${row.file}`;
}
