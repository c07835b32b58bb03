/** Wire-format markers of Pulumi's property serialization (sdk/nodejs/runtime/rpc.ts). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/**
 * A resource's inputs as the cluster would receive them: the mock runtime hands secrets over still
 * wrapped in their marker, the provider sends their plain values to the API.
 */
export function revealSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revealSecrets);
  if (value === null || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  if (obj[SIG_KEY] === SECRET_SIG) return revealSecrets(obj.value);
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, revealSecrets(v)]));
}
