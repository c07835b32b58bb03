/**
 * The enforcement probe's objects, as plain data: a namespace of its own (Pod Security "restricted"), an
 * HTTP server behind a Service, a default-deny ingress policy on the server plus one admitting only
 * allowed clients, and two client Jobs that must connect and must be blocked. Rendered by pure functions
 * so tests read them directly and the offline world can evaluate the policies' semantics.
 */
import { createHash } from "crypto";
import type * as k8s from "@pulumi/kubernetes";
import type { Unwrap } from "@pulumi/pulumi";
import { COMMON_LABELS } from "../labels";
import { LINUX_NODE_SELECTOR, notOnFargate } from "../scheduling";
import { nonRootPodSecurity, restrictedContainerSecurity } from "../security";
import type { Container, Deployment, Namespace, ObjectMeta, Service } from "../types";
import { allowedClientScript, deniedClientScript } from "./script";

/** agnhost, the Kubernetes end-to-end test image: `netexec` serves HTTP, `connect` tests a TCP port. */
export const PROBE_IMAGE = { name: "agnhost", tag: "2.53" } as const;
export const DEFAULT_PROBE_REGISTRY = "registry.k8s.io/e2e-test-images";
export const PROBE_NAMESPACE = "calico-policy-probe";
export const SERVER_PORT = 8080;
export const SERVICE_PORT = 80;

/** Pod labels: the probe's pods, the server, and the client's access and expectation. */
export const PROBE_LABELS = {
  app: { "app.kubernetes.io/name": "policy-probe" },
  server: { "app.kubernetes.io/component": "server" },
  client: { "app.kubernetes.io/component": "client" },
  access: "eks-calico.io/probe-access",
  /** On each client pod: what the offline world must see happen (`connect` or `blocked`). */
  expect: "eks-calico.io/probe-expect",
} as const;

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

export type ProbeObject = Namespace | Deployment | Service | NetworkPolicy | Job;

/** What the probe needs to know; `fingerprint` names the Jobs so they run again when it changes. */
export interface ProbeSettings {
  readonly registry: string;
  readonly timeoutMinutes: number;
  /**
   * Everything that can change enforcement: Calico's release, registry and install mode, calico-node's
   * rendered pod template, the Typha TLS material, adoption, the VPC CNI's configuration, the nodes.
   */
  readonly enforcementInputs: Record<string, unknown>;
}

/**
 * pulumi-kubernetes replaces a Job carrying this annotation on the next update when the live Job is not
 * complete (provider/pkg/provider/provider.go Diff, `metadata.ReplaceUnready`; without it the next update
 * awaits the failed Job again): a failed probe runs again on the next `pulumi up`.
 */
export const REPLACE_UNREADY_ANNOTATION = "pulumi.com/replaceUnready";

/** The suffix of the client Jobs' names: what the Jobs ran against, so a change to it names new Jobs. */
export function probeId(settings: ProbeSettings): string {
  const image = `${settings.registry}/${PROBE_IMAGE.name}:${PROBE_IMAGE.tag}`;
  return fingerprint({ ...settings.enforcementInputs, image });
}

/** A client Job's name for a probe id. */
export function clientJobName(access: "allowed" | "denied", id: string): string {
  return `${access}-client-${id}`;
}

export interface ProbeObjects {
  namespace: Namespace;
  server: Deployment;
  service: Service;
  denyAll: NetworkPolicy;
  allowClients: NetworkPolicy;
  allowedClient: Job;
  deniedClient: Job;
}

/** Eight hex digits of the inputs' SHA-256: stable for equal inputs whatever their key order. */
export function fingerprint(inputs: Record<string, unknown>): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
          )
        : value;
  return createHash("sha256")
    .update(JSON.stringify(canonical(inputs)))
    .digest("hex")
    .slice(0, 8);
}

function meta(name: string, labels: Record<string, string> = {}): ObjectMeta {
  return { name, namespace: PROBE_NAMESPACE, labels: { ...COMMON_LABELS, ...PROBE_LABELS.app, ...labels } };
}

