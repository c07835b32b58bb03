/**
 * The real engine's driver without the engine (local-cluster/pulumi/, tools/plugins.ts): the stack it
 * writes for each deployed stack's Calico settings is a kubeconfig stack the program accepts, and the
 * plugin scripts `npm run tools` writes run this checkout's hosts.
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { EngineStack, KUBECONFIG_STACK, engineOverrides } from "../local-cluster/pulumi";
import { deployableStacks, evaluateStack, loadStackConfig, PROJECT_ROOT } from "../offline/engine";
import { decodeConfigValue } from "../stacks/config-values";
import { PLUGINS, pluginScript, writePlugins } from "../tools/plugins";

const KUBECONFIG = path.join(PROJECT_ROOT, "test", "fixtures", "kubeconfig", "example.yaml");

describe("the real engine's stack", () => {
  for (const stack of deployableStacks()) {
    it(`${stack}: its Calico settings on the local cluster make a kubeconfig stack the program accepts`, async () => {
      const overrides = engineOverrides({
        kubeconfig: KUBECONFIG,
        context: "example.k8s.local",
        nodes: 3,
        from: stack,
      });
      const evaluation = await evaluateStack(KUBECONFIG_STACK, { config: overrides });
      const calico = decodeConfigValue(loadStackConfig(stack).values["eks-calico:calico"]) as Record<
        string,
        unknown
      >;
      const outputs = evaluation.outputs.calico as Record<string, unknown>;
      assert.equal(outputs.version, calico.version);
      assert.equal(outputs.namespace, calico.namespace ?? "kube-system");
      assert.ok(
        evaluation.resources.every((r) => !r.type.startsWith("aws:") && !r.type.startsWith("eks:")),
        "no AWS resource: the engine here has no AWS provider",
      );
      assert.equal(evaluation.outputs.kubeconfigContext, "example.k8s.local");
    });
  }

  it("writes Pulumi.yaml without its main (the program is served inline) and the stack's file with its config", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-stack-"));
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin);
    for (const name of ["pulumi", "pulumi-resource-kubernetes", ...Object.keys(PLUGINS)]) {
      fs.writeFileSync(path.join(bin, name), "");
    }
    try {
      const engine = new EngineStack({
        stack: "local",
        dir,
        bin,
        kubeconfig: KUBECONFIG,
        context: "example.k8s.local",
        nodes: 2,
        from: "dev",
        config: { "eks-calico:calico.maxUnavailable": 2 },
      });
      const project = YAML.parse(fs.readFileSync(path.join(engine.workDir, "Pulumi.yaml"), "utf8")) as Record<
        string,
        unknown
      >;
      assert.equal(project.name, "eks-calico");
      assert.equal(project.main, undefined);
      const stack = YAML.parse(fs.readFileSync(path.join(engine.workDir, "Pulumi.local.yaml"), "utf8")) as {
        config: Record<string, { kubeconfig?: Record<string, unknown>; maxUnavailable?: unknown }>;
      };
      assert.deepEqual(stack.config["eks-calico:cluster"].kubeconfig, {
        path: KUBECONFIG,
        context: "example.k8s.local",
        maxNodes: 2,
        vpcCniConfigured: true,
      });
      assert.equal(stack.config["eks-calico:calico"].maxUnavailable, 2);
      // Packages resolve from the project's directory, as in the repository (the dynamic provider host).
      assert.equal(
        fs.realpathSync(path.join(engine.workDir, "node_modules")),
        path.join(PROJECT_ROOT, "node_modules"),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses to start without the tools, naming each one missing", () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "engine-bin-"));
    assert.throws(
      () => new EngineStack({ stack: "s", dir: bin, bin, kubeconfig: KUBECONFIG, context: "c", nodes: 1 }),
      /pulumi, pulumi-resource-kubernetes, pulumi-resource-pulumi-nodejs, pulumi-analyzer-policy-nodejs, pulumi-resource-tls not found in .*: run `npm run tools` first/,
    );
    fs.rmSync(bin, { recursive: true, force: true });
  });
});

describe("the engine's Node.js plugins", () => {
  it("runs each with the given node, this checkout's files and the engine's arguments", () => {
    for (const [name, plugin] of Object.entries(PLUGINS)) {
      for (const arg of plugin.nodeArgs.filter((a) => a.startsWith("/"))) {
        assert.doesNotThrow(() => require.resolve(arg), `${name}: ${arg} resolves`);
      }
      const script = pluginScript(name, "/opt/node dir/bin/node");
      assert.match(script, /^#!\/bin\/sh\n/);
      assert.match(script, /exec '\/opt\/node dir\/bin\/node' .* "\$@"\n$/);
    }
  });

  it("writes executable scripts that start the host (the tls stand-in answers with its port)", async () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "plugins-"));
    try {
      assert.equal(writePlugins(bin).length, Object.keys(PLUGINS).length);
      const tls = path.join(bin, "pulumi-resource-tls");
      assert.ok(fs.statSync(tls).mode & 0o100, "executable");
      // A provider plugin prints its port and serves until it is stopped.
      const child = spawn(tls, [], { stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      const port = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no port within 30 s: ${output}`)), 30_000);
        const read = (chunk: Buffer) => {
          output += chunk.toString();
          const line = /^(\d+)\n/.exec(output);
          if (line !== null) {
            clearTimeout(timer);
            resolve(line[1]);
          }
        };
        child.stdout.on("data", read);
        child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      }).finally(() => child.kill());
      assert.ok(Number(port) > 0, port);
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});
