/**
 * The Go standard library's readers of a kubeconfig's credentials, as kubectl 1.35.4 runs them (built with
 * Go 1.26.8): base64 of the `*-data` fields (encoding/json decodes a []byte field with
 * base64.StdEncoding), PEM blocks (encoding/pem Decode), a CA bundle (crypto/x509
 * CertPool.AppendCertsFromPEM) and a client certificate with its key (crypto/tls X509KeyPair). Ports of
 * those functions, so that a file is refused exactly where client-go refuses it, with Go's error text.
 */
import * as crypto from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Map([...ALPHABET].map((c, i) => [c.charCodeAt(0), i]));
const PAD = 0x3d;
const NL = 0x0a;
const CR = 0x0d;

/**
 * Decodes `src` as base64.StdEncoding.Decode does (encoding/base64/base64.go decodeQuantum): '\r' and '\n'
 * are skipped, padding is required, anything after it is an error. An error is Go's CorruptInputError
 * text, with the offset of the offending byte.
 */
export function goBase64Decode(src: Buffer): { bytes: Buffer } | { error: string } {
  const out: number[] = [];
  const corrupt = (at: number) => ({ error: `illegal base64 data at input byte ${at}` });
  let si = 0;
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let trailing: number | undefined;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return { bytes: Buffer.from(out) };
        return corrupt(si - j);
      }
      const input = src[si++];
      const value = DECODE.get(input);
      if (value !== undefined) {
        dbuf[j] = value;
        continue;
      }
      if (input === NL || input === CR) {
        j--;
        continue;
      }
      if (input !== PAD) return corrupt(si - 1);
      // Padding: the end of the data.
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && (src[si] === NL || src[si] === CR)) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== PAD) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && (src[si] === NL || src[si] === CR)) si++;
      if (si < src.length) trailing = si;
      dlen = j;
      break;
    }
    const val = (dbuf[0] << 18) | (dbuf[1] << 12) | (dbuf[2] << 6) | dbuf[3];
    out.push(...[(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff].slice(0, dlen - 1));
    if (trailing !== undefined) return corrupt(trailing);
  }
  return { bytes: Buffer.from(out) };
}

export interface PemBlock {
  readonly type: string;
  readonly headers: number;
  readonly bytes: Buffer;
}

const PEM_START = Buffer.from("\n-----BEGIN ");
const PEM_END = Buffer.from("\n-----END ");
const PEM_END_OF_LINE = Buffer.from("-----");

/** A line without its '\n' (and a '\r' before it), trailing spaces and tabs trimmed (pem.go getLine). */
function getLine(data: Buffer): { line: Buffer; rest: Buffer; consumed: number } {
  let i = data.indexOf(NL);
  let j: number;
  if (i < 0) {
    i = data.length;
    j = i;
  } else {
    j = i + 1;
    if (i > 0 && data[i - 1] === CR) i--;
  }
  let end = i;
  while (end > 0 && (data[end - 1] === 0x20 || data[end - 1] === 0x09)) end--;
  return { line: data.subarray(0, end), rest: data.subarray(j), consumed: j };
}

/** The next PEM block of `data` and what follows it, as encoding/pem Decode finds them. */
export function pemDecode(data: Buffer): { block?: PemBlock; rest: Buffer } {
  let rest = data;
  let endTrailerIndex = 0;
  for (;;) {
    if (endTrailerIndex < 0 || endTrailerIndex > rest.length) return { rest: data };
    rest = rest.subarray(endTrailerIndex);
    let endIndex = rest.indexOf(PEM_END);
    if (endIndex < 0) return { rest: data };
    endTrailerIndex = endIndex + PEM_END.length;
    const beginIndex = rest.subarray(0, endIndex).lastIndexOf(PEM_START.subarray(1));
    if (beginIndex < 0 || (beginIndex > 0 && rest[beginIndex - 1] !== NL)) continue;
    rest = rest.subarray(beginIndex + PEM_START.length - 1);
    endIndex -= beginIndex + PEM_START.length - 1;
    endTrailerIndex -= beginIndex + PEM_START.length - 1;
    const typed = getLine(rest);
    rest = typed.rest;
    endIndex -= typed.consumed;
    endTrailerIndex -= typed.consumed;
    if (!typed.line.subarray(-PEM_END_OF_LINE.length).equals(PEM_END_OF_LINE)) continue;
    const typeLine = typed.line.subarray(0, typed.line.length - PEM_END_OF_LINE.length);
    let headers = 0;
    let truncated = false;
    for (;;) {
      if (rest.length === 0) {
        truncated = true;
        break;
      }
      const next = getLine(rest);
      if (!next.line.includes(0x3a)) break;
      headers++;
      rest = next.rest;
      endIndex -= next.consumed;
      endTrailerIndex -= next.consumed;
    }
    if (truncated) return { rest: data };
    if (headers > 0 && endIndex < 0) continue;
    let endTrailer = rest.subarray(endTrailerIndex);
    const endTrailerLen = typeLine.length + PEM_END_OF_LINE.length;
    if (endTrailer.length < endTrailerLen) continue;
    const restOfEndLine = endTrailer.subarray(endTrailerLen);
    endTrailer = endTrailer.subarray(0, endTrailerLen);
    if (!endTrailer.subarray(0, typeLine.length).equals(typeLine)) continue;
    if (!endTrailer.subarray(-PEM_END_OF_LINE.length).equals(PEM_END_OF_LINE)) continue;
    if (getLine(restOfEndLine).line.length !== 0) continue;
    let bytes: Buffer = Buffer.alloc(0);
    if (endIndex > 0) {
      const body = Buffer.from(rest.subarray(0, endIndex).filter((b) => b !== 0x20 && b !== 0x09));
      const decoded = goBase64Decode(body);
      if ("error" in decoded) continue;
      bytes = decoded.bytes;
    }
    return {
      block: { type: typeLine.toString("latin1"), headers, bytes },
      rest: getLine(rest.subarray(endIndex + PEM_END.length - 1)).rest,
    };
  }
}

