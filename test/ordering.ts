/**
 * The program's creation and deletion order, as data: each row says that every resource of `before`
 * exists before any resource of `after` is created, and (Pulumi deletes dependents first) that every
 * `after` is gone before any `before` is deleted. Pulumi orders only along dependencies, so each row must
 * hold in the dependency graph, directly or through other resources: test/ordering.test.ts checks every
 * row for every stack, and that no explicit `dependsOn` edge exists without a row that needs it. The
 * table in docs/ordering.md is this table.
 */

import {
  T,
  VPC_CNI,
  HAND_OVER,
  AWS_NODE_CHECK,
  PROBE_NAMESPACE,
  NODE_GROUPS,
  CLUSTER,
  CALICO_OBJECTS,
  type OrderingRule,
} from "./ordering-sets";

import { CALICO_ORDERING } from "./ordering-calico";
import { PROBE_ORDERING } from "./ordering-probe";

export type { FirstRolled, OrderingRule, ResourceSet } from "./ordering-sets";

export const ORDERING: readonly OrderingRule[] = [
  {
    before: { label: "the internet gateway", types: [T.igw] },
    after: { label: "every NAT gateway", types: [T.nat] },
    why: "a public NAT gateway in a VPC without an attached internet gateway fails (Gateway.NotAttached)",
    source: "https://docs.aws.amazon.com/vpc/latest/userguide/nat-gateway-troubleshooting.html",
  },
  {
    before: {
      label: "every private route table's default route (to a NAT gateway)",
      types: [T.route],
      name: /^network-private-/,
    },
    after: NODE_GROUPS,
    why: "nodes in private subnets need egress to ECR, EKS and S3 to join; without it EKS reports NodeCreationFailure (Instances failed to join the kubernetes cluster)",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html#worker-node-fail",
  },
  {
    before: {
      label: "every private subnet's route-table association",
      types: [T.association],
      name: /^network-private-/,
    },
    after: NODE_GROUPS,
    why: "until the association exists the subnet uses the VPC's main route table, which has no egress",
    source: "https://docs.aws.amazon.com/vpc/latest/userguide/RouteTables.html#subnet-route-tables",
  },
  {
    before: {
      label: "every VPC endpoint, and the S3 gateway endpoint's route-table associations",
      types: [T.vpcEndpoint, T.vpcEndpointAssociation],
    },
    after: NODE_GROUPS,
    why: "without a NAT gateway nodes reach EC2, ECR, STS, EKS and S3 through the endpoints only (network.natGateways: none), and the node groups wait for them whatever the NAT",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/private-clusters.html",
  },
  {
    before: { label: "the node role's policy attachments", types: [T.attachment], name: /^cluster-node-/ },
    after: NODE_GROUPS,
    why: "nodes need AmazonEKSWorkerNodePolicy to join, and EKS needs it while it deletes a node group's instances and network interfaces",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/create-node-role.html",
  },
  {
    before: {
      label: "the VPC CNI's role (IRSA or Pod Identity) and its policy attachment",
      types: [T.role, T.attachment],
      name: /^cluster-vpc-cni$/,
    },
    after: { label: "the vpc-cni add-on", types: [T.addon], name: /^cluster-vpc-cni$/ },
    why: "aws-node assumes the role to attach ENIs and assign pod addresses",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/cni-iam-role.html",
  },
  {
    before: {
      label: "the EKS Pod Identity agent add-on",
      types: [T.addon],
      name: /^cluster-pod-identity-agent$/,
    },
    after: NODE_GROUPS,
    why: "a pod handed its role through EKS Pod Identity (aws-node with cluster.podIdentity, Karpenter's controller) asks the agent on its node for credentials from its first start",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-agent-setup.html",
  },
  {
    before: {
      label: "the cluster role's AmazonEKSVPCResourceController (`cluster.vpcCni.podSecurityGroups`)",
      types: [T.attachment],
      name: /^cluster-vpc-resource-controller$/,
    },
    after: VPC_CNI,
    why: "once aws-node runs with ENABLE_POD_ENI, EKS's VPC resource controller attaches trunk interfaces to the nodes with the cluster role",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/security-groups-pods-deployment.html",
  },
  {
    before: { label: "the control-plane log group", types: [T.logGroup] },
    after: CLUSTER,
    why: "EKS creates the log group itself, with no retention, if it does not exist yet",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/control-plane-logs.html",
  },
  {
    before: { label: "the secrets KMS key", types: [T.key] },
    after: CLUSTER,
    why: "envelope encryption is set at creation with the key's ARN",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/enable-kms.html",
  },
  {
    before: CLUSTER,
    after: { label: "every add-on and access entry", types: [T.addon, T.accessEntry] },
    why: "both are sub-resources of the cluster",
    source: "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateAddon.html",
  },
  {
    before: {
      label: "the vpc-cni and kube-proxy add-ons",
      types: [T.addon],
      name: /^cluster-(vpc-cni|kube-proxy)$/,
    },
    after: NODE_GROUPS,
    why: "nodes run aws-node (with its IRSA role) and kube-proxy at the add-ons' pinned versions from their first pod on; on an upgrade the add-ons follow the control plane before the nodes roll",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/update-cluster.html",
  },
  {
    before: NODE_GROUPS,
    after: { label: "the CoreDNS add-on", types: [T.addon], name: /^cluster-coredns$/ },
    why: "CoreDNS is a Deployment: with no node to run on, EKS reports the add-on DEGRADED and its creation times out",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/coredns-add-on-create.html",
  },
  {
    before: { label: "each access entry", types: [T.accessEntry] },
    after: { label: "its access-policy association", types: [T.accessPolicy] },
    pairByName: true,
    why: "a policy is associated with an existing access entry",
    source: "https://docs.aws.amazon.com/eks/latest/APIReference/API_AssociateAccessPolicy.html",
  },
  {
    before: VPC_CNI,
    after: CALICO_OBJECTS,
    unlessPresent: HAND_OVER,
    why: "Calico runs beside the VPC CNI with the CNI's own network-policy agent off (two enforcers conflict) and ANNOTATE_POD_IP on; an existing cluster's add-on is updated first, except when the update turns a running agent off (rows below)",
    source: "https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/eks",
  },
  {
    before: {
      label: "calico-node, or the Installation",
      types: [T.daemonSet, T.installation],
      name: /-calico-node$|-installation-default$/,
    },
    after: HAND_OVER,
    why: "one enforcer at a time, never none: a running agent is turned off only once Calico enforces, calico-node ready on every node",
    source: "https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/eks",
  },
  {
    before: HAND_OVER,
    after: VPC_CNI,
    why: "AWS requires every network policy deleted (and the agent's PolicyEndpoints gone) before the agent is turned off; the step reads the cluster and stops the update, naming what is left, before the add-on changes",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/network-policy-disable.html",
  },
  {
    before: VPC_CNI,
    after: PROBE_NAMESPACE,
    why: "while the agent enforces the same policies, a blocked connection proves nothing about Calico: the probe runs once the add-on's update has turned the agent off",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy.html",
  },
  {
    before: VPC_CNI,
    after: AWS_NODE_CHECK,
    why: "the check reads aws-node for what the add-on's update set: before the update it would read the settings the update is about to change",
    source: "https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateAddon.html",
  },
  {
    before: AWS_NODE_CHECK,
    after: CALICO_OBJECTS,
    unlessPresent: HAND_OVER,
    why: "the add-on is updated with resolveConflicts PRESERVE, which keeps a value edited on aws-node with kubectl: Calico starts only once aws-node is read running the agent off and ANNOTATE_POD_IP on",
    source: "https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateAddon.html",
  },
  {
    before: AWS_NODE_CHECK,
    after: PROBE_NAMESPACE,
    why: "the probe proves Calico enforces only where no other agent does: it runs once aws-node is read running the agent off",
    source: "https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy.html",
  },
  {
    before: NODE_GROUPS,
    after: CALICO_OBJECTS,
    why: "calico-node's readiness await needs nodes (with none it is trivially ready), and `pulumi destroy` must remove Calico while its nodes still run",
    source: "https://www.pulumi.com/docs/iac/concepts/options/dependson/",
  },
  ...CALICO_ORDERING,
  ...PROBE_ORDERING,
];
