/** IAM policy documents and launch-template settings of the cluster: plain data, no Pulumi. */

import { type Partition, managedPolicyArn } from "./partitions";

/**
 * Managed policies every EKS worker node needs, in the cluster's partition. The CNI policy is not here:
 * aws-node has its own role.
 */
export function nodeRolePolicies(partition: Partition): string[] {
  return ["AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryReadOnly"].map((name) =>
    managedPolicyArn(partition, name),
  );
}

/** The policy the VPC CNI (aws-node) needs to attach ENIs and assign addresses, in the cluster's partition. */
export function vpcCniPolicy(partition: Partition): string {
  return managedPolicyArn(partition, "AmazonEKS_CNI_Policy");
}

/** The policy EKS's VPC resource controller needs on the cluster's role for security groups for pods. */
export function vpcResourceControllerPolicy(partition: Partition): string {
  return managedPolicyArn(partition, "AmazonEKSVPCResourceController");
}

/** The VPC CNI's service account; its IRSA role trusts exactly this subject. */
export const VPC_CNI_SERVICE_ACCOUNT = { namespace: "kube-system", name: "aws-node" } as const;

/** Trust policy letting EC2 instances (the nodes) assume a role. */
export function ec2TrustPolicy(): string {
  return JSON.stringify({
    Version: "2012-10-17",
    Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }],
  });
}

/** The trust statement of a role EKS Pod Identity hands to pods (EKS User Guide, pod-id-role.html). */
export const POD_IDENTITY_TRUST = {
  Effect: "Allow",
  Principal: { Service: "pods.eks.amazonaws.com" },
  Action: ["sts:AssumeRole", "sts:TagSession"],
} as const;

/** Trust policy of a role only EKS Pod Identity hands out (to the pods an association names). */
export function podIdentityTrustPolicy(): string {
  return JSON.stringify({ Version: "2012-10-17", Statement: [POD_IDENTITY_TRUST] });
}

/**
 * Trust policy of an IAM role for a Kubernetes service account (IRSA): only tokens the cluster's OIDC
 * issuer minted for `namespace/name`, for STS, may assume it.
 * https://docs.aws.amazon.com/eks/latest/userguide/associate-service-account-role.html
 *
 * With `podIdentity`, EKS Pod Identity may hand it out too (POD_IDENTITY_TRUST). The IRSA statement stays:
 * a pod keeps the credentials it started with (the webhook injects them at admission), and the AWS SDKs
 * try web identity before the container provider (AWS SDKs and Tools Reference Guide, "Credential
 * provider chain"), so pods started before a switch to Pod Identity renew through it until they restart.
 * It names the same service account, so it grants no one else the role.
 */
export function serviceAccountTrustPolicy(
  oidcProviderArn: string,
  oidcIssuer: string,
  account: { namespace: string; name: string },
  podIdentity = false,
): string {
  const issuer = oidcIssuer.replace(/^https:\/\//, "");
  const webIdentity = {
    Effect: "Allow",
    Principal: { Federated: oidcProviderArn },
    Action: "sts:AssumeRoleWithWebIdentity",
    Condition: {
      StringEquals: {
        [`${issuer}:sub`]: `system:serviceaccount:${account.namespace}:${account.name}`,
        [`${issuer}:aud`]: "sts.amazonaws.com",
      },
    },
  };
  return JSON.stringify({
    Version: "2012-10-17",
    Statement: podIdentity ? [webIdentity, POD_IDENTITY_TRUST] : [webIdentity],
  });
}

/**
 * Instance metadata for nodes: IMDSv2 only, and a hop limit of 1 so pods (one network hop further)
 * cannot read the node role's credentials. Pods that need AWS use IRSA.
 * https://docs.aws.amazon.com/eks/latest/best-practices/identity-and-access-management.html
 */
export const NODE_METADATA_OPTIONS = {
  httpEndpoint: "enabled",
  httpTokens: "required",
  httpPutResponseHopLimit: 1,
} as const;
