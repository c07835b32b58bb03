/**
 * The enforcement probe's objects, as plain data: a namespace of its own (Pod Security "restricted"), an
 * HTTP server behind a Service, a default-deny ingress policy on the server plus one admitting only
 * allowed clients, and one run of the check: the anchor (anchor.ts) and two pairs of client Jobs
 * (clients.ts). Rendered by pure functions so tests read them directly and the offline world can
 * evaluate the policies' semantics.
 */
import { createHash } from "crypto";
import { COMMON_LABELS } from "../labels";
import type { Deployment, Namespace, Service } from "../object-shapes";
import { renderAnchor } from "./anchor";
import { type ClientPair, type Pair, renderClients } from "./clients";
import {
  type LabelSelector,
  type NetworkPolicy,
  type Job,
  type Pod,
  type ProbeSettings,
  PROBE_LABELS,
  PROBE_NAMESPACE,
  SERVER_LABELS,
  SERVER_PORT,
  SERVICE_PORT,
  meta,
  podSpec,
  probeImage,
} from "./common";

export {
  DEFAULT_PROBE_REGISTRY,
  PROBE_IMAGE,
  PROBE_LABELS,
  PROBE_NAMESPACE,
  REPLACE_UNREADY_ANNOTATION,
  SERVER_PORT,
  SERVICE_PORT,
  type Job,
  type NetworkPolicy,
  type Pod,
  type ProbeSettings,
} from "./common";
export { clientJobName, type Pair } from "./clients";

export type ProbeObject = Namespace | Deployment | Service | NetworkPolicy | Pod | Job;

/** The objects that stay the same from one run of the check to the next. */
export interface ProbeBase {
  namespace: Namespace;
  server: Deployment;
  service: Service;
  denyAll: NetworkPolicy;
  allowClients: NetworkPolicy;
}

/** One run of the check, named by the probe id: the anchor and both pairs of clients. */
export interface ProbeRun {
  anchor: Pod;
  clients: Record<Pair, ClientPair>;
}

export type ProbeObjects = ProbeBase & ProbeRun;

/** The suffix of a run's names: what the run checked, so a change to it names new objects. */
export function probeId(settings: ProbeSettings): string {
  return fingerprint({ ...settings.enforcementInputs, image: probeImage(settings) });
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

/** The namespace, the server and its Service, and the two policies. */
export function renderProbeBase(settings: Pick<ProbeSettings, "registry">): ProbeBase {
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
        selector: { matchLabels: { ...SERVER_LABELS } },
        template: {
          metadata: { labels: { ...COMMON_LABELS, ...SERVER_LABELS } },
          spec: podSpec(probeImage(settings), {
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
        selector: { ...SERVER_LABELS },
        ports: [{ name: "http", port: SERVICE_PORT, targetPort: SERVER_PORT, protocol: "TCP" }],
      },
    },
    denyAll: {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: meta("default-deny-ingress"),
      spec: { podSelector: { matchLabels: { ...SERVER_LABELS } }, policyTypes: ["Ingress"] },
    },
    allowClients: {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: meta("allow-probe-clients"),
      spec: {
        podSelector: { matchLabels: { ...SERVER_LABELS } },
        policyTypes: ["Ingress"],
        ingress: [
          {
            from: [{ podSelector: { matchLabels: { [PROBE_LABELS.access]: "allowed" } } }],
            ports: [{ protocol: "TCP", port: SERVER_PORT }],
          },
        ],
      },
    },
  };
}

/**
 * A run for probe id `id`; `serverSelector` is the server Deployment's selector, which the anchor keeps
 * away from and the same-node pair follows.
 */
export function renderProbeRun(settings: ProbeSettings, id: string, serverSelector: LabelSelector): ProbeRun {
  const image = probeImage(settings);
  return {
    anchor: renderAnchor(image, id, serverSelector),
    clients: renderClients(settings, image, id, serverSelector),
  };
}

/** Every object of the probe, the run named from `settings`. */
export function renderProbeObjects(settings: ProbeSettings): ProbeObjects {
  const base = renderProbeBase(settings);
  return { ...base, ...renderProbeRun(settings, probeId(settings), base.server.spec.selector) };
}
