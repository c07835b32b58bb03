/** `npm start`: its arguments, and the command as a user runs it (files written, diff, exit codes). */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT_ROOT, listStacks } from "../offline/engine";
import { renderResourcesJson } from "../offline/plan";
import { PLAN_FILES, renderPlanFiles } from "../offline/plan-files";
import { EXIT, USAGE, UsageError, parseConfigOverride, parseStartArgs } from "../scripts/start-args";
import { devNodeGroupsWithDesired, evaluated, evaluatedWith } from "./helpers";
import { runStart } from "./start-runner";

describe("npm start: arguments", () => {
  it("defaults to the dev stack and out/ in the project", () => {
    const options = parseStartArgs([], {});
    assert.equal(options.stack, "dev");
    assert.equal(options.out, path.join(PROJECT_ROOT, "out"));
    assert.equal(options.diff, undefined);
    assert.deepEqual(options.config, {});
  });

  it("takes config overrides as KEY=JSON, or a plain string when VALUE is not JSON", () => {
    assert.deepEqual(parseConfigOverride('eks-calico:network={"cidr":"10.0.0.0/16"}'), [
      "eks-calico:network",
      { cidr: "10.0.0.0/16" },
    ]);
    assert.deepEqual(parseConfigOverride("aws:region=eu-west-1"), ["aws:region", "eu-west-1"]);
    assert.deepEqual(parseConfigOverride("eks-calico:protect=true"), ["eks-calico:protect", true]);
    assert.throws(() => parseConfigOverride("eks-calico:protect"), UsageError);
    const options = parseStartArgs(["--config", "a:b=1", "--config", "a:c=x", "--stack", "prod"], {});
    assert.deepEqual(options.config, { "a:b": 1, "a:c": "x" });
    assert.equal(options.stack, "prod");
  });

  it("resolves relative paths from where npm start was run", () => {
    const env = { npm_lifecycle_event: "start", INIT_CWD: "/somewhere" };
    const options = parseStartArgs(["--out", "plans", "--diff", "old/resources.json"], env);
    assert.equal(options.out, "/somewhere/plans");
    assert.equal(options.diff, "/somewhere/old/resources.json");
  });

  it("rejects unknown options and positionals", () => {
    assert.throws(() => parseStartArgs(["--stak", "dev"], {}), UsageError);
    assert.throws(() => parseStartArgs(["dev"], {}), UsageError);
  });

  it("takes a bare --diff as the stack's last plan under --out, and --tree as a flag", () => {
    const last = (out: string, stack: string) => path.join(out, stack, "resources.json");
    const atEnd = parseStartArgs(["--stack", "prod", "--diff"], {});
    assert.equal(atEnd.diff, last(path.join(PROJECT_ROOT, "out"), "prod"));
    assert.equal(atEnd.tree, false);
    const beforeOption = parseStartArgs(["--diff", "--tree", "--out", "/plans"], {});
    assert.equal(beforeOption.diff, last("/plans", "dev"));
    assert.equal(beforeOption.tree, true);
    assert.equal(parseStartArgs(["--diff", "/saved.json", "--tree"], {}).diff, "/saved.json");
    assert.equal(parseStartArgs(["--diff", "--verbose"], {}).verbose, true);
    assert.equal(parseStartArgs(["--diff"], {}).verbose, false);
  });

  it("takes --diff-ref REF, and refuses it with --diff or --head", () => {
    assert.equal(parseStartArgs(["--diff-ref", "origin/main", "--tree"], {}).diffRef, "origin/main");
    const npmOption = parseStartArgs([], { npm_lifecycle_event: "start", npm_config_diff_ref: "HEAD~1" });
    assert.equal(npmOption.diffRef, "HEAD~1");
    for (const args of [
      ["--diff", "--diff-ref", "main"],
      ["--diff-ref", "main", "--diff"],
      ["--diff", "saved.json", "--diff-ref", "main"],
    ]) {
      assert.throws(
        () => parseStartArgs(args, {}),
        (error: Error) =>
          error instanceof UsageError &&
          error.message.startsWith(
            "--diff and --diff-ref both name the plan to compare with: give --diff-ref REF",
          ),
        args.join(" "),
      );
    }
    assert.throws(
      () => parseStartArgs(["--diff-ref", "main", "--head", "h.json"], {}),
      /^UsageError: --head compares/,
    );
    assert.throws(() => parseStartArgs(["--diff-ref"], {}), UsageError);
  });

  it("names --diff-ref, --tree and every exit status in --help, the blocked one distinct from the others", () => {
    assert.match(
      USAGE,
      /^ {2}--tree {15}with --diff or --diff-ref: print the resource tree and outputs too/m,
    );
    assert.match(USAGE, /^ {2}--diff \[FILE\] {8}/m);
    assert.match(USAGE, /^ {2}--diff-ref REF {7}print what changes against the stack as a git ref has it/m);
    assert.match(USAGE, /\[--diff \[FILE\] \[--head FILE\] \| --diff-ref REF\]/);
    const statuses = Object.values(EXIT);
    assert.equal(new Set(statuses).size, statuses.length);
    assert.deepEqual(statuses, [0, 1, 2, 3]);
    const text = USAGE.replace(/\s+/g, " ");
    for (const status of statuses) assert.ok(text.includes(` ${status} `), `exit status ${status}`);
    assert.ok(text.includes("; 3 the diff has a change `pulumi up` refuses: a protected resource replaced"));
  });
});

