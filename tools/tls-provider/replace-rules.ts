/**
 * Which input changes replace a tls resource, and the defaults that decide whether an input changed, for
 * the four resources the stand-in provider serves. One row per input, in Pulumi names.
 *
 * Read from hashicorp/terraform-provider-tls at tag v4.2.1 (commit 857b38cda3fca4b6539f23b6dfc9724c6537f7e7,
 * https://github.com/hashicorp/terraform-provider-tls/tree/v4.2.1/internal/provider), the newest tag; the
 * files under internal/provider/ differ from main (d72d90e1) only in their copyright line. Each resource
 * names its file. pulumi-tls wraps it (its provider/shim/go.mod requires the module).
 */

/** What a change to one input does. */
export type ReplaceRule =
  /** `RequiresReplace()`: any change, to or from unknown included, replaces the resource. */
  | "replace"
  /**
   * `requireReplaceIfStateContainsPEMString()` (common.go): replaces only when the value in state is a
   * PEM block; otherwise the new value is stored in place.
   */
  | "replace-if-state-pem"
  /** No RequiresReplace plan modifier: the new value is stored in place. */
  | "update"
  /** Write-only: never stored, so never compared; its `...WoVersion` companion is the change signal. */
  | "write-only";

export interface InputRule {
  /** The input, as @pulumi/tls names it. */
  readonly input: string;
  readonly rule: ReplaceRule;
  /** Terraform `Required: true`. */
  readonly required?: boolean;
  /** The schema's `Default:`, applied when the input is absent. */
  readonly default?: string | number | boolean;
}

export interface ResourceRules {
  /** Path of the resource's schema under internal/provider/ at v4.2.1. */
  readonly file: string;
  readonly inputs: readonly InputRule[];
  /** Outputs @pulumi/tls registers as secret (`additionalSecretOutputs` in node_modules/@pulumi/tls/*.js). */
  readonly secretOutputs: readonly string[];
  /**
   * The certificate is replaced once it is ready for renewal (`modifyPlanIfCertificateReadyForRenewal`,
   * common_cert.go): the replacement is reported on `readyForRenewal`.
   */
  readonly renews?: boolean;
}

/**
 * `private_key_pem_wo` and its version are newer than v4.2.1: their rows follow the @pulumi/tls 5.6.1
 * documentation (node_modules/@pulumi/tls/selfSignedCert.d.ts: "increment it to force the certificate
 * to be re-issued"; certRequest.d.ts and locallySignedCert.d.ts say the same).
 */
function writeOnlyKey(input: string): InputRule[] {
  return [
    { input, rule: "replace-if-state-pem" },
    { input: `${input}Wo`, rule: "write-only" },
    { input: `${input}WoVersion`, rule: "replace" },
  ];
}

/** Inputs both certificate resources share (common_cert.go reads them by these names). */
const CERTIFICATE_INPUTS: readonly InputRule[] = [
  { input: "validityPeriodHours", rule: "replace", required: true },
  { input: "allowedUses", rule: "replace", required: true },
  // No plan modifier: a change is stored in place (and may make the certificate ready for renewal).
  { input: "earlyRenewalHours", rule: "update", default: 0 },
  { input: "isCaCertificate", rule: "replace", default: false },
  { input: "maxPathLength", rule: "replace" },
  { input: "setSubjectKeyId", rule: "replace", default: false },
];

/** The rules per Pulumi type token. */
export const TLS_RULES: Readonly<Record<string, ResourceRules>> = {
  "tls:index/privateKey:PrivateKey": {
    file: "internal/provider/resource_private_key.go",
    inputs: [
      { input: "algorithm", rule: "replace", required: true },
      { input: "rsaBits", rule: "replace", default: 2048 },
      { input: "ecdsaCurve", rule: "replace", default: "P224" },
    ],
    secretOutputs: ["privateKeyOpenssh", "privateKeyPem", "privateKeyPemPkcs8"],
  },
  "tls:index/selfSignedCert:SelfSignedCert": {
    file: "internal/provider/resource_self_signed_cert.go",
    inputs: [
      ...writeOnlyKey("privateKeyPem"),
      ...CERTIFICATE_INPUTS,
      { input: "setAuthorityKeyId", rule: "replace", default: false },
      { input: "subject", rule: "replace" },
      { input: "dnsNames", rule: "replace" },
      { input: "ipAddresses", rule: "replace" },
      { input: "uris", rule: "replace" },
    ],
    secretOutputs: ["privateKeyPem"],
    renews: true,
  },
  "tls:index/certRequest:CertRequest": {
    file: "internal/provider/resource_cert_request.go",
    inputs: [
      ...writeOnlyKey("privateKeyPem"),
      { input: "subject", rule: "replace" },
      { input: "dnsNames", rule: "replace" },
      { input: "ipAddresses", rule: "replace" },
      { input: "uris", rule: "replace" },
    ],
    secretOutputs: ["privateKeyPem"],
  },
  "tls:index/locallySignedCert:LocallySignedCert": {
    file: "internal/provider/resource_locally_signed_cert.go",
    inputs: [
      { input: "certRequestPem", rule: "replace-if-state-pem", required: true },
      { input: "caCertPem", rule: "replace-if-state-pem", required: true },
      ...writeOnlyKey("caPrivateKeyPem"),
      ...CERTIFICATE_INPUTS,
    ],
    secretOutputs: ["caPrivateKeyPem"],
    renews: true,
  },
};
