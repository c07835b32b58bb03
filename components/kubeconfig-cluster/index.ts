/**
 * A Kubernetes cluster reached through a kubeconfig file (kops or a self-managed cluster on EC2 running the
 * amazon-vpc-cni, a local test control plane), as a kubeconfig stack uses it: the Kubernetes provider for
 * the file's context, and nothing else. Its VPC CNI is the user's (stated configured, stacks/schema/
 * kubeconfig.ts); no AWS resource or call.
 */
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { type ClusterAccess, clusterProvider } from "../cluster/provider";

export interface KubeconfigClusterArgs {
  /** The kubeconfig file's contents, secret (they hold credentials). A change updates the provider. */
  readonly kubeconfig: pulumi.Output<string>;
  /** The context to use (the configured one, or the file's current-context). */
  readonly context: string;
  /**
   * The API server URL of the context's cluster: the providers' cluster identifier, so a change of it
   * replaces every object (another cluster), and nothing else does.
   */
  readonly server: string;
}

export class KubeconfigCluster extends pulumi.ComponentResource {
  /** The API server URL. */
  readonly clusterEndpoint: string;
  /** The kubeconfig context in use. */
  readonly context: string;
  /** What every Kubernetes provider for this cluster is given: the kubeconfig, context and server URL. */
  readonly access: ClusterAccess;
  readonly provider: k8s.Provider;

  constructor(name: string, args: KubeconfigClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:cluster:Kubeconfig", name, {}, opts);
    this.clusterEndpoint = args.server;
    this.context = args.context;
    // The server URL, not the contents, identifies the cluster: pulumi-kubernetes replaces every object
    // when the kubeconfig changes unless clusterIdentifier is set and unchanged, and the contents change
    // whenever credentials rotate (a new token or client certificate). The context name is left out: it
    // is the file's local label for a cluster and a user, so switching user or renaming it is the same
    // cluster.
    this.access = { kubeconfig: args.kubeconfig, context: args.context, clusterIdentifier: args.server };
    this.provider = clusterProvider(name, this.access, { parent: this });
    this.registerOutputs({ clusterEndpoint: this.clusterEndpoint, context: this.context });
  }
}
