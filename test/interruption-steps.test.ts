/**
 * The interruption property's table of steps (test/interruption-steps.ts) held to the program, so that a
 * new step cannot be left out of it: every dynamic resource type a plan registers (each stack file's, a
 * sample of generated stacks', and the table's own configs') begins a row or is excluded with its reason;
 * each row's configs plan its step, by the offline diff of the update the property interrupts; and every
 * switch between installers is a row's, or refused before anything changes.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { INSTALLERS } from "../components/calico/operator/settings";
import { diffDocuments } from "../offline/diff";
import { type StackEvaluation, evaluateStack } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { ConfigError } from "../stacks/problems";
import { generatedStacks } from "./generated-configs";
import { STACKS } from "./helpers";
import {
  type CalicoSettings,
  INTERRUPTED_STEPS,
  NOT_INTERRUPTED,
  type Scenario,
  beginsAt,
} from "./interruption-steps";
import { propertyRun } from "./property-runs";

const KUBECONFIG_STACK = "kubeconfig.example";
const COMPONENTS = path.join(__dirname, "..", "components");
const DYNAMIC = "pulumi-nodejs:dynamic/";

const plans = new Map<string, Promise<StackEvaluation>>();

/** The kubeconfig stack with `calico`, deployed before with the outputs `previous`; each planned once. */
function planOf(calico: CalicoSettings, previous?: StackEvaluation): Promise<StackEvaluation> {
  const key = JSON.stringify([calico, previous?.outputs]);
  let plan = plans.get(key);
  if (plan === undefined) {
    plan = evaluateStack(KUBECONFIG_STACK, {
      config: { "eks-calico:calico": calico },
      ...(previous === undefined ? {} : { previousOutputs: previous.outputs }),
    });
    plans.set(key, plan);
  }
  return plan;
}

/**
 * Every dynamic resource type the program's code declares: the type tokens its dynamic resources export.
 * A class that extends pulumi.dynamic.Resource and hands its type on to `super` is a base for others
 * (felix-cleanup/requests.ts); every class that extends either must export its token.
 */
