/**
 * Every Pulumi Cloud token the workflows ask for keeps the rules of test/pulumi-tokens.ts: no organization
 * token, each team or member named, the lowest stack permission each job's commands need, and a pull
 * request's code at most Read, creating no stack, sharing nothing with the jobs that run reviewed code. The
 * rules read Pulumi Cloud's facts from test/fixtures/pulumi-cloud-tokens.yaml, GitHub's subject rule from
 * its documentation, and the tokens each job has from docs/access.md; each rule is also shown to catch the
 * mistake it is there for.
 */
import * as assert from "node:assert/strict";
import { WORKFLOWS_DIR } from "../scripts/lint-workflows";
import { readPage, tableRows } from "./docs-pages";
import {
  REPOSITORY_FORMS,
  type TokenRow,
  type Workflow,
  allowed,
  byName,
  pulumiFacts,
  readWorkflowDir,
  runsPullRequestCode,
  subjectForm,
  subjects,
  tokenProblems,
  tokenRows,
} from "./pulumi-tokens";

const FACTS = pulumiFacts();
const WORKFLOWS = readWorkflowDir(WORKFLOWS_DIR);
const ACCESS = readPage("docs/access.md");
const ROWS = tokenRows(ACCESS);

const ORGANIZATION = FACTS.tokenTypes.organization.urn;

/** The workflows with `file` changed by `mutate` (a deep copy: the others stay as read). */
function mutated(file: string, mutate: (w: Workflow["parsed"]) => void): Workflow[] {
  return WORKFLOWS.map((w) => {
    if (w.name !== file) return w;
    const parsed = structuredClone(w.parsed);
    mutate(parsed);
    return { ...w, parsed };
  });
}

/** The steps of `file`'s job `job` that use `action`, in the copy being mutated. */
const stepsUsing = (w: Workflow["parsed"], job: string, action: string) =>
  (w.jobs[job].steps ?? []).filter((s) => s.uses?.split("@")[0] === action);

/** The problems of the workflows with `file` mutated, which must not be empty. */
function failsWith(file: string, mutate: (w: Workflow["parsed"]) => void, rows: TokenRow[] = ROWS): string[] {
  const problems = tokenProblems(mutated(file, mutate), rows, FACTS);
  assert.ok(problems.length > 0, `${file}: the mutation breaks no rule`);
  return problems;
}

/** Every (workflow, job) that logs in to Pulumi Cloud. */
const LOGINS = WORKFLOWS.flatMap((w) =>
  Object.entries(w.parsed.jobs)
    .filter(([, job]) => (job.steps ?? []).some((s) => s.uses?.split("@")[0] === "pulumi/auth-actions"))
    .map(([id]) => [w.name, id] as const),
);

