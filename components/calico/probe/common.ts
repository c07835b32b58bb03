/**
 * What every object of the enforcement probe shares: its image, namespace, ports and labels, the shapes
 * it renders, and the restricted pod spec all its pods run with.
 */
import type * as k8s from "@pulumi/kubernetes";
import type { Unwrap } from "@pulumi/pulumi";
import { COMMON_LABELS } from "../labels";
import { LINUX_NODE_SELECTOR, notOnFargate } from "../scheduling";
import { nonRootPodSecurity, restrictedContainerSecurity } from "../security";
import type { Affinity, Container, ObjectMeta } from "../object-shapes";

/** agnhost, the Kubernetes end-to-end test image: `netexec` serves HTTP, `connect` tests a TCP port. */
export const PROBE_IMAGE = { name: "agnhost", tag: "2.53" } as const;
export const DEFAULT_PROBE_REGISTRY = "registry.k8s.io/e2e-test-images";
export const PROBE_NAMESPACE = "calico-policy-probe";
export const SERVER_PORT = 8080;
export const SERVICE_PORT = 80;

/** The node label inter-pod affinity compares to mean "the same node" (a well-known label). */
export const HOSTNAME_TOPOLOGY = "kubernetes.io/hostname";

/** Pod labels: the probe's pods, the server, the anchor, and each client's access, role, pair and expectation. */
export const PROBE_LABELS = {
  app: { "app.kubernetes.io/name": "policy-probe" },
  server: { "app.kubernetes.io/component": "server" },
  anchor: { "app.kubernetes.io/component": "anchor" },
  client: { "app.kubernetes.io/component": "client" },
  /** On each client pod: what the allow policy sees (`allowed` or `denied`). */
  access: "eks-calico.io/probe-access",
  /** On each client pod: which client of its pair it is (`allowed`, `denied` or `recheck`), in run order. */
  role: "eks-calico.io/probe-client",
  /** On each client pod: which pair it belongs to (`same-node` or `other-node`). */
  pair: "eks-calico.io/probe-pair",
  /** On the anchor and in the other-node clients' affinity: the run (probe id) they belong to. */
  run: "eks-calico.io/probe-run",
  /** On each client pod: what the offline world must see happen (`connect` or `blocked`). */
  expect: "eks-calico.io/probe-expect",
} as const;

/** The server pods' labels: the Service's and both policies' selector, and the pairs' reference point. */
export const SERVER_LABELS: Readonly<Record<string, string>> = {
  ...PROBE_LABELS.app,
  ...PROBE_LABELS.server,
};

/**
 * pulumi-kubernetes replaces a Job carrying this annotation on the next update when the live Job is not
 * complete (provider/pkg/provider/provider.go Diff, `metadata.ReplaceUnready`; without it the next update
 * awaits the failed Job again): a failed probe runs again on the next `pulumi up`.
 */
export const REPLACE_UNREADY_ANNOTATION = "pulumi.com/replaceUnready";
/** pulumi-kubernetes creates an object carrying this annotation without awaiting it (provider/pkg/metadata). */
export const SKIP_AWAIT_ANNOTATION = "pulumi.com/skipAwait";
/** pulumi-kubernetes awaits these expressions instead of its own readiness rules (provider 4.18+). */
export const WAIT_FOR_ANNOTATION = "pulumi.com/waitFor";

export interface NetworkPolicy {
  apiVersion: "networking.k8s.io/v1";
  kind: "NetworkPolicy";
  metadata: ObjectMeta;
  spec: Unwrap<k8s.types.input.networking.v1.NetworkPolicySpec>;
}

export interface Job {
  apiVersion: "batch/v1";
  kind: "Job";
  metadata: ObjectMeta;
  spec: Unwrap<k8s.types.input.batch.v1.JobSpec>;
}

export interface Pod {
  apiVersion: "v1";
  kind: "Pod";
  metadata: ObjectMeta;
  spec: PodSpec;
}

export type PodSpec = Unwrap<k8s.types.input.core.v1.PodSpec>;
export type LabelSelector = Unwrap<k8s.types.input.meta.v1.LabelSelector>;

/** What the probe needs to know; its fingerprint names the run's objects so they run again when it changes. */
export interface ProbeSettings {
  readonly registry: string;
  readonly timeoutMinutes: number;
  /**
   * Everything that can change enforcement: Calico's release, registry and install mode, calico-node's
   * rendered pod template, the Typha TLS material, adoption, the VPC CNI's configuration, the nodes.
   */
  readonly enforcementInputs: Record<string, unknown>;
}

export function probeImage(settings: Pick<ProbeSettings, "registry">): string {
  return `${settings.registry}/${PROBE_IMAGE.name}:${PROBE_IMAGE.tag}`;
}

export function meta(name: string, labels: Record<string, string> = {}): ObjectMeta {
  return { name, namespace: PROBE_NAMESPACE, labels: { ...COMMON_LABELS, ...PROBE_LABELS.app, ...labels } };
}

/**
 * Restricted-profile pod settings shared by every probe pod, with `affinity` beside the node affinity
 * every one of them carries.
 */
export function podSpec(
  image: string,
  container: Container,
  affinity: Omit<Affinity, "nodeAffinity"> = {},
): PodSpec {
  return {
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    // Ordinary nodes only: no tolerations, so tainted (system, GPU) groups are left alone; never
    // Fargate, where no calico-node polices the pod and the denied client would get through.
    nodeSelector: { ...LINUX_NODE_SELECTOR },
    affinity: { nodeAffinity: notOnFargate(), ...affinity },
    securityContext: nonRootPodSecurity(),
    containers: [
      {
        image,
        imagePullPolicy: "IfNotPresent",
        resources: { requests: { cpu: "10m", memory: "16Mi" }, limits: { cpu: "100m", memory: "64Mi" } },
        securityContext: restrictedContainerSecurity(),
        ...container,
      },
    ],
  };
}
