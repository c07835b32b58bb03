/**
 * Certificates and certificate requests for the stand-in tls provider, built with @peculiar/x509 and
 * signed through node's WebCrypto, laid out as terraform-provider-tls v4.2.1 has Go's crypto/x509 lay
 * them out (internal/provider/common_cert.go `createCertificate`, resource_cert_request.go, Go 1.26
 * src/crypto/x509/x509.go `CreateCertificate`).
 */
// @peculiar/x509 resolves its ASN.1 types through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import * as crypto from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";
import {
  type Algorithm,
  hashForState,
  parsePrivateKeyPem,
  pem,
  pemBlock,
  signer,
  subjectKeyId,
} from "./keys";

/** Passed to each call rather than set globally (x509.cryptoProvider), which other modules also set. */
const WEBCRYPTO = crypto.webcrypto;

/** `keyUsages` in common_cert.go, as RFC 5280 section 4.2.1.3 bits. */
export const KEY_USAGES: Readonly<Record<string, x509.KeyUsageFlags>> = {
  digital_signature: x509.KeyUsageFlags.digitalSignature,
  content_commitment: x509.KeyUsageFlags.nonRepudiation,
  key_encipherment: x509.KeyUsageFlags.keyEncipherment,
  data_encipherment: x509.KeyUsageFlags.dataEncipherment,
  key_agreement: x509.KeyUsageFlags.keyAgreement,
  cert_signing: x509.KeyUsageFlags.keyCertSign,
  crl_signing: x509.KeyUsageFlags.cRLSign,
  encipher_only: x509.KeyUsageFlags.encipherOnly,
  decipher_only: x509.KeyUsageFlags.decipherOnly,
};

/** `extendedKeyUsages` in common_cert.go, with the OIDs Go gives them (x509.go `oidExtKeyUsage*`). */
export const EXTENDED_KEY_USAGES: Readonly<Record<string, string>> = {
  any_extended: "2.5.29.37.0",
  server_auth: "1.3.6.1.5.5.7.3.1",
  client_auth: "1.3.6.1.5.5.7.3.2",
  code_signing: "1.3.6.1.5.5.7.3.3",
  email_protection: "1.3.6.1.5.5.7.3.4",
  ipsec_end_system: "1.3.6.1.5.5.7.3.5",
  ipsec_tunnel: "1.3.6.1.5.5.7.3.6",
  ipsec_user: "1.3.6.1.5.5.7.3.7",
  timestamping: "1.3.6.1.5.5.7.3.8",
  ocsp_signing: "1.3.6.1.5.5.7.3.9",
  microsoft_server_gated_crypto: "1.3.6.1.4.1.311.10.3.3",
  netscape_server_gated_crypto: "2.16.840.1.113730.4.1",
  microsoft_commercial_code_signing: "1.3.6.1.4.1.311.2.1.22",
  microsoft_kernel_code_signing: "1.3.6.1.4.1.311.61.1.1",
};

/** The `subject` input, in @pulumi/tls names. */
export interface Subject {
  commonName?: string;
  organization?: string;
  organizationalUnit?: string;
  streetAddresses?: string[];
  locality?: string;
  province?: string;
  country?: string;
  postalCode?: string;
  serialNumber?: string;
  emailAddress?: string;
}

/** Subject alternative names as the inputs give them. */
export interface AltNames {
  dnsNames?: string[];
  ipAddresses?: string[];
  uris?: string[];
}

/** The inputs `createCertificate` (common_cert.go) reads. */
export interface CertificateTemplate {
  validityPeriodHours: number;
  allowedUses: string[];
  isCaCertificate: boolean;
  maxPathLength?: number;
  setSubjectKeyId: boolean;
  setAuthorityKeyId?: boolean;
}

/** The computed outputs of both certificate resources. */
export interface IssuedCertificate {
  /** The serial number in decimal. */
  id: string;
  certPem: string;
  validityStartTime: string;
  validityEndTime: string;
}

/** Go's pkix.Name.ToRDNSequence order; single values, as `createSubjectDistinguishedNames` sets them. */
const NAME_ATTRIBUTES: readonly [keyof Subject, string][] = [
  ["country", "2.5.4.6"],
  ["province", "2.5.4.8"],
  ["locality", "2.5.4.7"],
  ["streetAddresses", "2.5.4.9"],
  ["postalCode", "2.5.4.17"],
  ["organization", "2.5.4.10"],
  ["organizationalUnit", "2.5.4.11"],
  ["commonName", "2.5.4.3"],
  ["serialNumber", "2.5.4.5"],
];

