/**
 * An operation stopped part-way through a step, on the real engine: the operation runs, and at a
 * generated moment after the step began (the k-th step event of the engine since the step's
 * resource-pre event, then a delay) either every process of the engine is killed at once (the driver,
 * the CLI, every plugin: ../../local-cluster/process-tree.ts), or the API server starts refusing the
 * engine's writes, as an admission webhook, a revoked credential or an expired token refuses them, until
 * the operation has failed. The engine runs as the local cluster's `deployer` user, so an admission
 * policy that matches that user refuses the engine alone: the controllers and kwok go on.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import fc from "fast-check";
import type { EngineStack, OperationResult, StepEvent } from "../../local-cluster/pulumi";
import type { LocalCluster } from "../../local-cluster/deploy";
import { waitFor } from "../../local-cluster/api";
import { type InterruptedStep, beginsAt } from "../interruption-steps";

export interface Interruption {
  readonly kind: "kill" | "refuse writes";
  /** Engine step events (a step beginning or ending) to let pass after the step began. */
  readonly afterEvents: number;
  /** Then milliseconds to wait. */
  readonly delayMs: number;
}

/**
 * The moment: up to three step events, then up to 4 s, half the time under half a second (the takeover
 * and the Typha retirement take about a second, the Felix cleanup a pod start, the probe several).
 */
export const interruptions: fc.Arbitrary<Interruption> = fc.record({
  kind: fc.constantFrom("kill", "refuse writes"),
  afterEvents: fc.integer({ min: 0, max: 3 }),
  delayMs: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 4000 })),
});

/** What happened to the interrupted operation. */
export interface Interrupted {
  /** The URN of the step's resource, once it began. */
  readonly began?: string;
  /** Whether the step's resource had ended (its resource-outputs event) when the interruption came. */
  readonly stepHadEnded: boolean;
  /** Seconds from the step's beginning to the interruption; undefined when it never came. */
  readonly after?: number;
  /** The operation's result; "killed" when the engine was killed. */
  readonly result: OperationResult | "killed";
  readonly seconds: number;
}

const POLICY = "eks-calico-test-refuse-the-engine";

/** An admission policy that refuses every write of the engine's user, and its binding. */
function refusalObjects() {
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: POLICY },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ["*"],
              apiVersions: ["*"],
              operations: ["CREATE", "UPDATE", "DELETE"],
              // Every resource and subresource (the API refuses "*" beside "*/*").
              resources: ["*/*"],
            },
          ],
        },
        matchConditions: [{ name: "the-engine", expression: "request.userInfo.username == 'deployer'" }],
        validations: [
          { expression: "false", message: "the cluster refuses the engine's writes (a test's failure)" },
        ],
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: POLICY },
      spec: { policyName: POLICY, validationActions: ["Deny"] },
    },
  ];
}

/** kubectl as the engine's user. */
function asDeployer(cluster: LocalCluster, args: string[], input?: string) {
  const run = spawnSync(path.join(cluster.bin, "kubectl"), args, {
    input,
    encoding: "utf8",
    env: { ...process.env, KUBECONFIG: cluster.state.deployerKubeconfig },
    timeout: 60_000,
  });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`.trim() };
}

/** A write the engine's user might make, tried without effect (a server-side dry run runs admission). */
function deployerCanWrite(cluster: LocalCluster): boolean {
  const probe = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "write-probe", namespace: "default" },
  };
  return asDeployer(cluster, ["create", "--dry-run=server", "-f", "-"], JSON.stringify(probe)).ok;
}

/** From now on the API server refuses the engine's writes; resolves once it does. */
export async function refuseEngineWrites(cluster: LocalCluster): Promise<void> {
  const applied = cluster.kubectl(
    ["apply", "-f", "-"],
    refusalObjects()
      .map((o) => JSON.stringify(o))
      .join("\n"),
  );
  if (!applied.ok) throw new Error(`the refusal policy: ${applied.output}`);
  await waitFor(
    "the engine's writes to be refused",
    () => Promise.resolve(deployerCanWrite(cluster) ? undefined : true),
    30_000,
    200,
  );
}

/** The API server accepts the engine's writes again; resolves once it does. */
export async function allowEngineWrites(cluster: LocalCluster): Promise<void> {
  for (const kind of ["validatingadmissionpolicybinding", "validatingadmissionpolicy"]) {
    cluster.kubectl(["delete", kind, POLICY, "--ignore-not-found"]);
  }
  await waitFor(
    "the engine's writes to be accepted",
    () => Promise.resolve(deployerCanWrite(cluster) ? true : undefined),
    30_000,
    200,
  );
}

/** Whether `event` is where `step` begins. */
function beginsStep(step: InterruptedStep, event: StepEvent): boolean {
  return event.event === "pre" && beginsAt(step, event.urn, event.op);
}

/**
 * Runs `operation` and interrupts it as `interruption` says once `step` began. The engine's writes are
 * accepted again before this returns; a killed engine's lock is left for the caller (`pulumi cancel`).
 */
export async function runInterrupted(
  engine: EngineStack,
  cluster: LocalCluster,
  operation: "up" | "destroy",
  step: InterruptedStep,
  interruption: Interruption,
): Promise<Interrupted> {
  const started = Date.now();
  let began: { urn: string; at: number } | undefined;
  let seen = 0;
  let stepEnded = false;
  let fired: { at: number; stepHadEnded: boolean } | undefined;
  let firing: Promise<void> | undefined;
  const fire = () => {
    if (firing !== undefined) return;
    firing = new Promise<void>((resolve) => setTimeout(resolve, interruption.delayMs)).then(async () => {
      if (interruption.kind === "kill") running.kill();
      else await refuseEngineWrites(cluster);
      // The moment it took effect: at once for a kill, once the API server refuses for a refusal.
      fired = { at: Date.now(), stepHadEnded: stepEnded };
    });
    // Awaited once the operation ends; until then a failure here must not count as unhandled.
    firing.catch(() => undefined);
  };
  const running: ReturnType<EngineStack["start"]> = engine.start(operation, {
    onStep: (event) => {
      if (began === undefined) {
        if (!beginsStep(step, event)) return;
        began = { urn: event.urn, at: Date.now() };
      } else {
        seen += 1;
        if (event.event === "outputs" && event.urn === began.urn) stepEnded = true;
      }
      if (seen >= interruption.afterEvents) fire();
    },
  });
  const result = await running.result;
  const ended = Date.now();
  await firing;
  if (interruption.kind === "refuse writes" && firing !== undefined) await allowEngineWrites(cluster);
  return {
    began: began?.urn,
    stepHadEnded: fired?.stepHadEnded ?? true,
    after:
      fired === undefined || began === undefined || fired.at > ended
        ? undefined
        : (fired.at - began.at) / 1000,
    result,
    seconds: Math.round((Date.now() - started) / 1000),
  };
}

/** A line saying how the interruption went. */
export function describeInterrupted(interruption: Interruption, what: Interrupted): string {
  if (what.began === undefined) return "the step never began";
  if (what.after === undefined) return `the operation ended before the interruption (${what.seconds} s)`;
  const when = `${what.after.toFixed(1)} s after the step began, ${what.stepHadEnded ? "after it ended" : "while it ran"}`;
  const ended =
    what.result === "killed"
      ? "the engine was killed"
      : what.result.ok
        ? "the operation still succeeded"
        : `the operation failed (${(what.result.errors[0] ?? what.result.error ?? "").split("\n")[0].slice(0, 160)})`;
  return `${interruption.kind} ${when}: ${ended}`;
}
