/**
 * The workflows pass the rules of scripts/workflow-audits.ts that zizmor has no offline audit for (a
 * version comment on every pinned action, AWS sessions and Pulumi tokens as long as their jobs), and each
 * rule fails on the workflows as they were before it: pins without their version, a 90-minute deploy on a
 * one-hour session, and Pulumi tokens of the server's lifetime. zizmor's own audits: lint-zizmor.test.ts.
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

describe("workflows: security audits", () => {
  it("finds no problem in our workflows", () => {
    assert.deepEqual(auditWorkflows(FILES).map(formatAuditProblem), []);
    assert.ok(REMOTE_USES.length >= 30, String(REMOTE_USES.length));
  });

  it("refuses an action pinned to a commit without its version in a comment", () => {
    assert.deepEqual(
      countsAfter((text) => text.replace(/(@[0-9a-f]{40}) # v[.\d]+/g, "$1")),
      { "version-comment": REMOTE_USES.length },
    );
    assert.deepEqual(
      countsAfter((text) => text.replace(/(@[0-9a-f]{40}) # (v[.\d]+)/g, "$1 # version $2")),
      { "version-comment": REMOTE_USES.length },
    );
    // A tag is zizmor's unpinned-uses, and this repository's own workflows are the commit that runs.
    assert.deepEqual(
      countsAfter((text) =>
        text.replace(/@[0-9a-f]{40} # (v\d+)[.\d]*/g, (_, version: string) => `@${version}`),
      ),
      {},
    );
    assert.ok(FILES.some((f) => /uses: \.\/\.github\/workflows\//.test(f.text)));
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
