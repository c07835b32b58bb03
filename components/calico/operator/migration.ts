/**
 * Whether the Tigera operator can convert a manifest install's calico-node into an Installation: its
 * converter's rules (tigera/operator `pkg/controller/migration/convert/`, identical in v1.40.15 and
 * v1.42.3), applied to the DaemonSet this program renders. Creating the Installation while
 * kube-system/calico-node exists starts the conversion; anything it cannot convert leaves the
 * Installation Degraded with MigrationError, and `pulumi up` waiting until it times out.
 */
import { renderCalicoNode } from "../daemonset";
import { DEFAULT_CALICO_NAMESPACE, DEFAULT_CALICO_REGISTRY } from "../defaults";
import { DEFAULT_MAX_UNAVAILABLE } from "../rollout";
import type { DaemonSet } from "../object-shapes";

/** Env vars the converter reads into the Installation or accepts with a required value (core.go, network.go). */
const CONVERTED: Readonly<Record<string, string | undefined>> = {
  DATASTORE_TYPE: "kubernetes",
  CALICO_NETWORKING_BACKEND: "none",
  NO_DEFAULT_POOLS: "true",
  IP: "",
  FELIX_INTERFACEPREFIX: "eni",
  FELIX_IPTABLESMANGLEALLOWACTION: "Return",
  FELIX_DEFAULTENDPOINTTOHOSTACTION: "ACCEPT",
  NODENAME: undefined,
};

/** Env vars the converter marks as handled and drops (convert/core.go). */
const DROPPED = new Set([
  "WAIT_FOR_DATASTORE",
  "CLUSTER_TYPE",
  "CALICO_DISABLE_FILE_LOGGING",
  "FELIX_LOGSEVERITYSCREEN",
  "FELIX_HEALTHENABLED",
  "FELIX_TYPHAK8SSERVICENAME",
]);

/**
 * FELIX_* vars it moves into FelixConfiguration `default` (convert/felix_vars.go): only those whose name
 * matches a FelixConfiguration field of a type it converts. Others fail the conversion; the ones listed
 * here were checked against the v1.40.15 and v1.42.3 FelixConfiguration types.
 */
const MOVED_TO_FELIX_CONFIGURATION = new Set([
  "FELIX_ROUTESOURCE", // routeSource string
  "FELIX_IPV6SUPPORT", // ipv6Support *bool
  "FELIX_LOGSEVERITYSYS", // logSeveritySys string (tigera/api felixconfig.go)
  "FELIX_PROMETHEUSMETRICSENABLED", // prometheusMetricsEnabled *bool
]);

/** hostPath volumes the converter requires by name and path (convert/core.go). */
const REQUIRED_VOLUMES: Readonly<Record<string, string>> = {
  "lib-modules": "/lib/modules",
  "xtables-lock": "/run/xtables.lock",
  "var-run-calico": "/var/run/calico",
  "var-lib-calico": "/var/lib/calico",
};

/** Why the operator cannot convert `node` (empty when it can), one reason per blocking setting. */
export function conversionBlockers(node: DaemonSet): string[] {
  const pod = node.spec.template.spec;
  const container = pod?.containers.find((c) => c.name === "calico-node");
  if (pod === undefined || container === undefined) return ["calico-node has no container named calico-node"];
  const blockers: string[] = [];
  for (const variable of container.env ?? []) {
    const name = variable.name;
    if (name === "NODENAME") {
      if (variable.valueFrom?.fieldRef?.fieldPath !== "spec.nodeName")
        blockers.push(`env ${name} must come from spec.nodeName`);
    } else if (Object.hasOwn(CONVERTED, name)) {
      if (variable.value !== CONVERTED[name])
        blockers.push(`env ${name}=${String(variable.value)} (only "${CONVERTED[name]}" converts)`);
    } else if (DROPPED.has(name) || MOVED_TO_FELIX_CONFIGURATION.has(name)) {
      continue;
    } else if (name.startsWith("FELIX_")) {
      blockers.push(
        `env ${name}: not among the FELIX_ settings checked against FelixConfiguration's convertible fields; the converter fails on one it cannot map, so it is treated as blocking`,
      );
    } else {
      blockers.push(`env ${name}: an environment variable the converter does not know`);
    }
  }
  if (pod.affinity !== undefined) blockers.push("affinity on calico-node (the converter refuses any)");
  const selector = Object.keys(pod.nodeSelector ?? {}).filter(
    (key) => !/^(beta\.)?kubernetes\.io\/os$/.test(key),
  );
  if (selector.length > 0) blockers.push(`nodeSelector ${selector.join(", ")} (only the OS label converts)`);
  const hostPaths = new Map((pod.volumes ?? []).map((v) => [v.name, v.hostPath?.path]));
  for (const [name, path] of Object.entries(REQUIRED_VOLUMES)) {
    if (hostPaths.get(name) !== path) blockers.push(`volume ${name} must be hostPath ${path}`);
  }
  return blockers;
}

/** A deployed manifest install, as the stack's last `calico` output describes it. */
export interface DeployedManifestInstall {
  /** Its Calico release; undefined when the output did not record one. */
  readonly version?: string;
  /** Its namespace; undefined stands for the default, kube-system. */
  readonly namespace?: string;
}

/**
 * Why the operator cannot migrate the manifest install `deployed` to an Installation of release `version`
 * (empty when it can). Calico's docs support a migration only from a manifest install of the operator's
 * own release in kube-system; the calico-node checked against the converter's rules is the one this
 * program renders for the deployed release and namespace.
 */
export function migrationBlockers(deployed: DeployedManifestInstall, version: string): string[] {
  const namespace = deployed.namespace ?? DEFAULT_CALICO_NAMESPACE;
  const blockers: string[] = [];
  if (deployed.version !== version) {
    blockers.push(
      `the release changes from ${deployed.version ?? "an unknown release"} to ${version} in the same step; upgrade the manifest install first`,
    );
  }
  if (namespace !== "kube-system") {
    blockers.push(`it runs in ${namespace}; the operator converts only kube-system/calico-node`);
  }
  const node = renderCalicoNode(
    namespace,
    DEFAULT_CALICO_REGISTRY,
    deployed.version ?? version,
    DEFAULT_MAX_UNAVAILABLE,
  );
  return [...blockers, ...conversionBlockers(node)];
}
