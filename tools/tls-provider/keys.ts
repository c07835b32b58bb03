/**
 * Private keys for the stand-in tls provider, made with node:crypto and encoded as
 * terraform-provider-tls v4.2.1 encodes them (internal/provider/resource_private_key.go, common_key.go):
 * PEM by key type, PKCS#8, OpenSSH, the SSH authorized-keys line and its fingerprints; and keys parsed
 * from PEM, with what certificates need of them (WebCrypto signing keys, key identifiers).
 */
import * as crypto from "node:crypto";
import { promisify } from "node:util";

const generateKeyPair = promisify(crypto.generateKeyPair);

/** types.go `supportedAlgorithms`. */
export const ALGORITHMS = ["RSA", "ECDSA", "ED25519"] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

/** types.go `supportedECDSACurves`, with the name node:crypto (OpenSSL) gives each curve. */
export const ECDSA_CURVES = { P224: "secp224r1", P256: "prime256v1", P384: "secp384r1", P521: "secp521r1" };
export type EcdsaCurve = keyof typeof ECDSA_CURVES;

/** SSH names (RFC 5656 section 10.1) of the curves golang.org/x/crypto/ssh supports: not P-224. */
const SSH_CURVES: Readonly<Record<string, string>> = {
  prime256v1: "nistp256",
  secp384r1: "nistp384",
  secp521r1: "nistp521",
};

/** The PrivateKey resource's computed outputs. */
export interface PrivateKeyOutputs {
  privateKeyPem: string;
  privateKeyPemPkcs8: string;
  privateKeyOpenssh: string;
  publicKeyPem: string;
  publicKeyOpenssh: string;
  publicKeyFingerprintMd5: string;
  publicKeyFingerprintSha256: string;
  /** Hex SHA-1 of the DER public key (`hashForState`, common.go). */
  id: string;
}

/**
 * Generates a key as `keyGenerators` (common_key.go) does and encodes every output of the resource.
 * @param algorithm RSA, ECDSA or ED25519.
 * @param rsaBits RSA modulus size, used when algorithm is RSA.
 * @param curve ECDSA curve, used when algorithm is ECDSA.
 */
export async function generatePrivateKey(
  algorithm: Algorithm,
  rsaBits: number,
  curve: EcdsaCurve,
): Promise<PrivateKeyOutputs> {
  const { privateKey } =
    algorithm === "RSA"
      ? await generateKeyPair("rsa", { modulusLength: rsaBits })
      : algorithm === "ECDSA"
        ? await generateKeyPair("ec", { namedCurve: ECDSA_CURVES[curve] })
        : await generateKeyPair("ed25519");
  // Create() in resource_private_key.go: PKCS#1 for RSA, SEC 1 for ECDSA, PKCS#8 for ED25519.
  const type = algorithm === "RSA" ? "pkcs1" : algorithm === "ECDSA" ? "sec1" : "pkcs8";
  return {
    privateKeyPem: privateKey.export({ type, format: "pem" }).toString(),
    privateKeyPemPkcs8: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    privateKeyOpenssh: sshPrivateKey(privateKey),
    ...publicKeyOutputs(crypto.createPublicKey(privateKey)),
  };
}

/** The public half's outputs (`setPublicKeyAttributes`, common_key.go); SSH ones are "" for P-224. */
function publicKeyOutputs(publicKey: crypto.KeyObject) {
  const spki = publicKey.export({ type: "spki", format: "der" });
  const blob = sshPublicBlob(publicKey);
  const md5 = blob && crypto.createHash("md5").update(blob).digest("hex");
  return {
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    publicKeyOpenssh: blob ? `${sshKeyType(publicKey)} ${blob.toString("base64")}\n` : "",
    // x/crypto/ssh FingerprintLegacyMD5 and FingerprintSHA256.
    publicKeyFingerprintMd5: md5 ? md5.replace(/(..)(?!$)/g, "$1:") : "",
    publicKeyFingerprintSha256: blob
      ? `SHA256:${crypto.createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`
      : "",
    id: hashForState(spki),
  };
}

/** The DER formats `keyParsers` (common_key.go) parses each private key PEM type as. */
const PRIVATE_KEY_PEM_TYPES: Readonly<Record<string, "pkcs1" | "sec1" | "pkcs8">> = {
  "RSA PRIVATE KEY": "pkcs1",
  "EC PRIVATE KEY": "sec1",
  "PRIVATE KEY": "pkcs8",
};

/**
 * Parses the first PEM block as `parsePrivateKeyPEM` (common_key.go) does.
 * @returns the key and its algorithm name (`key_algorithm`).
 */
