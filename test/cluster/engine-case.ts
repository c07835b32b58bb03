/**
 * A case of the real engine on a local cluster: a cluster shaped like a stack's node groups, and this
 * program run on it by the real Pulumi CLI and Kubernetes provider (local-cluster/pulumi/) as a
 * `cluster.kubeconfig` stack with that stack's Calico settings. Every `up` is previewed first and the
 * engine's planned steps compared with the offline diff (`npm start -- --diff`) of the same config; it
 * runs with the policy pack; a preview with `--expect-no-changes` follows, so a perpetual diff fails; and
 * the `calico` outputs are compared with what the offline plan claims (the rest it shows as known after
 * up) and with what the controllers report.
 */
import * as assert from "node:assert/strict";
import * as os from "node:os";
import * as path from "node:path";
import {
  EngineStack,
  type EngineStep,
  type OperationResult,
  engineOverrides,
  KUBECONFIG_STACK,
} from "../../local-cluster/pulumi";
import { COUNT_KEYS, type CalicoCounts, LocalCluster } from "../../local-cluster/deploy";
import {
  type ConfigOverrides,
  KNOWN_AFTER_UP,
  type StackEvaluation,
  evaluateStack,
} from "../../offline/engine";
import { diffDocuments, identityOf } from "../../offline/diff";
import { resourcesDocument } from "../../offline/plan";
import { compare } from "./agreement";
import { STANDARD_TYPHA } from "../../components/calico/names";

/** A planned change to one resource, in the words both sides share. */
type Change = "create" | "update" | "replace" | "delete";

/** The engine's step kinds as the offline diff names them; reads and unchanged resources are left out. */
const ENGINE_CHANGES: Readonly<Record<string, Change>> = {
  create: "create",
  update: "update",
  replace: "replace",
  "create-replacement": "replace",
  "delete-replaced": "replace",
  delete: "delete",
};

/**
 * A default provider: the engine makes one for each package whose resources name no provider
 * (`pulumi:providers:<package>::default[_<version>]`); the program registers none, so no plan has them.
 */
const DEFAULT_PROVIDER = /^pulumi:providers:[^:]+::default(_[\d_]+)?$/;

/** What the engine's steps change, by resource identity (type and name); default providers left out. */
export function engineChanges(steps: readonly EngineStep[]): Record<string, Change> {
  const changes: Record<string, Change> = {};
  for (const step of steps) {
    if (DEFAULT_PROVIDER.test(identityOf(step.urn))) continue;
    const change = ENGINE_CHANGES[step.op];
    if (change !== undefined) changes[identityOf(step.urn)] = change;
  }
  return sorted(changes);
}

/**
 * What the offline diff from `before` (nothing, for a first deployment) to `after` changes. A change it
 * cannot know ("unknown", or a step whose update the cluster decides) is left out: it does not claim
 * one, and `unknowns` lists it.
 */
