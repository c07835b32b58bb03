/**
 * Who each workflow runs as, and where: pull-request previews run the pull request's code, so they take the
 * stack's read-only preview role from its `<stack>-preview` environment, preview only stacks Pulumi Cloud
 * already has, and always run on GitHub-hosted runners; deploys take the deploy role from the stack's own
 * environment and run on the stack's runner; the drift check takes the drift role (trusted from main only)
 * and runs on the stack's runner too. Their Pulumi Cloud tokens are test/pulumi-tokens.test.ts's.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";
import { workflowFiles } from "../scripts/lint-workflows";
import { stepUsing, workflow, workflowText } from "./workflow-files";

const text = workflowText;
const uses = stepUsing;
const secret = (name: string) => `\${{ secrets.${name} }}`;

describe("workflows: who runs as which role", () => {
  it("previews take the stack's preview role from its <stack>-preview environment, never a deploy role", () => {
    const preview = workflow("pr.yml").jobs.preview;
    assert.equal(preview.environment, "${{ matrix.stack }}-preview");
    assert.equal(
      uses(preview, "aws-actions/configure-aws-credentials")?.with?.["role-to-assume"],
      secret("AWS_PREVIEW_ROLE_ARN"),
    );
    assert.doesNotMatch(text("pr.yml"), /secrets\.AWS_ROLE_ARN|AWS_DRIFT_ROLE_ARN/);
  });

  it("skips a stack whose preview environment has no role, or that has no preview identity in Pulumi Cloud, saying so, and runs nothing of the pull request's before", () => {
    const steps = workflow("pr.yml").jobs.preview.steps ?? [];
    assert.equal(steps[0].id, "role");
    assert.equal(steps[0].env?.AWS_PREVIEW_ROLE_ARN, secret("AWS_PREVIEW_ROLE_ARN"));
    assert.equal(steps[0].env?.PULUMI_PREVIEW_TEAM, "${{ vars.PULUMI_PREVIEW_TEAM }}");
    assert.equal(steps[0].env?.PULUMI_PREVIEW_USER, "${{ vars.PULUMI_PREVIEW_USER }}");
    const notices = [
      ...(steps[0].run ?? "").matchAll(/::notice::pulumi preview of \$STACK skipped: ([^;]*)/g),
    ];
    assert.deepEqual(
      notices.map((m) => m[1]),
      [
        "its environment $STACK-preview has no AWS_PREVIEW_ROLE_ARN secret",
        "neither PULUMI_PREVIEW_TEAM nor PULUMI_PREVIEW_USER is set, so there is no read-only Pulumi Cloud identity to preview as (docs/access.md)",
      ],
    );
    for (const step of steps.slice(1)) {
      const conditions = (step.if ?? "").split(" && ");
      assert.equal(conditions[0], "steps.role.outputs.available == 'true'", step.uses ?? step.run);
    }
  });

  it("previews only a stack Pulumi Cloud already has, and never creates one", () => {
    const steps = workflow("pr.yml").jobs.preview.steps ?? [];
    const check = steps.findIndex((s) => s.id === "stack");
    assert.match(steps[check].run ?? "", /api\/stacks\/\$PULUMI_ORG\/\$project\/\$STACK/);
    assert.match(steps[check].run ?? "", /404\)\n\s*echo "exists=false"/);
    const login = steps.findIndex((s) => s.uses?.startsWith("pulumi/auth-actions"));
    assert.ok(login >= 0 && login < check, "the check runs with the preview token");
    for (const step of steps.slice(check + 1)) {
      assert.match(step.if ?? "", /&& steps\.stack\.outputs\.exists == 'true'$/, step.uses ?? step.run);
    }
    assert.equal(uses(workflow("pr.yml").jobs.preview, "pulumi/actions")?.with?.upsert, false);
  });

  it("says in the run's summary what a view-only or unreachable preview could not compare", () => {
    const setup = workflow("pr.yml").jobs.setup;
    assert.equal(setup.outputs?.unreachable, "${{ steps.stacks.outputs.unreachable }}");
    const say = workflow("pr.yml").jobs.preview.steps?.find(
      (s) => s.name === "Say what the preview cannot see",
    );
    assert.equal(
      say?.env?.UNREACHABLE,
      "${{ contains(fromJSON(needs.setup.outputs.unreachable), matrix.stack) }}",
    );
    assert.match(say?.run ?? "", /cannot reach this stack's Kubernetes API/);
    assert.match(say?.run ?? "", /view-only preview role cannot run the server-side dry-run/);
  });

  it("deploys take the deploy role only through the stack's own environment", () => {
    for (const file of ["pr.yml", "drift.yml", "test.yml"]) {
      assert.doesNotMatch(text(file), /secrets\.AWS_ROLE_ARN/, file);
    }
    // deploy.yml only passes it by name to up.yml, whose job names the environment: GitHub gives that job
    // the environment's secret over the caller's ("Reusing workflows", using inputs and secrets).
    const deploy = workflow("deploy.yml").jobs as Record<string, { uses?: string; secrets?: unknown }>;
    for (const [name, job] of Object.entries(deploy)) {
      if (job.uses === "./.github/workflows/up.yml")
        assert.deepEqual(job.secrets, { AWS_ROLE_ARN: secret("AWS_ROLE_ARN") }, name);
      else assert.equal(job.secrets, undefined, name);
    }
    assert.equal((text("deploy.yml").match(/secrets\.AWS_ROLE_ARN/g) ?? []).length, 3);
    const up = workflow("up.yml").jobs.up;
    assert.equal(up.environment, "${{ inputs.stack }}");
    assert.equal(
      uses(up, "aws-actions/configure-aws-credentials")?.with?.["role-to-assume"],
      secret("AWS_ROLE_ARN"),
    );
  });

  it("the drift check takes the drift role of the stack's account, outside any environment, on main's schedule or by hand", () => {
    const drift = workflow("drift.yml");
    assert.deepEqual(Object.keys(drift.on).sort(), ["schedule", "workflow_dispatch"]);
    assert.equal(drift.jobs.drift.environment, undefined);
    // One AWS account per stack (docs/fork.md): each stack's own drift role, else the one role.
    const role =
      "${{ fromJSON(vars.AWS_DRIFT_ROLE_ARNS || '{}')[matrix.stack] || secrets.AWS_DRIFT_ROLE_ARN }}";
    assert.equal(
      uses(drift.jobs.drift, "aws-actions/configure-aws-credentials")?.with?.["role-to-assume"],
      role,
    );
    // The job stops, naming both settings, before it assumes nothing.
    const check = (drift.jobs.drift.steps ?? []).find((s) => s.name === "Check the drift identity");
    assert.equal(check?.env?.DRIFT_ROLE, role);
    assert.match(
      String(check?.run),
      /No drift role for stack \$STACK: add it to the variable AWS_DRIFT_ROLE_ARNS/,
    );
  });
});

describe("workflows: which runner each stack's jobs use", () => {
  it("lists the stacks and their runners after installing the dependencies the config schema needs", () => {
    for (const [file, job] of [
      ["pr.yml", "setup"],
      ["deploy.yml", "stacks"],
      ["drift.yml", "stacks"],
    ] as const) {
      const steps = workflow(file).jobs[job].steps ?? [];
      const install = steps.findIndex((s) => s.run === "npm ci --ignore-scripts");
      const list = steps.findIndex((s) => s.run?.startsWith("node .github/scripts/list-stacks.js"));
      assert.ok(install >= 0 && install < list, `${file} ${job}: npm ci before list-stacks.js`);
    }
  });

  it("runs pulumi up on the stack's runner, passed to up.yml as a JSON list of labels", () => {
    const up = workflow("up.yml");
    assert.equal(up.jobs.up["runs-on"], "${{ fromJSON(inputs.runner) }}");
    assert.deepEqual(up.on.workflow_call?.inputs?.runner?.required, true);
    const deploy = workflow("deploy.yml").jobs;
    assert.equal(deploy.stacks.outputs?.runners, "${{ steps.list.outputs.runners }}");
    assert.equal(deploy.dev.with?.runner, "${{ toJSON(fromJSON(needs.stacks.outputs.runners).dev) }}");
    assert.equal(
      deploy.staging.with?.runner,
      "${{ toJSON(fromJSON(needs.stacks.outputs.runners)[matrix.stack]) }}",
    );
    assert.equal(deploy.prod.with?.runner, "${{ toJSON(fromJSON(needs.stacks.outputs.runners).prod) }}");
    for (const name of ["dev", "staging", "prod"]) {
      assert.ok(([] as string[]).concat(deploy[name].needs ?? []).includes("stacks"), name);
    }
  });

  it("runs the drift check on the stack's runner, and pull-request previews always on GitHub-hosted runners", () => {
    assert.equal(
      workflow("drift.yml").jobs.drift["runs-on"],
      "${{ fromJSON(needs.stacks.outputs.runners)[matrix.stack] }}",
    );
    // The pull request's code never runs on the self-hosted runners that deploy.
    for (const [name, job] of Object.entries(workflow("pr.yml").jobs)) {
      if (job.uses === undefined) assert.equal(job["runs-on"], "ubuntu-latest", name);
    }
  });

  it("documents the roles, the preview environments and the runners in docs/pull-requests.md", () => {
    const doc = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "pull-requests.md"), "utf8");
    for (const name of [
      "AWS_PREVIEW_ROLE_ARN",
      "AWS_DRIFT_ROLE_ARN",
      "<stack>-preview",
      "eks-calico:deploy",
    ]) {
      assert.ok(doc.includes(name), name);
    }
  });

  it("documents every variable a workflow reads in docs/pull-requests.md", () => {
    const doc = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "pull-requests.md"), "utf8");
    const names = new Set(
      workflowFiles().flatMap((file) =>
        [...text(path.basename(file)).matchAll(/\bvars\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]),
      ),
    );
    assert.ok(names.has("PULUMI_PREVIEW_TEAM") && names.has("PULUMI_DRIFT_USER"), [...names].join());
    for (const name of names) assert.ok(doc.includes(`\`${name}\``), name);
  });
});
