/** The VPC CNI beside Calico: its own network-policy agent stays off. */
import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { CALICO_NODE, TYPES, type Props, isRecord, isTrue } from "./common";
import { isCalicoNode } from "./calico";
import { HAND_OVER_TAG } from "../components/existing-cluster/hand-over-tag";

/** An add-on whose agent stays on beside Calico while the stack hands policy over to it. */
function handingOver(props: Props): boolean {
  return isRecord(props.tags) && props.tags[HAND_OVER_TAG.key] === HAND_OVER_TAG.value;
}

/** An add-on's configurationValues: a JSON string (aws.eks.Addon) or an object (@pulumi/eks). */
function configurationValues(value: unknown): Record<string, unknown> | "unreadable" | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (isRecord(value)) return value;
  if (typeof value !== "string") return "unreadable";
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : "unreadable";
  } catch {
    return "unreadable";
  }
}

/** Where a resource turns the VPC CNI's network-policy agent on; empty when it does not. */
function networkPolicyEnablers(resource: PolicyResource): string[] {
  const props: Props = resource.props;
  const fromValues = (value: unknown, path: string): string[] => {
    const values = configurationValues(value);
    if (values === "unreadable") return [`${path} is not a JSON object, so the agent may be on`];
    return values !== undefined && isTrue(values.enableNetworkPolicy) ? [`${path}.enableNetworkPolicy`] : [];
  };
  switch (resource.type) {
    case TYPES.vpcCniAddon:
      return [
        ...(isTrue(props.enableNetworkPolicy) ? ["enableNetworkPolicy"] : []),
        ...fromValues(props.configurationValues, "configurationValues"),
      ];
    case TYPES.eksCluster: {
      const options = isRecord(props.vpcCniOptions) ? props.vpcCniOptions : {};
      return [
        ...(isTrue(options.enableNetworkPolicy) ? ["vpcCniOptions.enableNetworkPolicy"] : []),
        ...fromValues(options.configurationValues, "vpcCniOptions.configurationValues"),
      ];
    }
    case TYPES.awsAddon:
      return props.addonName === "vpc-cni" && !handingOver(props)
        ? fromValues(props.configurationValues, "configurationValues")
        : [];
    case TYPES.eksAddon:
      return props.addonName === "vpc-cni"
        ? fromValues(props.configurationValues, "configurationValues")
        : [];
    default:
      return [];
  }
}

export const vpcCniNetworkPolicyOff: StackValidationPolicy = {
  name: "vpc-cni-network-policy-off-with-calico",
  description:
    "With a calico-node DaemonSet in the stack, nothing turns on the VPC CNI's own network-policy agent " +
    '(enableNetworkPolicy true or "true" on eks:index:VpcCniAddon, eks:index:Cluster vpcCniOptions, or the ' +
    "configurationValues of a vpc-cni aws:eks/addon:Addon): two enforcers program conflicting rules. The " +
    `one exception is an add-on tagged ${HAND_OVER_TAG.key}=${HAND_OVER_TAG.value}: an existing cluster's ` +
    "agent kept on while its policies are copied to Calico, before the stack turns it off. In a " +
    "real preview a component's props are its outputs, so the vpc-cni aws:eks/addon:Addon that " +
    "@pulumi/eks creates is what this policy reads there.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    // Operator mode: the Installation stands for the calico-node the operator creates.
    const calico = (r: PolicyResource) =>
      isCalicoNode(r.type, r.props) || r.type === "kubernetes:operator.tigera.io/v1:Installation";
    if (!args.resources.some(calico)) {
      args.notApplicable(`no ${CALICO_NODE} DaemonSet or Tigera operator Installation in this stack`);
    }
    for (const resource of args.resources) {
      const enablers = networkPolicyEnablers(resource);
      if (enablers.length > 0) {
        report(
          `${resource.type} ${resource.name} turns on the VPC CNI network-policy agent (${enablers.join(", ")}) ` +
            `while Calico enforces policy (${CALICO_NODE}). Set enableNetworkPolicy to false.`,
          resource.urn,
        );
      }
    }
  },
};
