/**
 * Does each calico-node pod have a Typha that accepts it? Judged from what the API server holds, by the
 * rules Felix and Typha apply (projectcalico/calico v3.31.7):
 * - Felix connects to Typha only through the EndpointSlices of the Service FELIX_TYPHAK8SSERVICENAME
 *   names, in FELIX_TYPHAK8SNAMESPACE (default kube-system), on the slice's port named `calico-typha`,
 *   to any ready endpoint (typha/pkg/discovery/discovery.go); no ready endpoint: it cannot start;
 * - Typha listens on TYPHA_SERVERPORT (default 5473, typha/pkg/daemon/daemon.go syncproto.DefaultPort);
 * - either side requires TLS when any of its TLS settings is set, and then all of them must be
 *   (typha/pkg/config/config_params.go requiringTLS and Validate; typha/pkg/syncclient/sync_client.go
 *   Options.requiringTLS and validate); Typha then accepts only a client certificate signed by its CA file
 *   with the CN (or URI SAN) it names, and Felix only a server certificate signed by its CA file with the
 *   CN (or URI SAN) it names (tlsutils.CertificateVerifier).
 * - a Typha of one Calico line disconnects a Felix of another that its handshake refuses, as
 *   components/calico/typha-felix.ts records it (a v3.32 Typha refuses a v3.31 Felix), the releases
 *   read from the two images' tags.
 * Every ready Typha behind the Service must accept the pod, since Felix picks one of them at random.
 * Files are read from the Secrets and ConfigMaps the pods mount. Nothing here runs Felix or Typha: they
 * cannot be built from the Go module proxy these machines reach (the note on issue 22 says why).
 */
import { X509Certificate, createPrivateKey, createPublicKey } from "node:crypto";
import { typhaKeepsFelix } from "../components/calico/typha-felix";

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  image?: string;
  env?: EnvVar[];
  volumeMounts?: { name: string; mountPath: string }[];
}
export interface Pod {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: {
    nodeName?: string;
    containers: Container[];
    volumes?: {
      name: string;
      secret?: { secretName: string };
      configMap?: { name: string };
    }[];
  };
}
export interface EndpointSlice {
  metadata: { namespace: string; labels?: Record<string, string> };
  ports?: { name?: string; port?: number }[];
  endpoints?: {
    addresses: string[];
    conditions?: { ready?: boolean };
    targetRef?: { kind: string; name: string; namespace?: string };
  }[];
}
interface DataObject {
  metadata: { name: string; namespace: string };
  data?: Record<string, string>;
}

/** What the API server holds, as read in one pass. */
export interface ClusterSnapshot {
  readonly pods: readonly Pod[];
  readonly endpointSlices: readonly EndpointSlice[];
  readonly configMaps: readonly DataObject[];
  /** Secrets with `data` base64-encoded, as the API serves them. */
  readonly secrets: readonly DataObject[];
}

export interface Verdict {
  readonly pod: string;
  readonly node: string;
  /** The Service the pod's Felix looks Typha up through. */
  readonly service: string;
  readonly accepted: boolean;
  /** The Typha pods that accept it, or why not. */
  readonly detail: string;
}

/** The env names of one side's TLS settings: its own files, and the name it requires of its peer. */
interface TlsSettings {
  readonly key: string;
  readonly cert: string;
  readonly ca: string;
  readonly peerCn: string;
  readonly peerUri: string;
}
const FELIX_TLS: TlsSettings = {
  key: "FELIX_TYPHAKEYFILE",
  cert: "FELIX_TYPHACERTFILE",
  ca: "FELIX_TYPHACAFILE",
  peerCn: "FELIX_TYPHACN",
  peerUri: "FELIX_TYPHAURISAN",
};
const TYPHA_TLS: TlsSettings = {
  key: "TYPHA_SERVERKEYFILE",
  cert: "TYPHA_SERVERCERTFILE",
  ca: "TYPHA_CAFILE",
  peerCn: "TYPHA_CLIENTCN",
  peerUri: "TYPHA_CLIENTURISAN",
};

/** A container's env as values, ConfigMap references resolved. */
function envOf(pod: Pod, container: Container, snapshot: ClusterSnapshot): Map<string, string> {
  const values = new Map<string, string>();
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.configMapKeyRef;
    const value =
      ref === undefined
        ? e.value
        : snapshot.configMaps.find(
            (c) => c.metadata.namespace === pod.metadata.namespace && c.metadata.name === ref.name,
          )?.data?.[ref.key];
    if (value !== undefined && value !== "") values.set(e.name, value);
  }
  return values;
}

