/**
 * Mutual TLS between Felix and Typha, as Calico documents it for manifest installs: one CA, a Typha server
 * certificate and a Felix client certificate; Typha accepts only clients with Felix's common name and
 * Felix accepts only a server with Typha's. https://docs.tigera.io/calico/latest/reference/typha/overview
 * (TLS), felix and typha configuration references (TYPHA_CAFILE ... FELIX_TYPHACN).
 *
 * Plain data: names, the certificates' settings, the objects that carry them (Secrets and a ConfigMap,
 * their contents filled in by the component from @pulumi/tls outputs), and the env and mounts of the two
 * workloads. Without them anything that reaches a node's port 5473 could stream every policy and endpoint.
 */
import { appLabels } from "./labels";
import { CALICO_NODE, CALICO_TYPHA } from "./names";
import type { ConfigMap, EnvVar, Secret, Volume, VolumeMount } from "./object-shapes";

/** Certificate common names: each side requires the other's. */
export const TYPHA_SERVER_CN = CALICO_TYPHA;
export const FELIX_CLIENT_CN = CALICO_NODE;

/** The objects carrying the material. */
export const TYPHA_CA_CONFIGMAP = "calico-typha-ca";
export const TYPHA_SERVER_SECRET = "calico-typha-tls";
export const FELIX_CLIENT_SECRET = "calico-felix-typha-tls";

/** Keys inside them: the kubernetes.io/tls Secret layout, and the CA bundle's file name. */
export const CA_KEY = "ca.crt";
export const CERT_KEY = "tls.crt";
export const PRIVATE_KEY_KEY = "tls.key";

/** Where the workloads mount them. */
const CA_DIR = "/etc/calico/typha-ca";
const SERVER_DIR = "/etc/calico/typha-tls";
const CLIENT_DIR = "/etc/calico/felix-typha-tls";

/**
 * Validity. The CA lasts 10 years and is never renewed on its own (a new CA would briefly split old and
 * new pods). Leaves last 2 years and are re-issued by the first `pulumi up` in their last 90 days
 * (@pulumi/tls earlyRenewalHours): a renewed leaf is signed by the same CA and carries the same name, so
 * old and new pods keep accepting each other while both workloads roll onto it.
 */
export const CERTIFICATE_VALIDITY = {
  caHours: 10 * 365 * 24,
  leafHours: 2 * 365 * 24,
  leafEarlyRenewalHours: 90 * 24,
} as const;

/** The pod-template annotation holding a leaf's expiry: a renewal changes it and so rolls the workload. */
export const CERTIFICATE_EXPIRY_ANNOTATION = "eks-calico.io/typha-tls-valid-until";

/** The CA certificate, readable by both workloads. `caCert` is filled in at deploy time. */
export function renderTyphaCaConfigMap(namespace: string, caCert = ""): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: TYPHA_CA_CONFIGMAP, namespace, labels: appLabels(CALICO_TYPHA) },
    data: { [CA_KEY]: caCert },
  };
}

/** A kubernetes.io/tls Secret for one side's certificate and key, filled in at deploy time. */
export function renderTlsSecret(name: string, namespace: string, cert = "", key = ""): Secret {
  const app = name === TYPHA_SERVER_SECRET ? CALICO_TYPHA : CALICO_NODE;
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, labels: appLabels(app) },
    type: "kubernetes.io/tls",
    stringData: { [CERT_KEY]: cert, [PRIVATE_KEY_KEY]: key },
  };
}

/** Files readable by the pod's group only (Typha runs as a non-root user with an fsGroup). */
const PRIVATE_FILE_MODE = 0o440;

function volumes(secretName: string): Volume[] {
  return [
    { name: "typha-ca", configMap: { name: TYPHA_CA_CONFIGMAP } },
    { name: "typha-tls", secret: { secretName, defaultMode: PRIVATE_FILE_MODE } },
  ];
}

function mounts(dir: string): VolumeMount[] {
  return [
    { name: "typha-ca", mountPath: CA_DIR, readOnly: true },
    { name: "typha-tls", mountPath: dir, readOnly: true },
  ];
}

/** Typha serves with its certificate and requires a client certificate with Felix's common name. */
export const typhaTls = {
  env: [
    { name: "TYPHA_CAFILE", value: `${CA_DIR}/${CA_KEY}` },
    { name: "TYPHA_SERVERCERTFILE", value: `${SERVER_DIR}/${CERT_KEY}` },
    { name: "TYPHA_SERVERKEYFILE", value: `${SERVER_DIR}/${PRIVATE_KEY_KEY}` },
    { name: "TYPHA_CLIENTCN", value: FELIX_CLIENT_CN },
  ] as EnvVar[],
  volumes: volumes(TYPHA_SERVER_SECRET),
  volumeMounts: mounts(SERVER_DIR),
};

/** Felix presents its certificate and requires a server certificate with Typha's common name. */
export const felixTls = {
  env: [
    { name: "FELIX_TYPHACAFILE", value: `${CA_DIR}/${CA_KEY}` },
    { name: "FELIX_TYPHACERTFILE", value: `${CLIENT_DIR}/${CERT_KEY}` },
    { name: "FELIX_TYPHAKEYFILE", value: `${CLIENT_DIR}/${PRIVATE_KEY_KEY}` },
    { name: "FELIX_TYPHACN", value: TYPHA_SERVER_CN },
  ] as EnvVar[],
  volumes: volumes(FELIX_CLIENT_SECRET),
  volumeMounts: mounts(CLIENT_DIR),
};
