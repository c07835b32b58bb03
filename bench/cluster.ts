/**
 * The benchmark's real control plane part: Calico's objects applied onto a local cluster of 3, 100 and 500
 * simulated nodes (wall time until every calico-node pod is ready, peak memory of kube-apiserver), and a
 * real calico-node rollout of a patch release at 100 nodes with maxUnavailable 10% and pods that take
 * ~20 s to start, beside components/calico/rollout.ts's estimate.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalCluster, plan, planObjects } from "../local-cluster/deploy";
import { waitFor } from "../local-cluster/api";
import { devNodeGroupsAt } from "./node-groups";
import { estimateRollout, unavailableAtOnce } from "../components/calico/rollout";

export const REAL_NODE_COUNTS = [3, 100, 500] as const;
export const ROLLOUT_NODES = 100;
const ROLLOUT_MAX_UNAVAILABLE = "10%";
const POD_START_SECONDS = 20;

export interface RealPoint {
  readonly nodes: number;
  /** Applying every Calico object until calico-node is ready on every node. */
  readonly deployMs: number;
  readonly apiserverPeakMiB: number;
  readonly ready: number;
}

export interface RealRollout {
  readonly nodes: number;
  readonly maxUnavailable: string;
  readonly podStartSeconds: number;
  readonly seconds: number;
  readonly estimatedWaves: number;
  readonly estimatedSeconds: number;
}

export interface Target {
  readonly name: string;
  readonly pass: boolean;
  readonly detail: string;
}

/**
 * AZs of the benchmark's cluster: dev's /16 split over 3 AZs, so 500 running t3.large nodes get every
 * address their interfaces take (on dev's 2, one AZ's private subnet would need 9,000 of its 8,187).
 */
const BENCH_AZS = 3;

/** The dev stack with `nodes` running nodes over BENCH_AZS AZs, and optionally another maxUnavailable. */
export function devWithNodes(nodes: number, maxUnavailable?: string): Record<string, unknown> {
  return {
    "eks-calico:nodeGroups": devNodeGroupsAt(nodes, true),
    "eks-calico:network.availabilityZones": BENCH_AZS,
    ...(maxUnavailable ? { "eks-calico:calico.maxUnavailable": maxUnavailable } : {}),
  };
}

/** Peak resident memory of a process (VmHWM), in MiB. */
function peakMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  return Math.round(kib / 1024);
}

const dir = () => path.join(os.tmpdir(), `eks-calico-bench-cluster-${process.pid}`);

async function deployAt(nodes: number): Promise<RealPoint> {
  const config = devWithNodes(nodes);
  const evaluation = await plan("dev", config);
  const cluster = await LocalCluster.start("dev", { config, dir: dir() });
  try {
    const started = Date.now();
    const refusals = await cluster.create(planObjects(evaluation));
    if (refusals.length > 0) throw new Error(refusals.join("\n"));
    const counts = await cluster.settledCounts("kube-system", 15 * 60_000);
    return {
      nodes,
      deployMs: Date.now() - started,
      apiserverPeakMiB: peakMiB(cluster.state.pids["kube-apiserver"]),
      ready: counts.ready,
    };
  } finally {
    await cluster.stop();
  }
}

