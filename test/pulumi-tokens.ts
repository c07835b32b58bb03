/**
 * The Pulumi Cloud token each workflow job takes, checked by rules of Pulumi Cloud and GitHub, never by
 * a copy of a workflow:
 * - Pulumi Cloud (test/fixtures/pulumi-cloud-tokens.yaml, with its sources): the token types
 *   pulumi/auth-actions may request and the scope each needs, what each stack permission allows, and the
 *   lowest permission each command of pulumi/actions needs.
 * - GitHub ("OpenID Connect reference", docs.github.com/en/actions/reference/security/oidc, "Example subject
 *   claims"): a job's OIDC `sub` is `repo:<owner>/<repo>:environment:<name>` when the job names an
 *   environment, else `repo:<owner>/<repo>:pull_request` for a pull_request run, else
 *   `repo:<owner>/<repo>:ref:<ref>` for the ref the run is on. A scheduled run is on the default branch; a
 *   workflow_dispatch run is on whichever branch it is started from. A called workflow's jobs run in the
 *   caller's event. The repository is written in one of two forms ("Immutable subject claims"): by name,
 *   `repo:<owner>/<repo>:`, or, for a repository created, renamed or transferred since 15 July 2026 or opted
 *   in, with each name's immutable numeric id, `repo:<owner>@<owner-id>/<repo>@<repo-id>:`. A documented
 *   subject may be in either.
 * - The project's choice, documented in docs/access.md's table of tokens: which token, scope, OIDC subject
 *   and stack permission each job has, and what that permission can and cannot do.
 *
 * The rules: no organization token anywhere; a team token names its team and a personal token its member;
 * every Pulumi step runs after the job's login; every token a workflow asks for is in the table, with the
 * subject GitHub gives the job and the lowest permission the job's commands need; a job that runs a pull
 * request's code gets at most Read, creates no stack, and shares neither its identity nor its subject with a
 * job that runs reviewed code.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { PROJECT_ROOT } from "../offline/engine";
import { tableRows } from "./docs-pages";

/** Pulumi Cloud's facts, as test/fixtures/pulumi-cloud-tokens.yaml records them. */
export interface PulumiFacts {
  tokenTypes: Record<string, { urn: string; scope: string; actsAs: string; editions: string[] }>;
  editions: Record<string, string>;
  stackPermissions: { level: string; allows: string[] }[];
  commands: Record<string, string>;
}

export function pulumiFacts(): PulumiFacts {
  const file = path.join(PROJECT_ROOT, "test", "fixtures", "pulumi-cloud-tokens.yaml");
  return YAML.parse(fs.readFileSync(file, "utf8")) as PulumiFacts;
}

/** The operations `level` allows on a stack: its own and every lower level's. */
export function allowed(facts: PulumiFacts, level: string): string[] {
  const index = facts.stackPermissions.findIndex((p) => p.level === level);
  if (index < 0) throw new Error(`no stack permission ${level}`);
  return facts.stackPermissions.slice(0, index + 1).flatMap((p) => p.allows);
}

const rank = (facts: PulumiFacts, level: string) =>
  facts.stackPermissions.findIndex((p) => p.level === level);

interface Step {
  uses?: string;
  if?: string;
  with?: Record<string, unknown>;
}
interface Job {
  uses?: string;
  environment?: string | { name?: string };
  steps?: Step[];
}
export interface Workflow {
  name: string;
  parsed: { on?: unknown; jobs: Record<string, Job> };
}

/** Every workflow in `dir`, parsed. */
export function readWorkflowDir(dir: string): Workflow[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((name) => ({
      name,
      parsed: YAML.parse(fs.readFileSync(path.join(dir, name), "utf8")) as Workflow["parsed"],
    }));
}

/** One row of docs/access.md's table of tokens. */
export interface TokenRow {
  workflow: string;
  job: string;
  token: string;
  scope: string;
  subject: string;
  permission: string;
  can: string;
  cannot: string;
}

const unquote = (cell: string) => cell.replaceAll("`", "").trim();

/** docs/access.md's table of tokens: | Job | Token | Scope | OIDC subject | Stack permission | Can | Cannot |. */
export function tokenRows(markdown: string): TokenRow[] {
  return tableRows(markdown, "Job").map((cells) => {
    const [file, job] = unquote(cells[0]).split(/\s+/);
    return {
      workflow: file,
      job,
      token: unquote(cells[1]),
      scope: unquote(cells[2]),
      subject: unquote(cells[3]),
      permission: unquote(cells[4]).toLowerCase(),
      can: cells[5],
      cannot: cells[6],
    };
  });
}

const OWNER_REPO = "repo:<owner>/<repo>";

/** The two forms GitHub writes the repository in a `sub` (see the top of this file), by name first. */
export const REPOSITORY_FORMS = [OWNER_REPO, "repo:<owner>@<owner-id>/<repo>@<repo-id>"] as const;

/** `subject` with its repository by name, or undefined when it is in neither form GitHub writes. */
export function byName(subject: string): string | undefined {
  const form = REPOSITORY_FORMS.find((f) => subject.startsWith(`${f}:`));
  return form === undefined ? undefined : `${OWNER_REPO}${subject.slice(form.length)}`;
}

