/**
 * The workflow rules `npm run lint:workflows` (a step of `npm test`) holds the workflows to beside
 * actionlint, offline, that zizmor (`npm run lint:zizmor`, pinned in tools/zizmor/requirements.txt) has
 * no offline audit for. zizmor holds pinning to a commit (`unpinned-uses`), `secrets: inherit`
 * (`secrets-inherit`) and checkouts that keep the token (`artipacked`). Each rule here, with its source:
 * - version comments: every action pinned to a commit names its version in a `# vX` comment, which
 *   Dependabot moves with the commit. zizmor's `ref-version-mismatch` ("hash pin has mismatched or missing
 *   version comment") asks the GitHub API what the commit is, so `--offline` skips it.
 * - sessions cover their job: aws-actions/configure-aws-credentials asks STS for one hour unless told
 *   otherwise (action.yml of v4.3.1: `role-duration-seconds`, "Default is one hour"; src/index.ts
 *   DEFAULT_ROLE_DURATION = 3600), so a job that assumes a role sets `timeout-minutes` and a
 *   `role-duration-seconds` of at least that many minutes, at most STS's 43,200 s (12 hours, the highest
 *   MaxSessionDuration IAM accepts: AWS STS AssumeRoleWithWebIdentity, DurationSeconds). Likewise a job
 *   that exchanges its OIDC token for a Pulumi token sets `token-expiration` to cover it (PULUMI_TOKEN).
 *   No zizmor audit reads a credential's lifetime or `timeout-minutes`.
 */
import YAML from "yaml";

/** One workflow file: its name and text. */
export interface WorkflowSource {
  name: string;
  text: string;
}

/** The rules, by name. */
export const AUDITS = ["version-comment", "session-duration"] as const;
export type Audit = (typeof AUDITS)[number];

export interface AuditProblem {
  audit: Audit;
  file: string;
  line: number;
  message: string;
}

/** What aws-actions/configure-aws-credentials v4.3.1 and AWS STS allow (see the top of this file). */
export const SESSION = {
  /** action.yml `role-duration-seconds`: "Default is one hour." */
  defaultSeconds: 3600,
  /** AssumeRoleWithWebIdentity DurationSeconds: 900 to the role's MaxSessionDuration, at most 43,200. */
  minSeconds: 900,
  maxSeconds: 43_200,
} as const;

/**
 * What pulumi/auth-actions v1.0.1 allows: `token-expiration` is optional and sent as the token exchange's
 * `expiration` only when set (src/config.ts, src/oauth2.ts); without it Pulumi Cloud picks the lifetime,
 * and "It is up to the Pulumi authorization server to grant or reduce it" (action.yml). So the audit asks
 * for it explicitly; the OIDC issuer's maximum expiration in Pulumi Cloud must allow it (docs/pull-requests.md).
 */
export const PULUMI_TOKEN = {
  minSeconds: 1,
} as const;

interface Step {
  uses?: string;
  with?: Record<string, unknown>;
}
interface Job {
  "timeout-minutes"?: unknown;
  steps?: Step[];
}

/** The action a `uses:` names, without its ref. */
const actionOf = (uses: string) => uses.split("@")[0];

/** The 1-based line of the first line at or after `from` matching `pattern`, or 0. */
function lineOf(lines: readonly string[], pattern: RegExp, from = 0): number {
  const index = lines.findIndex((line, i) => i >= from && pattern.test(line));
  return index + 1;
}

/** The file's lines, and each job with the 1-based line of its key (`  <id>:`). */
function jobsOf(file: WorkflowSource): { lines: string[]; jobs: [string, Job, number][] } {
  const lines = file.text.split("\n");
  const jobs = (YAML.parse(file.text) as { jobs?: Record<string, Job> }).jobs ?? {};
  return {
    lines,
    jobs: Object.entries(jobs).map(([id, job]) => [id, job, lineOf(lines, new RegExp(`^  ${id}:`))]),
  };
}

