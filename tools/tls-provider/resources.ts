/**
 * check, diff, create, read and update for the four tls resources the stand-in provider serves, as plain
 * functions of property bags (the shapes @pulumi/pulumi/provider passes), so tests need no gRPC. Defaults
 * and replacement follow replace-rules.ts; validation follows the schemas' validators in
 * terraform-provider-tls v4.2.1 internal/provider.
 */
import type { CheckFailure, DiffResult } from "@pulumi/pulumi/provider";
import {
  specialOutputValueSig,
  specialSecretSig,
  specialSigKey,
  unknownValue,
} from "@pulumi/pulumi/runtime/rpc";
import {
  type AltNames,
  type CertificateTemplate,
  certificateRequest,
  EXTENDED_KEY_USAGES,
  KEY_USAGES,
  locallySignedCertificate,
  selfSignedCertificate,
  type Subject,
} from "./certificates";
import {
  ALGORITHMS,
  type Algorithm,
  ECDSA_CURVES,
  type EcdsaCurve,
  generatePrivateKey,
  parsePrivateKeyPem,
} from "./keys";
import { type ResourceRules, TLS_RULES } from "./replace-rules";

/** A property bag as the engine sends it: secrets wrapped, unknowns as a sentinel string. */
export type Props = Record<string, unknown>;

const PRIVATE_KEY = "tls:index/privateKey:PrivateKey";
const SELF_SIGNED_CERT = "tls:index/selfSignedCert:SelfSignedCert";
const CERT_REQUEST = "tls:index/certRequest:CertRequest";
const LOCALLY_SIGNED_CERT = "tls:index/locallySignedCert:LocallySignedCert";

function rulesFor(token: string): ResourceRules {
  const rules = TLS_RULES[token];
  if (!rules) throw new Error(`the stand-in tls provider does not serve ${token}`);
  return rules;
}

/**
 * A value with every secret (and output value) unwrapped, at any depth. The engine wraps secrets as
 * `{[specialSigKey]: specialSecretSig, value}` (@pulumi/pulumi runtime/rpc.ts); an output value without
 * a value is unknown.
 */
export function reveal(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reveal);
  if (value === null || typeof value !== "object") return value;
  const record = value as Props;
  if (record[specialSigKey] === specialSecretSig) return reveal(record.value);
  if (record[specialSigKey] === specialOutputValueSig) {
    return "value" in record ? reveal(record.value) : unknownValue;
  }
  return Object.fromEntries(Object.entries(record).map(([key, v]) => [key, reveal(v)]));
}

/** Wraps a value as a secret for the engine, unless it already is one. */
export function secret(value: unknown): unknown {
  const isSecret =
    value !== null && typeof value === "object" && (value as Props)[specialSigKey] === specialSecretSig;
  return isSecret ? value : { [specialSigKey]: specialSecretSig, value };
}

function isUnknown(value: unknown): boolean {
  if (value === unknownValue) return true;
  if (Array.isArray(value)) return value.some(isUnknown);
  return value !== null && typeof value === "object" && Object.values(value).some(isUnknown);
}

/** A value with absent, empty-list and empty-object parts dropped, so `[]` equals an unset list. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(normalize);
  if (value === null || typeof value !== "object") return value ?? undefined;
  const entries = Object.entries(value)
    .map(([key, v]) => [key, normalize(v)] as const)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}

/** `requireReplaceIfStateContainsPEMString` (common.go): the regular expression it matches state with. */
const PEM_STRING = /^-----BEGIN [A-Za-z ]+-----\n[\s\S]+\n-----END [A-Za-z ]+-----\n?$/;