describe("npm start: options written before --", () => {
  // What npm hands the start script for `npm start --stack=prod ...`: the options only as variables.
  const npm = (variables: Record<string, string>) => ({
    npm_lifecycle_event: "start",
    INIT_CWD: "/somewhere",
    ...variables,
  });

  it("reads every option npm passes on as npm_config_*, paths from where npm start was run", () => {
    const options = parseStartArgs(
      [],
      npm({
        npm_config_stack: "prod",
        npm_config_out: "plans",
        npm_config_diff: "old/resources.json",
        npm_config_adopt_from: "calico.yaml",
        // Two --config=..., as npm joins a repeated option.
        npm_config_config: "eks-calico:protect=false\n\naws:region=eu-west-1",
        // A flag: --tree.
        npm_config_tree: "true",
      }),
    );
    assert.deepEqual(options, {
      stack: "prod",
      out: "/somewhere/plans",
      diff: "/somewhere/old/resources.json",
      adoptFrom: "/somewhere/calico.yaml",
      config: { "eks-calico:protect": false, "aws:region": "eu-west-1" },
      tree: true,
      verbose: false,
      help: false,
    });
  });

  it("reads --head, which npm expands to its own --heading", () => {
    const options = parseStartArgs([], npm({ npm_config_diff: "a.json", npm_config_heading: "b.json" }));
    assert.equal(options.diff, "/somewhere/a.json");
    assert.equal(options.head, "/somewhere/b.json");
  });

  it("takes an option given both ways once, and refuses one given both ways differently", () => {
    assert.equal(parseStartArgs(["--stack", "prod"], npm({ npm_config_stack: "prod" })).stack, "prod");
    assert.throws(
      () => parseStartArgs(["--stack", "dev"], npm({ npm_config_stack: "prod" })),
      (error: Error) =>
        error instanceof UsageError &&
        error.message ===
          "--stack is given twice, differently: prod before -- (npm passes it on as npm_config_stack) and dev after it: give it once",
    );
    assert.throws(
      () => parseStartArgs(["--config", "a:b=1"], npm({ npm_config_config: "a:b=2" })),
      /--config is given twice, differently: a:b=2 before --/,
    );
    assert.throws(
      () => parseStartArgs([], npm({ npm_config_stack: "prod\n\nstaging" })),
      /--stack is given 2 times before -- \(prod, staging\): give it once/,
    );
  });

  it("refuses `npm start --stack prod` (npm keeps --stack, prod arrives alone) with the command to run", () => {
    assert.throws(
      () => parseStartArgs(["prod"], npm({ npm_config_stack: "true" })),
      (error: Error) =>
        error instanceof UsageError &&
        error.message ===
          "npm took --stack for itself, without its value (it passed prod on as arguments): put the options after --, as in npm start -- --stack prod",
    );
    assert.throws(
      () => parseStartArgs(["prod", "x"], npm({ npm_config_stack: "true", npm_config_out: "true" })),
      /npm took --stack and --out for itself, without their values \(it passed prod x on as arguments\): put the options after --, as in npm start -- --stack NAME --out DIR$/,
    );
  });

  it("reads npm_config_* only when npm runs the start script (under npm test they are another command's)", () => {
    for (const env of [
      { npm_config_stack: "prod" },
      { npm_lifecycle_event: "test:unit", npm_config_stack: "prod", npm_config_config: "a:b=1" },
    ]) {
      const options = parseStartArgs([], env);
      assert.equal(options.stack, "dev");
      assert.deepEqual(options.config, {});
    }
  });
});

