/**
 * The tls provider, answered by the stand-in the real engine runs (tools/tls-provider/resources.ts): real
 * keys and certificates with terraform-provider-tls's defaults and checks, so tests can verify chains and
 * names with node's crypto. Every certificate is issued at one fixed instant, so validity dates (and the
 * pod annotations built from them) are the same from run to run; keys and signatures are random, so the
 * plan files show PEM blocks as placeholders (offline/plan.ts).
 */
import { check, create, reveal } from "../../tools/tls-provider/resources";

/** A resource's inputs as a provider receives them: secrets unwrapped (@pulumi/pulumi runtime/rpc.ts). */
export const revealSecrets = reveal;

/** When the offline tls provider issues certificates. */
export const SIMULATED_ISSUE_TIME = new Date("2026-01-01T00:00:00Z");

/** Whether `type` is a tls resource the stand-in serves. */
export const isTlsResource = (type: string) => type.startsWith("tls:index/");

/** The outputs of the tls resource `type` created from `inputs` at `issued`, secrets unwrapped. */
export async function tlsOutputs(
  type: string,
  inputs: Record<string, unknown>,
  issued: Date,
): Promise<Record<string, unknown>> {
  const checked = check(type, inputs);
  if (checked.failures.length > 0) {
    const reasons = checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
    throw new Error(`tls provider: ${type} refused: ${reasons}`);
  }
  return reveal((await create(type, checked.inputs, issued)).outs) as Record<string, unknown>;
}
