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
 * in place and every other setting kept. Throws on configuration values that are not a YAML or JSON map,
 * since merging into them would lose settings.
 */
export function vpcCniChange(current: string): VpcCniChange {
  const parsed: unknown = current.trim() === "" ? {} : parse(current);
  if (!isRecord(parsed)) {
    throw new Error(`the vpc-cni add-on's configuration values are not a map: ${current}`);
  }
  const env = isRecord(parsed.env) ? parsed.env : {};
  const changes: string[] = [];
  if (parsed.enableNetworkPolicy !== VPC_CNI_CONFIGURATION.enableNetworkPolicy) {
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
    enableNetworkPolicy: VPC_CNI_CONFIGURATION.enableNetworkPolicy,
    env: { ...env, ...VPC_CNI_CONFIGURATION.env },
  };
  return { configurationValues: JSON.stringify(merged), changes };
}
