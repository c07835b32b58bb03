/**
 * `npm run pulumi -- up|preview|refresh|destroy|cancel`: this repository's program run by the real Pulumi
 * engine against the cluster `npm run cluster -- up` started, as a `cluster.kubeconfig` stack with a local file
 * backend (local-cluster/pulumi/). The engine's own output is printed as it comes; then the steps it took
 * and the stack's `calico` output.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { cacheRoot, toolsBin } from "./tools";
import { parseConfigOverride } from "./start-args";
import { defaultClusterDir, nodeCount, readState } from "../local-cluster";
import { Api, accessFromKubeconfig } from "../local-cluster/api";
import { EngineStack, type OperationResult } from "../local-cluster/pulumi";
import { OPERATIONS, type Operation } from "../local-cluster/pulumi/operation";

export const PULUMI_USAGE = `Usage: npm run pulumi -- up|preview|refresh|destroy|cancel [--stack NAME] [--from STACK] [--config KEY=VALUE]...
                      [--policy-pack] [--refresh] [--preview-only] [--expect-no-changes] [--cluster-dir DIR]

Runs this program with the real Pulumi CLI and Kubernetes provider \`npm run tools\` built, on the local
cluster \`npm run cluster -- up\` started: a cluster.kubeconfig stack (Pulumi.kubeconfig.example.yaml)
pointed at that cluster, with FROM's Calico settings, its state in ${path.join(cacheRoot(), "engine")}.
cancel deletes the lock an operation that was killed left, as \`pulumi cancel\` does.

Options:
  --stack NAME           the engine's stack (default: local); each has its own state
  --from STACK           the stack file whose eks-calico:calico settings it takes (default: dev)
  --config KEY=VALUE     config on top, as npm start takes it (repeatable); the stack keeps it for its
                         later operations
  --policy-pack          run the policy pack in policy/ (up and preview)
  --refresh              refresh the state first (preview and up), as the daily drift check previews
  --preview-only         refresh without changing the state, as Pulumi Cloud's drift detection runs it
  --expect-no-changes    fail when the preview or refresh finds a change
  --cluster-dir DIR      the local cluster's directory (default: ${defaultClusterDir()})`;

/** One line per kind of step, as the engine's summary counts them. */
export function stepSummary(result: OperationResult): string {
  const counts = new Map<string, number>();
  for (const step of result.steps) counts.set(step.op, (counts.get(step.op) ?? 0) + 1);
  return [...counts].map(([op, count]) => `${op} ${count}`).join(", ");
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stack: { type: "string", default: "local" },
      from: { type: "string", default: "dev" },
      config: { type: "string", multiple: true, default: [] },
      "policy-pack": { type: "boolean", default: false },
      "expect-no-changes": { type: "boolean", default: false },
      refresh: { type: "boolean", default: false },
      "preview-only": { type: "boolean", default: false },
      "cluster-dir": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [operation, ...rest] = positionals;
  if (values.help || rest.length > 0 || !(OPERATIONS as readonly string[]).includes(operation ?? "")) {
    console.log(PULUMI_USAGE);
    return values.help ? 0 : 2;
  }
  const clusterDir = values["cluster-dir"] ?? defaultClusterDir();
  const cluster = readState(clusterDir);
  if (cluster === undefined) {
    console.error(`pulumi: no local cluster in ${clusterDir}: run \`npm run cluster -- up\` first`);
    return 2;
  }
  const dir = path.join(cacheRoot(), "engine", values.stack);
  // The stack's config overrides so far, then this command's.
  const kept = path.join(dir, "config.json");
  const config = {
    ...(fs.existsSync(kept) ? (JSON.parse(fs.readFileSync(kept, "utf8")) as Record<string, unknown>) : {}),
    ...Object.fromEntries(values.config.map(parseConfigOverride)),
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(kept, JSON.stringify(config, null, 2));
  const stack = new EngineStack(
    {
      stack: values.stack,
      dir,
      bin: process.env.TOOLS_BIN ?? toolsBin(),
      kubeconfig: cluster.kubeconfig,
      context: "local",
      nodes: await nodeCount(new Api(accessFromKubeconfig(cluster.kubeconfig))),
      from: values.from,
      config,
    },
    (text) => process.stderr.write(text),
  );
  const result = await stack.run(operation as Operation, {
    policyPack: values["policy-pack"],
    expectNoChanges: values["expect-no-changes"],
    refresh: values.refresh,
    previewOnly: values["preview-only"],
  });
  console.log(`pulumi ${operation}: ${result.ok ? "succeeded" : "failed"} in ${result.seconds}s`);
  if (!result.ok) console.log([...result.errors, result.error ?? ""].join("\n").trim());
  console.log(`steps: ${stepSummary(result)}`);
  if (result.outputs.calico !== undefined) console.log(`calico: ${JSON.stringify(result.outputs.calico)}`);
  for (const v of result.policyViolations) {
    console.log(`policy ${v.enforcementLevel}: ${v.policyName}: ${v.message.split("\n")[0]}`);
  }
  return result.ok ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`pulumi: ${error.message}`);
    process.exit(1);
  },
);
