/**
 * `npm run bench [-- --skip-test] [--runs N]`: how many lines users run (bench/reachable.ts), how fast
 * the offline plan starts compared with a type-checked start (Pulumi's default for TypeScript), how long
 * `npm test` takes, and how the plan scales with node-group size. Prints each benchmark as it starts and
 * ends (with a heartbeat while one is silent, scripts/progress.ts), then a table; writes out/bench.json,
 * and exits 1 if a target fails.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import * as ts from "typescript";
import { PROJECT_ROOT, evaluateStack, loadStackConfig } from "../offline/engine";
import { typhaReplicas } from "../offline/calico-yaml";
import { renderPlanFiles } from "../offline/plan-files";
import { ladderReplicas, typhaLadder } from "../components/calico/autoscaler";
import {
  DEFAULT_MAX_UNAVAILABLE,
  derivedTimeoutMinutes,
  estimateRollout,
  minutesOf,
} from "../components/calico/rollout";

/** A node group's own resources: its launch template and its managed node group. */
import { probeCriticalPathSeconds } from "../components/calico/probe/timing";
import { operatorTyphaReplicas } from "../components/calico/readiness";
import type { Installer } from "../components/calico/operator/settings";
import { measureRealCluster } from "./cluster";
import { devNodeGroupsAt } from "./node-groups";
import { MAX_REACHABLE_LINES, measureReachable } from "./reachable";
import { duration, runCommand, stdoutProgress, timedStep } from "../scripts/progress";
import { runMain } from "../scripts/entry";

/** The most the probe may add to the critical path of a first `pulumi up`. */
const PROBE_BUDGET_SECONDS = 90;
const RESOURCES_PER_NODE_GROUP = 2;

/** Total node-group maxSize the plan is measured at. */
export const NODE_COUNTS = [3, 100, 1000, 5000] as const;
/** The offline plan must start at least this many times faster than a type-checked start. */
export const MIN_SPEEDUP = 2;

const TS_NODE = path.join(PROJECT_ROOT, "node_modules", ".bin", "ts-node");

interface Timed {
  readonly runsMs: number[];
  readonly medianMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Wall time of a command run to completion, its output kept (the step it is part of beats meanwhile);
 * throws with the output if it fails.
 */
async function timeCommand(args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  const result = await runCommand(args, { cwd: PROJECT_ROOT });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.code !== 0) {
    throw new Error(`${args.join(" ")} exited ${result.signal ?? result.code}:\n${result.output}`);
  }
  return elapsed;
}

/** `runs` timed runs of a command, each printed as it ends. */
async function timeRuns(runs: number, args: string[], log: (line: string) => void): Promise<Timed> {
  const runsMs: number[] = [];
  for (let run = 1; run <= runs; run++) {
    runsMs.push(await timeCommand(args));
    log(`  run ${run}/${runs}: ${duration(runsMs[runsMs.length - 1])}`);
  }
  return { runsMs, medianMs: median(runsMs) };
}

interface ScalePoint {
  readonly maxNodes: number;
  readonly planMs: number;
  readonly resources: number;
  /** Node groups the nodes are spread over (EKS allows 450 nodes per managed node group). */
  readonly nodeGroups: number;
  /** Typha replicas at creation (the group starts at min(maxSize, 3) nodes). */
  readonly typhaReplicas: number | null;
  /** Typha replicas once the autoscaler has followed the cluster to maxNodes nodes. */
  readonly typhaAtMax: number;
  /** Estimated calico-node rollout over maxNodes nodes at the default maxUnavailable, and the derived timeout. */
  readonly rolloutMinutes: number;
  readonly timeoutMinutes: number;
}

interface OperatorScalePoint {
  readonly maxNodes: number;
  readonly planMs: number;
  readonly resources: number;
  readonly nodeGroups: number;
  /** Typha replicas the operator runs at maxNodes nodes (its own ladder, not configurable). */
  readonly typhaAtMax: number;
  /** Estimated calico-node rollout over maxNodes nodes, and the Installation's wait timeout as planned. */
  readonly rolloutMinutes: number;
  readonly installationTimeoutMinutes: number | null;
}

