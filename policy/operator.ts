/**
 * Calico installed by the Tigera operator: the Installation is the EKS policy-only install on the VPC CNI,
 * `pulumi up` waits until the operator reports the requested release Ready, and every operator custom
 * resource is created after the operator and deleted before it.
 */
import type { PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { type Props, isRecord, shown } from "./common";

export const OPERATOR_TYPES = {
  installation: "kubernetes:operator.tigera.io/v1:Installation",
  apiServer: "kubernetes:operator.tigera.io/v1:APIServer",
} as const;

/** The operator's Deployment, as Calico's manifests and Helm chart name it. */
export const TIGERA_OPERATOR = "tigera-operator";

const WAIT_FOR = "pulumi.com/waitFor";
const SKIP_AWAIT = "pulumi.com/skipAwait";
const CALICO_VERSION_WAIT = /^jsonpath=\{\.status\.calicoVersion\}=v\d+\.\d+\.\d+$/;

function annotationsOf(props: Props): Record<string, unknown> {
  const metadata = isRecord(props.metadata) ? props.metadata : {};
  return isRecord(metadata.annotations) ? metadata.annotations : {};
}

/**
 * The conditions of a `pulumi.com/waitFor` annotation: one condition, or a JSON array of them that must
 * all hold (pulumi-kubernetes 4.18+). Undefined when the value is neither.
 */
export function waitConditions(value: unknown): string[] | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  if (!value.trim().startsWith("[")) return [value.trim()];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) && parsed.every((c) => typeof c === "string") ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export const calicoInstallationEks: ResourceValidationPolicy = {
  name: "calico-installation-eks-policy-only",
  description:
    "A Tigera operator Installation is Calico for policy on the VPC CNI: spec.kubernetesProvider EKS, " +
    "spec.cni.type AmazonVPC and spec.calicoNetwork.bgp Disabled. Any other CNI type installs Calico's " +
    "own CNI over aws-node, and BGP has no peer on a VPC.",
  enforcementLevel: "mandatory",
  validateResource: (args, report) => {
    if (args.type !== OPERATOR_TYPES.installation) return;
    const props: Props = args.props;
    const spec = isRecord(props.spec) ? props.spec : {};
    const cni = isRecord(spec.cni) ? spec.cni : {};
    const network = isRecord(spec.calicoNetwork) ? spec.calicoNetwork : {};
    const problems = [
      ...(spec.kubernetesProvider === "EKS"
        ? []
        : [`spec.kubernetesProvider is ${shown(spec.kubernetesProvider)}, not "EKS"`]),
      ...(cni.type === "AmazonVPC" ? [] : [`spec.cni.type is ${shown(cni.type)}, not "AmazonVPC"`]),
      ...(network.bgp === "Disabled"
        ? []
        : [`spec.calicoNetwork.bgp is ${shown(network.bgp)}, not "Disabled"`]),
    ];
    if (problems.length > 0) {
      report(`Installation ${args.name} is not the EKS policy-only install: ${problems.join("; ")}.`);
    }
  },
};

export const calicoInstallationAwaited: ResourceValidationPolicy = {
  name: "calico-installation-awaited",
  description:
    `A Tigera operator Installation carries ${WAIT_FOR} with condition=Ready and ` +
    "jsonpath={.status.calicoVersion}=<release>, and no skipAwait: pulumi-kubernetes has no await logic " +
    "for custom resources, so without it `pulumi up` succeeds before Calico runs (or while it still runs " +
    "the previous release).",
  enforcementLevel: "mandatory",
  validateResource: (args, report) => {
    if (args.type !== OPERATOR_TYPES.installation) return;
    const annotations = annotationsOf(args.props);
    const conditions = waitConditions(annotations[WAIT_FOR]) ?? [];
    const problems = [
      ...(String(annotations[SKIP_AWAIT]).toLowerCase() === "true" ? [`${SKIP_AWAIT} is "true"`] : []),
      ...(conditions.includes("condition=Ready") ? [] : ["no condition=Ready"]),
      ...(conditions.some((c) => CALICO_VERSION_WAIT.test(c))
        ? []
        : ["no jsonpath={.status.calicoVersion}=<release>"]),
    ];
    if (problems.length > 0) {
      report(
        `Installation ${args.name} is not awaited (${WAIT_FOR}: ${shown(annotations[WAIT_FOR])}): ` +
          `${problems.join("; ")}. Set ${WAIT_FOR} to ` +
          '["condition=Ready","jsonpath={.status.calicoVersion}=<release>"].',
      );
    }
  },
};

function isOperatorDeployment(resource: PolicyResource): boolean {
  return (
    /^kubernetes:apps\/v1:Deployment$/.test(resource.type) &&
    isRecord(resource.props.metadata) &&
    resource.props.metadata.name === TIGERA_OPERATOR
  );
}

/** Every resource `resource` depends on, directly or through others. */
function dependencyClosure(resource: PolicyResource): Set<PolicyResource> {
  const seen = new Set<PolicyResource>();
  const walk = (r: PolicyResource) => {
    for (const dependency of r.dependencies) {
      if (seen.has(dependency)) continue;
      seen.add(dependency);
      walk(dependency);
    }
  };
  walk(resource);
  return seen;
}

export const calicoOperatorResourcesAfterOperator: StackValidationPolicy = {
  name: "calico-operator-resources-after-operator",
  description:
    `With the ${TIGERA_OPERATOR} Deployment in the stack, every operator.tigera.io custom resource depends ` +
    "on it: created after the operator makes their CRDs, and deleted while it still runs their finalizers " +
    "(deleted after it, the Installation's deletion hangs forever, tigera/operator#2031).",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const operators = args.resources.filter(isOperatorDeployment);
    const custom = args.resources.filter((r) => r.type.startsWith("kubernetes:operator.tigera.io/"));
    if (operators.length === 0 || custom.length === 0) {
      args.notApplicable(`no ${TIGERA_OPERATOR} Deployment with operator custom resources in this stack`);
    }
    for (const resource of custom) {
      const closure = dependencyClosure(resource);
      if (!operators.some((operator) => closure.has(operator))) {
        report(
          `${resource.type} ${resource.name} does not depend on the ${TIGERA_OPERATOR} Deployment: Pulumi may ` +
            "create it before the operator has made its CRD and delete it after the operator is gone. Add " +
            "the operator Deployment to its dependsOn.",
          resource.urn,
        );
      }
    }
  },
};
