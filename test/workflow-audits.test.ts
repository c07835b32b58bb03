/**
 * The workflows pass the security audits of scripts/workflow-audits.ts (zizmor's unpinned-uses,
 * secrets-inherit and artipacked), and each audit fails on the workflows as they were before it: actions
 * on movable tags, `secrets: inherit` into up.yml, and checkouts that kept the token.
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
  auditWorkflows,
  formatAuditProblem,
} from "../scripts/workflow-audits";
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
