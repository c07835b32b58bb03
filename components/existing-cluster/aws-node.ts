/**
 * Where the VPC CNI settings this stack owns land in the aws-node DaemonSet, and whether aws-node runs
 * with them. The vpc-cni add-on renders aws-node from the aws-vpc-cni Helm chart
 * (amazon-vpc-cni-k8s charts/aws-vpc-cni/templates/daemonset.yaml; config/master/aws-k8s-cni.yaml is that
 * chart rendered, DaemonSet kube-system/aws-node):
 * - `env.<NAME>` is the `aws-node` container's env entry NAME (`{{- range $key, $value := .Values.env }}`);
 * - `enableNetworkPolicy` is the `aws-eks-nodeagent` container's `--enable-network-policy=<value>` arg (that
 *   container runs the aws-network-policy-agent image, and only with `nodeAgent.enabled`).
 * Values are compared as the programs read them: Go's strconv.ParseBool for both (aws-network-policy-agent
 * pkg/config/controller_config.go binds the flag with pflag's BoolVar, default false; amazon-vpc-cni-k8s
 * utils/utils.go GetBoolAsStringEnvVar reads ANNOTATE_POD_IP, default false, an unparsable value counting
 * as the default). Pure functions: the step that reads the cluster is aws-node-check.ts.
 */

import { VPC_CNI_VETH_PREFIX } from "../cluster/vpc-cni-veth";

export const AWS_NODE = { namespace: "kube-system", name: "aws-node" } as const;
export const AWS_NODE_CONTAINER = "aws-node";
export const AGENT_CONTAINER = "aws-eks-nodeagent";
const AGENT_FLAG = "--enable-network-policy";

/** The defaults of the env entries this stack owns, when unset (ipamd.go: `GetBoolAsStringEnvVar(envAnnotatePodIP, false)`). */
const ENV_DEFAULTS: Readonly<Record<string, string>> = { ANNOTATE_POD_IP: "false" };

/** The parts of a container spec the check reads. */
export interface AwsNodeContainer {
  readonly name: string;
  readonly args?: readonly string[];
  readonly env?: readonly { name: string; value?: string; valueFrom?: unknown }[];
  readonly envFrom?: readonly unknown[];
}

/** The parts of the aws-node DaemonSet the check reads. */
export interface AwsNodeDaemonSet {
  readonly spec?: { template?: { spec?: { containers?: readonly AwsNodeContainer[] } } };
}

/** A value Go's strconv.ParseBool accepts, as a boolean; undefined for anything else. */
export function goBool(text: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return false;
  return undefined;
}

/** A setting as aws-node runs it: the value the program reads (undefined: cannot be told) and how it shows. */
interface LiveSetting {
  readonly value: string | undefined;
  readonly shown: string;
  readonly container: string;
}

function containerOf(daemonSet: AwsNodeDaemonSet, name: string): AwsNodeContainer | undefined {
  return daemonSet.spec?.template?.spec?.containers?.find((c) => c.name === name);
}

/** `--enable-network-policy` on the agent's container: the last occurrence wins, as with pflag. */
function agentSetting(daemonSet: AwsNodeDaemonSet): LiveSetting {
  const container = containerOf(daemonSet, AGENT_CONTAINER);
  if (container === undefined) {
    return { value: "false", shown: "off (no aws-eks-nodeagent container runs)", container: AGENT_CONTAINER };
  }
  let value: string | undefined;
  for (const arg of container.args ?? []) {
    if (arg === AGENT_FLAG) value = "true";
    else if (arg.startsWith(`${AGENT_FLAG}=`)) value = arg.slice(AGENT_FLAG.length + 1);
  }
  if (value === undefined) return { value: "false", shown: "unset (false)", container: AGENT_CONTAINER };
  return {
    value: goBool(value) === undefined ? undefined : value,
    shown: `${AGENT_FLAG}=${value}`,
    container: AGENT_CONTAINER,
  };
}

/** An env entry of the aws-node container. */
function envSetting(daemonSet: AwsNodeDaemonSet, name: string): LiveSetting {
  const container = containerOf(daemonSet, AWS_NODE_CONTAINER);
  const at = { container: AWS_NODE_CONTAINER };
  if (container === undefined) return { ...at, value: undefined, shown: "absent (no aws-node container)" };
  const entry = [...(container.env ?? [])].reverse().find((e) => e.name === name);
  if (entry?.valueFrom !== undefined) {
    return { ...at, value: undefined, shown: "set from valueFrom, which the check cannot read" };
  }
  if (entry === undefined) {
    // An env entry overrides envFrom; without one, envFrom may set the variable.
    if ((container.envFrom ?? []).length > 0) {
      return { ...at, value: undefined, shown: "not in env, and envFrom may set it" };
    }
    const fallback = ENV_DEFAULTS[name];
    return { ...at, value: fallback, shown: `unset${fallback === undefined ? "" : ` (${fallback})`}` };
  }
  const text = entry.value ?? "";
  // An unparsable boolean counts as the default (GetBoolAsStringEnvVar).
  const fallback = ENV_DEFAULTS[name];
  const value = fallback !== undefined && goBool(text) === undefined ? fallback : text;
  return { ...at, value, shown: JSON.stringify(text) };
}

