/**
 * The vocabulary of the ordering table (test/ordering.ts): the type tokens it names, and the
 * resource sets more than one row uses.
 */
import { OPERATOR_NAME } from "../components/calico/operator/settings";
import { TAKEOVER_TYPE } from "../components/calico/takeover";
import { LINE_CHECK_TYPE } from "../components/calico/line-check";
import { INSTALL_CHECK_TYPE } from "../components/calico/install-check";
import { REMOVAL_MARKER_TYPE } from "../components/calico/removal-marker";
import { HAND_OVER_TYPE } from "../components/existing-cluster/hand-over-step";
import { AWS_NODE_CHECK_TYPE } from "../components/existing-cluster/aws-node-check";
import { TYPHA_RETIREMENT_TYPE } from "../components/calico/takeover/typha-retirement";
import { FELIX_CLEANUP_TYPE } from "../components/calico/felix-cleanup";
import { FELIX_RESTORE_TYPE } from "../components/calico/felix-cleanup/restore";

/** Resources picked by type token and, optionally, Pulumi resource name. */
export interface ResourceSet {
  /** How docs/ordering.md names the set. */
  readonly label: string;
  readonly types: readonly string[];
  readonly name?: RegExp;
}

/**
 * Which workload an update rolls first: Typha, unless Typha's new release would disconnect the Felix the
 * cluster runs (components/calico/typha-felix.ts), when calico-node goes first. Each case of
 * test/ordering.test.ts says which its update does.
 */
export type FirstRolled = "Typha" | "calico-node";

export interface OrderingRule {
  /** The row holds only in updates that roll this workload first; unset, in every update. */
  readonly firstRolled?: FirstRolled;
  readonly before: ResourceSet;
  readonly after: ResourceSet;
  /** Pair resources of the two sets by Pulumi name instead of requiring every pair. */
  readonly pairByName?: boolean;
  /** The row does not apply to a stack that has a resource of this set (another row orders it). */
  readonly unlessPresent?: ResourceSet;
  /** What fails without the order. */
  readonly why: string;
  readonly source: string;
}

export const T = {
  vpc: "aws:ec2/vpc:Vpc",
  igw: "aws:ec2/internetGateway:InternetGateway",
  nat: "aws:ec2/natGateway:NatGateway",
  routeTable: "aws:ec2/routeTable:RouteTable",
  route: "aws:ec2/route:Route",
  association: "aws:ec2/routeTableAssociation:RouteTableAssociation",
  vpcEndpoint: "aws:ec2/vpcEndpoint:VpcEndpoint",
  vpcEndpointAssociation: "aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation",
  role: "aws:iam/role:Role",
  attachment: "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
  key: "aws:kms/key:Key",
  logGroup: "aws:cloudwatch/logGroup:LogGroup",
  cluster: "eks:index:Cluster",
  nodeGroup: "aws:eks/nodeGroup:NodeGroup",
  addon: "aws:eks/addon:Addon",
  accessEntry: "aws:eks/accessEntry:AccessEntry",
  accessPolicy: "aws:eks/accessPolicyAssociation:AccessPolicyAssociation",
  namespace: "kubernetes:core/v1:Namespace",
  crd: "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
  serviceAccount: "kubernetes:core/v1:ServiceAccount",
  clusterRole: "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
  clusterRoleBinding: "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
  k8sRole: "kubernetes:rbac.authorization.k8s.io/v1:Role",
  k8sRoleBinding: "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding",
  configMap: "kubernetes:core/v1:ConfigMap",
  secret: "kubernetes:core/v1:Secret",
  deployment: "kubernetes:apps/v1:Deployment",
  service: "kubernetes:core/v1:Service",
  pdb: "kubernetes:policy/v1:PodDisruptionBudget",
  daemonSet: "kubernetes:apps/v1:DaemonSet",
  networkPolicy: "kubernetes:networking.k8s.io/v1:NetworkPolicy",
  job: "kubernetes:batch/v1:Job",
  pod: "kubernetes:core/v1:Pod",
  installation: "kubernetes:operator.tigera.io/v1:Installation",
  apiServer: "kubernetes:operator.tigera.io/v1:APIServer",
  goldmane: "kubernetes:operator.tigera.io/v1:Goldmane",
  whisker: "kubernetes:operator.tigera.io/v1:Whisker",
  admissionPolicy: "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy",
  admissionPolicyBinding: "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding",
  takeover: TAKEOVER_TYPE,
  lineCheck: LINE_CHECK_TYPE,
  installCheck: INSTALL_CHECK_TYPE,
  handOver: HAND_OVER_TYPE,
  awsNodeCheck: AWS_NODE_CHECK_TYPE,
  typhaRetirement: TYPHA_RETIREMENT_TYPE,
  felixCleanup: FELIX_CLEANUP_TYPE,
  felixRestore: FELIX_RESTORE_TYPE,
  removalMarker: REMOVAL_MARKER_TYPE,
} as const;