async function rollout(): Promise<RealRollout> {
  const config = devWithNodes(ROLLOUT_NODES, ROLLOUT_MAX_UNAVAILABLE);
  const before = await plan("dev", config);
  const after = await plan("dev", { ...config, "eks-calico:calico.version": "v3.31.6" });
  const cluster = await LocalCluster.start("dev", { config, dir: dir(), podStartSeconds: POD_START_SECONDS });
  try {
    const created = await cluster.create(planObjects(before));
    if (created.length > 0) throw new Error(created.join("\n"));
    await cluster.settledCounts("kube-system", 15 * 60_000);
    const daemonSet = planObjects(after).find((o) => o.object.kind === "DaemonSet");
    if (daemonSet === undefined) throw new Error("the plan has no DaemonSet");
    const started = Date.now();
    // The new release's pod template, applied over the one created above.
    const applied = cluster.kubectl(
      ["apply", "--server-side", "--force-conflicts", "--field-manager", "eks-calico-bench", "-f", "-"],
      JSON.stringify(daemonSet.object),
    );
    if (!applied.ok) throw new Error(applied.output);
    await waitFor(
      "the calico-node rollout",
      async () => {
        const ds = await cluster.api.get<{
          metadata: { generation: number };
          status: Record<string, number>;
        }>("/apis/apps/v1/namespaces/kube-system/daemonsets/calico-node");
        const s = ds.status;
        const done =
          s.observedGeneration >= ds.metadata.generation &&
          s.updatedNumberScheduled === ROLLOUT_NODES &&
          s.numberAvailable === ROLLOUT_NODES;
        return done ? true : undefined;
      },
      30 * 60_000,
      1000,
    );
    const estimate = estimateRollout(ROLLOUT_NODES, ROLLOUT_MAX_UNAVAILABLE);
    return {
      nodes: ROLLOUT_NODES,
      maxUnavailable: ROLLOUT_MAX_UNAVAILABLE,
      podStartSeconds: POD_START_SECONDS,
      seconds: Math.round((Date.now() - started) / 1000),
      estimatedWaves: estimate.waves,
      estimatedSeconds: estimate.seconds,
    };
  } finally {
    await cluster.stop();
  }
}

/** Runs the real measurements; their table lines and targets. */
export async function measureRealCluster(log: (line: string) => void): Promise<{
  points: RealPoint[];
  rollout: RealRollout;
  lines: string[];
  targets: Target[];
}> {
  const points: RealPoint[] = [];
  for (const nodes of REAL_NODE_COUNTS) {
    log(`Real control plane: Calico onto ${nodes} simulated nodes...`);
    points.push(await deployAt(nodes));
  }
  log(
    `Real control plane: a patch release rolled over ${ROLLOUT_NODES} nodes, ${POD_START_SECONDS} s pod start...`,
  );
  const real = await rollout();
  const atOnce = unavailableAtOnce(ROLLOUT_NODES, ROLLOUT_MAX_UNAVAILABLE);
  const lines = [
    "real control plane (kube-apiserver, controllers, scheduler, etcd; kwok nodes)",
    "nodes  deploy until ready  kube-apiserver peak  provider peak",
    ...points.map((p) =>
      [
        String(p.nodes).padStart(5),
        `${(p.deployMs / 1000).toFixed(1)} s`.padStart(18),
        `${p.apiserverPeakMiB} MiB`.padStart(19),
        "n/a (not buildable here)".padStart(14),
      ].join("  "),
    ),
    `rollout of a patch release: ${real.nodes} nodes at maxUnavailable ${real.maxUnavailable} (${atOnce} at a time), ` +
      `pods ready ${real.podStartSeconds} s after scheduling: ${real.seconds} s real; rollout.ts estimates ` +
      `${real.estimatedWaves} waves, ${real.estimatedSeconds} s at its 40 s per wave`,
  ];
  const targets: Target[] = [
    {
      name: "calico-node ready on every simulated node at 3, 100 and 500 nodes",
      pass: points.every((p) => p.ready === p.nodes),
      detail: points.map((p) => `${p.ready}/${p.nodes}`).join(", "),
    },
    {
      // The DaemonSet controller really rolls in waves of maxUnavailable: at least one pod start per wave.
      name: "the real rollout takes at least as many waves as rollout.ts estimates",
      pass: real.seconds >= real.estimatedWaves * real.podStartSeconds,
      detail: `${real.seconds} s >= ${real.estimatedWaves} waves x ${real.podStartSeconds} s`,
    },
    {
      name: "the real rollout fits rollout.ts's estimate (which the readiness timeout is derived from)",
      pass: real.seconds <= real.estimatedSeconds,
      detail: `${real.seconds} s <= ${real.estimatedSeconds} s`,
    },
  ];
  return { points, rollout: real, lines, targets };
}
