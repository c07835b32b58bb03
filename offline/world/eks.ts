/**
 * Outputs of the remote @pulumi/eks component the program reads. Their children (the aws.eks.Cluster,
 * the OIDC provider, security groups) are created by the provider plugin and are not visible offline;
 * these are the output shapes @pulumi/eks 4.x documents (cluster.d.ts), with placeholders for values.
 */
import { offlineArn, placeholder } from "./placeholders";

/** eks.Cluster's outputs for the inputs the program passed. */
export function clusterOutputs(
  name: string,
  inputs: Record<string, unknown>,
  region: string,
): Record<string, unknown> {
  const clusterName = typeof inputs.name === "string" ? inputs.name : placeholder("cluster-name", name);
  const endpoint = `https://${placeholder("endpoint", clusterName)}`;
  // pulumi-eks: oidcProviderUrl is the issuer URL; oidcIssuer is the same without https://.
  const issuer = placeholder("oidc-issuer", clusterName);
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: clusterName,
        cluster: { server: endpoint, "certificate-authority-data": placeholder("ca", clusterName) },
      },
    ],
    contexts: [{ name: "aws", context: { cluster: clusterName, user: "aws" } }],
    "current-context": "aws",
    users: [
      {
        name: "aws",
        user: {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1beta1",
            command: "aws",
            args: ["eks", "get-token", "--cluster-name", clusterName, "--output", "json"],
          },
        },
      },
    ],
  };
  return {
    eksCluster: {
      name: clusterName,
      version: inputs.version,
      endpoint,
      arn: offlineArn(region, "eks", `cluster/${clusterName}`, true),
      // The cluster role @pulumi/eks makes (`${name}-eksRole`), as aws.eks.Cluster reports it.
      roleArn: offlineArn(region, "iam", `role/${placeholder("role-name", `${name}-eksRole-role`)}`, false),
      // The security group EKS creates for the control plane and managed nodes.
      vpcConfig: { clusterSecurityGroupId: placeholder("security-group-id", `${clusterName}-eks-cluster`) },
    },
    kubeconfig,
    kubeconfigJson: JSON.stringify(kubeconfig),
    oidcProviderArn: placeholder("oidc-provider-arn", clusterName),
    oidcProviderUrl: `https://${issuer}`,
    oidcIssuer: issuer,
    // @pulumi/eks's own security groups, which our managed nodes do not use; the cluster one is the control
    // plane's `vpcConfig.securityGroupIds` (components/cluster/runner-access.ts).
    clusterSecurityGroupId: placeholder("security-group-id", `${name}-cluster`),
    nodeSecurityGroupId: placeholder("security-group-id", `${name}-node`),
  };
}
