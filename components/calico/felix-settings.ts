/**
 * The Felix settings a stack passes through (`calico.felix`, manifest install): one row each, the one
 * place a new one is added. The config schema (stacks/schema/calico.ts), calico-node's environment
 * (daemonset.ts) and the config reference (npm run docs:config) are built from this table.
 *
 * Felix reads each from the calico-node environment variable FELIX_<NAME>, before any FelixConfiguration
 * resource (calico v3.31.7 felix/config/config_params.go; a oneof value is case-insensitive,
 * felix/config/param_types.go OneofListParam). With the operator, Felix's settings live in
 * FelixConfiguration `default`, which the operator owns: the key is refused there (stacks/schema/installer.ts).
 */

interface FelixSetting {
  /** The calico-node environment variable. */
  readonly env: `FELIX_${string}`;
  /** The values Felix accepts, as the stack file writes them: words, or `[false, true]` for a switch. */
  readonly values: readonly [string, ...string[]] | readonly [false, true];
  /** The value calico-node gets when the key is unset. */
  readonly default: string | boolean;
  /** The config reference's bullet. */
  readonly description: string;
  /**
   * Rendered at its default too: calico-node of every deployed stack has it, and dropping it would roll
   * every node. A new row is rendered only when set to another value, so adding one rolls nothing.
   */
  readonly alwaysRendered?: true;
}

export const FELIX_SETTINGS = {
  logSeverityScreen: {
    env: "FELIX_LOGSEVERITYSCREEN",
    // config_params.go: oneof(TRACE,DEBUG,INFO,WARNING,ERROR,FATAL).
    values: ["trace", "debug", "info", "warning", "error", "fatal"],
    default: "info",
    description: "The least severe Felix log line calico-node writes to its log (`kubectl logs`).",
    alwaysRendered: true,
  },
  prometheusMetricsEnabled: {
    env: "FELIX_PROMETHEUSMETRICSENABLED",
    // config_params.go: bool;false. Served on the node's port 9091 (PrometheusMetricsPort).
    values: [false, true],
    default: false,
    description:
      "Felix serves Prometheus metrics on port 9091 of each node, to whatever the node's security groups admit there.",
  },
} as const satisfies Record<string, FelixSetting>;

export type FelixSettings = {
  readonly [K in keyof typeof FELIX_SETTINGS]: (typeof FELIX_SETTINGS)[K]["values"][number];
};

/** Every setting at its default. */
export const DEFAULT_FELIX: FelixSettings = Object.fromEntries(
  Object.entries(FELIX_SETTINGS).map(([key, setting]) => [key, setting.default]),
) as FelixSettings;

/** calico-node's environment for `felix`, in the table's order: a setting at its default is left out. */
export function felixEnv(felix: FelixSettings): { name: string; value: string }[] {
  return Object.entries(FELIX_SETTINGS).flatMap(([key, setting]: [string, FelixSetting]) => {
    const value = felix[key as keyof FelixSettings];
    if (value === setting.default && setting.alwaysRendered !== true) return [];
    return [{ name: setting.env, value: String(value) }];
  });
}