function failuresFor(token: string, inputs: Props): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const fail = (property: string, reason: string) => failures.push({ property, reason });
  const known = (property: string) => inputs[property] !== undefined && !isUnknown(inputs[property]);
  const oneOf = (property: string, allowed: readonly string[]) => {
    if (known(property) && !allowed.includes(inputs[property] as string)) {
      fail(property, `${property} must be one of: ${allowed.join(", ")}`);
    }
  };
  const atLeast = (property: string, min: number) => {
    const value = inputs[property];
    if (known(property) && !(Number.isInteger(value) && (value as number) >= min)) {
      fail(property, `${property} must be an integer of at least ${min}`);
    }
  };
  const strings = (property: string, rule: (item: string) => string | undefined) => {
    const value = inputs[property];
    if (!known(property)) return;
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
      fail(property, `${property} must be a list of strings`);
      return;
    }
    for (const item of value as string[]) {
      const reason = rule(item);
      if (reason) fail(property, reason);
    }
  };
  for (const { input, required } of rulesFor(token).inputs) {
    if (required && (inputs[input] === undefined || inputs[input] === null)) {
      fail(input, `Missing required property '${input}'`);
    }
  }
  if (token === PRIVATE_KEY) {
    oneOf("algorithm", ALGORITHMS);
    atLeast("rsaBits", 1);
    oneOf("ecdsaCurve", Object.keys(ECDSA_CURVES));
    return failures;
  }
  const nonEmpty = (property: string) => (item: string) =>
    item === "" ? `${property} must not hold ""` : undefined;
  strings("dnsNames", () => undefined);
  strings("ipAddresses", nonEmpty("ipAddresses"));
  strings("uris", nonEmpty("uris"));
  if (token !== CERT_REQUEST) {
    const uses = [...Object.keys(KEY_USAGES), ...Object.keys(EXTENDED_KEY_USAGES)].sort();
    strings("allowedUses", (use) =>
      uses.includes(use) ? undefined : `allowedUses must be among: ${uses.join(", ")}`,
    );
    atLeast("validityPeriodHours", 0);
    atLeast("earlyRenewalHours", 0);
    atLeast("maxPathLength", -1);
  }
  // "Exactly one of privateKeyPem or privateKeyPemWo must be set" (node_modules/@pulumi/tls/*.d.ts).
  const key = token === LOCALLY_SIGNED_CERT ? "caPrivateKeyPem" : "privateKeyPem";
  const given = [key, `${key}Wo`].filter((p) => inputs[p] !== undefined && inputs[p] !== null);
  if (given.length !== 1) fail(key, `exactly one of ${key} or ${key}Wo must be set`);
  if (given[0] === `${key}Wo` && inputs[`${key}WoVersion`] === undefined) {
    fail(`${key}WoVersion`, `${key}WoVersion must be set with ${key}Wo`);
  }
  if (given.length === 1 && known(given[0]) && isP224(inputs[given[0]])) {
    fail(given[0], "ECDSA P224 keys cannot sign in this stand-in provider: WebCrypto has no P-224 curve");
  }
  return failures;
}

function isP224(pem: unknown): boolean {
  try {
    return parsePrivateKeyPem(String(pem)).key.asymmetricKeyDetails?.namedCurve === "secp224r1";
  } catch {
    return false; // a key that does not parse fails at create, as terraform's does
  }
}

/**
 * Check: the inputs with the schema's defaults applied (secret wrappers kept, so the engine keeps them
 * secret) and every validation failure.
 */
export function check(token: string, news: Props): { inputs: Props; failures: CheckFailure[] } {
  const inputs: Props = { ...news };
  for (const rule of rulesFor(token).inputs) {
    if (rule.default !== undefined && (inputs[rule.input] === undefined || inputs[rule.input] === null)) {
      inputs[rule.input] = rule.default;
    }
  }
  return { inputs, failures: failuresFor(token, reveal(inputs) as Props) };
}

/** `modifyPlanIfCertificateReadyForRenewal` and its Read twin (common_cert.go). */
function renewalDue(validityEndTime: unknown, earlyRenewalHours: unknown, now: Date): boolean {
  if (typeof validityEndTime !== "string" || typeof earlyRenewalHours !== "number") return false;
  return Date.parse(validityEndTime) - earlyRenewalHours * 3_600_000 <= now.getTime();
}

/** The `ReadyForRenewal` plan modifier (attribute_plan_modifier_bool/default_value.go). */
function plannedReadyForRenewal(inputs: Props): boolean {
  const validity = inputs.validityPeriodHours as number;
  return validity === 0 || (inputs.earlyRenewalHours as number) >= validity;
}

/**
 * Diff: which inputs changed, and which of those replace the resource (replace-rules.ts); a certificate
 * ready for renewal is replaced on `readyForRenewal`.
 * @param olds the resource's state (its outputs, which hold its inputs too).
 * @param news the checked new inputs.
 */