export function offlineChanges(
  before: StackEvaluation | undefined,
  after: StackEvaluation,
): { changes: Record<string, Change>; unknowns: string[] } {
  const next = resourcesDocument(after);
  const old = before === undefined ? { ...next, resources: [], outputs: {} } : resourcesDocument(before);
  const diff = diffDocuments(old, next);
  const changes: Record<string, Change> = {};
  const unknowns: string[] = [];
  for (const resource of [...diff.added, ...diff.changed, ...diff.removed]) {
    if (resource.op === "unknown") unknowns.push(resource.identity);
    else if (resource.op !== "same") changes[resource.identity] = resource.op;
  }
  unknowns.push(...(diff.decidedInUp ?? []).map((step) => step.identity));
  return { changes: sorted(changes), unknowns };
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The `calico` output's counts. */
export function countsOf(outputs: Record<string, unknown>): CalicoCounts {
  const calico = (outputs.calico ?? {}) as Record<string, unknown>;
  return Object.fromEntries(COUNT_KEYS.map((k) => [k, calico[k]])) as unknown as CalicoCounts;
}

/**
 * What the offline plan claims of the `calico` output: every field it does not show as known after up,
 * with the real output's value of the same fields beside it; and the fields it leaves to `up`.
 */
export function calicoClaims(
  planned: Record<string, unknown>,
  real: Record<string, unknown>,
): { offline: Record<string, unknown>; real: Record<string, unknown>; afterUp: string[] } {
  const ofPlan = (planned.calico ?? {}) as Record<string, unknown>;
  const ofReal = (real.calico ?? {}) as Record<string, unknown>;
  const keys = Object.keys(ofPlan).sort();
  const claimed = keys.filter((k) => ofPlan[k] !== KNOWN_AFTER_UP);
  return {
    offline: Object.fromEntries(claimed.map((k) => [k, ofPlan[k]])),
    real: Object.fromEntries(claimed.map((k) => [k, ofReal[k]])),
    afterUp: keys.filter((k) => ofPlan[k] === KNOWN_AFTER_UP),
  };
}

/** Fails with the engine's own words unless the operation succeeded. */
export function assertSucceeded(result: OperationResult, what: string): void {
  assert.ok(result.ok, `${what} failed:\n${[...result.errors, result.error ?? ""].join("\n").slice(-4000)}`);
}

export interface EngineCaseOptions {
  /** The stack whose node groups the cluster's nodes copy, and whose Calico settings the stack takes. */
  readonly stack: string;
  readonly fargateNodes?: number;
  /** Config of `stack` the cluster's nodes copy (node groups), as `npm start --config` takes it. */
  readonly shape?: ConfigOverrides;
  /** Config of the stack's first `up`. */
  readonly config?: ConfigOverrides;
  /** A test program to run instead of index.ts (its operations through `engine.run`, not `up`). */
  readonly program?: string;
  /** Seconds a scheduled pod takes to become ready. */
  readonly podStartSeconds?: number;
  /** A node on which the Felix cleanup's pods stay Pending (local-cluster/stages.ts). */
  readonly cleanupHeldOn?: string;
}

export class EngineCase {
  /** The offline plan of what the stack last deployed. */
  private deployed: StackEvaluation | undefined;
  private config: ConfigOverrides;
  /** The last `up` failed part-way: what it left is known to the engine's state alone. */
  private interrupted = false;
  /** The steps of the last `pulumi preview` that `up` or `interruptedUp` ran first. */
  previewSteps: readonly EngineStep[] = [];

  private constructor(
    readonly label: string,
    readonly cluster: LocalCluster,
    readonly engine: EngineStack,
    private readonly options: EngineCaseOptions,
  ) {
    this.config = options.config ?? {};
  }

  static async start(label: string, options: EngineCaseOptions): Promise<EngineCase> {
    const dir = path.join(os.tmpdir(), `eks-calico-engine-${process.pid}-${label.replace(/\W+/g, "-")}`);
    const cluster = await LocalCluster.start(options.stack, {
      config: options.shape,
      fargateNodes: options.fargateNodes,
      podStartSeconds: options.podStartSeconds,
      cleanupHeldOn: options.cleanupHeldOn,
      dir: path.join(dir, "cluster"),
    });
    try {
      const engine = new EngineStack({
        stack: "local",
        dir: path.join(dir, "engine"),
        bin: cluster.bin,
        kubeconfig: cluster.state.kubeconfig,
        context: "local",
        nodes: cluster.state.nodes,
        minNodes: cluster.state.ec2Nodes,
        from: options.stack,
        config: options.config,
        program: options.program,
      });
      return new EngineCase(label, cluster, engine, options);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.cluster.stop();
  }

  /** The offline plan of this stack with `config`, the last deployment's outputs as its previous ones. */
  plan(config: ConfigOverrides = this.config): Promise<StackEvaluation> {
    return evaluateStack(KUBECONFIG_STACK, {
      config: engineOverrides({
        kubeconfig: this.cluster.state.kubeconfig,
        context: "local",
        nodes: this.cluster.state.nodes,
        minNodes: this.cluster.state.ec2Nodes,
        from: this.options.stack,
        config,
      }),
      ...(this.deployed === undefined ? {} : { previousOutputs: this.deployed.outputs }),
    });
  }

  /**
   * `pulumi preview`, then `pulumi up --policy-pack policy`, then (unless `settles` is false)
   * `pulumi preview --expect-no-changes`, with `config` on top of the last; the preview's steps and the
   * outputs compared with the offline plan.
   * `watch` runs beside `up`, told when it has finished.
   */
  async up(
    step: string,
    config: ConfigOverrides = {},
    watch?: (finished: () => boolean) => Promise<void>,
    /** False for the first update of a reinstall, whose next update installs again: no no-change preview. */
    settles = true,
  ): Promise<OperationResult> {
    const planned = await this.previewAgrees(step, config);
    let finished = false;
    const running = this.engine.run("up", { policyPack: true }).finally(() => (finished = true));
    const [up] = await Promise.all([running, watch?.(() => finished)]);
    assertSucceeded(up, `${this.label}, ${step}: pulumi up --policy-pack policy`);
    assert.deepEqual(
      up.policyViolations.filter((v) => v.enforcementLevel === "mandatory"),
      [],
      "no mandatory policy is violated",
    );
    this.deployed = planned;
    if (settles) {
      const again = await this.engine.run("preview", { expectNoChanges: true });
      assertSucceeded(again, `${this.label}, ${step}: pulumi preview --expect-no-changes after up`);
    }
    // What the plan claims only: what the cluster reports it shows as known after up.
    const claims = calicoClaims(planned.outputs, up.outputs);
    compare(
      `${this.label}, ${step}: the calico outputs the plan claims (known after up: ${claims.afterUp.join(", ") || "none"})`,
      claims.offline,
      claims.real,
      "engine",
    );
    return up;
  }

  /**
   * `pulumi preview` with `config` on top of the last, its steps compared with the offline diff from the
   * last deployment; after an interrupted `up` not compared (the offline plan cannot know which of its
   * steps the engine took), only required to succeed.
   */
  private async previewAgrees(step: string, config: ConfigOverrides): Promise<StackEvaluation> {
    this.config = { ...this.config, ...config };
    this.engine.configure(this.config);
    const planned = await this.plan();
    const preview = await this.engine.run("preview");
    assertSucceeded(preview, `${this.label}, ${step}: pulumi preview`);
    this.previewSteps = preview.steps;
    if (this.interrupted) {
      this.interrupted = false;
      return planned;
    }
    const offline = offlineChanges(this.deployed, planned);
    const real = engineChanges(preview.steps);
    // What the offline plan says it cannot know is not held against it.
    for (const identity of offline.unknowns) delete real[identity];
    compare(`${this.label}, ${step}: the preview's steps`, offline.changes, real, "engine");
    return planned;
  }

  /**
   * An `up` that must fail (`pulumi preview` first, compared as for `up`): its error, matched against
   * `expected`. The next `up` is not compared with the offline diff, only required to converge.
   */
  async interruptedUp(step: string, config: ConfigOverrides, expected: RegExp): Promise<OperationResult> {
    await this.previewAgrees(step, config);
    const up = await this.engine.run("up", { policyPack: true });
    assert.ok(!up.ok, `${this.label}, ${step}: pulumi up must fail`);
    const errors = [...up.errors, up.error ?? ""].join("\n");
    assert.match(errors, expected, `${this.label}, ${step}: pulumi up fails for the reason expected`);
    this.interrupted = true;
    return up;
  }

  /** `pulumi destroy`: afterwards nothing is deployed, so the next `up` plans every resource anew. */
  async destroy(step: string): Promise<OperationResult> {
    const destroyed = await this.engine.run("destroy");
    assertSucceeded(destroyed, `${this.label}, ${step}: pulumi destroy`);
    this.deployed = undefined;
    return destroyed;
  }

  /**
   * Drift detection reports only drift: with nothing changed outside Pulumi, `pulumi refresh
   * --preview-only --expect-no-changes` (what Pulumi Cloud's drift detection runs), `pulumi refresh
   * --expect-no-changes`, and the daily drift check's `pulumi preview --refresh --expect-no-changes`
   * (.github/workflows/drift.yml) all pass: the stack holds no read resource whose outputs change with
   * every update (docs/layout.md).
   */
  async refreshFindsNoDrift(step: string): Promise<void> {
    for (const [what, options] of [
      ["pulumi refresh --preview-only --expect-no-changes", { previewOnly: true }],
      ["pulumi refresh --expect-no-changes", {}],
    ] as const) {
      const refresh = await this.engine.run("refresh", { ...options, expectNoChanges: true });
      const changed = refresh.steps.concat(refresh.done).filter((s) => s.op !== "same" && s.op !== "refresh");
      assertSucceeded(
        refresh,
        `${this.label}, ${step}: ${what} (${changed.map((s) => identityOf(s.urn)).join(", ")})`,
      );
    }
    const drift = await this.engine.run("preview", { refresh: true, expectNoChanges: true });
    assertSucceeded(drift, `${this.label}, ${step}: pulumi preview --refresh --expect-no-changes`);
  }

  /**
   * A change made outside Pulumi to `identity` (`<type>::<name>`) is reported by both refreshes, and by
   * nothing else: the preview-only one first (it changes no state), then the one that records it.
   */
  async refreshFindsDrift(step: string, identity: string): Promise<void> {
    for (const [what, options] of [
      ["pulumi refresh --preview-only --expect-no-changes", { previewOnly: true }],
      ["pulumi refresh --expect-no-changes", {}],
    ] as const) {
      const refresh = await this.engine.run("refresh", { ...options, expectNoChanges: true });
      assert.ok(!refresh.ok, `${this.label}, ${step}: ${what} must fail on the change`);
      const changed = [
        ...new Set(
          refresh.steps
            .concat(refresh.done)
            .filter((s) => s.op === "update")
            .map((s) => identityOf(s.urn)),
        ),
      ];
      assert.deepEqual(changed, [identity], `${this.label}, ${step}: ${what} reports the change alone`);
    }
  }
  /**
   * The counts the controllers report once settled, compared with the stack's `calico` outputs; `typha` is
   * the Typha Deployment's name (TAKEOVER_TYPHA's while `calico.adopt` is on).
   */
  async kubectlAgrees(
    step: string,
    result: OperationResult,
    typha = STANDARD_TYPHA.name,
  ): Promise<CalicoCounts> {
    const namespace = String((result.outputs.calico as { namespace: string }).namespace);
    const counts = await this.cluster.settledCounts(namespace, undefined, typha);
    assert.deepEqual(countsOf(result.outputs), counts, `${this.label}, ${step}: outputs equal kubectl's`);
    return counts;
  }
}
