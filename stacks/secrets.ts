/**
 * Config keys set with `pulumi config set --secret` stay secret after loading. `runtime.allConfig()`
 * hands the program their plain text, and the settings are plain values, so the flag is carried by
 * value: every resource input that holds a secret key's value (or a string built from it, such as an
 * image reference from a secret registry) is wrapped in `pulumi.secret`, and so is every stack output.
 * Resource names cannot be secret (Pulumi stores URNs in plaintext), so a secret key whose values name
 * resources is refused while loading.
 */
import * as pulumi from "@pulumi/pulumi";
import { CONFIG_NAMESPACE, type ConfigProblem, SECRET_VALUE } from "./problems";
import { isRecord } from "./schema/records";

/** A string leaf this long or longer is also found inside longer strings built from it. */
const MIN_EMBEDDED_LENGTH = 4;

export type SecretLeaf = string | number;

/** Every string and number inside the secret keys' values: what must not reach an input in plaintext. */
export function secretLeaves(raw: Record<string, unknown>, keys: ReadonlySet<string>): SecretLeaf[] {
  const leaves = new Set<SecretLeaf>();
  const walk = (value: unknown): void => {
    if (typeof value === "string" || typeof value === "number") leaves.add(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (isRecord(value)) Object.values(value).forEach(walk);
  };
  for (const key of keys) walk(raw[key]);
  return [...leaves];
}

/** Whether a plain value holds a secret leaf; Outputs, promises and resources are not looked into. */
export function holdsSecret(value: unknown, leaves: readonly SecretLeaf[]): boolean {
  if (leaves.length === 0) return false;
  if (typeof value === "number") return leaves.includes(value);
  if (typeof value === "string") {
    return leaves.some(
      (leaf) =>
        typeof leaf === "string" &&
        (leaf === value || (leaf.length >= MIN_EMBEDDED_LENGTH && value.includes(leaf))),
    );
  }
  if (pulumi.Output.isInstance(value) || pulumi.Resource.isInstance(value) || value instanceof Promise) {
    return false;
  }
  if (Array.isArray(value)) return value.some((v) => holdsSecret(v, leaves));
  if (isRecord(value)) return Object.values(value).some((v) => holdsSecret(v, leaves));
  return false;
}

/** `values` with every entry that holds a secret leaf wrapped in `pulumi.secret`. */
export function withSecretsMarked<T extends Record<string, unknown>>(
  values: T,
  leaves: readonly SecretLeaf[],
): T {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      holdsSecret(value, leaves) ? pulumi.secret(value) : value,
    ]),
  ) as T;
}

function resolvedOutput(value: unknown): pulumi.Output<unknown> {
  return pulumi.output(value) as pulumi.Output<unknown>;
}

function markedIfSecret(value: unknown, leaves: readonly SecretLeaf[]): pulumi.Input<unknown> {
  return holdsSecret(value, leaves) ? pulumi.secret(value) : value;
}

/**
 * Stack outputs with every entry that holds a secret leaf, once resolved, made secret: outputs are
 * mostly Outputs, so they are looked into after they resolve.
 */
export function withSecretOutputs(
  outputs: Record<string, unknown>,
  leaves: readonly SecretLeaf[],
): Record<string, pulumi.Output<unknown>> {
  return Object.fromEntries(
    Object.entries(outputs).map(([key, value]) => [
      key,
      resolvedOutput(value).apply((resolved) => markedIfSecret(resolved, leaves)),
    ]),
  );
}

/**
 * From here on, every input of a resource registered by this program that holds a secret leaf is a
 * secret. Component resources of this project are skipped: their arguments are code, not state; the
 * resources they create are marked one by one. A legacy stack transformation, because it runs inside
 * the program (the mock runtime of `npm test` has no callback server for `registerResourceTransform`).
 */
export function carrySecretsIntoInputs(leaves: readonly SecretLeaf[]): void {
  if (leaves.length === 0) return;
  pulumi.runtime.registerStackTransformation((args) => {
    if (args.type.startsWith(`${CONFIG_NAMESPACE}:`)) return undefined;
    const props = withSecretsMarked(args.props, leaves);
    const changed = Object.keys(props).some((key) => props[key] !== args.props[key]);
    return changed ? { props, opts: args.opts } : undefined;
  });
}

/**
 * Secret keys whose values name resources: node groups, access entries (named after their principal)
 * and a Calico namespace of the stack's own. Refused, since a name would store the value in plaintext.
 */
export function secretNameProblems(
  config: Record<string, unknown>,
  keys: ReadonlySet<string>,
): ConfigProblem[] {
  const problem = (key: string, path: string, what: string): ConfigProblem => ({
    path,
    value: SECRET_VALUE,
    rule: `is part of ${CONFIG_NAMESPACE}:${key}, which is set with --secret, but it becomes part of a resource name, and Pulumi stores resource names (URNs) in plaintext`,
    hint: `set ${CONFIG_NAMESPACE}:${key} without --secret (${what} is an identifier, not a credential)`,
  });
  const problems: ConfigProblem[] = [];
  const groups = config.nodeGroups;
  if (keys.has("nodeGroups") && Array.isArray(groups)) {
    groups.forEach((_, i) =>
      problems.push(problem("nodeGroups", `nodeGroups[${i}].name`, "a node group name")),
    );
  }
  const access = isRecord(config.cluster) ? config.cluster.access : undefined;
  if (keys.has("cluster") && Array.isArray(access)) {
    access.forEach((_, i) =>
      problems.push(problem("cluster", `cluster.access[${i}].principalArn`, "a principal ARN")),
    );
  }
  const existing = isRecord(config.cluster) ? config.cluster.existing : undefined;
  if (keys.has("cluster") && existing !== undefined) {
    problems.push({
      path: "cluster.existing.name",
      value: SECRET_VALUE,
      rule: `is part of ${CONFIG_NAMESPACE}:cluster, which is set with --secret, but it becomes the id of the vpc-cni add-on the stack imports (<name>:vpc-cni), and Pulumi stores resource ids in plaintext`,
      hint: `set ${CONFIG_NAMESPACE}:cluster without --secret (a cluster name is an identifier, not a credential)`,
    });
  }
  const namespace = isRecord(config.calico) ? config.calico.namespace : undefined;
  if (keys.has("calico") && namespace !== undefined && namespace !== "kube-system") {
    problems.push(problem("calico", "calico.namespace", "a namespace name"));
  }
  return problems;
}