/** Which form a concrete `sub` (`repo:my-org@123/eks-calico@456:...`) is in, or undefined for neither. */
export function subjectForm(subject: string): "name" | "immutable" | undefined {
  const match = /^repo:[A-Za-z0-9-]+(@\d+)?\/[\w.-]+?(@\d+)?:[a-z_]+(:|$)/.exec(subject);
  if (match === null || (match[1] === undefined) !== (match[2] === undefined)) return undefined;
  return match[1] === undefined ? "name" : "immutable";
}

/** The events a workflow's jobs run in: its own triggers, or its callers' for a reusable workflow. */
function events(
  workflows: readonly Workflow[],
  name: string,
  seen = new Set<string>(),
): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (seen.has(name)) return found;
  seen.add(name);
  const workflow = workflows.find((w) => w.name === name);
  const on = workflow?.parsed.on;
  const triggers: Record<string, unknown> =
    typeof on === "string"
      ? { [on]: null }
      : Array.isArray(on)
        ? Object.fromEntries(on.map((e: string) => [e, null]))
        : ((on ?? {}) as Record<string, unknown>);
  for (const [event, filter] of Object.entries(triggers)) {
    if (event !== "workflow_call") found.set(event, filter);
  }
  if ("workflow_call" in triggers) {
    for (const caller of workflows) {
      const calls = Object.values(caller.parsed.jobs).some(
        (job) => job.uses === `./.github/workflows/${name}`,
      );
      if (calls) for (const [e, f] of events(workflows, caller.name, seen)) found.set(e, f);
    }
  }
  return found;
}

/** Events whose runs execute code of a pull request that nobody has merged. */
const PULL_REQUEST_EVENTS = ["pull_request", "pull_request_target"];

/** Whether the job's runs execute a pull request's code. */
export function runsPullRequestCode(workflows: readonly Workflow[], name: string): boolean {
  return [...events(workflows, name).keys()].some((e) => PULL_REQUEST_EVENTS.includes(e));
}

/** `${{ matrix.stack }}` and `${{ inputs.stack }}` as `<stack>`; any other expression as `*`. */
function placeholder(value: string): string {
  return value
    .replace(/\$\{\{\s*(?:matrix|inputs)\.stack\s*\}\}/g, "<stack>")
    .replace(/\$\{\{[^}]*\}\}/g, "*");
}

/** Every OIDC subject GitHub can give a job of `name` (see the rule at the top of this file). */
export function subjects(workflows: readonly Workflow[], name: string, job: string): string[] {
  const found = workflows.find((w) => w.name === name)?.parsed.jobs[job];
  const environment = typeof found?.environment === "object" ? found.environment.name : found?.environment;
  if (environment !== undefined) return [`${OWNER_REPO}:environment:${placeholder(environment)}`];
  const result = new Set<string>();
  for (const [event, filter] of events(workflows, name)) {
    if (event === "pull_request") result.add(`${OWNER_REPO}:pull_request`);
    else if (event === "schedule") result.add(`${OWNER_REPO}:ref:refs/heads/main`);
    else if (event === "push") {
      const branches = (filter as { branches?: string[] } | null)?.branches ?? ["<branch>"];
      for (const branch of branches) result.add(`${OWNER_REPO}:ref:refs/heads/${branch}`);
    } else result.add(`${OWNER_REPO}:ref:refs/heads/<branch>`);
  }
  return [...result];
}

/** A subject GitHub gives a job from reviewed code only: an environment, or main. */
function pinsReviewedCode(subject: string): boolean {
  return /:environment:/.test(subject) || subject.endsWith(":ref:refs/heads/main");
}

/** A step's uses without its version. */
const action = (step: Step) => step.uses?.split("@")[0];

