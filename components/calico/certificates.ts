/**
 * The Typha CA and the two leaf certificates, made with @pulumi/tls: keys and certificates live in the
 * stack's state, private keys as secrets. Pulumi wiring only; names and validity come from typha-tls.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import * as tls from "@pulumi/tls";
import { CERTIFICATE_VALIDITY, FELIX_CLIENT_CN, TYPHA_SERVER_CN } from "./typha-tls";

export interface TyphaCertificates {
  caCert: pulumi.Output<string>;
  /** When the CA stops being valid (RFC 3339). */
  caValidUntil: pulumi.Output<string>;
  server: { cert: pulumi.Output<string>; key: pulumi.Output<string>; validUntil: pulumi.Output<string> };
  client: { cert: pulumi.Output<string>; key: pulumi.Output<string>; validUntil: pulumi.Output<string> };
}

/** ECDSA P-256: short keys that Go's TLS (Felix and Typha) handles natively. */
function privateKey(name: string, parent: pulumi.Resource): tls.PrivateKey {
  return new tls.PrivateKey(name, { algorithm: "ECDSA", ecdsaCurve: "P256" }, { parent });
}

export function createTyphaCertificates(name: string, parent: pulumi.Resource): TyphaCertificates {
  const caKey = privateKey(`${name}-typha-ca`, parent);
  const ca = new tls.SelfSignedCert(
    `${name}-typha-ca`,
    {
      privateKeyPem: pulumi.secret(caKey.privateKeyPem),
      subject: { commonName: "eks-calico Typha CA", organization: "eks-calico" },
      isCaCertificate: true,
      validityPeriodHours: CERTIFICATE_VALIDITY.caHours,
      allowedUses: ["cert_signing", "crl_signing", "digital_signature"],
    },
    { parent },
  );
  const leaf = (suffix: string, commonName: string, usage: "server_auth" | "client_auth") => {
    const key = privateKey(`${name}-${suffix}`, parent);
    const request = new tls.CertRequest(
      `${name}-${suffix}`,
      { privateKeyPem: pulumi.secret(key.privateKeyPem), subject: { commonName } },
      { parent },
    );
    const cert = new tls.LocallySignedCert(
      `${name}-${suffix}`,
      {
        certRequestPem: request.certRequestPem,
        caCertPem: ca.certPem,
        caPrivateKeyPem: pulumi.secret(caKey.privateKeyPem),
        validityPeriodHours: CERTIFICATE_VALIDITY.leafHours,
        earlyRenewalHours: CERTIFICATE_VALIDITY.leafEarlyRenewalHours,
        allowedUses: ["digital_signature", "key_encipherment", usage],
      },
      { parent },
    );
    return { cert: cert.certPem, key: pulumi.secret(key.privateKeyPem), validUntil: cert.validityEndTime };
  };
  return {
    caCert: ca.certPem,
    caValidUntil: ca.validityEndTime,
    server: leaf("typha-server", TYPHA_SERVER_CN, "server_auth"),
    client: leaf("felix-client", FELIX_CLIENT_CN, "client_auth"),
  };
}
