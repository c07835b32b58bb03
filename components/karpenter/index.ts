/**
 * Karpenter beside the managed node groups (`karpenter.enabled`): its AWS side and its NodePools.
 *
 * - The interruption queue (SQS, 5 minutes' retention, SQS-managed encryption, HTTPS only) and the
 *   EventBridge rules that feed it, as upstream's getting-started CloudFormation has them.
 * - The node role (the managed node groups' policies: aws-node has its own role) and its EC2_LINUX
 *   access entry, with which EKS lets the nodes Karpenter launches join.
 * - The controller's role, assumed through EKS Pod Identity (the guide's scripts and the provider's e2e
 *   setup use it; no trust per OIDC issuer), with the six policies of ./iam.ts.
 * - The release's CRDs (./crds.ts), and one NodePool and one EC2NodeClass per `karpenter.nodePools`
 *   entry (./node-pools.ts).
 *
 * - The controller (./controller.ts) on the managed node groups, never on a node it launched.
 *
 * - The discovery tag on the cluster security group (the private subnets get theirs from the network).
 *
 * The Pod Identity agent that hands the controller its role is the Cluster's add-on (`podIdentityAgent`):
 * the managed nodes, which the controller waits for, start after it.
 */
import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { Partition } from "../cluster/partitions";
import { ec2TrustPolicy, nodeRolePolicies, podIdentityTrustPolicy } from "../cluster/policies";
import { controllerPolicies } from "./iam";
import { karpenterCrds } from "./crds";
import { KARPENTER_SERVICE_ACCOUNT } from "./names";
import { renderController } from "./controller";
import { DISCOVERY_TAG, type NodePoolSettings, renderNodeClass, renderNodePool } from "./node-pools";

/**
 * The EventBridge rules Karpenter's interruption controller reads, by source and detail type; each matches
 * a parser of karpenter-provider-aws v1.15 pkg/controllers/interruption/messages.
 */
export const INTERRUPTION_EVENTS: Readonly<Record<string, { source: string; detailType: string }>> = {
  "scheduled-change": { source: "aws.health", detailType: "AWS Health Event" },
  "spot-interruption": { source: "aws.ec2", detailType: "EC2 Spot Instance Interruption Warning" },
  rebalance: { source: "aws.ec2", detailType: "EC2 Instance Rebalance Recommendation" },
  "instance-state-change": { source: "aws.ec2", detailType: "EC2 Instance State-change Notification" },
  "capacity-reservation-interruption": {
    source: "aws.ec2",
    detailType: "EC2 Capacity Reservation Instance Interruption Warning",
  },
};

export interface KarpenterArgs {
  clusterName: pulumi.Input<string>;
  region: string;
  partition: Partition;
  nodePools: Readonly<Record<string, NodePoolSettings>>;
  /** The provider of the cluster's Kubernetes API. */
  provider: k8s.Provider;
  /** The controller's replicas: one per managed node, at most the chart's 2. */
  controllerReplicas: number;
  /** The security group EKS gives the control plane and managed nodes: Karpenter's nodes get it too. */
  clusterSecurityGroupId: pulumi.Input<string>;
  /** What the NodePools wait for: the managed node groups the controller runs on. */
  nodes: pulumi.Resource[];
  tags: Record<string, string>;
}

export class Karpenter extends pulumi.ComponentResource {
  readonly nodeRoleArn: pulumi.Output<string>;
  readonly controllerRoleArn: pulumi.Output<string>;
  readonly queueName: pulumi.Output<string>;