/** Restricted-profile pod settings shared by the server and both clients. */
function podSpec(image: string, container: Container): Unwrap<k8s.types.input.core.v1.PodSpec> {
  return {
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    // Ordinary nodes only: no tolerations, so tainted (system, GPU) groups are left alone; never
    // Fargate, where no calico-node polices the pod and the denied client would get through.
    nodeSelector: { ...LINUX_NODE_SELECTOR },
    affinity: { nodeAffinity: notOnFargate() },
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

function clientJob(
  settings: ProbeSettings,
  access: "allowed" | "denied",
  script: string,
  image: string,
  id: string,
): Job {
  const labels = {
    ...PROBE_LABELS.client,
    [PROBE_LABELS.access]: access,
    [PROBE_LABELS.expect]: access === "allowed" ? "connect" : "blocked",
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      ...meta(clientJobName(access, id), labels),
      annotations: { [REPLACE_UNREADY_ANNOTATION]: "true" },
    },
    spec: {
      // One pod, no retries: a second pod would hide a failure and restart the denied client's window.
      backoffLimit: 0,
      activeDeadlineSeconds: settings.timeoutMinutes * 60,
      template: {
        metadata: { labels: { ...COMMON_LABELS, ...PROBE_LABELS.app, ...labels } },
        spec: {
          restartPolicy: "Never",
          ...podSpec(image, {
            name: `${access}-client`,
            command: ["/bin/sh", "-c", script],
            env: [
              { name: "TARGET", value: `probe-server.${PROBE_NAMESPACE}.svc.cluster.local:${SERVICE_PORT}` },
            ],
            terminationMessagePolicy: "FallbackToLogsOnError",
          }),
        },
      },
    },
  };
}

/** Every object of the probe. */
export function renderProbeObjects(settings: ProbeSettings): ProbeObjects {
  const image = `${settings.registry}/${PROBE_IMAGE.name}:${PROBE_IMAGE.tag}`;
  const id = probeId(settings);
  const serverLabels = { ...PROBE_LABELS.app, ...PROBE_LABELS.server };
  return {
    namespace: {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: PROBE_NAMESPACE,
        labels: {
          ...COMMON_LABELS,
          "pod-security.kubernetes.io/enforce": "restricted",
          "pod-security.kubernetes.io/warn": "restricted",
          "pod-security.kubernetes.io/audit": "restricted",
        },
      },
    },
    server: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta("probe-server", PROBE_LABELS.server),
      spec: {
        replicas: 1,
        selector: { matchLabels: serverLabels },
        template: {
          metadata: { labels: { ...COMMON_LABELS, ...serverLabels } },
          spec: podSpec(image, {
            name: "server",
            args: ["netexec", `--http-port=${SERVER_PORT}`],
            ports: [{ name: "http", containerPort: SERVER_PORT, protocol: "TCP" }],
            readinessProbe: { httpGet: { path: "/", port: SERVER_PORT }, periodSeconds: 2 },
          }),
        },
      },
    },
    service: {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta("probe-server", PROBE_LABELS.server),
      spec: {
        selector: serverLabels,
        ports: [{ name: "http", port: SERVICE_PORT, targetPort: SERVER_PORT, protocol: "TCP" }],
      },
    },
    denyAll: {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: meta("default-deny-ingress"),
      spec: { podSelector: { matchLabels: serverLabels }, policyTypes: ["Ingress"] },
    },
    allowClients: {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: meta("allow-probe-clients"),
      spec: {
        podSelector: { matchLabels: serverLabels },
        policyTypes: ["Ingress"],
        ingress: [
          {
            from: [{ podSelector: { matchLabels: { [PROBE_LABELS.access]: "allowed" } } }],
            ports: [{ protocol: "TCP", port: SERVER_PORT }],
          },
        ],
      },
    },
    allowedClient: clientJob(settings, "allowed", allowedClientScript(), image, id),
    deniedClient: clientJob(settings, "denied", deniedClientScript(), image, id),
  };
}