export function diff(token: string, olds: Props, news: Props, now = new Date()): DiffResult {
  const rules = rulesFor(token);
  const [before, after] = [reveal(olds) as Props, reveal(news) as Props];
  const changed: string[] = [];
  const replaces: string[] = [];
  for (const { input, rule } of rules.inputs) {
    if (rule === "write-only" || same(before[input], after[input])) continue;
    changed.push(input);
    if (rule === "replace" || (rule === "replace-if-state-pem" && PEM_STRING.test(String(before[input])))) {
      replaces.push(input);
    }
  }
  if (rules.renews && renewalDue(before.validityEndTime, after.earlyRenewalHours, now)) {
    replaces.push("readyForRenewal");
  }
  return { changes: changed.length > 0 || replaces.length > 0, replaces, deleteBeforeReplace: false };
}

/** The state of a resource: its stored inputs (not write-only ones) and outputs, secrets wrapped. */
function state(token: string, inputs: Props, outputs: Props): Props {
  const rules = rulesFor(token);
  const stored: Props = { ...inputs, ...outputs };
  for (const { input, rule } of rules.inputs) if (rule === "write-only") delete stored[input];
  for (const name of rules.secretOutputs) if (stored[name] !== undefined) stored[name] = secret(stored[name]);
  return stored;
}

function template(inputs: Props): CertificateTemplate {
  return {
    validityPeriodHours: inputs.validityPeriodHours as number,
    allowedUses: inputs.allowedUses as string[],
    isCaCertificate: inputs.isCaCertificate === true,
    maxPathLength: inputs.maxPathLength as number | undefined,
    setSubjectKeyId: inputs.setSubjectKeyId === true,
    setAuthorityKeyId: inputs.setAuthorityKeyId === true,
  };
}

/** Create: makes the key, request or certificate. @returns its id and state. */
export async function create(
  token: string,
  news: Props,
  now = new Date(),
): Promise<{ id: string; outs: Props }> {
  rulesFor(token); // refuses a type this provider does not serve
  const inputs = reveal(news) as Props;
  const keyPem = (name: string) => String(inputs[name] ?? inputs[`${name}Wo`]);
  const subject = (inputs.subject ?? {}) as Subject;
  const altNames = inputs as AltNames;
  if (token === PRIVATE_KEY) {
    const { id, ...outputs } = await generatePrivateKey(
      inputs.algorithm as Algorithm,
      inputs.rsaBits as number,
      inputs.ecdsaCurve as EcdsaCurve,
    );
    return { id, outs: state(token, news, outputs) };
  }
  if (token === CERT_REQUEST) {
    const { id, ...outputs } = await certificateRequest(keyPem("privateKeyPem"), subject, altNames);
    return { id, outs: state(token, news, outputs) };
  }
  const { id, ...outputs } =
    token === SELF_SIGNED_CERT
      ? await selfSignedCertificate(keyPem("privateKeyPem"), subject, altNames, template(inputs), now)
      : await locallySignedCertificate(
          String(inputs.certRequestPem),
          String(inputs.caCertPem),
          keyPem("caPrivateKeyPem"),
          template(inputs),
          now,
        );
  return { id, outs: state(token, news, { ...outputs, readyForRenewal: plannedReadyForRenewal(inputs) }) };
}

/** Update: stores inputs that change in place (`updatedUsingPlan`, common.go). @returns the new state. */
export function update(token: string, olds: Props, news: Props): Props {
  const outs: Props = { ...olds };
  for (const { input } of rulesFor(token).inputs) delete outs[input];
  const renewal = rulesFor(token).renews
    ? { readyForRenewal: plannedReadyForRenewal(reveal(news) as Props) }
    : {};
  return state(token, news, { ...outs, ...renewal });
}

/** Read: the state, with a due certificate marked ready for renewal. */
export function read(token: string, props: Props, now = new Date()): Props {
  const current = reveal(props) as Props;
  const due = rulesFor(token).renews && renewalDue(current.validityEndTime, current.earlyRenewalHours, now);
  return due ? { ...props, readyForRenewal: true } : props;
}
