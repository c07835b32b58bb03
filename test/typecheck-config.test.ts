/**
 * Pulumi starts the program without type-checking it (tsconfig.json `noCheck`), while `npm run
 * typecheck` still checks everything through tsconfig.check.json.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { PROJECT_ROOT } from "../offline/config";
import { testSteps } from "../scripts/test";

function parsed(file: string): ts.ParsedCommandLine {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(PROJECT_ROOT, file), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) =>
      assert.fail(ts.flattenDiagnosticMessageText(d.messageText, "\n")),
  });
  assert.ok(config, `${file} parses`);
  assert.deepEqual(config.errors, [], `${file} has no errors`);
  return config;
}

describe("type-check configuration", () => {
  it("tsconfig.json turns checking off, read as Pulumi's nodejs host reads it", () => {
    // @pulumi/pulumi tsutils.js: the file's own compilerOptions, `extends` not followed.
    const file = path.join(PROJECT_ROOT, "tsconfig.json");
    const { config } = ts.parseConfigFileTextToJson(file, fs.readFileSync(file, "utf8")) as {
      config?: { compilerOptions?: { noCheck?: unknown } };
    };
    assert.equal(config?.compilerOptions?.noCheck, true);
    assert.equal(parsed("tsconfig.json").options.noCheck, true);
  });

  it("tsconfig.check.json is tsconfig.json with checking back on, over the same files", () => {
    const base = parsed("tsconfig.json");
    const check = parsed("tsconfig.check.json");
    assert.equal(check.options.noCheck, false);
    assert.equal(check.options.strict, true);
    assert.deepEqual([...check.fileNames].sort(), [...base.fileNames].sort());
    assert.ok(
      check.fileNames.some((f) => f.endsWith("/bench/run.ts")),
      "the benchmark is checked too",
    );
  });

  it("npm run typecheck uses tsconfig.check.json, and npm test runs it", () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    assert.equal(scripts.typecheck, "tsc -p tsconfig.check.json");
    // npm test runs its steps through scripts/test.ts, the type check first.
    assert.equal(scripts.test, "ts-node --transpile-only scripts/test.ts");
    assert.equal(testSteps(scripts)[0].command, "tsc -p tsconfig.check.json");
  });
});
