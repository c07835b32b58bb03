/**
 * Every interrupted `up` converges on the next one, on the real engine: for each step of an update that
 * changes the cluster (test/interruption-steps.ts, a table held to the program offline), a generated case
 * (the step's configs, an interruption kind and its moment: ./interruption.ts) stops the operation that
 * runs the step part-way, by killing every process of the engine or by the API server refusing the
 * engine's writes. Then `up` with the same config (after a killed engine, `pulumi cancel` first, as the
 * engine asks) must either reach the healthy state, judged from the cluster (./convergence.ts), or refuse,
 * changing nothing and naming what it found; a refusal whose way forward is `pulumi refresh` is followed,
 * and the `up` after the refresh must reach the healthy state. While it runs, no two installs may run at
 * once.
 *
 * One local cluster serves every case, reset to its baseline between them (./cluster-reset.ts). Each step
 * gets EKS_CALICO_INTERRUPT_SAMPLES cases (default 1), from the seed EKS_CALICO_PROPERTY_SEED (printed;
 * a new one each run): docs/testing.md.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import YAML from "yaml";
import { CALICO_TYPHA } from "../../components/calico/names";
import { LocalCluster } from "../../local-cluster/deploy";
import {
  EngineStack,
  KUBECONFIG_STACK,
  type OperationResult,
  engineOverrides,
} from "../../local-cluster/pulumi";
import { parseManifest } from "../../offline/adoption/manifest";
import { evaluateStack } from "../../offline/engine";
import {
  INTERRUPTED_STEPS,
  type CalicoSettings,
  type InterruptedStep,
  type Scenario,
} from "../interruption-steps";
import { interruptionSamples, propertyRun } from "../property-runs";
import { ClusterBaseline } from "./cluster-reset";
import { namedIn, notInstalled, notRemoved, specChanges, specs } from "./convergence";
import { type Interruption, describeInterrupted, interruptions, runInterrupted } from "./interruption";
import { asStoredToday } from "./old-manifest";
import { allAccepted } from "./typha-watch";

const FIXTURES = path.join(__dirname, "..", "fixtures", "adopt");

const calicoConfig = (calico: CalicoSettings) => ({ "eks-calico:calico": calico });

/** The URN of a Kubernetes object of the operator's install (a child of its component, at any depth). */
const OPERATOR_OBJECT = /eks-calico:calico:Operator\$(?:[^:]+:[^:]+:[^$]+\$)*kubernetes:/;

interface Context {
  cluster: LocalCluster;
  baseline: ClusterBaseline;
  dir: string;
}

/** Applies an old manifest with kubectl as a cluster stores it today, and waits for its Felixes on its Typha. */
async function applyManifest(c: Context, fixture: string): Promise<void> {
  const manifest = parseManifest(fs.readFileSync(path.join(FIXTURES, fixture), "utf8"), fixture);
  for (const object of manifest.map(asStoredToday)) {
    const applied = c.cluster.kubectl(["apply", "-f", "-"], YAML.stringify(object));
    assert.ok(applied.ok, `${fixture}: ${applied.output}`);
  }
  c.cluster.kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"]);
  await allAccepted(
    c.cluster,
    CALICO_TYPHA,
    c.cluster.state.nodes,
    `${fixture}'s calico-node pods on its Typha`,
  );
}

/** Namespaces a case's objects live in. */
function namespacesOf(scenario: Scenario): string[] {
  const of = (s: CalicoSettings | undefined) =>
    s === undefined
      ? []
      : [
          s.installer === "operator"
            ? "calico-system"
            : typeof s.namespace === "string"
              ? s.namespace
              : "kube-system",
        ];
  return [
    ...new Set([
      "kube-system",
      ...of(scenario.deployed),
      ...of(scenario.interrupted.calico),
      ...of(scenario.next),
    ]),
  ];
}

/** The namespaces of the manifest install's calico-node DaemonSets (the operator's is in calico-system). */
async function manifestCalicoNodes(c: Context): Promise<string[]> {
  const nodes = await c.cluster.api.get<{ items: { metadata: { namespace: string } }[] }>(
    `/apis/apps/v1/daemonsets?fieldSelector=${encodeURIComponent("metadata.name=calico-node")}`,
  );
  return nodes.items.map((d) => d.metadata.namespace).filter((ns) => ns !== "calico-system");
}

/**
 * Every calico-node DaemonSet and the Tigera operator, read once a second while the next `up` runs: two
 * installs at once (calico-node in two namespaces, or the operator beside a manifest calico-node) stop it.
 */
