/**
 * The workflows pass the security audits of scripts/workflow-audits.ts (zizmor's unpinned-uses,
 * secrets-inherit and artipacked, and AWS sessions as long as their jobs), and each audit fails on the
 * workflows as they were before it: actions on movable tags, `secrets: inherit` into up.yml, checkouts that
 * kept the token, a 90-minute deploy on a one-hour session, and Pulumi tokens of the server's lifetime.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { PROJECT_ROOT } from "../offline/engine";
import { workflowFiles } from "../scripts/lint-workflows";
import {
  type Audit,
  type WorkflowSource,
  SESSION,
  auditWorkflows,
  formatAuditProblem,
} from "../scripts/workflow-audits";
import { readPage } from "./docs-pages";
import { workflow } from "./workflow-files";

const FILES: WorkflowSource[] = workflowFiles().map((file) => ({
  name: path.basename(file),
  text: fs.readFileSync(file, "utf8"),
}));

/** The audits' problems once every file's text is changed by `edit`, counted by audit. */
function countsAfter(edit: (text: string, name: string) => string): Partial<Record<Audit, number>> {
  const counts: Partial<Record<Audit, number>> = {};
  for (const p of auditWorkflows(FILES.map((f) => ({ ...f, text: edit(f.text, f.name) }))))
    counts[p.audit] = (counts[p.audit] ?? 0) + 1;
  return counts;
}

/** Lines that name an action of another repository. */
const REMOTE_USES = FILES.flatMap((f) =>
  f.text.split("\n").filter((line) => /^\s*(-\s+)?uses:\s*[^.\s]/.test(line)),
);
const CHECKOUTS = FILES.flatMap((f) =>
  f.text.split("\n").filter((l) => /uses:\s*actions\/checkout@/.test(l)),
);