export function parsePrivateKeyPem(text: string): { key: crypto.KeyObject; algorithm: Algorithm } {
  const block = firstPemBlock(text);
  if (!block) throw new Error("failed to decode PEM block");
  const type = PRIVATE_KEY_PEM_TYPES[block.type];
  if (!type) throw new Error(`unable to determine parser for PEM preamble: ${block.type}`);
  const key = crypto.createPrivateKey({ key: block.der, format: "der", type });
  const algorithm = ({ rsa: "RSA", ec: "ECDSA", ed25519: "ED25519" } as const)[
    key.asymmetricKeyType as "rsa" | "ec" | "ed25519"
  ];
  if (!algorithm) throw new Error(`unsupported private key type: ${key.asymmetricKeyType}`);
  return { key, algorithm };
}

/**
 * Hex SHA-1 of a value after Go's strings.TrimSpace (`hashForState`, common.go), which trims the bytes
 * of Unicode white space (Go's unicode.IsSpace) from both ends, even of binary DER.
 */
export function hashForState(value: Buffer): string {
  const spaces = ["\t", "\n", "\v", "\f", "\r", " ", "\u0085", "\u00a0", "\u1680", "\u2028", "\u2029"]
    .concat(
      ["\u202f", "\u205f", "\u3000"],
      Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
    )
    .map((s) => Buffer.from(s, "utf8"));
  let [start, end] = [0, value.length];
  let trimmed: boolean;
  do {
    trimmed = false;
    for (const s of spaces) {
      if (end - start >= s.length && value.subarray(start, start + s.length).equals(s)) {
        [start, trimmed] = [start + s.length, true];
      }
      if (end - start >= s.length && value.subarray(end - s.length, end).equals(s)) {
        [end, trimmed] = [end - s.length, true];
      }
    }
  } while (trimmed);
  return crypto.createHash("sha1").update(value.subarray(start, end)).digest("hex");
}

// The SSH wire encoding (RFC 4251 section 5) and the openssh-key-v1 format (openssh-portable PROTOCOL.key),
// as golang.org/x/crypto/ssh MarshalPrivateKey writes it with no passphrase and no comment.

function sshString(value: Buffer | string): Buffer {
  const bytes = Buffer.from(value);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** An SSH mpint from unsigned big-endian bytes: minimal, with a 0 byte before a set high bit. */
function sshMpint(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length && unsigned[start] === 0) start++;
  const bytes = unsigned.subarray(start);
  return sshString(bytes.length > 0 && bytes[0] & 0x80 ? Buffer.concat([Buffer.of(0), bytes]) : bytes);
}

function jwkField(jwk: crypto.JsonWebKey, field: keyof crypto.JsonWebKey): Buffer {
  const value = jwk[field];
  if (typeof value !== "string") throw new Error(`key has no ${String(field)}`);
  return Buffer.from(value, "base64url");
}

function sshKeyType(key: crypto.KeyObject): string {
  if (key.asymmetricKeyType === "rsa") return "ssh-rsa";
  if (key.asymmetricKeyType === "ed25519") return "ssh-ed25519";
  return `ecdsa-sha2-${SSH_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ""]}`;
}

/** The public key blob (RFC 4253 section 6.6, RFC 5656, RFC 8709), or undefined where SSH has none. */
function sshPublicBlob(key: crypto.KeyObject): Buffer | undefined {
  const curve = SSH_CURVES[key.asymmetricKeyDetails?.namedCurve ?? ""];
  if (key.asymmetricKeyType === "ec" && !curve) return undefined;
  const jwk = key.export({ format: "jwk" });
  if (key.asymmetricKeyType === "rsa") {
    return Buffer.concat([sshString("ssh-rsa"), sshMpint(jwkField(jwk, "e")), sshMpint(jwkField(jwk, "n"))]);
  }
  if (key.asymmetricKeyType === "ed25519") {
    return Buffer.concat([sshString("ssh-ed25519"), sshString(jwkField(jwk, "x"))]);
  }
  const point = Buffer.concat([Buffer.of(4), jwkField(jwk, "x"), jwkField(jwk, "y")]);
  return Buffer.concat([sshString(`ecdsa-sha2-${curve}`), sshString(curve), sshString(point)]);
}

/** The private key in OpenSSH PEM, or "" where SSH has no such key (ECDSA P-224). */
function sshPrivateKey(privateKey: crypto.KeyObject): string {
  const publicBlob = sshPublicBlob(crypto.createPublicKey(privateKey));
  if (!publicBlob) return "";
  const jwk = privateKey.export({ format: "jwk" });
  const type = sshKeyType(privateKey);
  const fields =
    privateKey.asymmetricKeyType === "rsa"
      ? ["n", "e", "d", "qi", "p", "q"].map((f) => sshMpint(jwkField(jwk, f as keyof crypto.JsonWebKey)))
      : privateKey.asymmetricKeyType === "ed25519"
        ? [sshString(jwkField(jwk, "x")), sshString(Buffer.concat([jwkField(jwk, "d"), jwkField(jwk, "x")]))]
        : [
            sshString(type.replace("ecdsa-sha2-", "")),
            sshString(Buffer.concat([Buffer.of(4), jwkField(jwk, "x"), jwkField(jwk, "y")])),
            sshMpint(jwkField(jwk, "d")),
          ];
  const check = crypto.randomBytes(4);
  let block = Buffer.concat([check, check, sshString(type), ...fields, sshString("")]);
  // Padding 1, 2, 3, ... to the cipher block size, 8 for "none".
  const padding = (8 - (block.length % 8)) % 8;
  block = Buffer.concat([block, Buffer.from(Array.from({ length: padding }, (_, i) => i + 1))]);
  const body = Buffer.concat([
    Buffer.from("openssh-key-v1\0", "latin1"),
    ...["none", "none", ""].map((s) => sshString(s)),
    Buffer.from([0, 0, 0, 1]),
    sshString(publicBlob),
    sshString(block),
  ]);
  return pem("OPENSSH PRIVATE KEY", body);
}

