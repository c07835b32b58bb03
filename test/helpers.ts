/** Shared test helpers over the offline engine: one evaluation per stack, cached, plus lookups. */
import * as assert from "node:assert/strict";
import { dependenciesOf, dependencyGraph } from "../offline/graph";
import {
  type EvaluateOptions,
  type ResourceRecord,
  type StackEvaluation,
  deployableStacks,
  evaluateStack,
  loadStackConfig,
} from "../offline/engine";
import { diffDocuments } from "../offline/diff";
import { resourcesDocument } from "../offline/plan";

/**
 * The stacks every per-stack test runs on: each Pulumi.<stack>.yaml but the examples (which have tests of
 * their own), read from the files, so a new stack file is planned and tested like the others.
 */
export const STACKS: readonly string[] = deployableStacks();

const cache = new Map<string, Promise<StackEvaluation>>();

/** The stack evaluated with its own config file; evaluated once per test run. */
export function evaluated(stack: string): Promise<StackEvaluation> {
  let evaluation = cache.get(stack);
  if (evaluation === undefined) {
    evaluation = evaluateStack(stack);
    cache.set(stack, evaluation);
  }
  return evaluation;
}

/**
 * What the offline diff plans when a deployed `stack` takes `config` on top of its file, the probe's
 * re-run left out: the steps of resources that change, and the headings of those added and removed.
 */
export async function switchedOn(stack: string, config: EvaluateOptions["config"]) {
  const before = resourcesDocument(await evaluateStack(stack, {}));
  const diff = diffDocuments(before, resourcesDocument(await evaluateStack(stack, { config })));
  return {
    steps: diff.changed
      .filter((r) => r.op !== "same" && !/probe/.test(r.heading))
      .map((r) => [r.heading, r.op]),
    added: diff.added.map((r) => r.heading),
    removed: diff.removed.map((r) => r.heading),
  };
}

/** The stack evaluated with config overrides or a cluster simulation (not cached). */
export function evaluatedWith(stack: string, options: EvaluateOptions): Promise<StackEvaluation> {
  return evaluateStack(stack, options);
}

const operatorCache = new Map<string, Promise<StackEvaluation>>();

/**
 * The stack in operator install mode with the API server, Goldmane and Whisker, on top of its own Calico
 * settings; evaluated once per test run.
 */
export function evaluatedWithOperator(stack: string): Promise<StackEvaluation> {
  let evaluation = operatorCache.get(stack);
  if (evaluation === undefined) {
    const calico = {
      ...stackValue<object>(stack, "calico"),
      installer: "operator",
      apiServer: true,
      observability: true,
    };
    evaluation = evaluateStack(stack, { config: { "eks-calico:calico": calico } });
    operatorCache.set(stack, evaluation);
  }
  return evaluation;
}

export function ofType(evaluation: StackEvaluation, type: string): ResourceRecord[] {
  return evaluation.resources.filter((r) => r.type === type);
}

/** Exactly one resource of `type` named `name`. */
export function one(evaluation: StackEvaluation, type: string, name?: string): ResourceRecord {
  const matches = ofType(evaluation, type).filter((r) => name === undefined || r.name === name);
  assert.equal(
    matches.length,
    1,
    `expected exactly one ${type}${name ? ` named ${name}` : ""}, found ${matches.length}`,
  );
  return matches[0];
}

/**
 * The provider an in-cluster object must be created through: `cluster` (the cluster's provider), except
 * Calico's CRDs, which go through the Calico component's `calico-crds` provider: checked here to reach the
 * same cluster (kubeconfig, context, identifier, settings) and to upsert without forcing
 * (components/cluster/provider.ts crdProvider).
 */
export function providerFor(
  evaluation: StackEvaluation,
  cluster: ResourceRecord,
  object: ResourceRecord,
): string {
  if (object.type !== "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition") return cluster.urn;
  const crds = one(evaluation, "pulumi:providers:kubernetes", "calico-crds");
  const { upsertExistingObjects, ...same } = crds.inputs;
  assert.equal(String(upsertExistingObjects), "true", "the CRDs' provider upserts");
  assert.deepEqual(
    same,
    cluster.inputs,
    "the CRDs' provider reaches the same cluster, with the same settings",
  );
  return crds.urn;
}

export function byUrn(evaluation: StackEvaluation, urn: string | undefined): ResourceRecord {
  const match = evaluation.resources.find((r) => r.urn === urn);
  assert.ok(match, `no resource with URN ${urn}`);
  return match;
}

/**
 * Whether `later` depends, directly or through others, on `earlier` (URNs or records): created after,
 * deleted before, by the graph Pulumi orders them by (offline/graph.ts).
 */
export function dependsOn(
  evaluation: StackEvaluation,
  later: string | ResourceRecord,
  earlier: string | ResourceRecord,
): boolean {
  const urnOf = (r: string | ResourceRecord) => (typeof r === "string" ? r : r.urn);
  byUrn(evaluation, urnOf(later));
  return dependenciesOf(dependencyGraph(evaluation), urnOf(later)).has(urnOf(earlier));
}

/** Reads a nested input by a dotted path (`metadata.name`). */
export function input<T = unknown>(resource: ResourceRecord, path: string): T {
  return path
    .split(".")
    .reduce<unknown>(
      (value, key) => (value as Record<string, unknown> | undefined)?.[key],
      resource.inputs,
    ) as T;
}

/** A decoded `eks-calico:<key>` value of a stack's config file, e.g. stackValue(stack, "nodeGroups"). */
export function stackValue<T>(stack: string, key: string): T {
  return JSON.parse(loadStackConfig(stack).values[`eks-calico:${key}`]) as T;
}

/** dev's node groups with the first one's desiredSize (and maxSize, which must not be below it) set. */
export function devNodeGroupsWithDesired(desiredSize: number): unknown[] {
  const groups = JSON.parse(loadStackConfig("dev").values["eks-calico:nodeGroups"]) as Record<
    string,
    number
  >[];
  return groups.map((g, i) =>
    i === 0 ? { ...g, desiredSize, maxSize: Math.max(g.maxSize, desiredSize) } : g,
  );
}

/**
 * A kubeconfig whose server is not there: a dynamic provider run against it fails reaching it. Port 2, as
 * fetch refuses the "bad ports" of the Fetch standard (port 9 among them) before connecting.
 */
export const UNREACHABLE_KUBECONFIG = [
  "apiVersion: v1",
  "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:2', insecure-skip-tls-verify: true}}]",
  "users: [{name: u, user: {token: t}}]",
  "contexts: [{name: a, context: {cluster: c, user: u}}]",
  "current-context: a",
].join("\n");

/**
 * A refusal (stacks/problems.ts formatProblems) with its wrapped lines joined again: each problem, each
 * reason under it, each hint and each step on one line, as before the text was wrapped to its width.
 */
export function unwrapped(message: string): string {
  return message.replace(/\n(?! {2}- | {6}- | {6}hint: | {8}\(\d+\) ) +/g, " ");
}

/**
 * What `run` logs with pulumi.log.warn, by the text of each warning. Under the mock runtime no engine takes
 * the log: the SDK writes it to console.warn as "warning: [runtime] <text>" (sdk/nodejs/log/index.ts).
 */
export async function withWarnings<T>(run: () => Promise<T>): Promise<{ result: T; warnings: string[] }> {
  const warnings: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) =>
    void warnings.push(
      args
        .map(String)
        .join(" ")
        .replace(/^warning: \[runtime\] /, ""),
    );
  try {
    return { result: await run(), warnings };
  } finally {
    console.warn = original;
  }
}
