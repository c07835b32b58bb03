/**
 * The VPC CNI of a cluster made elsewhere: the settings Calico policy-only needs, merged into the EKS
 * add-on's current configuration values without touching the rest.
 */
import { parse } from "yaml";
import { VPC_CNI_CONFIGURATION } from "../cluster/addons";

/** A vpc-cni managed add-on as `aws.eks.getAddon` reads it. */
export interface ManagedVpcCni {
  readonly managed: true;
  readonly addonVersion: string;
  /** JSON or YAML, as the add-on was configured; "" when it never was. */
  readonly configurationValues: string;
  /** "" when aws-node uses the node role. */
  readonly serviceAccountRoleArn: string;
  readonly podIdentityAssociations: readonly { roleArn: string; serviceAccount: string }[];
  readonly tags: Readonly<Record<string, string>>;
}

/** A VPC CNI installed without the EKS add-on (manifests, Helm): this stack cannot configure it. */
export interface SelfManagedVpcCni {
  readonly managed: false;
}

export type ExistingVpcCni = ManagedVpcCni | SelfManagedVpcCni;

/**
 * What this stack does with the VPC CNI's network-policy agent (`cluster.existing.networkPolicyAgent`):
 * - "off": it stays off, or is turned off in AWS's order once Calico enforces (network-policy-agent.ts);
 * - "on": left on while Calico runs beside it, the first step of a hand-over (docs/existing-clusters.md),
 *   so the cluster's policies can be copied to Calico before the Kubernetes ones are deleted.
 */
export type NetworkPolicyAgent = "on" | "off";

/**
 * Whether an add-on's configuration values turn the network-policy agent on. The add-on's schema takes
 * `enableNetworkPolicy` as the string "true" or "false" (`aws eks describe-addon-configuration`); unset is
 * off: "network policies are not enabled by default"
 * (https://aws.github.io/amazon-vpc-cni-k8s/docs/network-policy-faq.html).
 */
export function networkPolicyAgentOn(configurationValues: string): boolean {
  const parsed: unknown = configurationValues.trim() === "" ? {} : parse(configurationValues);
  if (!isRecord(parsed)) {
    throw new Error(`the vpc-cni add-on's configuration values are not a map: ${configurationValues}`);
  }
  return parsed.enableNetworkPolicy === "true" || parsed.enableNetworkPolicy === true;
}

/** What the stack changes in the add-on's configuration, and the configuration values it sets. */
export interface VpcCniChange {
  /** The configuration values to set: the current ones, unchanged, when nothing needs changing. */
  readonly configurationValues: string;
  /** One line per setting changed, `path: before -> after`; empty when the add-on is already right. */
  readonly changes: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const shown = (value: unknown) => (value === undefined ? "unset" : JSON.stringify(value));

/**
 * The add-on's configuration with Calico's settings (components/cluster/addons.ts VPC_CNI_CONFIGURATION)
 * in place and every other setting kept; with `agent` "on", `enableNetworkPolicy` is kept as it is.
 * Throws on configuration values that are not a YAML or JSON map, since merging into them would lose
 * settings.
 */
export function vpcCniChange(current: string, agent: NetworkPolicyAgent = "off"): VpcCniChange {
  const parsed: unknown = current.trim() === "" ? {} : parse(current);
  if (!isRecord(parsed)) {
    throw new Error(`the vpc-cni add-on's configuration values are not a map: ${current}`);
  }
  const env = isRecord(parsed.env) ? parsed.env : {};
  const changes: string[] = [];
  const turnOff = agent === "off" && parsed.enableNetworkPolicy !== VPC_CNI_CONFIGURATION.enableNetworkPolicy;
  if (turnOff) {
    changes.push(
      `enableNetworkPolicy: ${shown(parsed.enableNetworkPolicy)} -> ${shown(VPC_CNI_CONFIGURATION.enableNetworkPolicy)}`,
    );
  }
  for (const [name, value] of Object.entries(VPC_CNI_CONFIGURATION.env)) {
    if (env[name] !== value) changes.push(`env.${name}: ${shown(env[name])} -> ${shown(value)}`);
  }
  if (changes.length === 0) return { configurationValues: current, changes };
  const merged = {
    ...parsed,
    ...(agent === "off" ? { enableNetworkPolicy: VPC_CNI_CONFIGURATION.enableNetworkPolicy } : {}),
    env: { ...env, ...VPC_CNI_CONFIGURATION.env },
  };
  return { configurationValues: JSON.stringify(merged), changes };
}

/**
 * The VPC CNI settings this stack owns in an update, by key (`enableNetworkPolicy`, `env.<NAME>`), with the
 * values it sets in the add-on: with the agent kept on, `enableNetworkPolicy` is left as it is, not owned.
 */
export function ownedSettings(agent: NetworkPolicyAgent): Record<string, string> {
  return {
    ...(agent === "off" ? { enableNetworkPolicy: VPC_CNI_CONFIGURATION.enableNetworkPolicy } : {}),
    ...Object.fromEntries(
      Object.entries(VPC_CNI_CONFIGURATION.env).map(([name, value]) => [`env.${name}`, value]),
    ),
  };
}

/** A setting's value in an add-on's configuration values, as text (`env.NAME` in its `env` map). */
export function configuredSetting(configurationValues: string, key: string): string | undefined {
  const parsed: unknown = configurationValues.trim() === "" ? {} : parse(configurationValues);
  if (!isRecord(parsed)) return undefined;
  const [head, name] = key.startsWith("env.") ? ["env", key.slice(4)] : [key, undefined];
  const value = name === undefined ? parsed[head] : isRecord(parsed.env) ? parsed.env[name] : undefined;
  if (value === undefined || value === null) return undefined;
  // YAML may give `false` or `5` unquoted: as text, they read as the add-on's strings do.
  return typeof value === "string" ? value : JSON.stringify(value);
}