describe("workflows: security audits", () => {
  it("finds no problem in our workflows", () => {
    assert.deepEqual(auditWorkflows(FILES).map(formatAuditProblem), []);
    assert.ok(REMOTE_USES.length >= 30 && CHECKOUTS.length >= 8, `${REMOTE_USES.length} ${CHECKOUTS.length}`);
  });

  it("refuses an action on a movable tag, a short commit, or a commit without its version", () => {
    // As before: every action on its major tag (`actions/checkout@v4`).
    const tags = countsAfter((text) =>
      text.replace(/@[0-9a-f]{40} # (v\d+)[.\d]*/g, (_, version: string) => `@${version}`),
    );
    assert.deepEqual(tags, { "unpinned-uses": REMOTE_USES.length });
    assert.deepEqual(
      countsAfter((text) => text.replace(/@([0-9a-f]{7})[0-9a-f]{33}/g, "@$1")),
      { "unpinned-uses": REMOTE_USES.length },
    );
    assert.deepEqual(
      countsAfter((text) => text.replace(/(@[0-9a-f]{40}) # v[.\d]+/g, "$1")),
      { "unpinned-uses": REMOTE_USES.length },
    );
    // This repository's own workflows are not pinned: they are the commit that runs.
    assert.ok(FILES.some((f) => /uses: \.\/\.github\/workflows\//.test(f.text)));
  });

  it("refuses secrets: inherit, and up.yml is passed exactly the secrets it declares", () => {
    const inherit = countsAfter((text, name) =>
      name === "deploy.yml" ? text.replace(/ secrets:\n\s+AWS_ROLE_ARN: .*\n/g, " secrets: inherit\n") : text,
    );
    const calls = Object.values(workflow("deploy.yml").jobs).filter((j) => j.uses?.endsWith("/up.yml"));
    assert.deepEqual(inherit, { "secrets-inherit": calls.length });
    const declared = Object.keys(
      (
        YAML.parse(FILES.find((f) => f.name === "up.yml")!.text) as {
          on: { workflow_call: { secrets: Record<string, unknown> } };
        }
      ).on.workflow_call.secrets,
    );
    for (const job of calls) {
      const passed = (job as { secrets?: Record<string, string> }).secrets ?? {};
      assert.deepEqual(Object.keys(passed), declared);
    }
  });

  it("refuses a checkout that keeps the token in its git config", () => {
    assert.deepEqual(
      countsAfter((text) => text.replace(/\n\s+persist-credentials: false/g, "")),
      { artipacked: CHECKOUTS.length },
    );
    assert.deepEqual(
      countsAfter((text) => text.replace(/persist-credentials: false/g, "persist-credentials: true")),
      { artipacked: CHECKOUTS.length },
    );
  });

  it("refuses a job that may outlive its AWS session, or that nothing bounds", () => {
    // As before: no role-duration-seconds, so the action's one hour, and up.yml runs up to 90 minutes.
    const before = auditWorkflows(
      FILES.map((f) => ({ ...f, text: f.text.replace(/\n\s+role-duration-seconds: \d+/g, "") })),
    );
    const up = workflow("up.yml").jobs.up as { "timeout-minutes"?: number };
    assert.ok((up["timeout-minutes"] ?? 0) * 60 > SESSION.defaultSeconds);
    assert.deepEqual(
      before.map((p) => `${p.file} ${p.audit}`),
      ["up.yml session-duration"],
    );
    assert.match(before[0].message, /lasts 3600 s but the job may run 5400 s/);
    const assuming = FILES.flatMap((f) =>
      f.text.split("\n").filter((line) => /uses:\s*aws-actions\/configure-aws-credentials@/.test(line)),
    );
    assert.deepEqual(
      countsAfter((text) => text.replace(/\n\s+timeout-minutes: \d+/g, "")),
      { "session-duration": assuming.length },
    );
    assert.deepEqual(
      countsAfter((text) =>
        text.replace(/role-duration-seconds: \d+/g, `role-duration-seconds: ${SESSION.maxSeconds + 1}`),
      ),
      { "session-duration": assuming.length },
    );
  });

  it("refuses a Pulumi token whose lifetime the job leaves to the server, or that ends before the job", () => {
    // As before: no token-expiration, so Pulumi Cloud chooses how long the deploy's token lasts.
    const exchanges = FILES.flatMap((f) =>
      f.text.split("\n").filter((line) => /uses:\s*pulumi\/auth-actions@/.test(line)),
    );
    assert.ok(exchanges.length > 0);
    const before = auditWorkflows(
      FILES.map((f) => ({ ...f, text: f.text.replace(/\n\s+token-expiration: \d+/g, "") })),
    );
    assert.equal(before.length, exchanges.length);
    assert.ok(
      before.every((p) => p.audit === "session-duration" && /sets no token-expiration/.test(p.message)),
    );
    const shorter = auditWorkflows(
      FILES.map((f) => ({ ...f, text: f.text.replace(/token-expiration: \d+/g, "token-expiration: 1200") })),
    );
    assert.equal(shorter.length, exchanges.length);
    assert.ok(
      shorter.every((p) => /lasts 1200 s but the job may run/.test(p.message)),
      shorter[0]?.message,
    );
    const lineOf = (p: { file: string; line: number }) =>
      FILES.find((f) => f.name === p.file)
        ?.text.split("\n")
        .at(p.line - 1) ?? "";
    assert.ok(shorter.every((p) => lineOf(p).includes("pulumi/auth-actions@")));
  });

  it("documents the deploy role's MaxSessionDuration as up.yml's session, and the others' sessions", () => {
    const seconds = (file: string, job: string) =>
      workflow(file).jobs[job].steps?.find((s) =>
        s.uses?.startsWith("aws-actions/configure-aws-credentials@"),
      )?.with?.["role-duration-seconds"];
    const doc = readPage("docs/pull-requests.md");
    assert.ok(doc.includes("MaxSessionDuration"), "MaxSessionDuration");
    const deploy = seconds("up.yml", "up");
    assert.ok(typeof deploy === "number" && deploy > SESSION.defaultSeconds, String(deploy));
    assert.ok(doc.includes(`--max-session-duration ${deploy}`), `--max-session-duration ${deploy}`);
    // The preview and drift sessions fit in the default hour, so their roles need no change.
    const others = [seconds("pr.yml", "preview"), seconds("drift.yml", "drift")];
    assert.deepEqual(new Set(others).size, 1);
    assert.ok(Number(others[0]) <= SESSION.defaultSeconds);
    assert.ok(doc.includes(`ask for ${String(others[0])} s`), `ask for ${String(others[0])} s`);
  });

  it("documents the token lifetime each job asks Pulumi Cloud for, and the issuer's maximum it needs", () => {
    const lifetimes = (file: string, job: string) => [
      ...new Set(
        (workflow(file).jobs[job].steps ?? [])
          .filter((s) => s.uses?.startsWith("pulumi/auth-actions@"))
          .map((s) => s.with?.["token-expiration"]),
      ),
    ];
    const [deploy] = lifetimes("up.yml", "up");
    assert.deepEqual(lifetimes("up.yml", "up"), [deploy]);
    const [others] = lifetimes("pr.yml", "preview");
    assert.deepEqual(lifetimes("drift.yml", "drift"), [others]);
    const doc = readPage("docs/pull-requests.md");
    assert.ok(doc.includes(`${String(deploy)} s in \`up.yml\``), `${String(deploy)} s in up.yml`);
    assert.ok(doc.includes(`${String(others)} s in the preview and drift jobs`), String(others));
    assert.ok(doc.includes(`OIDC issuer's maximum expiration`));
    assert.ok(
      readPage("docs/fork.md").includes(`maximum expiration of at least ${String(deploy)} s`),
      "fork.md: the issuer's maximum expiration",
    );
  });

  it("keeps the pinned actions and the npm packages current with Dependabot", () => {
    const config = YAML.parse(
      fs.readFileSync(path.join(PROJECT_ROOT, ".github", "dependabot.yml"), "utf8"),
    ) as {
      version: number;
      updates: { "package-ecosystem": string; directory: string; schedule?: { interval?: string } }[];
    };
    assert.equal(config.version, 2);
    assert.deepEqual(config.updates.map((u) => `${u["package-ecosystem"]} ${u.directory}`).sort(), [
      "github-actions /",
      "npm /",
    ]);
    for (const update of config.updates) assert.ok(update.schedule?.interval, update["package-ecosystem"]);
  });
});