describe("workflows: Pulumi Cloud tokens", () => {
  it("finds the logins of the preview, the deploy and the drift check, and no problem in any", () => {
    assert.deepEqual(
      LOGINS.map(([file, job]) => `${file} ${job}`),
      ["drift.yml drift", "pr.yml preview", "up.yml up"],
    );
    assert.deepEqual(tokenProblems(WORKFLOWS, ROWS, FACTS), []);
  });

  it("knows which jobs run a pull request's code: pr.yml's, and test.yml's through its call", () => {
    assert.ok(runsPullRequestCode(WORKFLOWS, "pr.yml"));
    assert.ok(runsPullRequestCode(WORKFLOWS, "test.yml"));
    for (const file of ["deploy.yml", "up.yml", "drift.yml"])
      assert.ok(!runsPullRequestCode(WORKFLOWS, file));
  });

  it("gives each job the OIDC subject GitHub documents: its environment, else its event's ref", () => {
    assert.deepEqual(subjects(WORKFLOWS, "pr.yml", "preview"), [
      "repo:<owner>/<repo>:environment:<stack>-preview",
    ]);
    assert.deepEqual(subjects(WORKFLOWS, "up.yml", "up"), ["repo:<owner>/<repo>:environment:<stack>"]);
    assert.deepEqual(subjects(WORKFLOWS, "drift.yml", "drift").sort(), [
      "repo:<owner>/<repo>:ref:refs/heads/<branch>",
      "repo:<owner>/<repo>:ref:refs/heads/main",
    ]);
    assert.deepEqual(subjects(WORKFLOWS, "pr.yml", "offline-plan"), ["repo:<owner>/<repo>:pull_request"]);
    assert.deepEqual(subjects(WORKFLOWS, "deploy.yml", "stacks"), [
      "repo:<owner>/<repo>:ref:refs/heads/main",
    ]);
  });

  it("accepts a documented subject in either form GitHub writes the repository in, and no other", () => {
    const [names, ids] = REPOSITORY_FORMS;
    const inForm = (prefix: string) => ROWS.map((r) => ({ ...r, subject: r.subject.replace(names, prefix) }));
    assert.deepEqual(tokenProblems(WORKFLOWS, inForm(ids), FACTS), []);
    // Mixed: some rows in each form.
    const mixed = ROWS.map((r, i) => (i % 2 === 0 ? inForm(ids)[i] : r));
    assert.deepEqual(tokenProblems(WORKFLOWS, mixed, FACTS), []);
    // The ids joined with "-" (as an early draft of GitHub's changelog showed) or the ids on one name only.
    for (const wrong of ["repo:<owner>-<owner-id>/<repo>-<repo-id>", "repo:<owner>/<repo>@<repo-id>"]) {
      const problems = tokenProblems(WORKFLOWS, inForm(wrong), FACTS);
      assert.equal(
        problems.filter((p) => /in neither form GitHub writes/.test(p)).length,
        ROWS.length,
        wrong,
      );
    }
    assert.equal(byName(`${ids}:environment:<stack>`), `${names}:environment:<stack>`);
    assert.equal(subjectForm("repo:my-org/eks-calico:environment:prod"), "name");
    assert.equal(subjectForm("repo:my-org@123456/eks-calico@456789:environment:prod"), "immutable");
    assert.equal(subjectForm("repo:my-org/eks-calico@456789:ref:refs/heads/main"), undefined);
    assert.equal(subjectForm("repo:my-org@123456/eks-calico:pull_request"), undefined);
  });

  it("documents both forms, with a subject of each, and how to tell which a repository gets", () => {
    const page = readPage("docs/pull-requests.md");
    const section = page.slice(page.indexOf("## OIDC subjects: two forms"));
    assert.ok(section.length < page.length, "docs/pull-requests.md has the section");
    const examples = [...section.matchAll(/`(repo:[^`]*)`/g)].map((m) => m[1]);
    const forms = new Set(examples.map(subjectForm).filter((f) => f !== undefined));
    assert.deepEqual([...forms].sort(), ["immutable", "name"]);
    assert.ok(section.includes(`${REPOSITORY_FORMS[1]}:`), REPOSITORY_FORMS[1]);
    assert.match(section, /15 July 2026/);
    assert.match(section, /gh api repos\/<owner>\/<repo> --jq/);
    // The trust policy example's subject is in one of them.
    const sub = /"token\.actions\.githubusercontent\.com:sub": "([^"]+)"/.exec(page)?.[1] ?? "";
    assert.ok(subjectForm(sub) !== undefined, sub);
    assert.match(ACCESS, /pull-requests\.md#oidc-subjects-two-forms/);
  });

  describe("each rule catches its mistake", () => {
    for (const [file, job] of LOGINS) {
      it(`${file} job ${job}: an organization token put back fails`, () => {
        const problems = failsWith(file, (w) => {
          for (const step of stepsUsing(w, job, "pulumi/auth-actions")) {
            step.with = { organization: step.with?.organization, "requested-token-type": ORGANIZATION };
          }
        });
        assert.ok(
          problems.some((p) => /organization token/.test(p)),
          problems.join("\n"),
        );
      });

      it(`${file} job ${job}: a team or member token without its scope, or a type chosen by an expression, fails`, () => {
        failsWith(file, (w) => {
          for (const step of stepsUsing(w, job, "pulumi/auth-actions")) delete step.with?.scope;
        });
        failsWith(file, (w) => {
          const [step] = stepsUsing(w, job, "pulumi/auth-actions");
          step.with = { ...step.with, scope: "team:" };
        });
        failsWith(file, (w) => {
          const [step] = stepsUsing(w, job, "pulumi/auth-actions");
          step.with = { ...step.with, "requested-token-type": "${{ vars.PULUMI_TOKEN_TYPE }}" };
        });
      });

      it(`${file} job ${job}: Pulumi run before logging in fails`, () => {
        const problems = failsWith(file, (w) => {
          const steps = w.jobs[job].steps ?? [];
          w.jobs[job].steps = steps.filter((s) => s.uses?.split("@")[0] !== "pulumi/auth-actions");
        });
        assert.ok(
          problems.some((p) => /runs Pulumi without logging in first/.test(p)),
          problems.join("\n"),
        );
      });
    }

    it("a pull request's preview that may create its stack fails", () => {
      const problems = failsWith("pr.yml", (w) => {
        stepsUsing(w, "preview", "pulumi/actions")[0].with!.upsert = true;
      });
      assert.ok(
        problems.some((p) => /upsert/.test(p)),
        problems.join("\n"),
      );
    });

    it("a pull request's job with the deploy team's token fails, whatever the docs say", () => {
      const deploy = "team:${{ vars.PULUMI_DEPLOY_TEAM }}";
      const mutate = (w: Workflow["parsed"]) => {
        const [team] = stepsUsing(w, "preview", "pulumi/auth-actions");
        team.with = { ...team.with, scope: deploy };
      };
      assert.ok(failsWith("pr.yml", mutate).some((p) => /no row/.test(p)));
      // Documented as the preview's too, it is still shared with the deploy.
      const rows = ROWS.map((r) =>
        r.workflow === "pr.yml" && r.token === "team" ? { ...r, scope: deploy } : r,
      );
      const problems = failsWith("pr.yml", mutate, rows);
      assert.ok(problems.some((p) => /is asked for by pr\.yml job preview and by up\.yml job up/.test(p)));
    });

    it("a pull request's job that runs `pulumi up`, even documented with Write, fails", () => {
      const rows = ROWS.map((r) => (r.workflow === "pr.yml" ? { ...r, permission: "write" } : r));
      const problems = failsWith(
        "pr.yml",
        (w) => {
          stepsUsing(w, "preview", "pulumi/actions")[0].with!.command = "up";
        },
        rows,
      );
      assert.ok(
        problems.some((p) => /pull request's code with write/.test(p)),
        problems.join("\n"),
      );
    });

    it("a permission below or above what the job runs needs fails", () => {
      // The drift check turned into a deploy: Read cannot update.
      const below = failsWith("drift.yml", (w) => {
        stepsUsing(w, "drift", "pulumi/actions")[0].with!.command = "up";
      });
      assert.ok(below.some((p) => /read cannot run what the job runs, which needs write/.test(p)));
      // The deploy documented as Admin: more than `pulumi up` needs.
      const rows = ROWS.map((r) => (r.workflow === "up.yml" ? { ...r, permission: "admin" } : r));
      const above = tokenProblems(WORKFLOWS, rows, FACTS);
      assert.ok(
        above.some((p) => /admin is more than the job needs, write/.test(p)),
        above.join("\n"),
      );
    });

    it("a subject GitHub does not give the job, or one that does not pin reviewed code, fails", () => {
      // The deploy without its environment: GitHub gives it main's ref, not the environment's subject.
      const problems = failsWith("up.yml", (w) => {
        delete w.jobs.up.environment;
      });
      assert.ok(
        problems.some((p) => /GitHub gives the job/.test(p)),
        problems.join("\n"),
      );
      const wildcard = ROWS.map((r) =>
        r.workflow === "up.yml" ? { ...r, subject: "repo:<owner>/<repo>:environment:*" } : r,
      );
      assert.ok(tokenProblems(WORKFLOWS, wildcard, FACTS).some((p) => /does not pin/.test(p)));
    });

    it("a token the docs do not list, a row no job asks for, or a can/cannot the docs leave out, fails", () => {
      const [first, ...rest] = ROWS;
      assert.ok(tokenProblems(WORKFLOWS, rest, FACTS).some((p) => /has no row/.test(p)));
      const extra = { ...first, job: "nobody" };
      assert.ok(tokenProblems(WORKFLOWS, [...ROWS, extra], FACTS).some((p) => /asks for no/.test(p)));
      const silent = [{ ...first, can: "", cannot: "" }, ...rest];
      const problems = tokenProblems(WORKFLOWS, silent, FACTS);
      assert.ok(problems.some((p) => /does not say it can preview/.test(p)));
      assert.ok(problems.some((p) => /does not say it cannot update it/.test(p)));
    });
  });
});

describe("docs: Pulumi Cloud tokens per edition", () => {
  it("lists every edition once, with the token types its OIDC issuers issue", () => {
    const rows = tableRows(ACCESS, "Edition");
    const names = Object.entries(FACTS.editions);
    const seen: string[] = [];
    for (const [editions, tokens] of rows) {
      const types = tokens
        .split(",")
        .map((t) => t.trim())
        .sort();
      for (const name of editions.split(",").map((e) => e.trim())) {
        const id = names.find(([, n]) => n === name)?.[0];
        assert.ok(id, `an edition Pulumi does not name: ${name}`);
        seen.push(id);
        const issued = Object.entries(FACTS.tokenTypes)
          .filter(([, t]) => t.editions.includes(id))
          .map(([type]) => type)
          .sort();
        assert.deepEqual(types, issued, name);
      }
    }
    assert.deepEqual(seen.sort(), Object.keys(FACTS.editions).sort());
  });

  it("says what Read includes that a branch can reach: the stacks' decrypted secrets", () => {
    assert.ok(allowed(FACTS, "read").includes("decrypt its secrets"));
    assert.match(ACCESS, /anyone who can push a branch can read those of\s+every stack the preview identity/);
  });
});
