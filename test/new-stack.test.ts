/**
 * Adding a stack as the README says (`cp Pulumi.staging.yaml Pulumi.<stack>.yaml`) never breaks
 * `npm test`: in a copy of the repository with one more stack file, the tests that read every stack file
 * against the docs (destroy, docs, README, ordering, stacks, workflows) still pass.
 */
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";

/** The test files that read every stack file and the docs. */
const SUITES = [
  "test/destroy.test.ts",
  "test/docs-inventory.test.ts",
  "test/docs-links.test.ts",
  "test/docs-numbers.test.ts",
  "test/readme.test.ts",
  "test/ordering.test.ts",
  "test/stacks.test.ts",
  "test/workflows.test.ts",
];

describe("a new stack file", function () {
  this.timeout(10 * 60_000);

  it("copied from staging under a new name, passes the tests that read every stack file and the docs", () => {
    for (const suite of SUITES) assert.ok(fs.existsSync(path.join(PROJECT_ROOT, suite)), suite);
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-new-stack-"));
    try {
      const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: PROJECT_ROOT, encoding: "utf8" })
        .split("\0")
        .filter((file) => file !== "" && fs.existsSync(path.join(PROJECT_ROOT, file)));
      for (const file of tracked) {
        fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
        fs.copyFileSync(path.join(PROJECT_ROOT, file), path.join(copy, file));
      }
      fs.symlinkSync(path.join(PROJECT_ROOT, "node_modules"), path.join(copy, "node_modules"));
      fs.copyFileSync(path.join(copy, "Pulumi.staging.yaml"), path.join(copy, "Pulumi.loadtest.yaml"));
      const run = spawnSync(
        process.execPath,
        [
          path.join(copy, "node_modules", "mocha", "bin", "mocha.js"),
          // Only these files: the repository's .mocharc.json would add every test.
          "--no-config",
          "--require",
          "ts-node/register/transpile-only",
          "--extension",
          "ts",
          "--timeout",
          "60000",
          "--reporter",
          "dot",
          ...SUITES,
        ],
        { cwd: copy, encoding: "utf8", timeout: 9 * 60_000 },
      );
      assert.equal(run.status, 0, `${run.stdout}${run.stderr}`.slice(-4000));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
