/**
 * The end of a takeover's Typha hand-over. During `calico.adopt`, this program's Typha runs under its own
 * name (names.ts TAKEOVER_TYPHA) while the old manifest's `calico-typha` keeps serving the calico-node
 * pods that still run the old spec: those Felixes speak no TLS, and this program's Typha accepts only
 * mutual TLS (typha/pkg/config/config_params.go requiringTLS, v3.31.7). Once the calico-node DaemonSet
 * has rolled out, no pod names the old Typha any more, and this step deletes its Deployment, Service and
 * PodDisruptionBudget, and every autoscaler that scales it (typha-scalers.ts: the VPC CNI manifests'
 * `calico-typha-horizontal-autoscaler`), which would otherwise fight this program's autoscaler over
 * Typha's replicas once `calico.adopt` is off and this program's Typha takes the old name back.
 *
 * It runs after the DaemonSet's update, which pulumi-kubernetes awaits until the rollout is complete
 * (provider/pkg/await/daemonset.go: kstatus Current, every pod updated and available), and it checks that
 * itself again before deleting anything: every calico-node pod, a terminating one too, must name the new
 * Typha, read from the pod rather than from the DaemonSet. A dynamic resource: it runs in the Node.js
 * program with the stack's kubeconfig, and runs again in any update that finds an object of the old Typha
 * left; once they are gone it has nothing to do and changes nothing (components/kubernetes/checking-step.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import { checkingStep } from "../../kubernetes/checking-step";
import {
  type Credentials,
  credentialsOf,
  isKubeRequestError,
  kubeGetOrMissing,
  kubeRequest,
} from "../../kubernetes/client";
import { type ScalerDeployment, scalesDeployment } from "./typha-scalers";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const TYPHA_RETIREMENT_TYPE = "pulumi-nodejs:dynamic/calico:TyphaRetirement";

/** The env var naming the Service whose endpoints Felix connects to (felix/config TyphaK8sServiceName). */
const SERVICE_ENV = "FELIX_TYPHAK8SSERVICENAME";

export interface RetirementInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** Where Calico runs. */
  readonly namespace: string;
  /** The calico-node DaemonSet's name. */
  readonly calicoNode: string;
  /** The old Typha: the name of its Deployment, Service and PodDisruptionBudget. */
  readonly retired: string;
  /** The Typha every calico-node pod must name before the old one goes. */
  readonly serving: string;
}

/** The kinds of a Typha's objects, each with its API version and resource (the path under a namespace). */
export const TYPHA_OBJECT_KINDS = [
  { kind: "Deployment", apiVersion: "apps/v1", resource: "deployments" },
  { kind: "Service", apiVersion: "v1", resource: "services" },
  { kind: "PodDisruptionBudget", apiVersion: "policy/v1", resource: "poddisruptionbudgets" },
] as const;

/** The API path of a Typha object `name` of kind `kind` in `namespace`. */
export function typhaObjectPath(kind: (typeof TYPHA_OBJECT_KINDS)[number], namespace: string, name: string) {
  const group = kind.apiVersion.includes("/") ? `apis/${kind.apiVersion}` : `api/${kind.apiVersion}`;
  return `/${group}/namespaces/${encodeURIComponent(namespace)}/${kind.resource}/${encodeURIComponent(name)}`;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string } };
}
interface PodList {
  items: {
    metadata: { name: string; deletionTimestamp?: string };
    spec: { nodeName?: string; containers: { name: string; env?: EnvVar[] }[] };
  }[];
}
interface DaemonSet {
  metadata: { generation?: number };
  spec: { selector: { matchLabels?: Record<string, string> } };
  status?: { observedGeneration?: number; desiredNumberScheduled?: number; numberReady?: number };
}

/** The Typha Service a container's env names: a value, or a ConfigMap key as old manifests set it. */
async function typhaServiceOf(
  credentials: Credentials,
  namespace: string,
  env: readonly EnvVar[],
): Promise<string | undefined> {
  const variable = env.find((e) => e.name === SERVICE_ENV);
  const ref = variable?.valueFrom?.configMapKeyRef;
  if (ref === undefined) return variable?.value;
  const configMap = await kubeGetOrMissing<{ data?: Record<string, string> }>(
    credentials,
    `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(ref.name)}`,
  );
  return configMap?.data?.[ref.key];
}

/**
 * Why the old Typha cannot go yet: the DaemonSet is missing or its controller has not seen the update,
 * or a calico-node pod, a terminating one too, still names another Typha Service (`pod on node: names X`).
 * Empty when it can go. A pod that is not ready, as on a node joining mid-update, does not block: it
 * already names the new Typha, and the old one serves it nothing.
 */
