/**
 * mocha's configuration, as people run it: `npx mocha test/<file>.test.ts` runs that file only (a `spec`
 * in the config would be added to the files named on the command line, https://mochajs.org/#spec), `npm
 * run test:unit` runs every offline test file, and the timeout follows EKS_CALICO_TEST_TIMEOUT_MS, which
 * docs/testing.md documents with its default.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";
import { TEST_STEPS } from "../scripts/test";
import { readPage } from "./docs-pages";

const MOCHA = path.join(PROJECT_ROOT, "node_modules", "mocha", "bin", "mocha.js");
const TIMEOUT_VARIABLE = "EKS_CALICO_TEST_TIMEOUT_MS";

/** The files mocha looks for in the working directory, in its order (mocha lib/cli/config.js). */
const CONFIG_FILES = [
  ".mocharc.cjs",
  ".mocharc.js",
  ".mocharc.yaml",
  ".mocharc.yml",
  ".mocharc.jsonc",
  ".mocharc.json",
];

/** The configuration mocha loads, as a Node process with `env` sees it. */
function loadedConfig(env: Record<string, string | undefined>): { status: number | null; out: string } {
  const run = spawnSync(
    process.execPath,
    ["-e", "process.stdout.write(JSON.stringify(require('./.mocharc.js')))"],
    { cwd: PROJECT_ROOT, encoding: "utf8", env: { ...process.env, [TIMEOUT_VARIABLE]: undefined, ...env } },
  );
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe("mocha's configuration", () => {
  it("is .mocharc.js alone, with no spec that would add every test to the files named", () => {
    assert.deepEqual(
      CONFIG_FILES.filter((file) => fs.existsSync(path.join(PROJECT_ROOT, file))),
      [".mocharc.js"],
    );
    const config = JSON.parse(loadedConfig({}).out) as Record<string, unknown>;
    assert.equal(config.spec, undefined);
    assert.deepEqual(config.ignore, ["test/cluster/**"]);
  });

  it("runs only the file named: npx mocha test/<file>.test.ts", () => {
    const file = path.join(PROJECT_ROOT, "test", "project-files.test.ts");
    const run = spawnSync(process.execPath, [MOCHA, "--dry-run", "--reporter", "json", file], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { tests: { file: string }[] };
    assert.ok(report.tests.length > 0);
    assert.deepEqual([...new Set(report.tests.map((test) => test.file))], [file]);
  });

  it("runs every offline test file from npm run test:unit, and npm test runs test:unit", () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    assert.equal(scripts["test:unit"], "mocha 'test/**/*.test.ts'");
    assert.ok((TEST_STEPS as readonly string[]).includes("test:unit"));
  });

  it(`times out after ${TIMEOUT_VARIABLE} ms, 5 minutes unless set, and refuses a value that is not ms`, () => {
    assert.equal((JSON.parse(loadedConfig({}).out) as { timeout: number }).timeout, 300_000);
    assert.equal(
      (JSON.parse(loadedConfig({ [TIMEOUT_VARIABLE]: "0" }).out) as { timeout: number }).timeout,
      0,
    );
    const set = loadedConfig({ [TIMEOUT_VARIABLE]: "900000" });
    assert.equal((JSON.parse(set.out) as { timeout: number }).timeout, 900_000);
    const bad = loadedConfig({ [TIMEOUT_VARIABLE]: "5m" });
    assert.notEqual(bad.status, 0);
    assert.match(
      bad.out,
      /EKS_CALICO_TEST_TIMEOUT_MS must be milliseconds as a whole number \(0: none\), not "5m"/,
    );
  });

  it("is documented in docs/testing.md: the timeout variable with its default, and running one file", () => {
    const page = readPage("docs/testing.md").replace(/\s+/g, " ");
    assert.match(page, /`EKS_CALICO_TEST_TIMEOUT_MS` sets mocha's timeout per test in ms \(default 300000/);
    assert.ok(page.includes("npx mocha test/network.test.ts"), "how to run one test file");
  });
});
