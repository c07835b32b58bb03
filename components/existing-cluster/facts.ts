/** What AWS shows of an EKS cluster made elsewhere, read before any resource (stacks/existing.ts). */
import type { ExistingVpcCni } from "./vpc-cni";

export interface ExistingClusterFacts {
  readonly name: string;
  readonly arn: string;
  readonly endpoint: string;
  /** Base64 PEM of the cluster's certificate authority. */
  readonly certificateAuthority: string;
  /** Kubernetes minor version of the control plane. */
  readonly version: string;
  readonly vpcCni: ExistingVpcCni;
}