export async function retirementBlockers(
  credentials: Credentials,
  inputs: RetirementInputs,
): Promise<string[]> {
  const ns = encodeURIComponent(inputs.namespace);
  const daemonSet = await kubeGetOrMissing<DaemonSet>(
    credentials,
    `/apis/apps/v1/namespaces/${ns}/daemonsets/${encodeURIComponent(inputs.calicoNode)}`,
  );
  if (daemonSet === undefined) return [`DaemonSet ${inputs.namespace}/${inputs.calicoNode} does not exist`];
  const blockers: string[] = [];
  const observed = daemonSet.status?.observedGeneration ?? 0;
  if (observed < (daemonSet.metadata.generation ?? 0)) {
    blockers.push(`the DaemonSet controller has not seen ${inputs.calicoNode}'s update yet`);
  }
  const selector = Object.entries(daemonSet.spec.selector.matchLabels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const pods = await kubeRequest<PodList>(
    credentials,
    "GET",
    `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`,
  );
  for (const pod of pods.items) {
    const container = pod.spec.containers.find((c) => c.name === inputs.calicoNode) ?? pod.spec.containers[0];
    const service = await typhaServiceOf(credentials, inputs.namespace, container?.env ?? []);
    if (service === inputs.serving) continue;
    const where = `pod ${pod.metadata.name} on ${pod.spec.nodeName ?? "no node"}`;
    const state = pod.metadata.deletionTimestamp === undefined ? "" : " (terminating)";
    blockers.push(`${where}${state} names Typha Service ${service ?? "(none)"}, not ${inputs.serving}`);
  }
  return blockers;
}

/** The Deployments, in any namespace, whose autoscaler scales the old Typha. */
async function retiredScalers(
  credentials: Credentials,
  inputs: RetirementInputs,
): Promise<ScalerDeployment[]> {
  const all = await kubeRequest<{ items: ScalerDeployment[] }>(
    credentials,
    "GET",
    "/apis/apps/v1/deployments",
  );
  return all.items.filter((d) => scalesDeployment(d, inputs.namespace, inputs.retired));
}

/** Deletes the old Typha's objects and autoscalers that exist; returns `Kind namespace/name` of each deleted. */
async function deleteRetired(credentials: Credentials, inputs: RetirementInputs): Promise<string[]> {
  const deleted: string[] = [];
  for (const scaler of await retiredScalers(credentials, inputs)) {
    const namespace = scaler.metadata.namespace ?? inputs.namespace;
    const url = `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments/${encodeURIComponent(scaler.metadata.name)}`;
    try {
      await kubeRequest(credentials, "DELETE", url);
      deleted.push(`Deployment ${namespace}/${scaler.metadata.name}`);
    } catch (error) {
      if (!isKubeRequestError(error, 404)) throw error;
    }
  }
  for (const kind of TYPHA_OBJECT_KINDS) {
    const url = typhaObjectPath(kind, inputs.namespace, inputs.retired);
    try {
      // apps/v1 deletes a Deployment's ReplicaSets and pods in the background by default.
      await kubeRequest(credentials, "DELETE", url);
      deleted.push(`${kind.kind} ${inputs.namespace}/${inputs.retired}`);
    } catch (error) {
      if (!isKubeRequestError(error, 404)) throw error;
    }
  }
  return deleted;
}

/** Whether an object of the old Typha, or an autoscaler of it, is left to delete. */
async function typhaLeft(inputs: RetirementInputs): Promise<boolean> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  for (const kind of TYPHA_OBJECT_KINDS) {
    const path = typhaObjectPath(kind, inputs.namespace, inputs.retired);
    if ((await kubeGetOrMissing(credentials, path)) !== undefined) return true;
  }
  return (await retiredScalers(credentials, inputs)).length > 0;
}

/**
 * Named apart from any global (mocha defines `run`): a global is not captured when Pulumi serializes.
 * With nothing of the old Typha left, there is nothing to check and nothing to refuse.
 */
async function retireTypha(inputs: RetirementInputs): Promise<{ deleted: string[] }> {
  if (!(await typhaLeft(inputs))) return { deleted: [] };
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const blockers = await retirementBlockers(credentials, inputs);
  if (blockers.length > 0) {
    throw new Error(
      `the old Typha ${inputs.namespace}/${inputs.retired} still serves calico-node pods, so it stays:\n${blockers
        .map((b) => `  - ${b}`)
        .join(
          "\n",
        )}\nRun \`pulumi up\` again once \`kubectl rollout status -n ${inputs.namespace} daemonset/${inputs.calicoNode}\` completes.`,
    );
  }
  return { deleted: await deleteRetired(credentials, inputs) };
}

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const retirementProvider = checkingStep("typha-retirement", retireTypha, typhaLeft);

export interface TyphaRetirementArgs {
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  readonly namespace: string;
  readonly calicoNode: string;
  readonly retired: string;
  readonly serving: string;
}

export class TyphaRetirement extends pulumi.dynamic.Resource {
  /** What the step deleted on its last run. */
  declare readonly deleted: pulumi.Output<string[]>;

  constructor(name: string, args: TyphaRetirementArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      retirementProvider,
      name,
      { ...args, kubeconfig: pulumi.secret(args.kubeconfig), deleted: undefined },
      opts,
      "calico",
      "TyphaRetirement",
    );
  }
}
