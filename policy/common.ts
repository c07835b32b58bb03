/** Shared by the policy files: the type tokens the pack matches, and helpers that read resource props. */
import type { ReportViolation, ResourceValidation, ResourceValidationArgs } from "@pulumi/policy";

export const TYPES = {
  eksCluster: "eks:index:Cluster",
  awsNodeGroup: "aws:eks/nodeGroup:NodeGroup",
  vpcCniAddon: "eks:index:VpcCniAddon",
  eksAddon: "eks:index:Addon",
  awsAddon: "aws:eks/addon:Addon",
  launchTemplate: "aws:ec2/launchTemplate:LaunchTemplate",
  subnet: "aws:ec2/subnet:Subnet",
  nodeClass: "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass",
} as const;

/** The DaemonSet Calico's own manifests and tooling (`kubectl -n kube-system get ds calico-node`) expect. */
export const CALICO_NODE = "calico-node";

export type Props = Readonly<Record<string, unknown>>;

/** A value as a message shows it. */
export function shown(value: unknown): string {
  return value === undefined ? "unset" : JSON.stringify(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** `true` or `"true"`: EKS add-on configuration values spell booleans as strings. */
export function isTrue(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.toLowerCase() === "true");
}

/**
 * `props[key]` read past the preview proxy of @pulumi/policy, which throws on a value still unknown in a
 * preview and so stops the whole policy ("can't run policy during preview"). An unknown value comes back
 * as an opaque string: present, but equal to nothing a policy looks for.
 */
export function peek(props: object, key: string): unknown {
  return Object.getOwnPropertyDescriptor(props, key)?.value;
}

/** Whether `key` holds a value; an input wired to a resource not created yet (a KMS key's ARN) does. */
export function isSet(props: object, key: string): boolean {
  const value = peek(props, key);
  return (
    value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0)
  );
}

/** `urn:pulumi:stack::project::parent$type::name` -> `type`. */
export function typeOfUrn(urn: string): string {
  return urn.split("::")[2]?.split("$").pop() ?? "";
}

/** A resource validation for the resources of `types` only. */
export function forTypes(
  types: readonly string[],
  validate: (props: Props, args: ResourceValidationArgs, report: ReportViolation) => void,
): ResourceValidation {
  return (args, report) => {
    if (types.includes(args.type)) validate(args.props, args, report);
  };
}

/**
 * A validation of @pulumi/eks component inputs. Pulumi records a component's inputs only when the code
 * that constructs it sends them (the Node.js SDK does since 3.202, pulumi/pulumi#20357; the eks provider
 * constructs these components): with no inputs at all the rule cannot be checked, and says so instead of
 * reporting a setting as missing.
 */
export function forEksComponent(
  type: string,
  rule: string,
  validate: (props: Props, args: ResourceValidationArgs, report: ReportViolation) => void,
): ResourceValidation {
  return forTypes([type], (props, args, report) => {
    if (Object.keys(props).length === 0) {
      report(
        `${type} ${args.name} reached the policy with no inputs, so ${rule} cannot be checked: ` +
          "its provider did not record the component's inputs (pulumi/pulumi#20357).",
      );
      return;
    }
    validate(props, args, report);
  });
}