/** The dev stack's config at `maxNodes` total node-group maxSize, with Calico installed by `installer`. */
function devAt(maxNodes: number, installer: Installer): Record<string, unknown> {
  const calico = JSON.parse(loadStackConfig("dev").values["eks-calico:calico"]) as object;
  return {
    "eks-calico:nodeGroups": devNodeGroupsAt(maxNodes),
    "eks-calico:calico": { ...calico, installer },
  };
}

/** Evaluates and renders the plan files, printing the size as it starts and the time as it ends. */
async function timedPlan(config: Record<string, unknown>, maxNodes: number, log: (line: string) => void) {
  log(`  maxSize ${maxNodes}: planning...`);
  const started = process.hrtime.bigint();
  const evaluation = await evaluateStack("dev", { config });
  renderPlanFiles(evaluation);
  const planMs = Number(process.hrtime.bigint() - started) / 1e6;
  log(`  maxSize ${maxNodes}: ${planMs.toFixed(0)} ms, ${evaluation.resources.length} resources`);
  return { evaluation, planMs };
}

/** Operator mode at each node count: plan time, resources, and the Installation's planned wait. */
async function measureOperatorScale(log: (line: string) => void): Promise<OperatorScalePoint[]> {
  const points: OperatorScalePoint[] = [];
  for (const maxNodes of NODE_COUNTS) {
    const { evaluation, planMs } = await timedPlan(devAt(maxNodes, "operator"), maxNodes, log);
    const installation = evaluation.resources.find(
      (r) => r.type === "kubernetes:operator.tigera.io/v1:Installation",
    );
    const timeout = /^(\d+)m$/.exec(installation?.options.customTimeouts?.create ?? "");
    points.push({
      maxNodes,
      planMs,
      resources: evaluation.resources.length,
      nodeGroups: devNodeGroupsAt(maxNodes).length,
      typhaAtMax: operatorTyphaReplicas(maxNodes),
      rolloutMinutes: minutesOf(estimateRollout(maxNodes, DEFAULT_MAX_UNAVAILABLE).seconds),
      installationTimeoutMinutes: timeout === null ? null : Number(timeout[1]),
    });
  }
  return points;
}

/** In-process plan (evaluate and render) at each node count, after one warm-up evaluation. */
async function measureScale(log: (line: string) => void): Promise<ScalePoint[]> {
  await evaluateStack("dev");
  const points: ScalePoint[] = [];
  for (const maxNodes of NODE_COUNTS) {
    const { evaluation, planMs } = await timedPlan(devAt(maxNodes, "manifest"), maxNodes, log);
    points.push({
      maxNodes,
      planMs,
      resources: evaluation.resources.length,
      nodeGroups: devNodeGroupsAt(maxNodes).length,
      typhaReplicas: typhaReplicas(evaluation) ?? null,
      typhaAtMax: ladderReplicas(typhaLadder(), maxNodes),
      rolloutMinutes: minutesOf(estimateRollout(maxNodes, DEFAULT_MAX_UNAVAILABLE).seconds),
      timeoutMinutes: derivedTimeoutMinutes(estimateRollout(maxNodes, DEFAULT_MAX_UNAVAILABLE)),
    });
  }
  return points;
}

/**
 * Whether tsconfig.json makes Pulumi start the program transpile-only, read the way Pulumi's nodejs host
 * reads it (@pulumi/pulumi tsutils.js: `compilerOptions` of the file itself, `extends` not followed).
 */