/** What breaks the rules (see the top of this file), one line each. */
export function tokenProblems(
  workflows: readonly Workflow[],
  rows: readonly TokenRow[],
  facts: PulumiFacts,
): string[] {
  const problems: string[] = [];
  const urns = new Map(Object.entries(facts.tokenTypes).map(([type, t]) => [t.urn, type]));
  const matched = new Set<TokenRow>();
  /** Per identity (scope): whether a job running a pull request's code asks for it, and whether another does. */
  const identities = new Map<string, { pullRequest: string[]; reviewed: string[] }>();
  const subjectsOf = { pullRequest: new Map<string, string>(), reviewed: new Map<string, string>() };

  for (const workflow of workflows) {
    const pullRequest = runsPullRequestCode(workflows, workflow.name);
    for (const [id, job] of Object.entries(workflow.parsed.jobs)) {
      const where = `${workflow.name} job ${id}`;
      const steps = job.steps ?? [];
      const logins = steps.flatMap((s, i) => (action(s) === "pulumi/auth-actions" ? [i] : []));
      const pulumiSteps = steps.flatMap((s, i) => (action(s) === "pulumi/actions" ? [i] : []));
      for (const index of pulumiSteps) {
        if (!logins.some((l) => l < index))
          problems.push(`${where}: step ${index + 1} runs Pulumi without logging in first`);
      }
      const need = pulumiSteps
        .map((i) => steps[i].with?.command)
        .map((command) => (typeof command === "string" ? command : JSON.stringify(command)))
        .map((command) => {
          const level = facts.commands[command];
          if (level === undefined) problems.push(`${where}: no fact says what \`${command}\` needs`);
          return level ?? "admin";
        })
        .reduce((a, b) => (rank(facts, a) >= rank(facts, b) ? a : b), "none");
      if (pullRequest) {
        for (const index of pulumiSteps) {
          if (steps[index].with?.upsert === true || steps[index].with?.upsert === "true")
            problems.push(`${where}: runs a pull request's code and may create its stack (upsert)`);
        }
      }
      const jobSubjects = subjects(workflows, workflow.name, id);

      for (const index of logins) {
        const step = steps[index];
        const at = `${where} step ${index + 1}`;
        const typeInput = step.with?.["requested-token-type"];
        const scope = typeof step.with?.scope === "string" ? step.with.scope : undefined;
        if (typeof step.with?.organization !== "string" || step.with.organization === "")
          problems.push(`${at}: no organization`);
        const type = typeof typeInput === "string" ? urns.get(typeInput) : undefined;
        if (typeof typeInput !== "string" || /\$\{\{/.test(typeInput)) {
          problems.push(`${at}: the requested token type is not a literal: ${JSON.stringify(typeInput)}`);
          continue;
        }
        if (type === undefined) {
          problems.push(`${at}: ${typeInput} is no token type Pulumi Cloud issues`);
          continue;
        }
        if (type === "organization") {
          problems.push(`${at}: asks for an organization token, which acts on every stack`);
          continue;
        }
        const prefix = facts.tokenTypes[type].scope;
        if (scope === undefined || !scope.startsWith(prefix) || scope.length === prefix.length) {
          problems.push(`${at}: a ${type} token needs its scope, ${prefix}<name>: ${JSON.stringify(scope)}`);
          continue;
        }
        const entry = identities.get(scope) ?? { pullRequest: [], reviewed: [] };
        (pullRequest ? entry.pullRequest : entry.reviewed).push(where);
        identities.set(scope, entry);

        const row = rows.find(
          (r) => r.workflow === workflow.name && r.job === id && r.token === type && r.scope === scope,
        );
        if (row === undefined) {
          problems.push(`${at}: docs/access.md has no row for its ${type} token ${scope}`);
          continue;
        }
        matched.add(row);
        if (rank(facts, row.permission) < 0) {
          problems.push(`${at}: docs/access.md gives it "${row.permission}", no stack permission`);
          continue;
        }
        if (rank(facts, row.permission) < rank(facts, need))
          problems.push(`${at}: ${row.permission} cannot run what the job runs, which needs ${need}`);
        if (rank(facts, row.permission) > rank(facts, need))
          problems.push(`${at}: ${row.permission} is more than the job needs, ${need}`);
        if (pullRequest && rank(facts, row.permission) > rank(facts, "read"))
          problems.push(`${at}: runs a pull request's code with ${row.permission}, more than read`);
        const subject = byName(row.subject);
        if (subject === undefined)
          problems.push(
            `${at}: ${row.subject} is in neither form GitHub writes a subject in, ${REPOSITORY_FORMS.join(" or ")}`,
          );
        else if (!jobSubjects.includes(subject))
          problems.push(`${at}: GitHub gives the job ${jobSubjects.join(" or ")}, not ${row.subject}`);
        if (row.subject.includes("*") || (!pinsReviewedCode(row.subject) && !pullRequest))
          problems.push(`${at}: ${row.subject} does not pin the token to reviewed code`);
        (pullRequest ? subjectsOf.pullRequest : subjectsOf.reviewed).set(subject ?? row.subject, where);
        const can = allowed(facts, row.permission);
        for (const operation of can) {
          if (!row.can.toLowerCase().includes(operation))
            problems.push(`${at}: docs/access.md does not say it can ${operation}`);
        }
        for (const operation of facts.stackPermissions.flatMap((p) => p.allows)) {
          if (!can.includes(operation) && !row.cannot.toLowerCase().includes(operation))
            problems.push(`${at}: docs/access.md does not say it cannot ${operation}`);
        }
      }
    }
  }
  for (const [scope, { pullRequest, reviewed }] of identities) {
    if (pullRequest.length > 0 && reviewed.length > 0)
      problems.push(`${scope} is asked for by ${pullRequest.join(", ")} and by ${reviewed.join(", ")}`);
  }
  for (const [subject, where] of subjectsOf.pullRequest) {
    const other = subjectsOf.reviewed.get(subject);
    if (other !== undefined) problems.push(`${where} and ${other} share the OIDC subject ${subject}`);
  }
  for (const row of rows) {
    if (!matched.has(row))
      problems.push(
        `docs/access.md: ${row.workflow} job ${row.job} asks for no ${row.token} token ${row.scope}`,
      );
  }
  return problems;
}
