/**
 * calico-tls.sh: the Typha TLS material (components/calico/typha-tls.ts) made with openssl, and the objects
 * carrying it created with kubectl. `pulumi up` makes the CA and both leaves with @pulumi/tls and keeps the
 * keys in the stack's state; applied with kubectl, this script makes them instead, so calico.yaml never
 * holds a key. Everything is read from the plan: each certificate's key algorithm, subject, validity and
 * uses from the tls resources (traced through their inputs' dependencies), and each object's name,
 * namespace, type, labels and keys from the rendered object.
 */
import { DATA_FIELDS, calicoObjects, describeObject, tlsRecords } from "./calico-objects";
import type { ResourceRecord, StackEvaluation } from "./engine";
import { CALICO_COMPONENT_TYPES } from "./plan";

const SELF_SIGNED = "tls:index/selfSignedCert:SelfSignedCert";
const LOCALLY_SIGNED = "tls:index/locallySignedCert:LocallySignedCert";
const CERT_REQUEST = "tls:index/certRequest:CertRequest";
const PRIVATE_KEY = "tls:index/privateKey:PrivateKey";

/** What a certificate is made of, as its tls resources ask for it. */
export interface CertificateSpec {
  /** The certificate resource's name: its files are `<name>.key`, `<name>.crt` (and `<name>.cnf`). */
  readonly name: string;
  /** The PrivateKey resource's inputs. */
  readonly key: { readonly algorithm: string; readonly ecdsaCurve?: string; readonly rsaBits?: number };
  /** The subject, by @pulumi/tls field name (commonName, organization, ...). */
  readonly subject: Readonly<Record<string, string>>;
  /** Subject alternative names, as openssl writes them (`DNS:...`, `URI:...`, `IP:...`). */
  readonly altNames: readonly string[];
  readonly validityHours: number;
  readonly allowedUses: readonly string[];
  readonly isCa: boolean;
  /** The signing CA's spec; undefined for a self-signed certificate. */
  readonly issuer?: CertificateSpec;
}

/** A ConfigMap or Secret whose data is TLS material, and the file each of its keys is created from. */
export interface TlsObject {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  /** The Secret's type (kubernetes.io/tls), if any. */
  readonly type?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Key in the object, and the file (`<certificate>.crt` or `.key`) its value comes from. */
  readonly files: readonly { readonly key: string; readonly file: string; readonly certificate: string }[];
}

export interface TlsPlan {
  /** In the order they are made: each CA before the leaves it signs. */
  readonly certificates: readonly CertificateSpec[];
  readonly objects: readonly TlsObject[];
}

