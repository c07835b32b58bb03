/**
 * `npm start -- --diff-ref REF` in a git repository of its own (a copy of the tracked files): the base is
 * the stack as the commit has it, its program and its stack file both, planned in a temporary checkout
 * that is removed afterwards; a stack the commit lacks is new there; a commit whose plan fails says so.
 */
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseDocument } from "yaml";
import { releasesOfLine } from "../components/calico/releases";
import { EXIT } from "../scripts/start-args";
import { copyTrackedFiles } from "./repo-copy";

/** A stack output only the working copy's program exports: the base has it only if it ran this program. */
const MARKER = "diffRefMarker";

describe("npm start -- --diff-ref", function () {
  this.timeout(5 * 60_000);
  let copy: string;
  /** The copy's temporary directory (TMPDIR of its runs): empty once each has removed its checkout. */
  let tmp: string;
  let version: string;
  let other: string;

  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args], {
      cwd: copy,
      encoding: "utf8",
    }).trim();
  const start = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [path.join(copy, "node_modules", ".bin", "ts-node"), "--transpile-only", "scripts/start.ts", ...args],
      {
        cwd: copy,
        encoding: "utf8",
        env: { ...process.env, npm_lifecycle_event: "", TMPDIR: tmp },
      },
    );

  /** The checkouts plan-at-ref.ts left in the runs' temporary directory. */
  const checkouts = () => fs.readdirSync(tmp).filter((name) => name.startsWith("eks-calico-ref-"));

  before(() => {
    copy = copyTrackedFiles("eks-calico-diff-ref-");
    tmp = path.join(copy, ".tmp");
    fs.mkdirSync(tmp);
    const stackFile = path.join(copy, "Pulumi.dev.yaml");
    const current = fs.readFileSync(stackFile, "utf8");
    const calico = (text: string, value?: string) => {
      const doc = parseDocument(text);
      if (value !== undefined) doc.setIn(["config", "eks-calico:calico", "version"], value);
      return { version: String(doc.getIn(["config", "eks-calico:calico", "version"])), text: doc.toString() };
    };
    version = calico(current).version;
    const releases = releasesOfLine(version);
    const at = releases.indexOf(version);
    // The release before dev's (an upgrade in the working copy), or after it where dev's is its line's first.
    other = releases[at > 0 ? at - 1 : at + 1];
    assert.ok(at >= 0 && other !== undefined, `dev's Calico ${version} has another release on its line`);
    git("init", "--quiet");
    // HEAD~1: dev on the other release. HEAD: dev on a release no line has, which its plan refuses.
    fs.writeFileSync(stackFile, calico(current, other).text);
    git("add", "--all");
    git("commit", "--quiet", "--no-gpg-sign", "--message", `dev on Calico ${other}`);
    fs.writeFileSync(stackFile, calico(current, "v0.0.1").text);
    git("commit", "--quiet", "--no-gpg-sign", "--all", "--message", "dev on no Calico release");
    // The working copy: dev back on its own release, and a program with one more output.
    fs.writeFileSync(stackFile, current);
    const index = path.join(copy, "index.ts");
    const program = fs.readFileSync(index, "utf8");
    assert.equal(program.match(/^export = /gm)?.length, 1, "index.ts has one `export = `");
    fs.writeFileSync(
      index,
      `${program.replace(/^export = /m, "const program = ")}\n` +
        `export = async (today?: Date) => ({ ...(await program(today)), ${MARKER}: "working copy" });\n`,
    );
  });
  after(() => fs.rmSync(copy, { recursive: true, force: true }));

  it("compares the working copy's plan with the stack as the commit has it: its stack file and its program", () => {
    const out = path.join(copy, "out");
    const run = start("--stack", "dev", "--diff-ref", "HEAD~1", "--out", out);
    assert.equal(run.status, EXIT.planned, run.stderr);
    const short = git("rev-parse", "--short", "HEAD~1");
    const label = `HEAD~1 (${short})`;
    assert.match(run.stderr, new RegExp(`^Planning stack dev as HEAD~1 \\(${short}\\) has it, `, "m"));
    const diff = fs.readFileSync(path.join(out, "dev", "diff.txt"), "utf8");
    assert.ok(diff.startsWith(`Changes to stack dev against ${label}: `), diff.split("\n")[0]);
    assert.ok(
      run.stdout.startsWith(
        `Compared with stack dev as ${label} has it: its program and Pulumi.dev.yaml, planned offline.\n${diff}`,
      ),
      run.stdout.slice(0, 400),
    );
    // The commit's Calico release, changed by the working copy's stack file.
    const upgraded = diff
      .split("\n")
      .filter((line) => / → /.test(line) && line.includes(`calico/node:${version}`));
    assert.ok(
      upgraded.some((line) => line.indexOf(`calico/node:${other}`) < line.indexOf(" → ")),
      `no calico/node ${other} → ${version} line in:\n${diff}`,
    );
    assert.doesNotMatch(diff, /^No changes\.$/m);
    // The commit's program has no marker output: the base was planned by it, not by the working copy's.
    assert.match(diff, new RegExp(`^ {4}${MARKER}: \\(absent\\) → "working copy"$`, "m"));
    assert.deepEqual(checkouts(), [], "the temporary checkout is removed");
  });

  it("says so and exits 1 where the commit's own plan fails, quoting its reason", () => {
    const run = start("--stack", "dev", "--diff-ref", "HEAD", "--out", path.join(copy, "failed"));
    assert.equal(run.status, EXIT.failed, run.stderr);
    const short = git("rev-parse", "--short", "HEAD");
    assert.match(
      run.stderr,
      new RegExp(
        `^error: --diff-ref HEAD: the plan of stack dev at HEAD \\(${short}\\) failed \\(its npm start exited 2\\):$`,
        "m",
      ),
    );
    assert.match(run.stderr, /^ {2}.*calico\.version.*v0\.0\.1/m);
    assert.equal(run.stdout, "");
    assert.ok(!fs.existsSync(path.join(copy, "failed")), "nothing written");
    assert.deepEqual(checkouts(), [], "the temporary checkout is removed");
  });

  it("compares a stack the commit has no file for with an empty plan, new at the ref", () => {
    fs.copyFileSync(path.join(copy, "Pulumi.dev.yaml"), path.join(copy, "Pulumi.qa.yaml"));
    try {
      const run = start("--stack", "qa", "--diff-ref", "HEAD", "--out", path.join(copy, "new"));
      assert.equal(run.status, EXIT.planned, run.stderr);
      const label = `HEAD (${git("rev-parse", "--short", "HEAD")})`;
      assert.ok(
        run.stdout.startsWith(
          `Stack qa is new at ${label}: there is no Pulumi.qa.yaml there, so it is compared with an empty plan.\n` +
            `Changes to stack qa against ${label}: + `,
        ),
        run.stdout.slice(0, 400),
      );
      assert.match(
        run.stdout,
        /: \+ [1-9]\d* to create, ~ 0 to update, \+- 0 to replace, - 0 to delete, \? 0 may replace, 0 unchanged\./,
      );
      assert.ok(!run.stderr.includes("Planning stack"), "nothing is planned at the commit");
    } finally {
      fs.rmSync(path.join(copy, "Pulumi.qa.yaml"));
    }
  });
});