describe("npm start: the command", () => {
  const tsNode = path.join(PROJECT_ROOT, "node_modules", ".bin", "ts-node");
  const start = (...args: string[]) =>
    spawnSync(process.execPath, [tsNode, "--transpile-only", "scripts/start.ts", ...args], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
      env: { ...process.env, npm_lifecycle_event: "" },
    });
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-plan-"));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("writes the plan files, identical to an in-process render, and prints the diff", async () => {
    // The base: dev with a larger node group, deployed: dev's own maxSize is below the desired size the
    // base left, so its plan brings the desired size down with it (docs/config-reference.md#scaling).
    const base = path.join(tmp, "base.json");
    const bigger = await evaluatedWith("dev", {
      config: { "eks-calico:nodeGroups": devNodeGroupsWithDesired(4) },
    });
    fs.writeFileSync(base, renderResourcesJson(bigger));

    const result = start("--out", path.join(tmp, "out"), "--diff", base);
    assert.equal(result.status, 0, result.stderr);
    // The base's outputs stand for the deployed stack's (previousOutputs), as start passes them.
    const expected = renderPlanFiles(await evaluatedWith("dev", { previousOutputs: bigger.outputs }));
    for (const name of PLAN_FILES) {
      assert.equal(fs.readFileSync(path.join(tmp, "out", "dev", name), "utf8"), expected[name], name);
    }
    const diff = fs.readFileSync(path.join(tmp, "out", "dev", "diff.txt"), "utf8");
    assert.match(
      diff,
      /\n {4}inputs\.scalingConfig\.desiredSize: 4 → 3\n {4}inputs\.scalingConfig\.maxSize: 4 → 3\n/,
    );
    assert.match(diff, / {4}nodeGroupScaling\.general\.desiredSizeSet: \(absent\) → "lowered from 4 to 3: /);
    // What changes leads; the tree, the same at every run, only with --tree.
    assert.ok(result.stdout.startsWith(`${diff}\n(The resource tree and outputs: add --tree.)\n`));
    assert.ok(!result.stdout.includes("Stack dev (project eks-calico): "), "no tree without --tree");
    assert.ok(diff.startsWith(`Changes to stack dev against ${base}: `));
  });

  it("with --diff --tree, prints the summary and the changed resources first, then the tree", async () => {
    const base = path.join(tmp, "tree-base.json");
    const bigger = await evaluatedWith("dev", {
      config: { "eks-calico:nodeGroups": devNodeGroupsWithDesired(4) },
    });
    fs.writeFileSync(base, renderResourcesJson(bigger));
    const { code, out } = await runStart("--out", path.join(tmp, "tree"), "--diff", base, "--tree");
    assert.equal(code, EXIT.planned);
    const at = (text: string) => {
      assert.ok(out.includes(text), text);
      return out.indexOf(text);
    };
    assert.equal(at(`Changes to stack dev against ${base}: `), 0, "the summary comes first");
    const changed = at("~ aws:eks/nodeGroup:NodeGroup cluster-general");
    const tree = at("Stack dev (project eks-calico): ");
    assert.ok(changed < tree, "the changed resources come before the tree");
    assert.ok(tree < at("\nOutputs:\n"));
    assert.ok(out.includes("kubeconfig") && !out.includes("certificate-authority-data"), "outputs masked");
    assert.ok(!out.includes("add --tree"));
  });

  it("exits 3 for a diff that replaces protected resources, after writing the plan files and diff.txt", async () => {
    const base = path.join(tmp, "prod-base.json");
    // A saved plan whose VPC has another CIDR than its `network` output (a plan edited by hand): the
    // program plans the configured CIDR unrefused (the output matches it), and only the diff stops it.
    const prod = await evaluated("prod");
    const otherVpc = prod.resources.map((r) =>
      r.type === "aws:ec2/vpc:Vpc" ? { ...r, inputs: { ...r.inputs, cidrBlock: "10.64.0.0/16" } } : r,
    );
    fs.writeFileSync(base, renderResourcesJson({ ...prod, resources: otherVpc }));
    const out = path.join(tmp, "blocked");
    // Another VPC CIDR replaces the VPC, protected in prod; the EKS cluster, protected too, may be replaced
    // (the AWS provider updates its subnets in place and EKS refuses another VPC's): marked, not counted.
    const run = await runStart("--stack", "prod", "--out", out, "--diff", base);
    assert.equal(run.code, EXIT.blocked, run.err);
    assert.equal(EXIT.blocked, 3);
    for (const name of [...PLAN_FILES, "diff.txt"]) {
      assert.ok(fs.existsSync(path.join(out, "prod", name)), `${name} is written`);
    }
    const diff = fs.readFileSync(path.join(out, "prod", "diff.txt"), "utf8");
    assert.match(diff.split("\n")[0], /; BLOCKED: 1 protected\.$/);
    assert.match(diff, /^\+- aws:ec2\/vpc:Vpc network-vpc {2}\[BLOCKED: protected/m);
    assert.match(
      diff,
      /^\? eks:index:Cluster cluster-eks {2}\[protected: `pulumi up` stops if it is replaced\]/m,
    );
    assert.ok(run.out.startsWith(diff));
    // After prod's plan warning (its CI runner cannot reach its endpoint: test/ci-runners.test.ts).
    assert.equal(
      run.err.replace(/^warning: stack prod: .*\n/gm, ""),
      "error: stack prod: `pulumi up` would stop: 1 protected resource would be replaced or deleted (BLOCKED in the diff)\n",
    );
    // Two saved plans compare the same way: blocked is exit 3 there too; the same plan, 0.
    const head = path.join(out, "prod", "resources.json");
    assert.equal((await runStart("--diff", base, "--head", head)).code, EXIT.blocked);
    assert.equal((await runStart("--diff", base, "--head", base)).code, EXIT.planned);
  });

  it("refuses a diff against a plan whose outputs have no `network`, as 0.1.0 wrote them", async () => {
    const base = path.join(tmp, "prod-0.1.0.json");
    const prod = await evaluated("prod");
    const earlier = Object.fromEntries(Object.entries(prod.outputs).filter(([name]) => name !== "network"));
    fs.writeFileSync(base, renderResourcesJson({ ...prod, outputs: earlier }));
    const run = await runStart("--stack", "prod", "--out", path.join(tmp, "earlier"), "--diff", base);
    assert.equal(run.code, EXIT.refused, run.err);
    assert.ok(
      run.err.includes(
        "network: cannot be checked against the deployed network: the stack was last updated by 0.1.0",
      ),
      run.err,
    );
  });

  it("plans the stack of `npm start --stack=prod`, written without --", () => {
    // npm itself, as a user runs it: it keeps --stack=prod and --out=DIR and passes them on as variables.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) =>
          !/^(npm_config_(stack|out|diff|diff_ref|head|heading|adopt_from|config)|npm_lifecycle_event|INIT_CWD)$/i.test(
            name,
          ),
      ),
    );
    const out = path.join(tmp, "npm");
    const result = spawnSync("npm", ["start", "--stack=prod", `--out=${out}`], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
      env,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^Stack prod \(project eks-calico\): /m);
    assert.ok(fs.existsSync(path.join(out, "prod", "resources.json")), "the plan is written under --out");
    assert.ok(!fs.existsSync(path.join(out, "dev")), "dev is not planned");
  });

  it("says a bare --diff compares with the last local run's plan, naming it and when it was written", async () => {
    const out = path.join(tmp, "last");
    const last = path.join(out, "dev", "resources.json");
    fs.mkdirSync(path.dirname(last), { recursive: true });
    fs.writeFileSync(last, renderResourcesJson(await evaluated("dev")));
    const written = new Date(Date.now() - 3 * 60_000);
    fs.utimesSync(last, written, written);
    const run = await runStart("--out", out, "--diff");
    assert.equal(run.code, EXIT.planned, run.err);
    const when = `${written.toISOString().slice(0, 16).replace("T", " ")} UTC, 3 min ago`;
    assert.ok(
      run.out.startsWith(
        `Compared with the last local run's plan, ${last} (written ${when}), not with a git ref: a change made ` +
          `before that run does not show. Against main: npm start -- --stack dev --diff-ref main\nChanges to stack dev against ${last}: `,
      ),
      run.out.slice(0, 400),
    );
    assert.ok(
      fs.readFileSync(path.join(out, "dev", "diff.txt"), "utf8").startsWith("Changes to stack dev against "),
    );
  });

  it("exits 2 for a --diff-ref that names no commit, naming it, before planning", async () => {
    const ref = "no-such-ref-of-eks-calico";
    const run = await runStart("--out", path.join(tmp, "no-ref"), "--diff-ref", ref);
    assert.equal(run.code, EXIT.refused);
    assert.ok(run.err.startsWith(`error: --diff-ref ${ref}: no commit "${ref}" in ${PROJECT_ROOT}`), run.err);
    assert.equal(run.out, "");
    assert.ok(!fs.existsSync(path.join(tmp, "no-ref")), "nothing written");
  });

  it("exits 2 for an unknown stack, listing the stacks", () => {
    const result = start("--stack", "nope");
    assert.equal(result.status, 2);
    // Every stack file, examples included: whatever stack files the project has.
    const stacks = listStacks();
    for (const stack of ["dev", "staging", "prod", "existing.example", "kubeconfig.example"]) {
      assert.ok(stacks.includes(stack), stack);
    }
    assert.equal(
      result.stderr,
      `error: unknown stack "nope": there is no Pulumi.nope.yaml. Stacks: ${stacks.join(", ")}\n`,
    );
  });

  it("exits 2 for invalid configuration, listing every problem without a stack trace", () => {
    const result = start(
      "--out",
      path.join(tmp, "bad"),
      "--config",
      'eks-calico:network={"cidr":"10.0.0.0/33","availabilityZones":9}',
    );
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /Stack "dev" has invalid configuration \(2 problems\)/);
    assert.match(result.stderr, /network\.cidr: .* \(got "10\.0\.0\.0\/33"\)/);
    assert.match(result.stderr, /network\.availabilityZones: must be at most 6 \(got 9\)/);
    assert.ok(!result.stderr.includes("    at "), result.stderr);
    assert.ok(!fs.existsSync(path.join(tmp, "bad")), "nothing written");
  });
});