/** A setting (`enableNetworkPolicy`, `env.<NAME>`) as the DaemonSet runs it. */
export function liveSetting(daemonSet: AwsNodeDaemonSet, key: string): LiveSetting {
  if (key === "enableNetworkPolicy") return agentSetting(daemonSet);
  if (key.startsWith("env.")) return envSetting(daemonSet, key.slice(4));
  throw new Error(`no place in aws-node is known for the VPC CNI setting ${key}`);
}

/** Whether a live value means what the add-on sets: as booleans when the wanted value is one. */
function same(live: string | undefined, wanted: string): boolean {
  if (live === undefined) return false;
  const want = goBool(wanted);
  return want === undefined ? live === wanted : goBool(live) === want;
}

/** An owned setting aws-node does not run as the add-on sets it. */
export interface SettingDifference {
  readonly key: string;
  readonly wanted: string;
  readonly shown: string;
  readonly container: string;
}

/** Every owned setting whose live value differs from `wanted`, in key order. */
export function awsNodeDifferences(
  daemonSet: AwsNodeDaemonSet,
  wanted: Readonly<Record<string, string>>,
): SettingDifference[] {
  return Object.keys(wanted)
    .sort()
    .flatMap((key) => {
      const live = liveSetting(daemonSet, key);
      return same(live.value, wanted[key])
        ? []
        : [{ key, wanted: wanted[key], shown: live.shown, container: live.container }];
    });
}

/** The kubectl command that sets one setting on aws-node. */
function fix(difference: SettingDifference): string {
  const where = `-n ${AWS_NODE.namespace} daemonset/${AWS_NODE.name}`;
  if (difference.key.startsWith("env.")) {
    return `kubectl set env ${where} -c ${AWS_NODE_CONTAINER} ${difference.key.slice(4)}=${difference.wanted}`;
  }
  return `kubectl edit ${where}, and set ${AGENT_FLAG}=${difference.wanted} in the ${AGENT_CONTAINER} container's args`;
}

/**
 * What aws-node runs that keeps Felix from policing pods, as stacks/existing-blockers.ts refuses it in
 * the add-on's configuration, read here from the DaemonSet (where a kubectl edit outlives the add-on):
 * security groups for pods outside standard mode (their host interfaces `vlan…`, amazon-vpc-cni-k8s
 * pkg/sgpp/utils.go), or a veth prefix other than Felix's.
 */
export function awsNodeBlockers(daemonSet: AwsNodeDaemonSet, felixPrefix = VPC_CNI_VETH_PREFIX): string[] {
  const env = (name: string) => liveSetting(daemonSet, `env.${name}`);
  const blockers: string[] = [];
  const mode = env("POD_SECURITY_GROUP_ENFORCING_MODE");
  if (goBool(env("ENABLE_POD_ENI").value ?? "") === true && mode.value !== "standard") {
    blockers.push(
      `env.ENABLE_POD_ENI is true and env.POD_SECURITY_GROUP_ENFORCING_MODE is ${mode.shown} (strict unless "standard"): pods with security groups get vlan… interfaces, which Felix does not police; set POD_SECURITY_GROUP_ENFORCING_MODE=standard`,
    );
  }
  const prefix = env("AWS_VPC_K8S_CNI_VETHPREFIX");
  if (prefix.value !== undefined && prefix.value !== felixPrefix) {
    blockers.push(
      `env.AWS_VPC_K8S_CNI_VETHPREFIX is ${prefix.shown}: Felix polices ${felixPrefix}… interfaces only; remove it`,
    );
  }
  return blockers;
}

/**
 * Why the update stops: aws-node is missing, runs an owned setting other than the add-on sets it, or runs
 * pods Felix cannot police (awsNodeBlockers); or undefined when none holds. The add-on was updated with
 * resolveConflicts PRESERVE: "Amazon EKS preserves the value" (UpdateAddon API), so a value edited on the
 * DaemonSet with kubectl outlives it.
 */
export function awsNodeRefusal(
  cluster: string,
  daemonSet: AwsNodeDaemonSet | undefined,
  wanted: Readonly<Record<string, string>>,
): string | undefined {
  const where = `${AWS_NODE.namespace}/${AWS_NODE.name}`;
  if (daemonSet === undefined) {
    return `DaemonSet ${where} does not exist on ${cluster}, and the vpc-cni add-on runs the VPC CNI in it: check the add-on's health (aws eks describe-addon --cluster-name ${cluster} --addon-name vpc-cni)`;
  }
  const blockers = awsNodeBlockers(daemonSet);
  const blocked =
    blockers.length === 0
      ? undefined
      : `aws-node (DaemonSet ${where}) on ${cluster} runs pods Calico cannot police: ${blockers.join("; ")}; then run pulumi up again`;
  const differences = awsNodeDifferences(daemonSet, wanted);
  if (differences.length === 0) return blocked;
  const found = differences.map(
    (d) =>
      `${d.key} is ${d.shown} on container ${d.container}, and the add-on sets ${JSON.stringify(d.wanted)}`,
  );
  const differ =
    `aws-node (DaemonSet ${where}) on ${cluster} does not run the VPC CNI settings this stack set in the ` +
    `vpc-cni add-on: ${found.join("; ")}. The add-on is updated with resolveConflicts PRESERVE, which keeps ` +
    `a value edited on the DaemonSet (kubectl edit, kubectl set env) over the add-on's. Set ` +
    `${differences.length === 1 ? "it" : "each"} on aws-node (${differences.map(fix).join("; ")}), then run ` +
    `pulumi up again`;
  return blocked === undefined ? differ : `${differ}. ${blocked}`;
}
