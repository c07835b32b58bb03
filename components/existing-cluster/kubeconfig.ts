/**
 * A kubeconfig for an EKS cluster from its endpoint and CA, authenticating with `aws eks get-token`
 * (the AWS CLI where Pulumi runs, with the deployer's credentials), as `aws eks update-kubeconfig` writes it.
 */
export interface KubeconfigArgs {
  readonly clusterName: string;
  readonly region: string;
  readonly endpoint: string;
  /** Base64 PEM of the cluster's certificate authority. */
  readonly certificateAuthority: string;
}

export function execKubeconfig(args: KubeconfigArgs): string {
  const name = args.clusterName;
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name, cluster: { server: args.endpoint, "certificate-authority-data": args.certificateAuthority } },
    ],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
    users: [
      {
        name,
        user: {
          exec: {
            apiVersion: "client.authentication.k8s.io/v1beta1",
            command: "aws",
            args: ["--region", args.region, "eks", "get-token", "--cluster-name", name, "--output", "json"],
          },
        },
      },
    ],
  });
}
