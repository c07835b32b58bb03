/**
 * Client certificates and keys for kubeconfig tests: a self-signed ECDSA P-256 certificate with its
 * PKCS#8 key, and a second key that is not the certificate's.
 */
// @peculiar/x509 resolves its ASN.1 types through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import * as crypto from "node:crypto";
import * as x509 from "@peculiar/x509";

export interface ClientPki {
  readonly cert: string;
  readonly key: string;
  readonly otherKey: string;
}

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

export async function clientPki(name = "kubeconfig-test"): Promise<ClientPki> {
  const pair = () => crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const { privateKey, publicKey } = pair();
  const subtle = crypto.webcrypto.subtle;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: "01",
      subject: `CN=${name}`,
      issuer: `CN=${name}`,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 24 * 3600_000),
      publicKey: await subtle.importKey(
        "spki",
        publicKey.export({ type: "spki", format: "der" }),
        ALGORITHM,
        true,
        ["verify"],
      ),
      signingKey: await subtle.importKey(
        "pkcs8",
        privateKey.export({ type: "pkcs8", format: "der" }),
        ALGORITHM,
        false,
        ["sign"],
      ),
      signingAlgorithm: ALGORITHM,
    },
    crypto.webcrypto,
  );
  const pem = (key: crypto.KeyObject) => key.export({ type: "pkcs8", format: "pem" }).toString();
  return { cert: cert.toString("pem") + "\n", key: pem(privateKey), otherKey: pem(pair().privateKey) };
}