/** A word as a POSIX shell reads it back: quoted unless it is plain. */
export function shellWord(word: string): string {
  return /^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The certificates and objects calico-tls.sh makes, read from the plan. */
export function tlsPlan(evaluation: StackEvaluation): TlsPlan {
  const byUrn = new Map(evaluation.resources.map((r) => [r.urn, r]));
  /** The one resource of one of `types` that `record`'s input `key` comes from. */
  const source = (record: ResourceRecord, key: string, ...types: string[]): ResourceRecord => {
    const found = (record.propertyDependencies[key] ?? [])
      .map((urn) => byUrn.get(urn))
      .filter((r): r is ResourceRecord => r !== undefined && types.includes(r.type));
    if (found.length !== 1) {
      throw new Error(
        `calico-tls.sh: ${record.name}: ${key} comes from ${found.length} ${types.join(" or ")}`,
      );
    }
    return found[0];
  };
  const requestOf = (cert: ResourceRecord) =>
    cert.type === LOCALLY_SIGNED ? source(cert, "certRequestPem", CERT_REQUEST) : cert;
  const keyOf = (cert: ResourceRecord) => source(requestOf(cert), "privateKeyPem", PRIVATE_KEY);
  const certs = evaluation.resources.filter((r) => r.type === SELF_SIGNED || r.type === LOCALLY_SIGNED);
  const specs = new Map<string, CertificateSpec>();
  const specOf = (cert: ResourceRecord): CertificateSpec => {
    const known = specs.get(cert.urn);
    if (known) return known;
    const issuer = cert.type === LOCALLY_SIGNED ? specOf(source(cert, "caCertPem", SELF_SIGNED)) : undefined;
    const request = requestOf(cert).inputs as {
      subject?: Record<string, unknown>;
      dnsNames?: string[];
      uris?: string[];
      ipAddresses?: string[];
    };
    const spec: CertificateSpec = {
      name: cert.name,
      key: keyOf(cert).inputs as CertificateSpec["key"],
      subject: Object.fromEntries(
        Object.entries(request.subject ?? {}).filter((e): e is [string, string] => typeof e[1] === "string"),
      ),
      altNames: [
        ...(request.dnsNames ?? []).map((n) => `DNS:${n}`),
        ...(request.uris ?? []).map((u) => `URI:${u}`),
        ...(request.ipAddresses ?? []).map((a) => `IP:${a}`),
      ],
      validityHours: Number(cert.inputs.validityPeriodHours),
      allowedUses: (cert.inputs.allowedUses as string[] | undefined) ?? [],
      isCa: cert.inputs.isCaCertificate === true,
      ...(issuer ? { issuer } : {}),
    };
    specs.set(cert.urn, spec);
    return spec;
  };
  const objects = tlsRecords(evaluation).map((record): TlsObject => {
    const metadata = record.inputs.metadata as {
      name: string;
      namespace: string;
      labels?: Record<string, string>;
    };
    const files = DATA_FIELDS.flatMap((field) =>
      Object.entries((record.inputs[field] ?? {}) as Record<string, unknown>).map(([key, value]) => {
        // A key is its certificate's: the one certificate made from a request with that key.
        const isKey = /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(String(value));
        const privateKey = isKey ? source(record, field, PRIVATE_KEY) : undefined;
        const owners = certs.filter((c) => keyOf(c) === privateKey);
        if (isKey && owners.length !== 1) {
          throw new Error(`calico-tls.sh: key ${privateKey?.name} belongs to ${owners.length} certificates`);
        }
        const spec = specOf(isKey ? owners[0] : source(record, field, SELF_SIGNED, LOCALLY_SIGNED));
        return { key, file: `${spec.name}.${isKey ? "key" : "crt"}`, certificate: spec.name };
      }),
    );
    return {
      kind: String(record.inputs.kind),
      name: metadata.name,
      namespace: metadata.namespace,
      ...(typeof record.inputs.type === "string" ? { type: record.inputs.type } : {}),
      labels: metadata.labels ?? {},
      files,
    };
  });
  const certificates = [...specs.values()].sort((a, b) => Number(b.isCa) - Number(a.isCa));
  return { certificates, objects };
}

/** openssl's spelling of @pulumi/tls's allowedUses: key usages, then extended key usages. */
const KEY_USAGES: Readonly<Record<string, string>> = {
  digital_signature: "digitalSignature",
  content_commitment: "nonRepudiation",
  key_encipherment: "keyEncipherment",
  data_encipherment: "dataEncipherment",
  key_agreement: "keyAgreement",
  cert_signing: "keyCertSign",
  crl_signing: "cRLSign",
};
const EXTENDED_KEY_USAGES: Readonly<Record<string, string>> = {
  server_auth: "serverAuth",
  client_auth: "clientAuth",
  code_signing: "codeSigning",
  email_protection: "emailProtection",
  timestamping: "timeStamping",
  ocsp_signing: "OCSPSigning",
};
/** @pulumi/tls subject fields, as openssl names them in a distinguished name. */
const SUBJECT_FIELDS: Readonly<Record<string, string>> = {
  country: "C",
  province: "ST",
  locality: "L",
  organization: "O",
  organizationalUnit: "OU",
  commonName: "CN",
};
/** @pulumi/tls's ecdsaCurve (default P224) as openssl names it. */
const CURVES: Readonly<Record<string, string>> = {
  P224: "P-224",
  P256: "P-256",
  P384: "P-384",
  P521: "P-521",
};

function genpkey(spec: CertificateSpec): string {
  const { algorithm, ecdsaCurve = "P224", rsaBits = 2048 } = spec.key;
  const options =
    algorithm === "ECDSA" && ecdsaCurve in CURVES
      ? `-algorithm EC -pkeyopt ec_paramgen_curve:${CURVES[ecdsaCurve]}`
      : algorithm === "RSA"
        ? `-algorithm RSA -pkeyopt rsa_keygen_bits:${rsaBits}`
        : algorithm === "ED25519"
          ? "-algorithm ED25519"
          : undefined;
  if (options === undefined) throw new Error(`calico-tls.sh: ${spec.name}: unsupported key ${algorithm}`);
  return `openssl genpkey ${options} -out ${spec.name}.key`;
}

/** The digest the CA signs with, as Go's crypto/x509 (the tls provider) picks it for the CA's key. */
function digest(ca: CertificateSpec): string {
  if (ca.key.algorithm === "ED25519") return "";
  return ca.key.algorithm === "ECDSA" && ca.key.ecdsaCurve === "P384"
    ? " -sha384"
    : ca.key.algorithm === "ECDSA" && ca.key.ecdsaCurve === "P521"
      ? " -sha512"
      : " -sha256";
}

function days(spec: CertificateSpec): number {
  if (!Number.isInteger(spec.validityHours / 24) || spec.validityHours <= 0) {
    throw new Error(
      `calico-tls.sh: ${spec.name}: ${spec.validityHours} hours is not whole days (openssl -days)`,
    );
  }
  return spec.validityHours / 24;
}

function mapped(spec: CertificateSpec, table: Readonly<Record<string, string>>, values: readonly string[]) {
  return values.map((value) => {
    const name = table[value];
    if (name === undefined) throw new Error(`calico-tls.sh: ${spec.name}: unsupported ${value}`);
    return name;
  });
}

/** The openssl config of one certificate: its subject and the extensions the tls provider gives it. */
function opensslConfig(spec: CertificateSpec): string[] {
  const subject = Object.entries(spec.subject).map(([field, value]) => {
    if (!/^[\w .,:@+=/-]+$/.test(value)) throw new Error(`calico-tls.sh: ${spec.name}: subject ${value}`);
    return `${mapped(spec, SUBJECT_FIELDS, [field])[0]} = ${value}`;
  });
  const usages = spec.allowedUses.filter((u) => !(u in EXTENDED_KEY_USAGES));
  const extended = spec.allowedUses.filter((u) => u in EXTENDED_KEY_USAGES);
  return [
    "[req]",
    "prompt = no",
    "distinguished_name = subject",
    "[subject]",
    ...subject,
    "[extensions]",
    `basicConstraints = critical, CA:${spec.isCa ? "TRUE" : "FALSE"}`,
    ...(usages.length > 0 ? [`keyUsage = critical, ${mapped(spec, KEY_USAGES, usages).join(", ")}`] : []),
    ...(extended.length > 0
      ? [`extendedKeyUsage = ${mapped(spec, EXTENDED_KEY_USAGES, extended).join(", ")}`]
      : []),
    ...(spec.altNames.length > 0 ? [`subjectAltName = ${spec.altNames.join(", ")}`] : []),
    spec.issuer ? "authorityKeyIdentifier = keyid" : "subjectKeyIdentifier = hash",
  ];
}

function describeCertificate(spec: CertificateSpec): string {
  const key = spec.key.algorithm === "ECDSA" ? `ECDSA ${spec.key.ecdsaCurve ?? "P224"}` : spec.key.algorithm;
  const subject = Object.entries(spec.subject)
    .map(([field, value]) => `${SUBJECT_FIELDS[field] ?? field}=${value}`)
    .join(", ");
  const by = spec.issuer ? `signed by ${spec.issuer.name}` : "self-signed";
  return `${spec.name}: ${subject}, ${key} key, ${days(spec)} days, ${by}, uses ${spec.allowedUses.join(", ")}`;
}

/** The openssl commands that make one certificate (and its key) in the current directory. */
export function certificateCommands(spec: CertificateSpec): string[] {
  const config = [`cat > ${spec.name}.cnf <<'EOF'`, ...opensslConfig(spec), "EOF"];
  const sign = spec.issuer
    ? [
        `openssl req -new -config ${spec.name}.cnf -key ${spec.name}.key -out ${spec.name}.csr`,
        `openssl x509 -req -in ${spec.name}.csr -CA ${spec.issuer.name}.crt -CAkey ${spec.issuer.name}.key ` +
          `-CAserial ${spec.issuer.name}.srl -CAcreateserial${digest(spec.issuer)} -days ${days(spec)} ` +
          `-extfile ${spec.name}.cnf -extensions extensions -out ${spec.name}.crt`,
        `openssl verify -CAfile ${spec.issuer.name}.crt ${spec.name}.crt`,
      ]
    : [
        `openssl req -new -x509 -config ${spec.name}.cnf -extensions extensions -key ${spec.name}.key` +
          `${digest(spec)} -days ${days(spec)} -out ${spec.name}.crt`,
      ];
  return [`# ${describeCertificate(spec)}`, genpkey(spec), ...config, ...sign];
}

/** The workloads that mount `object` (a volume naming it), as `Kind namespace/name`. */
function mountedBy(evaluation: StackEvaluation, object: TlsObject): string[] {
  type Volume = { configMap?: { name?: string }; secret?: { secretName?: string } };
  const names = (v: Volume) => (object.kind === "Secret" ? v.secret?.secretName : v.configMap?.name);
  return calicoObjects(evaluation)
    .filter((r) => {
      const metadata = r.inputs.metadata as { namespace?: string };
      const spec = r.inputs.spec as { template?: { spec?: { volumes?: Volume[] } } } | undefined;
      const volumes = spec?.template?.spec?.volumes ?? [];
      return metadata.namespace === object.namespace && volumes.some((v) => names(v) === object.name);
    })
    .map(describeObject);
}

/** The kubectl commands that create one object from the files in `$dir`, then give it the rendered labels. */
export function objectCommands(object: TlsObject): string[] {
  const resource = object.kind === "Secret" ? "secret generic" : object.kind.toLowerCase();
  const from = object.files.map((f) => `--from-file=${f.key}="$dir/${f.file}"`).join(" ");
  const type = object.type ? ` --type=${object.type}` : "";
  const labels = Object.entries(object.labels).map(([k, v]) => shellWord(`${k}=${v}`));
  return [
    `kubectl create ${resource} ${object.name} --namespace ${object.namespace}${type} ${from}`,
    ...(labels.length > 0
      ? [
          `kubectl label ${object.kind.toLowerCase()} ${object.name} --namespace ${object.namespace} ${labels.join(" ")}`,
        ]
      : []),
  ];
}

/** calico-tls.sh: makes the CA and the leaves with openssl in a new directory, then creates the objects. */
export function renderCalicoTlsScript(evaluation: StackEvaluation): string {
  const stack = evaluation.stack;
  const { certificates, objects } = tlsPlan(evaluation);
  if (objects.length === 0) {
    const calico = evaluation.resources.some((r) => CALICO_COMPONENT_TYPES.includes(r.type));
    const why = calico
      ? "its Calico objects carry no TLS material (the Tigera operator makes Typha's certificates itself)"
      : "it has no Calico component";
    return `#!/bin/sh\n# Stack ${stack}: nothing to create, ${why}.\nexit 0\n`;
  }
  const ownNamespaces = new Set(
    calicoObjects(evaluation)
      .filter((r) => r.inputs.kind === "Namespace")
      .map((r) => (r.inputs.metadata as { name: string }).name),
  );
  const namespaces = [...new Set(objects.map((o) => o.namespace))].filter((n) => ownNamespaces.has(n));
  const leafDays = [...new Set(certificates.filter((c) => c.issuer).map(days))].join(" or ");
  return [
    "#!/bin/sh",
    `# The Typha TLS material of stack ${stack}, which \`pulumi up\` makes with @pulumi/tls and calico.yaml leaves out:`,
    "# makes the keys and certificates with openssl (OpenSSL 1.1.1 or later) as the stack's tls resources",
    "# ask for them, then creates the objects that carry them with kubectl. Run it before applying calico.yaml.",
    "#",
    "# Usage: sh calico-tls.sh [DIR]",
    "#   DIR (default ./calico-tls, must not exist) receives the keys, certificates and openssl configs. It keeps",
    "#   the CA's private key, which signs renewals: store it as you store other secrets, or delete it.",
    "#   kubectl create refuses objects that exist: the script runs once per cluster.",
    `# The leaves are valid ${leafDays} days (\`pulumi up\` re-issues them before they expire). To renew them, issue`,
    "# new ones with the same CA (the commands below), replace the Secrets, and restart the workloads that mount them.",
    "set -eu",
    "umask 077",
    "for tool in openssl kubectl; do",
    '  command -v "$tool" >/dev/null || { echo "calico-tls.sh: $tool not found" >&2; exit 1; }',
    "done",
    'dir="${1:-calico-tls}"',
    'mkdir "$dir"',
    "",
    "# The keys and certificates, made in DIR.",
    'cd "$dir"',
    ...certificates.flatMap((spec) => [...certificateCommands(spec), ""]),
    'cd "$OLDPWD"',
    "",
    ...namespaces.map((n) => `kubectl create namespace ${n}`),
    ...objects.flatMap((object) => [
      `# ${object.kind} ${object.namespace}/${object.name}, mounted by ${mountedBy(evaluation, object).join(" and ") || "no workload"}`,
      ...objectCommands(object),
    ]),
    "",
  ].join("\n");
}