/** PEM as Go's encoding/pem writes it: 64-character lines and a final newline. */
export function pem(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

function firstPemBlock(text: string): { type: string; der: Buffer } | undefined {
  const match = /-----BEGIN ([A-Z ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  return match ? { type: match[1], der: Buffer.from(match[2].replace(/\s+/g, ""), "base64") } : undefined;
}

/** Parses the first PEM block, which must be of the given type (`decodePEM`, resource_locally_signed_cert.go). */
export function pemBlock(text: string, type: string): Buffer {
  const block = firstPemBlock(text);
  if (!block) throw new Error(`failed to decode PEM of expected type "${type}" from bytes`);
  if (block.type !== type) throw new Error(`invalid PEM type - expected "${type}", got "${block.type}"`);
  return block.der;
}

/**
 * The key as WebCrypto signing keys, with Go's signature algorithm for it (x509.go
 * `signingParamsForKey`: SHA-256 for RSA and P-256, SHA-384 for P-384, SHA-512 for P-521).
 */
export async function signer(key: crypto.KeyObject) {
  const curves: Record<string, [string, string]> = {
    prime256v1: ["P-256", "SHA-256"],
    secp384r1: ["P-384", "SHA-384"],
    secp521r1: ["P-521", "SHA-512"],
  };
  let algorithm: { name: string; namedCurve?: string; hash?: string };
  if (key.asymmetricKeyType === "rsa") algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
  else if (key.asymmetricKeyType === "ed25519") algorithm = { name: "Ed25519" };
  else {
    const curve = curves[key.asymmetricKeyDetails?.namedCurve ?? ""];
    // The W3C Web Cryptography API defines ECDSA on P-256, P-384 and P-521 only.
    if (!curve) throw new Error("ECDSA P224 keys cannot sign here: WebCrypto has no P-224 curve");
    algorithm = { name: "ECDSA", namedCurve: curve[0], hash: curve[1] };
  }
  const subtle = crypto.webcrypto.subtle;
  const spki = crypto.createPublicKey(key).export({ type: "spki", format: "der" });
  return {
    algorithm,
    privateKey: await subtle.importKey(
      "pkcs8",
      key.export({ type: "pkcs8", format: "der" }),
      algorithm,
      false,
      ["sign"],
    ),
    publicKey: await subtle.importKey("spki", spki, algorithm, true, ["verify"]),
  };
}

/** The subjectPublicKey BIT STRING's value, the last field of a SubjectPublicKeyInfo (RFC 5280 section 4.1). */
function subjectPublicKey(spki: Buffer): Buffer {
  const field = (at: number) => {
    const length = spki[at + 1];
    if (length < 0x80) return { start: at + 2, end: at + 2 + length };
    const start = at + 2 + (length & 0x7f);
    return { start, end: start + spki.readUIntBE(at + 2, length & 0x7f) };
  };
  const algorithm = field(field(0).start);
  const bits = field(algorithm.end);
  return spki.subarray(bits.start + 1, bits.end); // after the count of unused bits
}

/**
 * `generateSubjectKeyID` (common_cert.go): hex SHA-1 of the key as Go's asn1 marshals it, which is the
 * subjectPublicKey value for RSA (PKCS#1) and ECDSA (elliptic.Marshal, uncompressed), and an OCTET STRING
 * of the 32-byte key for ED25519.
 */
export function subjectKeyId(spki: Buffer): string {
  const key = crypto.createPublicKey({ key: spki, format: "der", type: "spki" });
  let bytes = subjectPublicKey(spki);
  if (key.asymmetricKeyType === "ed25519") bytes = Buffer.concat([Buffer.of(0x04, 0x20), bytes]);
  if (key.asymmetricKeyType === "ec" && bytes[0] !== 0x04) {
    const curve = key.asymmetricKeyDetails?.namedCurve ?? "";
    bytes = crypto.ECDH.convertKey(bytes, curve, undefined, undefined, "uncompressed") as Buffer;
  }
  return crypto.createHash("sha1").update(bytes).digest("hex");
}