function pulumiStartsTranspileOnly(): boolean {
  const file = path.join(PROJECT_ROOT, "tsconfig.json");
  const { config } = ts.parseConfigFileTextToJson(file, fs.readFileSync(file, "utf8")) as {
    config?: { compilerOptions?: { noCheck?: unknown } };
  };
  return config?.compilerOptions?.noCheck === true;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "skip-test": { type: "boolean", default: false },
      runs: { type: "string", default: "5" },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number >= 1`);
  const progress = stdoutProgress();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-bench-"));

  try {
    const reachable = await timedStep("files reachable from index.ts (madge)", progress, () =>
      measureReachable(),
    );
    const offline = await timedStep(`cold npm start, transpile-only (median of ${runs})`, progress, (log) =>
      timeRuns(
        runs,
        [
          process.execPath,
          TS_NODE,
          "--transpile-only",
          "scripts/start.ts",
          "--out",
          path.join(tmp, "offline"),
        ],
        log,
      ),
    );
    // The same work started as Pulumi starts a TypeScript program unless told otherwise: ts-node
    // type-checking every file it loads. tsconfig.check.json is tsconfig.json with checking on.
    const typeChecked = await timedStep(
      `the same, type-checked at start (median of ${runs})`,
      progress,
      (log) =>
        timeRuns(
          runs,
          [
            process.execPath,
            TS_NODE,
            "--project",
            "tsconfig.check.json",
            "scripts/start.ts",
            "--out",
            path.join(tmp, "checked"),
          ],
          log,
        ),
    );
    let npmTestMs: number | null = null;
    if (!values["skip-test"]) {
      npmTestMs = await timedStep("npm test (once)", progress, () =>
        timeCommand(["npm", "test", "--silent"]),
      );
    }
    const scale = await timedStep(
      `plan at total node-group maxSize ${NODE_COUNTS.join(", ")}`,
      progress,
      measureScale,
    );
    const operatorScale = await timedStep(
      "the same in operator install mode",
      progress,
      measureOperatorScale,
    );
    const real = await timedStep("real control plane", progress, measureRealCluster);

    const speedup = typeChecked.medianMs / offline.medianMs;
    const transpileOnly = pulumiStartsTranspileOnly();
    // The probe's steps run one after another after calico-node is ready: its whole share of the path.
    const probe = probeCriticalPathSeconds();
    // Nothing is created per node: only a launch template and a node group per node group.
    const counts = new Set(scale.map((p) => p.resources - RESOURCES_PER_NODE_GROUP * p.nodeGroups));
    const operatorCounts = new Set(
      operatorScale.map((p) => p.resources - RESOURCES_PER_NODE_GROUP * p.nodeGroups),
    );
    const maxLines = MAX_REACHABLE_LINES.toLocaleString("en-US");
    const targets = [
      {
        name: `the files reachable from index.ts add up to <= ${maxLines} lines (madge)`,
        pass: reachable.lines <= MAX_REACHABLE_LINES,
        detail: `${reachable.lines} lines in ${reachable.files} files`,
      },
      {
        name: `offline plan starts >= ${MIN_SPEEDUP}x faster than a type-checked start`,
        pass: speedup >= MIN_SPEEDUP,
        detail: `${speedup.toFixed(2)}x`,
      },
      {
        name: `resources independent of the node count (beyond ${RESOURCES_PER_NODE_GROUP} per node group)`,
        pass: counts.size === 1,
        detail: scale.map((p) => `${p.maxNodes}: ${p.resources} in ${p.nodeGroups} groups`).join(", "),
      },
      {
        name: "the default rollout fits its derived timeout and 15 minutes at every size",
        pass: scale.every((p) => p.rolloutMinutes <= p.timeoutMinutes && p.timeoutMinutes <= 15),
        detail: scale.map((p) => `${p.maxNodes}: ${p.rolloutMinutes}/${p.timeoutMinutes} min`).join(", "),
      },
      {
        name: "operator mode: resources independent of the node count too",
        pass: operatorCounts.size === 1,
        detail: operatorScale
          .map((p) => `${p.maxNodes}: ${p.resources} in ${p.nodeGroups} groups`)
          .join(", "),
      },
      {
        name: "operator mode: the Installation's wait covers the estimated rollout at every size, within 15 minutes",
        pass: operatorScale.every(
          (p) =>
            p.installationTimeoutMinutes !== null &&
            p.rolloutMinutes <= p.installationTimeoutMinutes &&
            p.installationTimeoutMinutes <= 15,
        ),
        detail: operatorScale
          .map((p) => `${p.maxNodes}: ${p.rolloutMinutes}/${p.installationTimeoutMinutes ?? "none"} min`)
          .join(", "),
      },
      {
        name: `the enforcement probe adds <= ${PROBE_BUDGET_SECONDS} s to a first pulumi up`,
        pass: probe.total <= PROBE_BUDGET_SECONDS,
        detail: `${probe.total} s (${probe.steps.map((s) => `${s.step}: ${s.seconds} s`).join("; ")})`,
      },
      {
        name: "pulumi up/preview start transpile-only (tsconfig.json noCheck)",
        pass: transpileOnly,
        detail: transpileOnly ? "noCheck: true" : "noCheck is not true",
      },
    ];

    const rows: [string, string][] = [
      [
        "reachable from index.ts (madge)",
        `${reachable.lines} lines in ${reachable.files} files (target <= ${maxLines})`,
      ],
      [`npm start, transpile-only (median of ${runs})`, seconds(offline.medianMs)],
      [`npm start, type-checked (median of ${runs})`, seconds(typeChecked.medianMs)],
      ["speed-up", `${speedup.toFixed(2)}x`],
      ["npm test", npmTestMs === null ? "skipped" : seconds(npmTestMs)],
      ["enforcement probe on a first pulumi up (estimate)", `${probe.total} s`],
    ];
    const width = Math.max(...rows.map(([label]) => label.length));
    console.log("");
    rows.forEach(([label, value]) => console.log(`${label.padEnd(width)}  ${value}`));
    console.log(
      `\nmax nodes  plan      resources  typha at start  typha at max nodes  rollout (${DEFAULT_MAX_UNAVAILABLE})  timeout`,
    );
    for (const p of scale) {
      console.log(
        [
          String(p.maxNodes).padStart(9),
          `${p.planMs.toFixed(0)} ms`.padEnd(8),
          String(p.resources).padStart(9),
          String(p.typhaReplicas ?? "n/a").padStart(14),
          String(p.typhaAtMax).padStart(18),
          `${p.rolloutMinutes} min`.padStart(15),
          `${p.timeoutMinutes} min`.padStart(8),
        ].join("  "),
      );
    }
    console.log(
      `\noperator mode\nmax nodes  plan      resources  typha at max nodes  rollout  Installation wait`,
    );
    for (const p of operatorScale) {
      console.log(
        [
          String(p.maxNodes).padStart(9),
          `${p.planMs.toFixed(0)} ms`.padEnd(8),
          String(p.resources).padStart(9),
          String(p.typhaAtMax).padStart(18),
          `${p.rolloutMinutes} min`.padStart(7),
          `${p.installationTimeoutMinutes ?? "none"} min`.padStart(17),
        ].join("  "),
      );
    }
    console.log(`\n${real.lines.join("\n")}`);
    targets.push(...real.targets);
    console.log("");
    targets.forEach((t) => console.log(`${t.pass ? "PASS" : "FAIL"}  ${t.name}: ${t.detail}`));

    const report = {
      machine: { node: process.version, cpus: os.cpus().length, platform: process.platform },
      runs,
      reachable,
      npmStart: { transpileOnly: offline, typeChecked, speedup },
      npmTestMs,
      scale,
      operatorScale,
      realCluster: { points: real.points, rollout: real.rollout },
      probe,
      targets,
    };
    const file = path.join(PROJECT_ROOT, "out", "bench.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nWrote ${path.relative(process.cwd(), file) || file}`);
    return targets.every((t) => t.pass) ? 0 : 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

runMain(main);