function subjectName(subject: Subject): x509.Name {
  const rdns: x509.JsonNameParams = [];
  for (const [field, oid] of NAME_ATTRIBUTES) {
    const value = subject[field];
    const values = value === undefined ? [] : Array.isArray(value) ? value : [value];
    // Go skips an empty common name or serial number, and writes other empty strings.
    const skipped = (field === "commonName" || field === "serialNumber") && value === "";
    if (values.length === 0 || skipped) continue;
    // Go's encoding/asn1 writes a PrintableString where the characters allow it, else a UTF8String.
    rdns.push({
      [oid]: values.map((v) => (x509.Name.isPrintableString(v) ? { printableString: v } : { utf8String: v })),
    });
  }
  if (subject.emailAddress !== undefined) {
    rdns.push({ "1.2.840.113549.1.9.1": [{ ia5String: subject.emailAddress }] });
  }
  return new x509.Name(rdns);
}

/** Go's `marshalSANs` order: DNS names, then IP addresses, then URIs. */
function generalNames({ dnsNames = [], ipAddresses = [], uris = [] }: AltNames): x509.JsonGeneralNames {
  for (const ip of ipAddresses) {
    if (isIP(ip) === 0) throw new Error(`Invalid IP address: Failed to parse "${ip}"`);
  }
  return [
    ...dnsNames.map((value) => ({ type: "dns" as const, value })),
    ...ipAddresses.map((value) => ({ type: "ip" as const, value })),
    ...uris.map((value) => ({ type: "url" as const, value })),
  ];
}

/** Go's time.Time MarshalText (RFC 3339 with the fraction's trailing zeros dropped), in UTC. */
function rfc3339(time: Date): string {
  return time.toISOString().replace(/\.?0*Z$/, "Z");
}

/** The certificate's subject, names and key, from the inputs or from a certificate request. */
interface CertificateSubject {
  name: x509.Name;
  altNames: x509.JsonGeneralNames;
  publicKey: Buffer;
}

/** Its issuer, for a certificate signed by a CA certificate. */
interface Issuer {
  name: x509.Name;
  subjectKeyId?: string;
}

/** `createCertificate` (common_cert.go) followed by Go's `CreateCertificate`. */
async function issue(
  template: CertificateTemplate,
  subject: CertificateSubject,
  issuer: Issuer | undefined,
  signingKey: crypto.KeyObject,
  now: Date,
): Promise<IssuedCertificate> {
  const subjectDer = Buffer.from(subject.name.toArrayBuffer());
  const subjectIsEmpty = subjectDer.equals(Buffer.of(0x30, 0x00));
  const { isCaCertificate: isCa, maxPathLength = -1 } = template;
  if (isCa && subjectIsEmpty) {
    throw new Error(
      "Invalid Certificate Subject: Must contain at least one Distinguished Name when creating CA",
    );
  }
  if (!isCa && maxPathLength > 0) throw new Error("x509: only CAs are allowed to specify MaxPathLen");
  const ski = isCa || template.setSubjectKeyId ? subjectKeyId(subject.publicKey) : undefined;
  let aki: string | undefined;
  if (!issuer && template.setAuthorityKeyId) {
    if (!ski) throw new Error("Invalid Certificate Authority: Could not determine Authority Key Identifier");
    aki = ski;
  } else if (issuer?.subjectKeyId && !Buffer.from(issuer.name.toArrayBuffer()).equals(subjectDer)) {
    // Go names the issuer's key whenever the issuer has a key id and is not the subject.
    aki = issuer.subjectKeyId;
  }
  const keyUsage = template.allowedUses.reduce((bits, use) => bits | (KEY_USAGES[use] ?? 0), 0);
  const extendedKeyUsages = template.allowedUses.flatMap((use) => EXTENDED_KEY_USAGES[use] ?? []);
  const extensions: x509.Extension[] = [
    ...(keyUsage !== 0 ? [new x509.KeyUsagesExtension(keyUsage, true)] : []),
    ...(extendedKeyUsages.length > 0 ? [new x509.ExtendedKeyUsageExtension(extendedKeyUsages, false)] : []),
    // Go writes no path length for 0 unless MaxPathLenZero, which common_cert.go never sets.
    new x509.BasicConstraintsExtension(isCa, isCa && maxPathLength > 0 ? maxPathLength : undefined, true),
    ...(ski ? [new x509.SubjectKeyIdentifierExtension(ski, false)] : []),
    ...(aki ? [new x509.AuthorityKeyIdentifierExtension(aki, false)] : []),
    // RFC 5280 section 4.2.1.6: critical when the subject is empty.
    ...(subject.altNames.length > 0
      ? [new x509.SubjectAlternativeNameExtension(subject.altNames, subjectIsEmpty)]
      : []),
  ];
  // A random serial below 2^128, as common_cert.go draws it.
  let serial = 0n;
  while (serial === 0n) serial = BigInt(`0x${crypto.randomBytes(16).toString("hex")}`);
  const hex = serial.toString(16);
  const notAfter = new Date(now.getTime() + template.validityPeriodHours * 3_600_000);
  const signing = await signer(signingKey);
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: hex.length % 2 === 0 ? hex : `0${hex}`,
      subject: subject.name,
      issuer: issuer?.name ?? subject.name,
      notBefore: now,
      notAfter,
      publicKey: subject.publicKey,
      signingKey: signing.privateKey,
      signingAlgorithm: signing.algorithm,
      extensions,
    },
    WEBCRYPTO,
  );
  return {
    id: serial.toString(10),
    certPem: pem("CERTIFICATE", Buffer.from(cert.rawData)),
    validityStartTime: rfc3339(now),
    validityEndTime: rfc3339(notAfter),
  };
}

