/**
 * The operator's custom resources, as plain data: the Installation and, as configured, the APIServer,
 * Goldmane and Whisker, all named `default` (the only name the operator reconciles). Facts from Calico's
 * EKS guide and tigera/operator `api/v1`.
 */
import { COMMON_LABELS } from "../labels";
import type { MaxUnavailable } from "../rollout";
import type { ObjectMeta } from "../object-shapes";
import { installationRegistry } from "./settings";

export const OPERATOR_API_VERSION = "operator.tigera.io/v1";

/** pulumi-kubernetes (4.18+): what the provider waits for after a create or an update of the object. */
export const WAIT_FOR_ANNOTATION = "pulumi.com/waitFor";
/** pulumi-kubernetes: do not await the object at all. */
export const SKIP_AWAIT_ANNOTATION = "pulumi.com/skipAwait";
/**
 * The Calico release the operator must report. An operator-only upgrade leaves the Installation's spec
 * untouched, so without a change here Pulumi would not update the Installation and not wait again.
 */
export const CALICO_VERSION_ANNOTATION = "eks-calico.io/calico-version";

/** The operator.tigera.io kinds the program creates. */
export const OPERATOR_KINDS = ["Installation", "APIServer", "Goldmane", "Whisker"] as const;

/** An operator.tigera.io object: its kind, metadata and spec. */
export interface OperatorCustomResource {
  apiVersion: typeof OPERATOR_API_VERSION;
  kind: (typeof OPERATOR_KINDS)[number];
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
}

export interface InstallationSettings {
  /** Exact Calico release the operator installs (the operator image decides it; the wait checks it). */
  version: string;
  /** Registry prefix of Calico's images, with a path: "quay.io/calico". */
  registry: string;
  /** calico-node pods the operator replaces at once in a rollout. */
  maxUnavailable: MaxUnavailable;
}

/** The wait for an Installation: Ready, and the requested release installed (written only once available). */
export function installationWaitFor(version: string): string[] {
  return ["condition=Ready", `jsonpath={.status.calicoVersion}=${version}`];
}

/**
 * The Installation's `controlPlaneTolerations`: the operator's own TolerateAll (tigera/operator
 * pkg/render/common/meta/meta.go, the same at v1.40.13, v1.40.15, v1.42.0 and v1.42.3). kube-controllers,
 * the API server, Goldmane and Whisker add them to their own (pkg/render/kubecontrollers, apiserver.go,
 * goldmane, whisker), so they run on nodes that still carry the startup taint, whose remover the stack
 * applies only once the Installation is Ready. Typha takes them instead of TolerateAll when set
 * (pkg/render/typha.go): the same list leaves its pods as they were.
 */
export const CONTROL_PLANE_TOLERATIONS = [
  { key: "CriticalAddonsOnly", operator: "Exists" },
  { effect: "NoSchedule", operator: "Exists" },
  { effect: "NoExecute", operator: "Exists" },
] as const;

function meta(annotations: Record<string, string>): ObjectMeta {
  return { name: "default", labels: { ...COMMON_LABELS }, annotations };
}

/** The Installation for EKS on the VPC CNI: Calico enforces policy only, BGP off, the VPC CNI owns IPAM. */
export function renderInstallation(settings: InstallationSettings): OperatorCustomResource {
  const registry = installationRegistry(settings.registry);
  if (registry === undefined) {
    throw new Error(`calico registry ${settings.registry} needs a path after the host for the operator`);
  }
  return {
    apiVersion: OPERATOR_API_VERSION,
    kind: "Installation",
    metadata: meta({
      [WAIT_FOR_ANNOTATION]: JSON.stringify(installationWaitFor(settings.version)),
      [CALICO_VERSION_ANNOTATION]: settings.version,
    }),
    spec: {
      kubernetesProvider: "EKS",
      cni: { type: "AmazonVPC" },
      calicoNetwork: { bgp: "Disabled" },
      controlPlaneTolerations: CONTROL_PLANE_TOLERATIONS.map((t) => ({ ...t })),
      registry: registry.registry,
      imagePath: registry.imagePath,
      nodeUpdateStrategy: {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: settings.maxUnavailable },
      },
    },
  };
}

/** The Calico API server (`projectcalico.org/v3` through kubectl), awaited until Ready. */
export function renderApiServer(): OperatorCustomResource {
  return {
    apiVersion: OPERATOR_API_VERSION,
    kind: "APIServer",
    metadata: meta({ [WAIT_FOR_ANNOTATION]: JSON.stringify(["condition=Ready"]) }),
    spec: {},
  };
}

/**
 * Goldmane (flow aggregation) and Whisker (its UI). Neither reports a status (operator v1.40.15, v1.42.3),
 * so a wait on them would hang: never awaited.
 */
export function renderObservability(): OperatorCustomResource[] {
  return (["Goldmane", "Whisker"] as const).map((kind) => ({
    apiVersion: OPERATOR_API_VERSION,
    kind,
    metadata: meta({ [SKIP_AWAIT_ANNOTATION]: "true" }),
    spec: {},
  }));
}
