/**
 * The real Pulumi engine's Node.js plugins, as executables the engine finds on PATH beside the CLI: no
 * `pulumi-language-nodejs` is needed (the Automation API serves the program from its own process), but
 * the engine still starts a dynamic provider host, a policy pack host and a `tls` provider as plugins.
 * Each is a small script that runs this checkout's code with the Node.js that wrote it, so `npm run tools`
 * writes them again every time (a second checkout sharing the cache points them at itself).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { shellWord } from "../offline/calico-tls";

const ROOT = path.resolve(__dirname, "..");

/** Plugin name to what it runs: a script of this checkout, with node options. */
interface Plugin {
  readonly why: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly nodeArgs: readonly string[];
}

/**
 * The plugins by executable name. Upstream sources:
 * - `pulumi-resource-pulumi-nodejs`: @pulumi/pulumi ships a script of that name, but it resolves the host
 *   from the working directory (`require.resolve` in `node -e`), which is the stack's, not this checkout;
 * - `pulumi-analyzer-policy-nodejs`: with no Node.js language plugin installed, the engine starts a policy
 *   pack through a plugin of this name (pulumi/pulumi sdk/go/common/resource/plugin/analyzer_plugin.go,
 *   NewPolicyAnalyzer) with the engine's address and the pack's directory;
 * - `pulumi-resource-tls`: pulumi-tls is not served by the Go module proxy, so a stand-in
 *   (tools/tls-provider/) serves the four resources this program uses.
 */
export const PLUGINS: Readonly<Record<string, Plugin>> = {
  "pulumi-resource-pulumi-nodejs": {
    why: "the dynamic provider host of this checkout's @pulumi/pulumi",
    nodeArgs: [path.join(ROOT, "node_modules", "@pulumi", "pulumi", "cmd", "dynamic-provider")],
  },
  "pulumi-analyzer-policy-nodejs": {
    why: "the policy pack host of this checkout's @pulumi/pulumi",
    nodeArgs: [path.join(ROOT, "node_modules", "@pulumi", "pulumi", "cmd", "run-policy-pack")],
  },
  "pulumi-resource-tls": {
    why: "a stand-in for pulumi-tls (tools/tls-provider/), which cannot be built here",
    env: { TS_NODE_PROJECT: path.join(ROOT, "tsconfig.json") },
    nodeArgs: [
      "-r",
      path.join(ROOT, "node_modules", "ts-node", "register", "transpile-only"),
      path.join(ROOT, "tools", "tls-provider", "index.ts"),
    ],
  },
};

/** The script of one plugin, running `node` (an absolute path). */
export function pluginScript(name: string, node: string): string {
  const plugin = PLUGINS[name];
  const env = Object.entries(plugin.env ?? {}).map(([key, value]) => `${key}=${shellWord(value)} `);
  return [
    "#!/bin/sh",
    `# ${name}: ${plugin.why}. Written by npm run tools for ${ROOT}.`,
    `${env.join("")}exec ${[node, ...plugin.nodeArgs].map(shellWord).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/** Writes every plugin's script into `bin`; returns a line for each. */
export function writePlugins(bin: string, node = process.execPath): string[] {
  return Object.keys(PLUGINS).map((name) => {
    const file = path.join(bin, name);
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, pluginScript(name, node), { mode: 0o755 });
    return `${name}: written for this checkout (${PLUGINS[name].why})`;
  });
}