/** The content of the file at `path` in a container, from the Secret or ConfigMap mounted over it. */
function fileOf(pod: Pod, container: Container, path: string, snapshot: ClusterSnapshot): string | undefined {
  for (const mount of container.volumeMounts ?? []) {
    const prefix = mount.mountPath.replace(/\/$/, "") + "/";
    if (!path.startsWith(prefix)) continue;
    const key = path.slice(prefix.length);
    const volume = pod.spec.volumes?.find((v) => v.name === mount.name);
    const ns = pod.metadata.namespace;
    if (volume?.secret !== undefined) {
      const secret = snapshot.secrets.find(
        (s) => s.metadata.namespace === ns && s.metadata.name === volume.secret?.secretName,
      );
      const data = secret?.data?.[key];
      return data === undefined ? undefined : Buffer.from(data, "base64").toString("utf8");
    }
    if (volume?.configMap !== undefined) {
      return snapshot.configMaps.find(
        (c) => c.metadata.namespace === ns && c.metadata.name === volume.configMap?.name,
      )?.data?.[key];
    }
  }
  return undefined;
}

interface Side {
  readonly pod: Pod;
  readonly container: Container;
  readonly env: Map<string, string>;
}

const settingNames = (tls: TlsSettings) => [tls.key, tls.cert, tls.ca, tls.peerCn, tls.peerUri];

/** Whether a side has any TLS setting: then it requires TLS. */
function requiresTls(side: Side, tls: TlsSettings): boolean {
  return settingNames(tls).some((name) => side.env.has(name));
}

/** Why a TLS side's settings are incomplete (its program refuses to start), or undefined. */
function incomplete(side: Side, tls: TlsSettings, who: string): string | undefined {
  const has = (name: string) => side.env.has(name);
  if (has(tls.key) && has(tls.cert) && has(tls.ca) && (has(tls.peerCn) || has(tls.peerUri))) return undefined;
  const set = settingNames(tls).filter(has);
  return `${who} has some TLS settings but not all (${set.join(", ")})`;
}

/** A file a side's env names, from what its container mounts there. */
function fileNamed(side: Side, env: string, snapshot: ClusterSnapshot): string | undefined {
  return fileOf(side.pod, side.container, side.env.get(env) ?? "", snapshot);
}

/**
 * Why `verifier` refuses the certificate `presenter` shows (signed by the verifier's CA, valid now,
 * matching its key, with the CN or URI SAN the verifier requires), or undefined when it accepts it.
 */
function certificateProblem(
  presenter: Side,
  presented: TlsSettings,
  verifier: Side,
  verifying: TlsSettings,
  snapshot: ClusterSnapshot,
): string | undefined {
  const who = `${presenter.pod.metadata.name}'s certificate`;
  const certPem = fileNamed(presenter, presented.cert, snapshot);
  const keyPem = fileNamed(presenter, presented.key, snapshot);
  const caPem = fileNamed(verifier, verifying.ca, snapshot);
  if (certPem === undefined || keyPem === undefined || caPem === undefined) {
    return `${who}, key or the peer's CA is not mounted where the env points`;
  }
  const cert = new X509Certificate(certPem);
  const ca = new X509Certificate(caPem);
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return `${who} is not signed by the peer's CA`;
  const now = new Date();
  if (new Date(cert.validTo) < now || new Date(cert.validFrom) > now) return `${who} is not valid now`;
  const derived = createPublicKey(createPrivateKey(keyPem)).export({ format: "der", type: "spki" });
  if (!derived.equals(cert.publicKey.export({ format: "der", type: "spki" }))) {
    return `${who} does not match its key`;
  }
  const cn = verifier.env.get(verifying.peerCn);
  const uri = verifier.env.get(verifying.peerUri);
  const subjectCn = /^CN=(.*)$/m.exec(cert.subject)?.[1];
  const uris = (cert.subjectAltName ?? "").split(", ").filter((n) => n.startsWith("URI:"));
  const cnOk = cn !== undefined && subjectCn === cn;
  const uriOk = uri !== undefined && uris.includes(`URI:${uri}`);
  if (!cnOk && !uriOk) {
    return `${who} has CN ${String(subjectCn)}; the peer requires ${cn === undefined ? `URI SAN ${String(uri)}` : `CN ${cn}`}`;
  }
  return undefined;
}

/** The release an image is tagged with (`quay.io/calico/node:v3.31.7`: v3.31.7). */
const releaseOf = (side: Side) => /:(v\d+\.\d+\.\d+)$/.exec(side.container.image ?? "")?.[1];

