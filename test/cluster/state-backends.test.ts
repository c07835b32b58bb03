/**
 * The stack reading its own last outputs (stacks/previous-outputs.ts) on a self-managed backend in each
 * of its layouts, by the real Pulumi CLI (local-cluster/pulumi/) on a file backend; no cluster is needed.
 * A new `file://` directory takes the project layout and writes `.pulumi/meta.yaml`. One that already
 * holds a stack from before it keeps the legacy layout, and adds new stacks to it too (pulumi/pulumi
 * v3.248.0 pkg/backend/diy/meta.go ensurePulumiMeta). The legacy layout's stack is made by the CLI
 * with PULUMI_DIY_BACKEND_LEGACY_LAYOUT, as an older CLI left it. Each `up` must read what the one
 * before exported; a `preview` after them must read them too. The backend's own files show the layout.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EngineStack } from "../../local-cluster/pulumi";
import { toolsBin } from "../../scripts/tools";
import { assertSucceeded } from "./engine-case";

const PROGRAM = path.join(__dirname, "programs", "previous-outputs-read.ts");
const STACK = "state";
/** A stack from before the project layout. */
const OLDER = "older";
type Layout = "project" | "legacy";

/** Paths under the backend's root, relative, sorted: the files it wrote. */
function files(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => fs.statSync(path.join(root, file)).isFile())
    .map((file) => file.split(path.sep).join("/"))
    .sort();
}

/** The stack files and the metadata file the backend holds. */
function layoutFiles(root: string): string[] {
  return files(root).filter((file) => /^\.pulumi\/(meta\.yaml|stacks\/.*\.json)$/.test(file));
}

/**
 * `pulumi stack init` of a stack in the legacy layout, on the backend the engine stack uses (its `state`
 * directory, local-cluster/pulumi/index.ts): the layout an older CLI wrote.
 */
function initLegacyStack(engine: EngineStack, state: string, bin: string): void {
  const run = spawnSync(path.join(bin, "pulumi"), ["stack", "init", OLDER, "--non-interactive"], {
    cwd: engine.workDir,
    encoding: "utf8",
    env: {
      ...process.env,
      PULUMI_HOME: path.join(engine.options.dir, "home"),
      PULUMI_BACKEND_URL: `file://${state}`,
      PULUMI_CONFIG_PASSPHRASE: "local-cluster",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DIY_BACKEND_LEGACY_LAYOUT: "true",
    },
  });
  assert.equal(run.status, 0, `pulumi stack init ${OLDER}: ${run.stderr || String(run.error)}`);
}

describe("the stack's own last outputs on a self-managed backend, read by the real engine", function () {
  this.timeout(10 * 60_000);
  const bin = process.env.TOOLS_BIN ?? toolsBin();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-state-backends-"));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const expected: Record<Layout, string[]> = {
    project: [".pulumi/meta.yaml", `.pulumi/stacks/eks-calico/${STACK}.json`],
    legacy: [`.pulumi/stacks/${OLDER}.json`, `.pulumi/stacks/${STACK}.json`],
  };

  for (const layout of ["project", "legacy"] as const) {
    it(`${layout} layout: each up reads what the last exported, and so does a preview`, async function () {
      const dir = path.join(root, layout);
      const state = path.join(dir, "state");
      const engine = new EngineStack({
        stack: STACK,
        dir,
        bin,
        // The program reads no cluster: the kubeconfig stack's config only has to be complete.
        kubeconfig: path.join(dir, "kubeconfig"),
        context: "local",
        nodes: 1,
        program: PROGRAM,
        config: { "eks-calico-test:run": "first" },
      });
      if (layout === "legacy") initLegacyStack(engine, state, bin);

      const first = await engine.run("up");
      assertSucceeded(first, `first up (${layout} layout)`);
      assert.deepEqual(first.outputs.read, {}, "a new stack has no last outputs");
      // The refused qualified name is the program's to handle: the engine reports no error for it.
      assert.deepEqual(first.errors, [], "no error diagnostic");
      assert.deepEqual(layoutFiles(state), expected[layout], `the files of the ${layout} layout`);
      if (layout === "project") {
        assert.match(fs.readFileSync(path.join(state, ".pulumi", "meta.yaml"), "utf8"), /^version: 1$/m);
      }

      engine.configure({ "eks-calico-test:run": "second" });
      const second = await engine.run("up");
      assertSucceeded(second, `second up (${layout} layout)`);
      assert.deepEqual(second.outputs.read, { clusterName: "cluster-first", vpcCni: { run: "first" } });
      assert.equal(second.outputs.clusterName, "cluster-second");
      assert.deepEqual(second.errors, [], "no error diagnostic");
      assertSucceeded(await engine.run("preview"), `preview (${layout} layout)`);
      assert.deepEqual(layoutFiles(state), expected[layout], `the ${layout} layout kept`);
    });
  }
});