const USES_LINE = /^\s*(?:-\s+)?uses:\s*(["']?)([^"'\s#]+)\1\s*(?:#\s*(.*?))?\s*$/;
const PINNED = /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/;
const VERSION_COMMENT = /^v\d+(\.\d+)*$/;

/** Every action pinned to a commit without its version in a `# vX` comment (zizmor holds the pins). */
export function versionComments(file: WorkflowSource): AuditProblem[] {
  const problems: AuditProblem[] = [];
  file.text.split("\n").forEach((line, index) => {
    const match = USES_LINE.exec(line);
    if (match === null || !PINNED.test(match[2])) return;
    const [, , uses, comment] = match;
    if (comment === undefined || !VERSION_COMMENT.test(comment))
      problems.push({
        audit: "version-comment",
        file: file.name,
        line: index + 1,
        message: `${uses} has no "# vX" comment naming its version`,
      });
  });
  return problems;
}

/** A credential step's lifetime input: its action, the input, its default, and the range it accepts. */
interface Credential {
  readonly action: string;
  /** The input that names the credential's scope: a step without it asks for no credential. */
  readonly asks: string;
  readonly input: string;
  /** What the action asks for without the input; none: the server chooses. */
  readonly defaultSeconds?: number;
  readonly minSeconds: number;
  /** None: the action sets no ceiling (the Pulumi OIDC issuer's maximum expiration is the bound). */
  readonly maxSeconds?: number;
}

const CREDENTIALS: readonly Credential[] = [
  {
    action: "aws-actions/configure-aws-credentials",
    asks: "role-to-assume",
    input: "role-duration-seconds",
    ...SESSION,
  },
  { action: "pulumi/auth-actions", asks: "organization", input: "token-expiration", ...PULUMI_TOKEN },
];

/** Every job whose AWS session or Pulumi token may expire before the job ends, or that nothing bounds. */
export function sessionDuration(file: WorkflowSource): AuditProblem[] {
  const { lines, jobs } = jobsOf(file);
  const problems: AuditProblem[] = [];
  for (const [id, job, start] of jobs) {
    const steps = (job.steps ?? []).flatMap((step) =>
      CREDENTIALS.filter(
        (c) =>
          step.uses !== undefined && actionOf(step.uses) === c.action && step.with?.[c.asks] !== undefined,
      ).map((credential) => ({ step, credential })),
    );
    if (steps.length === 0) continue;
    const where = { audit: "session-duration" as const, file: file.name, line: start };
    const timeout = job["timeout-minutes"];
    if (typeof timeout !== "number") {
      problems.push({
        ...where,
        message: `job ${id} takes credentials but sets no timeout-minutes: nothing bounds it by their lifetime`,
      });
      continue;
    }
    let searchFrom = start;
    for (const { step, credential: c } of steps) {
      const line = lineOf(lines, new RegExp(`${c.action}@`), searchFrom);
      searchFrom = line;
      const at = { ...where, line };
      const given = step.with?.[c.input];
      const seconds = Number(given ?? c.defaultSeconds);
      if (given === undefined && c.defaultSeconds === undefined)
        problems.push({
          ...at,
          message: `job ${id}: ${c.action} sets no ${c.input}, so the server picks the lifetime: set it to at least ${timeout * 60}`,
        });
      else if (!Number.isInteger(seconds) || seconds < c.minSeconds || seconds > (c.maxSeconds ?? Infinity))
        problems.push({
          ...at,
          message: `job ${id}: ${c.input} ${String(given)} is not a whole number of seconds from ${c.minSeconds}${c.maxSeconds === undefined ? "" : ` to ${c.maxSeconds}`}`,
        });
      else if (seconds < timeout * 60)
        problems.push({
          ...at,
          message: `job ${id}: its ${c.action} credential lasts ${seconds} s but the job may run ${timeout * 60} s (timeout-minutes ${timeout}): set ${c.input} to at least ${timeout * 60}`,
        });
    }
  }
  return problems;
}

/** Every audit over every file. */
export function auditWorkflows(files: readonly WorkflowSource[]): AuditProblem[] {
  return files.flatMap((file) => [...versionComments(file), ...sessionDuration(file)]);
}

export function formatAuditProblem(p: AuditProblem): string {
  return `${p.file}:${p.line}: ${p.message} [${p.audit}]`;
}