function declaredDynamicTypes(): string[] {
  const texts = fs
    .readdirSync(COMPONENTS, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((file) => ({ file, text: fs.readFileSync(path.join(COMPONENTS, file), "utf8") }));
  const classes = texts.flatMap(({ file, text }) =>
    [...text.matchAll(/class (\w+)\b[^]*?\bextends ([\w.]+)(?:<[\w, ]*>)?\s*\{/g)].map((m) => ({
      file,
      text,
      name: m[1],
      base: m[2],
    })),
  );
  const bases = new Set(["pulumi.dynamic.Resource"]);
  for (const c of classes)
    if (c.base === "pulumi.dynamic.Resource" && /super\([^;]*\btype\)/.test(c.text)) bases.add(c.name);
  const types: string[] = [];
  for (const { file, text } of texts) {
    const declared = [...text.matchAll(/"(pulumi-nodejs:dynamic\/[\w-]+:\w+)"/g)].map((m) => m[1]);
    const defined = classes.filter((c) => c.file === file && bases.has(c.base) && !bases.has(c.name));
    assert.ok(
      defined.length === 0 || declared.length > 0,
      `${file} defines a dynamic resource and exports no type token for it`,
    );
    types.push(...declared);
  }
  return types;
}

/** The engine's op for an op of the offline diff. */
const ENGINE_OPS: Readonly<Record<string, readonly string[]>> = {
  create: ["create"],
  update: ["update"],
  replace: ["replace", "create-replacement"],
  delete: ["delete"],
};

/** The deployed plan and the plan of the update a scenario interrupts (none for `pulumi destroy`). */
async function plansOf(scenario: Scenario) {
  const deployed = scenario.deployed === undefined ? undefined : await planOf(scenario.deployed);
  const interrupted =
    scenario.interrupted.operation === "destroy"
      ? undefined
      : await planOf(scenario.interrupted.calico, deployed);
  return { deployed, interrupted };
}

describe("the interruption property's table of steps", function () {
  const { seed } = propertyRun(0);
  this.timeout(10 * 60_000);
  const rows = INTERRUPTED_STEPS.map((step, index) => ({
    step,
    scenarios: fc.sample(step.scenarios, { seed: seed + index, numRuns: 2 }),
  }));

  it(`covers every dynamic resource type a plan registers, or says why not (seed ${seed})`, async () => {
    const found = new Map<string, string>();
    const note = (evaluation: StackEvaluation | undefined, where: string) => {
      for (const r of evaluation?.resources ?? [])
        if (r.type.startsWith(DYNAMIC) && !found.has(r.type)) found.set(r.type, where);
    };
    for (const stack of [...STACKS, "existing.example", KUBECONFIG_STACK])
      note(await evaluateStack(stack), stack);
    for (const generated of fc.sample(generatedStacks, { seed, numRuns: 2 })) {
      try {
        note(
          await evaluateStack(generated.stack, { config: generated.config }),
          `a generated ${generated.stack}`,
        );
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
      }
    }
    for (const { step, scenarios } of rows) {
      for (const scenario of scenarios) {
        const { deployed, interrupted } = await plansOf(scenario);
        note(deployed, step.name);
        note(interrupted, step.name);
      }
    }
    for (const type of declaredDynamicTypes()) if (!found.has(type)) found.set(type, "the code");
    const covered = new Set(INTERRUPTED_STEPS.flatMap((s) => s.begins.types));
    const missing = [...found].filter(([type]) => !covered.has(type) && NOT_INTERRUPTED[type] === undefined);
    assert.deepEqual(missing, [], "dynamic resource types (and what registers them) no row begins at");
    for (const type of [...covered].filter((t) => t.startsWith(DYNAMIC))) {
      assert.notEqual(
        found.get(type) ?? "the code",
        "the code",
        `${type}: a row begins at it, and a plan registers it`,
      );
    }
  });

  for (const { step, scenarios } of rows) {
    it(`${step.name}: each generated config plans the step where the property interrupts it`, async () => {
      for (const scenario of scenarios) {
        const { deployed, interrupted } = await plansOf(scenario);
        const empty = { resources: [], outputs: {} };
        const before =
          deployed === undefined
            ? { ...resourcesDocument(interrupted!), ...empty }
            : resourcesDocument(deployed);
        const after = interrupted === undefined ? { ...before, ...empty } : resourcesDocument(interrupted);
        const diff = diffDocuments(before, after);
        const planned = [...diff.added, ...diff.changed, ...diff.removed].filter((r) =>
          (ENGINE_OPS[r.op] ?? []).some((op) => beginsAt(step, r.identity, op)),
        );
        assert.ok(planned.length > 0, `${step.name} is not planned by ${JSON.stringify(scenario)}`);
        // The next update is the same config: the property needs it to plan, not to refuse.
        await planOf(scenario.next, deployed);
      }
    });
  }

  it("every switch of installer is a row's, or refused", async () => {
    const rowSwitches = new Set(
      rows.flatMap(({ scenarios }) =>
        scenarios
          .filter((s) => s.deployed !== undefined && s.deployed.installer !== s.interrupted.calico.installer)
          .map((s) => `${String(s.deployed?.installer)}>${String(s.interrupted.calico.installer)}`),
      ),
    );
    const outcomes: string[] = [];
    for (const from of INSTALLERS) {
      for (const to of INSTALLERS.filter((i) => i !== from)) {
        // From an install in kube-system, the one namespace the operator converts, and from one in
        // another namespace; with and without reinstall.
        for (const namespace of ["kube-system", "calico-policy"]) {
          for (const reinstall of [false, true]) {
            const deployed = await planOf(
              from === "operator"
                ? { installer: from, version: "v3.31.7" }
                : { installer: from, version: "v3.31.7", namespace },
            );
            let outcome: string;
            try {
              const plan = await planOf({ installer: to, version: "v3.31.7", reinstall }, deployed);
              const types = new Set(plan.resources.map((r) => r.type));
              const removes =
                !types.has("eks-calico:calico:PolicyOnly") && !types.has("eks-calico:calico:Operator");
              outcome = removes ? `${from}>${to}` : `${from}>${to} in place`;
            } catch (error) {
              if (!(error instanceof ConfigError)) throw error;
              outcome = "refused";
            }
            outcomes.push(outcome);
            if (outcome === "refused") continue;
            assert.ok(
              rowSwitches.has(outcome),
              `${outcome} (from ${namespace}${reinstall ? ", reinstall" : ""}): no row interrupts it`,
            );
          }
        }
      }
    }
    assert.ok(
      outcomes.some((o) => o !== "refused"),
      `some switch is not refused: ${outcomes.join(", ")}`,
    );
  });
});