  constructor(name: string, args: KarpenterArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:karpenter:Karpenter", name, {}, opts);
    const parent = { parent: this };
    const tags = args.tags;

    const queue = new aws.sqs.Queue(
      `${name}-interruption`,
      { messageRetentionSeconds: 300, sqsManagedSseEnabled: true, tags },
      parent,
    );
    new aws.sqs.QueuePolicy(
      `${name}-interruption`,
      {
        queueUrl: queue.url,
        policy: queue.arn.apply((arn) =>
          JSON.stringify({
            Version: "2012-10-17",
            Id: "EC2InterruptionPolicy",
            Statement: [
              {
                Effect: "Allow",
                Principal: { Service: ["events.amazonaws.com", "sqs.amazonaws.com"] },
                Action: "sqs:SendMessage",
                Resource: arn,
              },
              {
                Sid: "DenyHTTP",
                Effect: "Deny",
                Action: "sqs:*",
                Resource: arn,
                Condition: { Bool: { "aws:SecureTransport": "false" } },
                Principal: "*",
              },
            ],
          }),
        ),
      },
      parent,
    );
    for (const [rule, event] of Object.entries(INTERRUPTION_EVENTS)) {
      const eventRule = new aws.cloudwatch.EventRule(
        `${name}-${rule}`,
        { eventPattern: JSON.stringify({ source: [event.source], "detail-type": [event.detailType] }), tags },
        parent,
      );
      new aws.cloudwatch.EventTarget(`${name}-${rule}`, { rule: eventRule.name, arn: queue.arn }, parent);
    }

    // The security group EKS made is found by the discovery tag; the private subnets carry it already
    // (components/network, privateSubnetTags).
    const discovery = new aws.ec2.Tag(
      `${name}-discovery`,
      { resourceId: args.clusterSecurityGroupId, key: DISCOVERY_TAG, value: args.clusterName },
      parent,
    );

    // The nodes' role: what the managed node groups' role has, and an access entry EKS grants nodes by.
    const nodeRole = new aws.iam.Role(`${name}-node`, { assumeRolePolicy: ec2TrustPolicy(), tags }, parent);
    const nodePolicies = nodeRolePolicies(args.partition).map(
      (policyArn) =>
        new aws.iam.RolePolicyAttachment(
          `${name}-node-${policyArn.split("/").pop() ?? policyArn}`,
          { role: nodeRole.name, policyArn },
          parent,
        ),
    );
    const nodeAccess = new aws.eks.AccessEntry(
      `${name}-node`,
      { clusterName: args.clusterName, principalArn: nodeRole.arn, type: "EC2_LINUX", tags },
      { ...parent, deleteBeforeReplace: true },
    );

    // The controller's role, through Pod Identity, scoped to this cluster, its queue and its node role.
    const account = aws.getCallerIdentityOutput({}, parent).accountId;
    const controllerRole = new aws.iam.Role(
      `${name}-controller`,
      { assumeRolePolicy: podIdentityTrustPolicy(), tags },
      parent,
    );
    const documents = pulumi
      .all([account, args.clusterName, queue.arn, nodeRole.arn])
      .apply(([accountId, clusterName, queueArn, nodeRoleArn]) =>
        controllerPolicies({
          partition: args.partition,
          region: args.region,
          accountId,
          clusterName,
          nodeRoleArn,
          queueArn,
        }),
      );
    const controllerPolicyNames = [
      "NodeLifecycle",
      "IAMIntegration",
      "EKSIntegration",
      "Interruption",
      "ZonalShift",
      "ResourceDiscovery",
    ] as const;
    const attachments = controllerPolicyNames.map((stem) => {
      const policy = new aws.iam.Policy(
        `${name}-controller-${stem}`,
        { policy: documents.apply((all) => JSON.stringify(all[stem])), tags },
        parent,
      );
      return new aws.iam.RolePolicyAttachment(
        `${name}-controller-${stem}`,
        { role: controllerRole.name, policyArn: policy.arn },
        parent,
      );
    });
    const association = new aws.eks.PodIdentityAssociation(
      `${name}-controller`,
      {
        clusterName: args.clusterName,
        namespace: KARPENTER_SERVICE_ACCOUNT.namespace,
        serviceAccount: KARPENTER_SERVICE_ACCOUNT.name,
        roleArn: controllerRole.arn,
        tags,
      },
      { ...parent, dependsOn: attachments },
    );

    // The release's CRDs, then one EC2NodeClass and one NodePool per pool; a pool's nodes join with the
    // node role's access entry.
    const crds = karpenterCrds().map(
      (crd) =>
        new k8s.apiextensions.v1.CustomResourceDefinition(`${name}-crd-${crd.metadata.name}`, crd, {
          parent: this,
          provider: args.provider,
          dependsOn: args.nodes,
        }),
    );
    const inCluster = {
      parent: this,
      provider: args.provider,
      dependsOn: [...args.nodes, ...crds, nodeAccess, ...nodePolicies, discovery],
    };
    // The controller, once its kinds exist and its pods can get its role's credentials.
    const controller = renderController({
      clusterName: args.clusterName,
      queueName: queue.name,
      replicas: args.controllerReplicas,
      region: args.region,
    });
    const serviceAccount = new k8s.core.v1.ServiceAccount(
      `${name}-controller`,
      controller.serviceAccount,
      inCluster,
    );
    const rbac = [
      ...controller.clusterRoles.map(
        (r) => new k8s.rbac.v1.ClusterRole(`${name}-${r.metadata.name}`, r, inCluster),
      ),
      ...controller.clusterRoleBindings.map(
        (b) => new k8s.rbac.v1.ClusterRoleBinding(`${name}-${b.metadata.name}`, b, inCluster),
      ),
      ...controller.roles.map(
        (r) => new k8s.rbac.v1.Role(`${name}-${r.metadata.namespace}-${r.metadata.name}`, r, inCluster),
      ),
      ...controller.roleBindings.map(
        (b) =>
          new k8s.rbac.v1.RoleBinding(`${name}-${b.metadata.namespace}-${b.metadata.name}`, b, inCluster),
      ),
    ];
    new k8s.policy.v1.PodDisruptionBudget(`${name}-controller`, controller.disruptionBudget, inCluster);
    const deployment = new k8s.apps.v1.Deployment(`${name}-controller`, controller.deployment, {
      ...inCluster,
      dependsOn: [...inCluster.dependsOn, serviceAccount, ...rbac, association],
    });

    // The pools after the controller, so that they go before it: deleting a NodePool has Karpenter drain
    // and terminate its nodes, and an EC2NodeClass's finalizer holds it until they are gone. The
    // controller, its role and the node role outlive them, and no instance is left behind.
    for (const [pool, settings] of Object.entries(args.nodePools)) {
      const nodeClass = pulumi
        .all([args.clusterName, nodeRole.name])
        .apply(([clusterName, role]) =>
          renderNodeClass(pool, settings, { clusterName, nodeRole: role, tags }),
        );
      const classResource = new k8s.apiextensions.CustomResource(
        `${name}-class-${pool}`,
        {
          apiVersion: "karpenter.k8s.aws/v1",
          kind: "EC2NodeClass",
          metadata: { name: pool },
          spec: nodeClass.apply((c) => c.spec),
        },
        {
          ...inCluster,
          dependsOn: [...inCluster.dependsOn, deployment],
          // Its finalizer waits for the class's NodeClaims, checking again every 10 minutes, then deletes
          // its instance profile and launch templates (karpenter-provider-aws v1.15
          // pkg/controllers/nodeclass/controller.go, finalize).
          customTimeouts: { delete: "30m" },
        },
      );
      const nodePool = renderNodePool(pool, settings);
      new k8s.apiextensions.CustomResource(
        `${name}-pool-${pool}`,
        {
          apiVersion: nodePool.apiVersion,
          kind: nodePool.kind,
          metadata: nodePool.metadata,
          spec: nodePool.spec,
        },
        { ...inCluster, dependsOn: [...inCluster.dependsOn, deployment, classResource] },
      );
    }

    this.nodeRoleArn = nodeRole.arn;
    this.controllerRoleArn = controllerRole.arn;
    this.queueName = queue.name;
    this.registerOutputs({ nodeRoleArn: this.nodeRoleArn, queueName: this.queueName });
  }
}