function oneInstallAtATime(c: Context, stop: (why: string) => void) {
  let done = false;
  const watching = (async () => {
    while (!done) {
      const manifest = await manifestCalicoNodes(c);
      const operator = await c.cluster.api.get<{ items: unknown[] }>(
        `/apis/apps/v1/deployments?fieldSelector=${encodeURIComponent("metadata.name=tigera-operator")}`,
      );
      if (manifest.length > 1 || (manifest.length === 1 && operator.items.length > 0)) {
        stop(
          `two installs at once: calico-node in ${manifest.join(" and ")}${operator.items.length > 0 ? ", and the Tigera operator" : ""}`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return { end: async () => ((done = true), await watching) };
}

/** What an `up` changed, in the offline diff's words: `create <type> <name>`, ... or "nothing". */
function did(result: OperationResult): string {
  const changes = result.steps
    .filter((s) => s.op !== "same" && s.op !== "read")
    .map((s) => `${s.op} ${s.type.split(":").pop() ?? s.type} ${s.urn.split("::").pop() ?? ""}`);
  return `the next up ${changes.length === 0 ? "changed nothing" : `did ${[...new Set(changes)].join(", ")}`}`;
}

/** Runs one case; returns the verdict line, or throws with what the next `up` did. */
async function runCase(
  c: Context,
  step: InterruptedStep,
  scenario: Scenario,
  interruption: Interruption,
  label: string,
) {
  await c.baseline.reset();
  let logs = "";
  const engine = new EngineStack(
    {
      stack: "local",
      dir: path.join(c.dir, label.replace(/\W+/g, "-")),
      bin: c.cluster.bin,
      kubeconfig: c.cluster.state.deployerKubeconfig,
      context: "local",
      nodes: c.cluster.state.nodes,
    },
    (text) => (logs = (logs + text).slice(-200_000)),
  );
  const failed = (what: string, result: OperationResult) =>
    `${what} failed:\n${[...result.errors, result.error ?? ""].join("\n").slice(-3000)}`;

  if (scenario.manifest !== undefined) await applyManifest(c, scenario.manifest);
  if (scenario.deployed !== undefined) {
    engine.configure(calicoConfig(scenario.deployed));
    const deployed = await engine.run("up");
    assert.ok(deployed.ok, failed("the deployment before the step", deployed));
  }

  engine.configure(calicoConfig(scenario.interrupted.calico));
  const interrupted = await runInterrupted(
    engine,
    c.cluster,
    scenario.interrupted.operation,
    step,
    interruption,
  );
  let how = describeInterrupted(interruption, interrupted);
  console.log(`      ${label}: ${scenario.interrupted.operation}: ${how}`);
  assert.ok(
    interrupted.began !== undefined,
    `${label}: ${step.name} never began in ${scenario.interrupted.operation}`,
  );
  if (interrupted.result === "killed") {
    const cancel = await engine.run("cancel");
    assert.ok(cancel.ok, failed("pulumi cancel", cancel));
  }

  // The next `up`, with the same config.
  engine.configure(calicoConfig(scenario.next));
  const namespaces = namespacesOf(scenario);
  const before = await specs(c.cluster, namespaces);
  logs = "";
  let stopped: string | undefined;
  let operatorBegan = false;
  const next = engine.start("up", {
    onStep: (event) => {
      // The operator's install cannot finish here (kwok runs no operator): once it begins, stop. It begins
      // with its first Kubernetes object, not its component or install check, which may still refuse.
      if (event.event === "pre" && OPERATOR_OBJECT.test(event.urn) && !operatorBegan) {
        operatorBegan = true;
        next.kill();
      }
    },
  });
  const watch = oneInstallAtATime(c, (why) => {
    stopped = why;
    next.kill();
  });
  let result = await next.result;
  await watch.end();
  const pending = /with (\d+) pending operations/.exec(logs)?.[1];
  const warned = pending === undefined ? "" : ` (the engine warned of ${pending} pending operations)`;
  assert.equal(stopped, undefined, `${label}: the next up ran ${stopped}`);
  if (result === "killed") {
    assert.ok(operatorBegan);
    const running = await manifestCalicoNodes(c);
    assert.deepEqual(
      running,
      [],
      `${label}: the next up began installing the operator while calico-node ran in ${running.join(", ")}`,
    );
    return `${how}; the next up began installing the operator with no manifest calico-node left${warned} (the rest needs a running operator)`;
  }

  if (!result.ok) {
    // A refusal: nothing changed, and it names what it found.
    const changed = specChanges(before, await specs(c.cluster, namespaces));
    const objects = [...before.keys()].map((k) => k.split(" ")[1]);
    const pods = (
      await c.cluster.api.get<{ items: { metadata: { name: string } }[] }>("/api/v1/pods")
    ).items.map((p) => p.metadata.name);
    const { text, named } = namedIn(result, [...objects, ...pods]);
    assert.deepEqual(
      changed,
      [],
      `${label}: the next up failed after changing ${changed.join(", ")}:\n${text.slice(-3000)}`,
    );
    assert.ok(
      named.length > 0,
      `${label}: the next up failed naming nothing the cluster holds:\n${text.slice(-3000)}`,
    );
    const why = /(calico[\w.]*: .*|error: .*)/.exec(text)?.[1].slice(0, 160) ?? "";
    const refused = `${how}; the next up refused${warned}, naming ${named.slice(0, 3).join(", ")} ("${why}")`;
    if (!text.includes("run `pulumi refresh`, which drops them from the state, then `pulumi up`"))
      return refused;
    // The way forward it names must get there: a refresh, then an up that reaches the healthy state.
    const refreshed = await engine.run("refresh");
    assert.ok(refreshed.ok, failed(`${label}: pulumi refresh after "${refused}"`, refreshed));
    result = await engine.run("up");
    assert.ok(result.ok, failed(`${label}: pulumi up after the refresh of "${refused}"`, result));
    how = `${refused}; then pulumi refresh`;
  }

  const installer = (result.outputs.calico as { installer?: string } | undefined)?.installer;
  if (installer === "none") {
    const problems = await notRemoved(c.cluster, result);
    if (problems.length > 0) assert.fail(`${label}: ${did(result)}, and then ${problems.join("; ")}`);
    return `${how}; the next up finished the removal${warned}`;
  }
  const plan = await evaluateStack(KUBECONFIG_STACK, {
    config: engineOverrides({
      kubeconfig: c.cluster.state.deployerKubeconfig,
      context: "local",
      nodes: c.cluster.state.nodes,
      config: calicoConfig(scenario.next),
    }),
  });
  const problems = await notInstalled(c.cluster, plan, scenario.next, result);
  if (problems.length > 0) assert.fail(`${label}: ${did(result)}, and then ${problems.join("; ")}`);
  const again = await engine.run("preview", { expectNoChanges: true });
  assert.ok(again.ok, failed(`${label}: pulumi preview --expect-no-changes after the next up`, again));
  return `${how}; the next up reached the healthy state${warned}`;
}

describe("Every interrupted up converges on the next one, on the real engine", function () {
  const { seed } = propertyRun(0);
  const perStep = interruptionSamples();
  const cases = INTERRUPTED_STEPS.flatMap((step, index) =>
    fc
      .sample(fc.record({ scenario: step.scenarios, interruption: interruptions }), {
        seed: seed + index,
        numRuns: perStep,
      })
      .map((generated, n) => ({ step, ...generated, n })),
  );
  this.timeout((cases.length * 12 + 5) * 60_000);
  const verdicts: string[] = [];
  const context: Partial<Context> = {};

  before(async function () {
    console.log(
      `      ${INTERRUPTED_STEPS.length} steps, ${cases.length} cases, seed ${seed} (EKS_CALICO_PROPERTY_SEED replays it)`,
    );
    const dir = path.join(os.tmpdir(), `eks-calico-interrupted-${process.pid}`);
    context.dir = dir;
    context.cluster = await LocalCluster.start("dev", { podStartSeconds: 3, dir: path.join(dir, "cluster") });
    context.baseline = ClusterBaseline.of(context.cluster);
  });

  after(async function () {
    await context.cluster?.stop();
    console.log(
      `      interruption property, seed ${seed}:\n${verdicts.map((v) => `        ${v}`).join("\n")}`,
    );
  });

  for (const { step, scenario, interruption, n } of cases) {
    const label = `${step.name} ${n + 1}/${perStep}`;
    it(`${label}: ${interruption.kind} after ${interruption.afterEvents} events + ${interruption.delayMs} ms of ${scenario.interrupted.operation} ${JSON.stringify(scenario.interrupted.calico)}${scenario.manifest === undefined ? "" : ` over ${scenario.manifest}`}`, async function () {
      try {
        const verdict = await runCase(context as Context, step, scenario, interruption, label);
        verdicts.push(`${label}: ${verdict}`);
      } catch (error) {
        verdicts.push(`${label}: FAILED: ${(error as Error).message.split("\n").slice(0, 4).join(" / ")}`);
        throw error;
      }
    });
  }
});