/** Why `typha` does not accept `felix` on `port`, or undefined when it does. */
function refusal(felix: Side, typha: Side, port: number, snapshot: ClusterSnapshot): string | undefined {
  const [felixRelease, typhaRelease] = [releaseOf(felix), releaseOf(typha)];
  if (felixRelease !== undefined && typhaRelease !== undefined) {
    if (typhaKeepsFelix(typhaRelease, felixRelease) === false) {
      return `Typha ${typhaRelease} disconnects a ${felixRelease} Felix (components/calico/typha-felix.ts)`;
    }
  }
  const listens = Number(typha.env.get("TYPHA_SERVERPORT") ?? "5473");
  if (listens !== port) return `it listens on ${listens}, the Service sends Felix to ${port}`;
  const felixTls = requiresTls(felix, FELIX_TLS);
  const typhaTls = requiresTls(typha, TYPHA_TLS);
  if (!felixTls && !typhaTls) return undefined;
  if (typhaTls && !felixTls) return "it accepts only TLS clients and this Felix has no TLS settings";
  if (felixTls && !typhaTls) return "this Felix requires TLS and the Typha serves none";
  return (
    incomplete(felix, FELIX_TLS, "Felix") ??
    incomplete(typha, TYPHA_TLS, "Typha") ??
    certificateProblem(felix, FELIX_TLS, typha, TYPHA_TLS, snapshot) ??
    certificateProblem(typha, TYPHA_TLS, felix, FELIX_TLS, snapshot)
  );
}

/** The Felix container of a calico-node pod, and the Typha container of a Typha pod. */
function sideOf(pod: Pod, name: string, snapshot: ClusterSnapshot): Side | undefined {
  const container = pod.spec.containers.find((c) => c.name === name) ?? pod.spec.containers[0];
  return container === undefined ? undefined : { pod, container, env: envOf(pod, container, snapshot) };
}

/** For each calico-node pod (label `k8s-app=calico-node`), whether a Typha accepts it. */
export function typhaVerdicts(snapshot: ClusterSnapshot): Verdict[] {
  const calicoNodes = snapshot.pods.filter((p) => p.metadata.labels?.["k8s-app"] === "calico-node");
  return calicoNodes.map((pod) => {
    const base = { pod: pod.metadata.name, node: pod.spec.nodeName ?? "(none)" };
    const felix = sideOf(pod, "calico-node", snapshot);
    const service = felix?.env.get("FELIX_TYPHAK8SSERVICENAME") ?? "";
    const namespace = felix?.env.get("FELIX_TYPHAK8SNAMESPACE") ?? "kube-system";
    if (felix === undefined || service === "" || service === "none") {
      return { ...base, service: "(none)", accepted: true, detail: "Felix does not use Typha" };
    }
    const slices = snapshot.endpointSlices.filter(
      (s) =>
        s.metadata.namespace === namespace && s.metadata.labels?.["kubernetes.io/service-name"] === service,
    );
    const judged = slices.flatMap((slice) => {
      const port = slice.ports?.find((p) => p.name === "calico-typha")?.port;
      if (port === undefined) return [];
      // An endpoint whose pod is gone (deleted after the slices were read, as a rollout deletes old Typhas)
      // is no Typha a Felix can reach: it is left out, and a Service left with none is refused below.
      return (slice.endpoints ?? [])
        .filter((e) => e.conditions?.ready !== false && e.targetRef?.kind === "Pod")
        .flatMap((e) => {
          const typhaPod = snapshot.pods.find(
            (p) => p.metadata.namespace === namespace && p.metadata.name === e.targetRef?.name,
          );
          const typha = typhaPod === undefined ? undefined : sideOf(typhaPod, "calico-typha", snapshot);
          if (typha === undefined) return [];
          return [{ name: e.targetRef?.name ?? "?", why: refusal(felix, typha, port, snapshot) }];
        });
    });
    if (judged.length === 0) {
      return {
        ...base,
        service,
        accepted: false,
        detail: `no ready Typha behind Service ${namespace}/${service}`,
      };
    }
    const refused = judged.filter((j) => j.why !== undefined);
    return refused.length === 0
      ? { ...base, service, accepted: true, detail: `accepted by ${judged.map((j) => j.name).join(", ")}` }
      : {
          ...base,
          service,
          accepted: false,
          detail: refused.map((j) => `${j.name} refuses it: ${String(j.why)}`).join("; "),
        };
  });
}
