/**
 * The tls provider (@pulumi/tls), simulated with real keys and certificates so tests can check chains and
 * names with node's crypto: PrivateKey (ECDSA P-256), SelfSignedCert, CertRequest and LocallySignedCert,
 * with the outputs the provider documents. Every certificate is issued at one fixed simulated instant, so
 * validity dates (and the pod annotations built from them) are the same from run to run; keys and
 * signatures are random, so the plan files show PEM blocks as placeholders (offline/plan.ts).
 */
// @peculiar/x509 resolves its ASN.1 types through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** When the simulated tls provider issues certificates. */
export const SIMULATED_ISSUE_TIME = new Date("2026-01-01T00:00:00Z");

const ECDSA = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** A value as the mock runtime delivers it: secrets arrive wrapped (@pulumi/pulumi runtime/rpc.ts). */
function reveal(value: unknown): unknown {
  if (value !== null && typeof value === "object" && "value" in value && Object.keys(value).length === 2) {
    return value.value;
  }
  return value;
}

function text(inputs: Record<string, unknown>, key: string): string {
  const value = reveal(inputs[key]);
  if (typeof value !== "string") throw new Error(`simulated tls provider: ${key} is not a string`);
  return value;
}

function pem(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der)
    .toString("base64")
    .replace(/(.{64})/g, "$1\n");
  return `-----BEGIN ${label}-----\n${base64.trimEnd()}\n-----END ${label}-----\n`;
}

function der(pemText: string): ArrayBuffer {
  const body = pemText.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
  const bytes = Buffer.from(body, "base64");
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

async function importKeys(privateKeyPem: string): Promise<CryptoKeyPair> {
  const privateKey = await webcrypto.subtle.importKey("pkcs8", der(privateKeyPem), ECDSA, true, ["sign"]);
  // The public half of the JWK is the private one without its secret scalar.
  const publicJwk = await webcrypto.subtle.exportKey("jwk", privateKey);
  delete publicJwk.d;
  const publicKey = await webcrypto.subtle.importKey(
    "jwk",
    { ...publicJwk, key_ops: ["verify"] },
    ECDSA,
    true,
    ["verify"],
  );
  return { privateKey, publicKey };
}

function distinguishedName(subject: unknown): string {
  const s = (reveal(subject) ?? {}) as { commonName?: string; organization?: string };
  return [s.commonName && `CN=${s.commonName}`, s.organization && `O=${s.organization}`]
    .filter(Boolean)
    .join(", ");
}

const KEY_USAGES: Record<string, number> = {
  cert_signing: x509.KeyUsageFlags.keyCertSign,
  crl_signing: x509.KeyUsageFlags.cRLSign,
  digital_signature: x509.KeyUsageFlags.digitalSignature,
  key_encipherment: x509.KeyUsageFlags.keyEncipherment,
};
const EXTENDED_USAGES: Record<string, string> = {
  server_auth: x509.ExtendedKeyUsage.serverAuth,
  client_auth: x509.ExtendedKeyUsage.clientAuth,
};

function extensions(inputs: Record<string, unknown>): x509.Extension[] {
  const uses = (reveal(inputs.allowedUses) ?? []) as string[];
  const keyUsage = uses.reduce((flags, use) => flags | (KEY_USAGES[use] ?? 0), 0);
  const extended = uses.flatMap((use) => (use in EXTENDED_USAGES ? [EXTENDED_USAGES[use]] : []));
  return [
    new x509.BasicConstraintsExtension(reveal(inputs.isCaCertificate) === true, undefined, true),
    ...(keyUsage !== 0 ? [new x509.KeyUsagesExtension(keyUsage, true)] : []),
    ...(extended.length > 0 ? [new x509.ExtendedKeyUsageExtension(extended)] : []),
  ];
}

function validity(inputs: Record<string, unknown>, issued: Date) {
  const hours = Number(reveal(inputs.validityPeriodHours));
  const notAfter = new Date(issued.getTime() + hours * 3_600_000);
  return { notBefore: issued, notAfter };
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString("hex")
    .replace(/^[89a-f]/, "1");
}

function certificateState(cert: x509.X509Certificate, inputs: Record<string, unknown>, issued: Date) {
  const { notBefore, notAfter } = validity(inputs, issued);
  return {
    ...inputs,
    certPem: cert.toString("pem") + "\n",
    validityStartTime: notBefore.toISOString().replace(".000", ""),
    validityEndTime: notAfter.toISOString().replace(".000", ""),
    readyForRenewal: false,
  };
}

/** The tls resource types the world simulates, each to its outputs. */
export const TLS_RESOURCES: Readonly<
  Record<string, (inputs: Record<string, unknown>, issued: Date) => Promise<Record<string, unknown>>>
> = {
  "tls:index/privateKey:PrivateKey": async (inputs) => {
    if (reveal(inputs.algorithm) !== "ECDSA" || reveal(inputs.ecdsaCurve) !== "P256") {
      throw new Error("simulated tls provider: only ECDSA P256 keys are simulated");
    }
    const keys = await webcrypto.subtle.generateKey(ECDSA, true, ["sign", "verify"]);
    const privateKeyPem = pem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", keys.privateKey));
    const publicKeyPem = pem("PUBLIC KEY", await webcrypto.subtle.exportKey("spki", keys.publicKey));
    return { ...inputs, privateKeyPem, privateKeyPemPkcs8: privateKeyPem, publicKeyPem };
  },
  "tls:index/selfSignedCert:SelfSignedCert": async (inputs, issued) => {
    const keys = await importKeys(text(inputs, "privateKeyPem"));
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: distinguishedName(inputs.subject),
      ...validity(inputs, issued),
      keys,
      signingAlgorithm: ECDSA,
      extensions: [...extensions(inputs), await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)],
    });
    return certificateState(cert, inputs, issued);
  },
  "tls:index/certRequest:CertRequest": async (inputs) => {
    const keys = await importKeys(text(inputs, "privateKeyPem"));
    const request = await x509.Pkcs10CertificateRequestGenerator.create({
      name: distinguishedName(inputs.subject),
      keys,
      signingAlgorithm: ECDSA,
    });
    return { ...inputs, certRequestPem: request.toString("pem") + "\n" };
  },
  "tls:index/locallySignedCert:LocallySignedCert": async (inputs, issued) => {
    const request = new x509.Pkcs10CertificateRequest(text(inputs, "certRequestPem"));
    const ca = new x509.X509Certificate(text(inputs, "caCertPem"));
    const caKeys = await importKeys(text(inputs, "caPrivateKeyPem"));
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: request.subject,
      issuer: ca.subject,
      ...validity(inputs, issued),
      signingKey: caKeys.privateKey,
      publicKey: request.publicKey,
      signingAlgorithm: ECDSA,
      extensions: [
        ...extensions(inputs),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
      ],
    });
    return certificateState(cert, inputs, issued);
  },
};