export const VPC_CNI: ResourceSet = {
  label: "the vpc-cni add-on",
  types: [T.addon],
  name: /^cluster-vpc-cni$/,
};
export const HAND_OVER: ResourceSet = {
  label: "the network-policy agent's hand-over step",
  types: [T.handOver],
};
export const AWS_NODE_CHECK: ResourceSet = { label: "the aws-node check", types: [T.awsNodeCheck] };
export const PROBE_NAMESPACE: ResourceSet = {
  label: "the policy probe's namespace",
  types: [T.namespace],
  name: /-probe-namespace$/,
};
export const NODE_GROUPS: ResourceSet = { label: "every node group", types: [T.nodeGroup] };
export const CLUSTER: ResourceSet = { label: "the EKS cluster", types: [T.cluster] };
export const CALICO_OBJECTS: ResourceSet = {
  label: "every Calico object",
  types: [
    T.namespace,
    T.crd,
    T.serviceAccount,
    T.clusterRole,
    T.clusterRoleBinding,
    T.k8sRole,
    T.k8sRoleBinding,
    T.configMap,
    T.secret,
    T.deployment,
    T.service,
    T.pdb,
    T.daemonSet,
    T.admissionPolicy,
    T.admissionPolicyBinding,
    T.installation,
    T.apiServer,
    T.goldmane,
    T.whisker,
  ],
};

/** Kinds of Calico objects that live outside any namespace. */
export const CLUSTER_SCOPED: readonly string[] = [
  T.namespace,
  T.crd,
  T.clusterRole,
  T.clusterRoleBinding,
  T.admissionPolicy,
  T.admissionPolicyBinding,
  T.installation,
  T.apiServer,
  T.goldmane,
  T.whisker,
];

/** The kinds that give a workload its identity and permissions. */
export const ACCESS_TYPES: readonly string[] = [
  T.serviceAccount,
  T.clusterRole,
  T.clusterRoleBinding,
  T.k8sRole,
  T.k8sRoleBinding,
];

/** The Installation `default` of the operator install mode. */
export const INSTALLATION: ResourceSet = { label: "the Installation", types: [T.installation] };

/** The operator's Deployment (operator install mode). */
export const OPERATOR: ResourceSet = {
  label: "the operator's Deployment",
  types: [T.deployment],
  name: new RegExp(`-deployment-${OPERATOR_NAME}$`),
};

/** Pulumi names of Typha's objects: `calico-typha`, or `calico-typha-takeover` during a takeover. */
export const TYPHA = /-calico-typha(-takeover)?$/;

/** The calico-node DaemonSet of the manifest install (the operator's is no resource of the stack). */
export const CALICO_NODE_DAEMONSET: ResourceSet = {
  label: "the calico-node DaemonSet",
  types: [T.daemonSet],
  name: /-calico-node$/,
};

/** Pulumi names of Typha's autoscaler objects: `<component>-<kind>-calico-typha-autoscaler`. */
export const AUTOSCALER = /-calico-typha-autoscaler$/;
