/**
 * The stack outputs as `pulumi preview` shows them: serialized properties turned into plain JSON, an
 * unknown value as KNOWN_AFTER_UP, and the outputs a preview knows only field by field taken from the
 * components that register them.
 */
import {
  specialResourceSig as RESOURCE_SIG,
  specialSecretSig as SECRET_SIG,
  specialSigKey as SIG_KEY,
  unknownValue as UNKNOWN,
} from "@pulumi/pulumi/runtime/rpc";
import { CALICO_COMPONENT_TYPES, KNOWN_AFTER_UP } from "./plan";
import { type SecretLeaf, holdsSecret } from "../stacks/secrets";

/** Converts a serialized property into plain JSON; reports whether a secret was inside. */
function plain(value: unknown): { value: unknown; secret: boolean } {
  if (value === UNKNOWN) return { value: KNOWN_AFTER_UP, secret: false };
  if (Array.isArray(value)) {
    const items = value.map(plain);
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (value === null || typeof value !== "object") return { value, secret: false };
  const obj = value as Record<string, unknown>;
  if (obj[SIG_KEY] === SECRET_SIG) return { value: plain(obj.value).value, secret: true };
  if (obj[SIG_KEY] === RESOURCE_SIG) return { value: obj.urn, secret: false };
  const entries = Object.entries(obj).map(([k, v]) => [k, plain(v)] as const);
  return {
    value: Object.fromEntries(entries.map(([k, v]) => [k, v.value])),
    secret: entries.some(([, v]) => v.secret),
  };
}

export function plainObject(value: unknown): { values: Record<string, unknown>; secretKeys: string[] } {
  const values: Record<string, unknown> = {};
  const secretKeys: string[] = [];
  for (const [key, raw] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    const converted = plain(raw);
    values[key] = converted.value;
    if (converted.secret) secretKeys.push(key);
  }
  return { values, secretKeys: secretKeys.sort() };
}

export interface ComponentOutputs {
  readonly type: string;
  readonly values: Record<string, unknown>;
  readonly secretKeys: string[];
}

/**
 * The stack outputs, field by field where a preview knows them only as a whole. The stack marks its
 * outputs secret only once they resolve (stacks/secrets.ts), so a preview knows an output only once every
 * field of it is known; the components register the same values field by field, and those are shown: the
 * Calico component's own outputs for `calico`, a component's output of the same name for the others
 * (`vpcCni`), secret when they hold a secret config value, as the stack's own rule makes them
 * (stacks/secrets.ts). One count is claimed though a preview does not know it: calico-node pods desired,
 * one on every node of the stack's managed node groups (calico-node tolerates every taint, and those
 * groups run Linux on EC2, never Fargate). On a cluster made elsewhere, whose nodes the stack does not
 * configure, it is known after up.
 */
export function byField(
  stack: { values: Record<string, unknown>; secretKeys: string[] },
  components: readonly ComponentOutputs[],
  nodes: number | undefined,
  leaves: readonly SecretLeaf[],
): { outputs: Record<string, unknown>; secretOutputs: string[] } {
  const outputs = { ...stack.values };
  const secret = new Set(stack.secretKeys);
  for (const [key, value] of Object.entries(outputs)) {
    if (value !== KNOWN_AFTER_UP) continue;
    const calico =
      key === "calico" ? components.find((c) => CALICO_COMPONENT_TYPES.includes(c.type)) : undefined;
    const owner = components.find((c) => isObject(c.values[key]));
    if (calico !== undefined) {
      const fields = calico.values;
      const desired = fields.desired === KNOWN_AFTER_UP && nodes !== undefined ? { desired: nodes } : {};
      // The offline world issues certificates at a fixed instant (world/tls.ts); `pulumi up` issues them
      // when it runs, and a deployed stack has them in its state.
      const expiry =
        typeof fields.typhaCertificatesExpire === "string" ? { typhaCertificatesExpire: KNOWN_AFTER_UP } : {};
      outputs[key] = { ...fields, ...desired, ...expiry };
      if (calico.secretKeys.length > 0) secret.add(key);
    } else if (owner !== undefined) {
      outputs[key] = owner.values[key];
      if (owner.secretKeys.includes(key)) secret.add(key);
    }
    if (holdsSecret(outputs[key], leaves)) secret.add(key);
  }
  return { outputs, secretOutputs: [...secret].sort() };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
