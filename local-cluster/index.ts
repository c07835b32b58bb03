/**
 * A local cluster shaped like a stack: the control plane (control-plane.ts) plus the Nodes of the stack's
 * managed node groups (nodes.ts), and EKS Fargate nodes on request. Used by `npm run cluster` and the
 * cluster tests alike.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type ConfigOverrides, evaluateStack } from "../offline/engine";
import { cacheRoot, toolsBin } from "../scripts/tools";
import { toolNames } from "../tools/catalog";
import { Api, accessFromKubeconfig, waitFor } from "./api";
import { type ClusterState, startControlPlane, stopControlPlane } from "./control-plane";
import { type NodeObject, fargateNodes, numbered, stackNodes } from "./nodes";

export { type ClusterState, readState } from "./control-plane";

export interface UpOptions {
  /** The stack whose node groups the nodes copy. */
  readonly stack: string;
  /** Config overrides for that stack, as `npm start --config` takes them. */
  readonly config?: ConfigOverrides;
  /** EKS Fargate virtual nodes to add. */
  readonly fargateNodes?: number;
  /** Seconds a pod takes to start once scheduled. */
  readonly podStartSeconds?: number;
  /** A node on which the Felix cleanup's pods stay Pending (stages.ts StageOptions). */
  readonly cleanupHeldOn?: string;
  readonly dir?: string;
  readonly bin?: string;
  readonly log?: (line: string) => void;
}

export function defaultClusterDir(): string {
  return path.join(cacheRoot(), "cluster");
}

/** The directory holding the tools, checked to have every binary the cluster runs. */
export function requireTools(bin = process.env.TOOLS_BIN ?? toolsBin()): string {
  const missing = toolNames().filter((name) => !fs.existsSync(path.join(bin, name)));
  if (missing.length > 0) {
    throw new Error(
      `${missing.join(", ")} not found in ${bin}: run \`npm run tools\` first (it prints TOOLS_BIN=<dir>)`,
    );
  }
  return bin;
}

/** The nodes a local cluster starts with: all of them, and those shaped after node groups (not Fargate). */
export interface NodeCounts {
  readonly nodes: number;
  readonly ec2Nodes: number;
}

/** Creates the nodes (with their status, which kwok keeps) and waits until every one is Ready. */
export async function addNodes(api: Api, nodes: NodeObject[]): Promise<void> {
  const pending = [...nodes];
  const worker = async () => {
    for (let node = pending.shift(); node !== undefined; node = pending.shift()) {
      await api.request("POST", "/api/v1/nodes", node);
      await api.request(
        "PATCH",
        `/api/v1/nodes/${node.metadata.name}/status`,
        { status: node.status },
        "application/merge-patch+json",
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const names = new Set(nodes.map((n) => n.metadata.name));
  await waitFor(
    `${nodes.length} nodes to be Ready`,
    async () => {
      const list = await api.get<{
        items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[];
      }>("/api/v1/nodes");
      const ready = list.items.filter(
        (n) =>
          names.has(n.metadata.name) &&
          n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      );
      return ready.length === names.size ? true : undefined;
    },
    120_000,
  );
}

/** Nodes the cluster has now, to number new ones after them. */
export async function nodeCount(api: Api): Promise<number> {
  return (await api.get<{ items: unknown[] }>("/api/v1/nodes")).items.length;
}

/** Starts a cluster shaped like `options.stack` and returns its state (kubeconfig included). */
export async function upCluster(options: UpOptions): Promise<ClusterState & NodeCounts> {
  const log = options.log ?? (() => undefined);
  const bin = requireTools(options.bin);
  const evaluation = await evaluateStack(options.stack, { config: options.config });
  const region = typeof evaluation.outputs.region === "string" ? evaluation.outputs.region : "us-west-2";
  const groupNodes = stackNodes(evaluation, region);
  if (groupNodes.length === 0) {
    throw new Error(
      `stack ${options.stack} has no managed node groups to shape nodes after: pick a stack that has`,
    );
  }
  const nodes = numbered([...groupNodes, ...fargateNodes(options.fargateNodes ?? 0, region)]);
  const dir = options.dir ?? defaultClusterDir();
  const state = await startControlPlane(dir, bin, {
    podStartSeconds: options.podStartSeconds,
    cleanupHeldOn: options.cleanupHeldOn,
    log,
  });
  try {
    await addNodes(new Api(accessFromKubeconfig(state.kubeconfig)), nodes);
  } catch (error) {
    await stopControlPlane(dir);
    throw error;
  }
  log(`cluster: ${nodes.length} nodes Ready, shaped like stack ${options.stack}`);
  return { ...state, nodes: nodes.length, ec2Nodes: groupNodes.length };
}

export { stopControlPlane as downCluster };
