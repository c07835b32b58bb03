/**
 * One Node.js line everywhere: the floor of `engines` in package.json, the `@types/node` major, the
 * version every workflow's actions/setup-node installs, the Node .ci/node.sh pins for CI and older
 * machines, and the README's prerequisites. Changing one of them without the others fails here.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { PROJECT_ROOT } from "../offline/engine";
import { workflowFiles } from "../scripts/lint-workflows";

type Version = [major: number, minor: number, patch: number];

function read(file: string): string {
  return fs.readFileSync(path.join(PROJECT_ROOT, file), "utf8");
}

function version(text: string): Version {
  const [major, minor = 0, patch = 0] = text.split(".").map(Number);
  return [major, minor, patch];
}

function atLeast(have: Version, floor: Version): boolean {
  for (let i = 0; i < 3; i++) if (have[i] !== floor[i]) return have[i] > floor[i];
  return true;
}

const pkg = JSON.parse(read("package.json")) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

/** `engines.node` as `>=MAJOR.MINOR`: the form .ci/node.sh reads. */
function floor(): Version {
  const match = /^>=(\d+\.\d+)$/.exec(pkg.engines.node);
  assert.ok(match, `engines.node is ">=MAJOR.MINOR", not ${pkg.engines.node}`);
  return version(match[1]);
}

describe("Node.js version", () => {
  it("engines names a floor on Node 22 or newer, and this test runs on a Node it accepts", () => {
    assert.ok(floor()[0] >= 22, `engines.node ${pkg.engines.node}`);
    assert.ok(atLeast(version(process.versions.node), floor()), `running on ${process.versions.node}`);
  });

  it("installing on an older Node fails (engine-strict) instead of warning", () => {
    assert.match(read(".npmrc"), /^engine-strict=true$/m);
  });

  it("@types/node describes the floor's major", () => {
    assert.match(pkg.devDependencies["@types/node"], new RegExp(`^\\^${floor()[0]}\\.`));
  });

  it("every actions/setup-node step installs the floor's major", () => {
    let steps = 0;
    for (const file of workflowFiles()) {
      const workflow = YAML.parse(fs.readFileSync(file, "utf8")) as {
        jobs: Record<string, { steps?: { uses?: string; with?: Record<string, unknown> }[] }>;
      };
      for (const [name, job] of Object.entries(workflow.jobs)) {
        for (const step of job.steps ?? []) {
          if (step.uses?.split("@")[0] !== "actions/setup-node") continue;
          steps++;
          assert.equal(step.with?.["node-version"], floor()[0], `${path.basename(file)} ${name}`);
        }
      }
    }
    assert.ok(steps > 0, "no actions/setup-node step found");
  });

  it(".ci/node.sh pins an exact release of the floor's major, at or above the floor", () => {
    const pinned = /^EKS_CALICO_NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(read(".ci/node.sh"));
    assert.ok(pinned, ".ci/node.sh sets EKS_CALICO_NODE_VERSION=X.Y.Z");
    const pin = version(pinned[1]);
    assert.equal(pin[0], floor()[0]);
    assert.ok(atLeast(pin, floor()), `${pinned[1]} is below ${pkg.engines.node}`);
  });

  it(".ci/run provisions Node before npm ci, then runs npm test, then the real engine suite", () => {
    const commands = read(".ci/run")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"));
    const source = commands.indexOf("source .ci/node.sh");
    const install = commands.indexOf("npm ci --no-audit --no-fund");
    assert.ok(source >= 0 && install > source, commands.join("\n"));
    // The Go tools build in the background while npm test runs; the suite that needs them comes last.
    const tools = commands.findIndex((line) => /^npm run tools .*&$/.test(line));
    const test = commands.findIndex((line) => /^npm test( |$)/.test(line));
    assert.ok(install < tools && tools < test, commands.join("\n"));
    assert.ok(commands.includes('[ "$status" -eq 0 ] || exit "$status"'), "a failed npm test stops the run");
    assert.equal(commands.at(-1), "npm run test:cluster");
  });

  it("the README's prerequisites name the floor and how to get it on an older machine", () => {
    const readme = read("README.md");
    const [major, minor] = floor();
    assert.match(readme, new RegExp(`Prerequisites: Node\\.js ${major}\\.${minor} or newer`));
    assert.ok(readme.includes("`source .ci/node.sh`"), "README lacks `source .ci/node.sh`");
  });
});
