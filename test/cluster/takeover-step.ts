/**
 * The plan's takeover step (components/calico/takeover) run against a local cluster as `pulumi up` runs
 * it: the dynamic provider loaded from its serialized text, with the plan's inputs and the local
 * cluster's kubeconfig.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import type { StackEvaluation } from "../../offline/engine";
import {
  TAKEOVER_TYPE,
  type TakeoverInputs,
  type TakeoverOutcome,
  takeoverProvider,
} from "../../components/calico/takeover";

/** A dynamic provider as Pulumi's dynamic provider host loads it: from its serialized text. */
export async function loadedProvider(
  provider: pulumi.dynamic.ResourceProvider,
): Promise<pulumi.dynamic.ResourceProvider> {
  const serialized = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
  return (requireFromString(serialized.text) as { handler: () => pulumi.dynamic.ResourceProvider }).handler();
}

/** The takeover's provider as Pulumi's dynamic provider host loads it. */
export function loadedTakeoverProvider(): Promise<pulumi.dynamic.ResourceProvider> {
  return loadedProvider(takeoverProvider);
}

/** Creates the plan's takeover step on the cluster `kubeconfig` (text) reaches; returns what it did. */
export async function runTakeoverStep(
  evaluation: StackEvaluation,
  kubeconfig: string,
): Promise<TakeoverOutcome> {
  const takeover = evaluation.resources.find((r) => r.type === TAKEOVER_TYPE);
  assert.ok(takeover, "the plan has the takeover step");
  const provider = await loadedTakeoverProvider();
  const inputs = { ...(takeover.inputs as unknown as TakeoverInputs), kubeconfig, context: undefined };
  const created = await provider.create(inputs);
  const { results, schemas } = created.outs as TakeoverOutcome;
  return { results, schemas };
}
