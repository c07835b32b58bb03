/**
 * The eks-calico CrossGuard policies as plain values: `index.ts` serves them, tests run them directly.
 *
 * What a policy sees (pulumi/pulumi proto/pulumi/analyzer.proto, @pulumi/policy 1.21):
 * - a resource policy gets one resource's inputs before it is created or updated, with its options
 *   (protect, ignoreChanges, deleteBeforeReplace, aliases, customTimeouts, parent);
 * - a stack policy gets every resource after the preview: its outputs (for a component, what the
 *   component registered as outputs, not its inputs), parent, dependencies and per-property dependencies.
 * So settings of the @pulumi/eks components (inputs) are checked by resource policies, and rules that relate
 * resources are stack policies that read only the dependency graph and custom resources' props.
 * Neither kind sees `retainOnDelete`: the options above are all the analyzer protocol carries.
 *
 * Resources are matched by type token, not by SDK class (`validateResourceOfType`), so the pack loads
 * only @pulumi/policy: no @pulumi/aws, @pulumi/eks or @pulumi/kubernetes to load or type-check at every
 * preview.
 */
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { calicoNodeEverywhere, noRemovedApis, noWildcardRbac } from "./calico";
import { eksAccessEntries, eksControlPlaneLogging, eksEndpointExposure, eksSecretsEncryption } from "./eks";
import { nodesEncryptedVolumes, nodesImdsv2, nodesInPrivateSubnets } from "./nodes";
import { vpcCniNetworkPolicyOff } from "./vpc-cni";
import { podSecurityRestricted } from "./pod-security";
import {
  calicoInstallationAwaited,
  calicoInstallationEks,
  calicoOperatorResourcesAfterOperator,
} from "./operator";

export * from "./common";
export * from "./eks";
export * from "./nodes";
export * from "./calico";
export * from "./vpc-cni";
export * from "./pod-security";
export * from "./operator";

/** Every policy of the pack. */
export const policies: (ResourceValidationPolicy | StackValidationPolicy)[] = [
  eksSecretsEncryption,
  eksControlPlaneLogging,
  eksEndpointExposure,
  eksAccessEntries,
  nodesInPrivateSubnets,
  nodesImdsv2,
  nodesEncryptedVolumes,
  calicoNodeEverywhere,
  noWildcardRbac,
  noRemovedApis,
  vpcCniNetworkPolicyOff,
  podSecurityRestricted,
  calicoInstallationEks,
  calicoInstallationAwaited,
  calicoOperatorResourcesAfterOperator,
];