/**
 * Issues a self-signed certificate (resource_self_signed_cert.go Create).
 * @returns the certificate outputs and `keyAlgorithm`.
 */
export async function selfSignedCertificate(
  privateKeyPem: string,
  subject: Subject,
  altNames: AltNames,
  template: CertificateTemplate,
  now: Date,
): Promise<IssuedCertificate & { keyAlgorithm: Algorithm }> {
  const { key, algorithm } = parsePrivateKeyPem(privateKeyPem);
  const publicKey = crypto.createPublicKey(key).export({ type: "spki", format: "der" });
  const names = { name: subjectName(subject), altNames: generalNames(altNames), publicKey };
  return { ...(await issue(template, names, undefined, key, now)), keyAlgorithm: algorithm };
}

/**
 * Creates a certificate signing request (resource_cert_request.go Create).
 * @returns `certRequestPem`, `keyAlgorithm` and the id (hex SHA-1 of the DER request).
 */
export async function certificateRequest(privateKeyPem: string, subject: Subject, altNames: AltNames) {
  const { key, algorithm } = parsePrivateKeyPem(privateKeyPem);
  const names = generalNames(altNames);
  const signing = await signer(key);
  const request = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: subjectName(subject),
      keys: { privateKey: signing.privateKey, publicKey: signing.publicKey },
      signingAlgorithm: signing.algorithm,
      extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names, false)] : [],
    },
    WEBCRYPTO,
  );
  const der = Buffer.from(request.rawData);
  return { certRequestPem: pem("CERTIFICATE REQUEST", der), keyAlgorithm: algorithm, id: hashForState(der) };
}

/**
 * Signs a certificate request with a CA (resource_locally_signed_cert.go Create): the request's subject,
 * DNS names, IP addresses and URIs, nothing else from it.
 * @returns the certificate outputs and `caKeyAlgorithm`.
 */
export async function locallySignedCertificate(
  certRequestPem: string,
  caCertPem: string,
  caPrivateKeyPem: string,
  template: CertificateTemplate,
  now: Date,
): Promise<IssuedCertificate & { caKeyAlgorithm: Algorithm }> {
  const request = new x509.Pkcs10CertificateRequest(pemBlock(certRequestPem, "CERTIFICATE REQUEST"));
  const { key, algorithm } = parsePrivateKeyPem(caPrivateKeyPem);
  const ca = new x509.X509Certificate(pemBlock(caCertPem, "CERTIFICATE"));
  const caKey = crypto.createPublicKey(key).export({ type: "spki", format: "der" });
  if (!caKey.equals(Buffer.from(ca.publicKey.rawData))) {
    throw new Error("x509: provided PrivateKey doesn't match parent's PublicKey");
  }
  const san = request.getExtension("2.5.29.17");
  const items = san ? new x509.SubjectAlternativeNameExtension(san.rawData).names.items : [];
  const of = (type: x509.GeneralNameType) => items.filter((n) => n.type === type).map((n) => n.value);
  const altNames = generalNames({ dnsNames: of("dns"), ipAddresses: of("ip"), uris: of("url") });
  const caSki = ca.getExtension("2.5.29.14");
  const issuer = {
    name: ca.subjectName,
    subjectKeyId: caSki ? new x509.SubjectKeyIdentifierExtension(caSki.rawData).keyId : undefined,
  };
  const subject = { name: request.subjectName, altNames, publicKey: Buffer.from(request.publicKey.rawData) };
  return { ...(await issue(template, subject, issuer, key, now)), caKeyAlgorithm: algorithm };
}