/** Every block pem.Decode finds in `data`, in order. */
export function pemBlocks(data: Buffer): PemBlock[] {
  const blocks: PemBlock[] = [];
  let rest = data;
  for (;;) {
    const next = pemDecode(rest);
    if (next.block === undefined) return blocks;
    blocks.push(next.block);
    rest = next.rest;
  }
}

function parseCertificate(der: Buffer): crypto.X509Certificate | undefined {
  try {
    return new crypto.X509Certificate(der);
  } catch {
    return undefined;
  }
}

/**
 * Why client-go cannot use `caData` as its root CAs (transport/transport.go rootCertPool and
 * createErrorParsingCAData over x509 CertPool.AppendCertsFromPEM), or undefined when it can: at least one
 * CERTIFICATE block without headers must parse.
 */
export function caDataError(caData: Buffer): string | undefined {
  const blocks = pemBlocks(caData);
  if (blocks.some((b) => b.type === "CERTIFICATE" && b.headers === 0 && parseCertificate(b.bytes))) {
    return undefined;
  }
  // createErrorParsingCAData: the first block that fails says why.
  let rest = caData;
  while (rest.length > 0) {
    const next = pemDecode(rest);
    if (next.block === undefined) return "unable to parse bytes as PEM block";
    rest = next.rest;
    if (next.block.type !== "CERTIFICATE" || next.block.headers !== 0) continue;
    if (!parseCertificate(next.block.bytes)) return "failed to parse certificate";
  }
  return "no valid certificate authority data seen";
}

/** x509.ParsePKCS1PrivateKey, ParsePKCS8PrivateKey (RSA, ECDSA, Ed25519) and ParseECPrivateKey in turn. */
function parsePrivateKey(der: Buffer): crypto.KeyObject | string {
  const attempts: [crypto.KeyFormat, "pkcs1" | "pkcs8" | "sec1"][] = [
    ["der", "pkcs1"],
    ["der", "pkcs8"],
    ["der", "sec1"],
  ];
  for (const [format, type] of attempts) {
    try {
      const key = crypto.createPrivateKey({ key: der, format, type });
      if (type === "pkcs8" && !["rsa", "ec", "ed25519"].includes(key.asymmetricKeyType ?? "")) {
        return "tls: found unknown private key type in PKCS#8 wrapping";
      }
      return key;
    } catch {
      // the next format
    }
  }
  return "tls: failed to parse private key";
}

/** Why crypto/tls X509KeyPair refuses this certificate and key, or undefined when it takes them. */
export function keyPairError(certPem: Buffer, keyPem: Buffer): string | undefined {
  const certBlocks = pemBlocks(certPem);
  const certs = certBlocks.filter((b) => b.type === "CERTIFICATE");
  const skipped = certBlocks.filter((b) => b.type !== "CERTIFICATE").map((b) => b.type);
  if (certs.length === 0) {
    if (skipped.length === 0) return "tls: failed to find any PEM data in certificate input";
    if (skipped.length === 1 && skipped[0].endsWith("PRIVATE KEY")) {
      return "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched";
    }
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${skipped.join(" ")}]`;
  }
  const keySkipped: string[] = [];
  let keyBlock: PemBlock | undefined;
  for (const block of pemBlocks(keyPem)) {
    if (block.type === "PRIVATE KEY" || block.type.endsWith(" PRIVATE KEY")) {
      keyBlock = block;
      break;
    }
    keySkipped.push(block.type);
  }
  if (keyBlock === undefined) {
    if (keySkipped.length === 0) return "tls: failed to find any PEM data in key input";
    if (keySkipped.length === 1 && keySkipped[0] === "CERTIFICATE") {
      return "tls: found a certificate rather than a key in the PEM for the private key";
    }
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [${keySkipped.join(" ")}]`;
  }
  const leaf = parseCertificate(certs[0].bytes);
  if (leaf === undefined) return "x509: malformed certificate";
  const key = parsePrivateKey(keyBlock.bytes);
  if (typeof key === "string") return key;
  const publicType = leaf.publicKey.asymmetricKeyType;
  if (!["rsa", "ec", "ed25519"].includes(publicType ?? "")) return "tls: unknown public key algorithm";
  if (publicType !== key.asymmetricKeyType) return "tls: private key type does not match public key type";
  const spki = (k: crypto.KeyObject) => k.export({ format: "der", type: "spki" });
  if (!spki(crypto.createPublicKey(key)).equals(spki(leaf.publicKey))) {
    return "tls: private key does not match public key";
  }
  return undefined;
}
