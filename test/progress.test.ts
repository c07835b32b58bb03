/**
 * Progress of long runs (scripts/progress.ts): `npm test`'s steps say what runs and how long it took, a
 * silent step gets a heartbeat each interval, and the run stops at the first failing step with its code.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/config";
import {
  DEFAULT_HEARTBEAT_MS,
  HEARTBEAT_ENV,
  Heartbeat,
  type Progress,
  duration,
  heartbeatInterval,
  runSteps,
  timedStep,
} from "../scripts/progress";
import { TEST_STEPS, testSteps } from "../scripts/test";

/** The tests' interval: short, so a step that sleeps a second is silent for several of them. */
const INTERVAL_MS = 200;

/** Progress written into a string, at `heartbeatMs`. */
function captured(heartbeatMs = INTERVAL_MS): Progress & { text: () => string } {
  const chunks: string[] = [];
  return { heartbeatMs, write: (text) => chunks.push(text), text: () => chunks.join("") };
}

/** A shell command running `script` with this Node. */
const node = (script: string) => `"${process.execPath}" -e "${script}"`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const heartbeats = (text: string, label: string) =>
  text.split("\n").filter((line) => new RegExp(`^ {2}still running ${label}, \\d+ s$`).test(line)).length;

describe("progress: the heartbeat interval", () => {
  it(`is ${DEFAULT_HEARTBEAT_MS} ms, or what ${HEARTBEAT_ENV} sets, refusing anything but whole milliseconds`, () => {
    assert.equal(heartbeatInterval({}), 10_000);
    assert.equal(heartbeatInterval({ [HEARTBEAT_ENV]: "200" }), 200);
    for (const bad of ["0", "-5", "1.5", "soon"]) {
      assert.throws(
        () => heartbeatInterval({ [HEARTBEAT_ENV]: bad }),
        new Error(`${HEARTBEAT_ENV}: must be a whole number of milliseconds, at least 1 (got "${bad}")`),
      );
    }
  });

  it("shows durations in seconds, then minutes and seconds", () => {
    assert.equal(duration(4_249), "4.2 s");
    assert.equal(duration(192_400), "3 min 12 s");
  });
});

describe("progress: steps", () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-progress-"));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("prints each step as it starts and ends, and heartbeats through a step silent for longer than the interval", async () => {
    const progress = captured();
    const steps = [
      { name: "quick", command: node("console.log('hello')") },
      { name: "slow", command: node("setTimeout(() => {}, 1200)") },
    ];
    const code = await runSteps("npm test", steps, { cwd: tmp, progress });
    assert.equal(code, 0);
    const text = progress.text();
    assert.ok(heartbeats(text, "slow") >= 3, text);
    // A busy machine may start even the quick step slower than the interval: its heartbeats aside.
    const lines = text.split("\n").filter((line) => !line.startsWith("  still running quick, "));
    assert.equal(lines[0], `[1/2] quick: ${steps[0].command}`);
    assert.equal(lines[1], "hello");
    assert.match(lines[2], /^\[1\/2\] quick passed in \d+\.\d s$/);
    assert.equal(lines[3], `[2/2] slow: ${steps[1].command}`);
    assert.match(text, /\n\[2\/2\] slow passed in \d+\.\d s\nnpm test: 2 steps passed in \d+\.\d s\n$/);
  });

  it("stops at the first failing step, with its exit code, and says what was not run", async () => {
    const progress = captured();
    const marker = path.join(tmp, "ran");
    const code = await runSteps(
      "npm test",
      [
        { name: "first", command: node("") },
        { name: "failing", command: node("process.exit(3)") },
        { name: "last", command: node(`require('fs').writeFileSync('${marker}', '')`) },
      ],
      { cwd: tmp, progress },
    );
    assert.equal(code, 3);
    assert.match(progress.text(), /\n\[2\/3\] failing failed \(exit 3\) after \d+\.\d s\n/);
    assert.match(progress.text(), /\nnpm test: stopped at failing; not run: last\n$/);
    assert.ok(!fs.existsSync(marker), "the step after the failing one never ran");
  });

  it("starts a heartbeat after a partial line on a line of its own", async () => {
    const progress = captured();
    const step = { name: "partial", command: node("process.stdout.write('50%'); setTimeout(() => {}, 800)") };
    assert.equal(await runSteps("npm test", [step], { cwd: tmp, progress }), 0);
    assert.match(progress.text(), /\n50%\n {2}still running partial, \d+ s\n/);
  });

  it("keeps quiet while a step prints, and beats again once it falls silent", async () => {
    const progress = captured();
    const heartbeat = new Heartbeat("chatty", progress);
    try {
      for (let i = 0; i < 10; i++) {
        heartbeat.echo(`line ${i}\n`, (text) => progress.write(text));
        await sleep(INTERVAL_MS / 4);
      }
      assert.equal(heartbeats(progress.text(), "chatty"), 0, progress.text());
      await sleep(INTERVAL_MS * 1.5);
      assert.equal(heartbeats(progress.text(), "chatty"), 1, progress.text());
    } finally {
      heartbeat.stop();
    }
  });

  it("times in-process work as a step, with heartbeats while it awaits", async () => {
    const progress = captured();
    const result = await timedStep("plan at 5000 nodes", progress, async (log) => {
      log("evaluating");
      await sleep(INTERVAL_MS * 3);
      return 42;
    });
    assert.equal(result, 42);
    const text = progress.text();
    assert.ok(text.startsWith("plan at 5000 nodes...\nevaluating\n"), text);
    assert.ok(heartbeats(text, "plan at 5000 nodes") >= 1, text);
    assert.match(text, /\nplan at 5000 nodes: done in \d+\.\d s\n$/);
  });
});

describe("npm test", () => {
  const scripts = (
    JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;

  it("runs type check, lint, format check, workflow lint and the unit tests, each its package.json script", () => {
    assert.deepEqual(
      testSteps(scripts).map((step) => [step.name, step.command]),
      TEST_STEPS.map((name) => [name, scripts[name]]),
    );
    assert.deepEqual(
      testSteps(scripts, ["test:unit", "lint"]).map((step) => step.name),
      ["lint", "test:unit"],
    );
    assert.throws(() => testSteps(scripts, ["lnt"]), /unknown step "lnt": the steps are typecheck, lint, /);
  });

  it(`prints each step and a heartbeat at the interval ${HEARTBEAT_ENV} sets, as npm test runs it`, () => {
    const tsNode = path.join(PROJECT_ROOT, "node_modules", ".bin", "ts-node");
    const result = spawnSync(
      process.execPath,
      [tsNode, "--transpile-only", "scripts/test.ts", "lint:workflows"],
      { cwd: PROJECT_ROOT, encoding: "utf8", env: { ...process.env, [HEARTBEAT_ENV]: String(INTERVAL_MS) } },
    );
    assert.equal(result.status, 0, result.stdout + result.stderr);
    const lines = result.stdout.split("\n");
    assert.equal(lines[0], `[1/1] lint:workflows: ${scripts["lint:workflows"]}`);
    assert.ok(heartbeats(result.stdout, "lint:workflows") >= 1, result.stdout);
    assert.match(result.stdout, /\nnpm test: 1 step passed in \d+\.\d s\n$/);
  });
});
