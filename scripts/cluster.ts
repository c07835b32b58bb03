/**
 * `npm run cluster -- up|down`: a local Kubernetes control plane with simulated nodes shaped like a
 * stack's node groups (local-cluster/). `up` prints `KUBECONFIG=<path>` last; `down` stops what `up`
 * started, by PID.
 */
import { parseArgs } from "node:util";
import { parseConfigOverride } from "./start-args";
import { defaultClusterDir, downCluster, upCluster } from "../local-cluster";

export const CLUSTER_USAGE = `Usage: npm run cluster -- up [--stack NAME] [--fargate N] [--pod-start-seconds S] [--config KEY=VALUE]... [--dir DIR]
       npm run cluster -- down [--dir DIR]

up    starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok on loopback (free
      ports, data in DIR) with the tools \`npm run tools\` built (TOOLS_BIN, or its default directory), and
      creates a Ready node for each node of the stack's managed node groups at their desiredSize, with
      the group's labels and taints, the labels EKS sets, and the CPU, memory and pods of the instance
      type. The last line printed is KUBECONFIG=<path>.
down  stops the processes \`up\` started from DIR.

Options:
  --stack NAME             stack whose node groups the nodes copy (default: dev)
  --fargate N              also add N EKS Fargate virtual nodes (tainted and labelled as EKS does)
  --pod-start-seconds S    seconds a scheduled pod takes to become Running and Ready (default 0)
  --config KEY=VALUE       override the stack's config, as npm start takes it (repeatable)
  --dir DIR                data directory (default: ${defaultClusterDir()})`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stack: { type: "string", default: "dev" },
      fargate: { type: "string", default: "0" },
      "pod-start-seconds": { type: "string", default: "0" },
      config: { type: "string", multiple: true, default: [] },
      dir: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || rest.length > 0 || !["up", "down"].includes(command)) {
    console.log(CLUSTER_USAGE);
    return values.help ? 0 : 2;
  }
  const dir = values.dir ?? defaultClusterDir();
  if (command === "down") {
    const stopped = await downCluster(dir);
    console.log(
      stopped.length > 0 ? `cluster: stopped ${stopped.join(", ")}` : `cluster: nothing running from ${dir}`,
    );
    return 0;
  }
  const number = (name: string, text: string) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`--${name} expects a whole number, got "${text}"`);
    return value;
  };
  const state = await upCluster({
    stack: values.stack,
    config: Object.fromEntries(values.config.map(parseConfigOverride)),
    fargateNodes: number("fargate", values.fargate),
    podStartSeconds: number("pod-start-seconds", values["pod-start-seconds"]),
    dir,
    log: (line) => console.log(line),
  });
  console.log(`KUBECONFIG=${state.kubeconfig}`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`cluster: ${error.message}`);
    process.exit(1);
  },
);
