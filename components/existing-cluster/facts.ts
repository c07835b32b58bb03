/** What AWS shows of an EKS cluster made elsewhere, read before any resource (stacks/existing.ts). */
import type { ExistingVpcCni } from "./vpc-cni";
import type { SettingChangedElsewhere } from "./vpc-cni-owner";

export interface ExistingClusterFacts {
  readonly name: string;
  readonly arn: string;
  readonly endpoint: string;
  /** Base64 PEM of the cluster's certificate authority. */
  readonly certificateAuthority: string;
  /** Kubernetes minor version of the control plane. */
  readonly version: string;
  readonly vpcCni: ExistingVpcCni;
  /**
   * The settings this stack's last update set in the vpc-cni add-on that its configuration now has
   * otherwise (vpc-cni-owner.ts); empty for a new stack or a self-managed VPC CNI.
   */
  readonly vpcCniChangedElsewhere: readonly SettingChangedElsewhere[];
}
