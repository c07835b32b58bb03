/**
 * What every stack file's plans register and call, for the IAM policies of docs/iam/ (./iam-policies.ts
 * says what each needs): the plans' types, calls, attached managed policies, the stack's own policies,
 * roles and the roles passed to a service. The dev stack is planned with every AWS option on too
 * (Karpenter, interface endpoints, `cluster.podIdentity`, security groups for pods), so its queue, rules,
 * roles, policies, attachments and endpoints count.
 */
import { type ResourceRecord, evaluateStack, listStacks, loadStackConfig } from "../offline/engine";
import { COMPONENT_IAM, PASSED_ROLES } from "./iam-policies";

/** The stack planned with every AWS option on as well, and the config that turns them on. */
const KARPENTER_STACK = "dev";
const KARPENTER_ON = {
  "eks-calico:karpenter.enabled": true,
  "eks-calico:network.endpoints.interface": true,
  "eks-calico:cluster.podIdentity": true,
  "eks-calico:cluster.vpcCni.podSecurityGroups": true,
} as const;

export interface Planned {
  types: Set<string>;
  calls: Set<string>;
  /** The AWS managed policies attached, by the plans' attachments and by @pulumi/eks (COMPONENT_IAM). */
  policies: Set<string>;
  /** The logical names of the customer managed policies the plans create (aws:iam/policy:Policy). */
  ownPolicies: Set<string>;
  /** The logical names of the roles created, whose physical names Pulumi derives from them. */
  roles: Set<string>;
  /**
   * Each policy attached to a role the plans create, as `<role's logical name> <policy>`: an AWS managed
   * policy's ARN, or the logical name of one of ownPolicies.
   */
  attachments: Set<string>;
  /** Each role passed to a service (PASSED_ROLES), as `<service> <role's logical name>`. */
  passes: Set<string>;
  /** The logical names of the resources of each type. */
  names: Map<string, Set<string>>;
}

/** An ARN the plans attach: an AWS managed policy's, which names the `aws` account. */
export const AWS_MANAGED = /^arn:aws:iam::aws:policy\//;

/**
 * What every stack file's plans register and call, as `pulumi preview` and as `pulumi up` run them, and
 * the dev stack's with every AWS option on.
 */
export async function planned(): Promise<Planned> {
  const plan: Planned = {
    types: new Set(),
    calls: new Set(),
    policies: new Set(),
    ownPolicies: new Set(),
    roles: new Set(),
    attachments: new Set(),
    passes: new Set(),
    names: new Map(),
  };
  const record = (resources: readonly ResourceRecord[]) => {
    const byUrn = new Map(resources.map((r) => [r.urn, r]));
    // The resource of `type` an input's value came from, by its logical name.
    const from = (resource: ResourceRecord, input: string, type: string) =>
      (resource.propertyDependencies[input] ?? []).map((urn) => byUrn.get(urn)).find((r) => r?.type === type)
        ?.name;
    for (const resource of resources) {
      plan.types.add(resource.type);
      plan.names.set(resource.type, (plan.names.get(resource.type) ?? new Set()).add(resource.name));
      const component = COMPONENT_IAM[resource.type] as (typeof COMPONENT_IAM)[string] | undefined;
      for (const role of component?.roles(resource.name) ?? []) {
        plan.roles.add(role);
        for (const name of component?.policies ?? []) {
          plan.attachments.add(`${role} arn:aws:iam::aws:policy/${name}`);
        }
      }
      for (const name of component?.policies ?? []) plan.policies.add(`arn:aws:iam::aws:policy/${name}`);
      if (resource.type === "aws:iam/role:Role") plan.roles.add(resource.name);
      if (resource.type === "aws:iam/policy:Policy") plan.ownPolicies.add(resource.name);
      if (resource.type === "aws:iam/rolePolicyAttachment:RolePolicyAttachment") {
        // A role of the plan's, or @pulumi/eks's cluster role (read from the cluster's roleArn).
        const cluster = from(resource, "role", "eks:index:Cluster");
        const role =
          from(resource, "role", "aws:iam/role:Role") ??
          (cluster === undefined ? undefined : COMPONENT_IAM["eks:index:Cluster"].roles(cluster)[0]);
        const own = from(resource, "policyArn", "aws:iam/policy:Policy");
        const arn = String(resource.inputs.policyArn);
        if (own === undefined && !AWS_MANAGED.test(arn)) throw new Error(`${resource.name} attaches ${arn}`);
        if (own === undefined) plan.policies.add(arn);
        if (role === undefined) {
          throw new Error(`${resource.name} attaches to a role the plan does not create`);
        }
        plan.attachments.add(`${role} ${own ?? arn}`);
      }
      const passed = PASSED_ROLES[resource.type] as (typeof PASSED_ROLES)[string] | undefined;
      if (passed !== undefined) {
        const role = from(resource, passed.input, "aws:iam/role:Role");
        if (role === undefined) throw new Error(`${resource.name} passes a role the plan does not create`);
        plan.passes.add(`${passed.service} ${role}`);
      }
    }
  };
  for (const stack of listStacks()) {
    // The stack as it is, and the dev stack with every AWS option on as well.
    for (const on of stack === KARPENTER_STACK ? [undefined, KARPENTER_ON] : [undefined]) {
      await planStack(stack, on, (token) => plan.calls.add(token), record);
    }
  }
  return plan;
}

/** One stack file's plans, with `on` set: new and deployed, previewed and updated. */
async function planStack(
  stack: string,
  on: Record<string, unknown> | undefined,
  onCall: (token: string) => void,
  record: (resources: readonly ResourceRecord[]) => void,
): Promise<void> {
  // A later update too, of the stack as deployed with its default routes still inline: the reads only a
  // deployed stack makes (its cluster's version, its route tables).
  const { network, ...deployed } = (await evaluateStack(stack, { preview: false, config: on })).outputs;
  const inline = Object.fromEntries(Object.entries(network ?? {}).filter(([key]) => key !== "routes"));
  const later = network === undefined ? deployed : { ...deployed, network: inline };
  // And with each node group on its `latest` AMI release: the read of AWS's public parameter it makes.
  const listed = loadStackConfig(stack).values["eks-calico:nodeGroups"];
  const groups = listed === undefined ? [] : (JSON.parse(listed) as object[]);
  const latest =
    groups.length === 0 || on !== undefined
      ? undefined
      : { "eks-calico:nodeGroups": groups.map((g) => ({ ...g, amiReleaseVersion: "latest" })) };
  for (const [preview, previousOutputs, config] of [
    [true, undefined, on],
    [false, undefined, on],
    [true, later, on],
    [false, later, on],
    ...(latest === undefined ? [] : ([[true, undefined, latest]] as const)),
  ] as const) {
    record((await evaluateStack(stack, { preview, onCall, previousOutputs, config })).resources);
  }
}
