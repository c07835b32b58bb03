/**
 * GitHub's rules for calling a reusable workflow (`jobs.<id>.uses: ./.github/workflows/<file>`), as
 * GitHub documents them ("Reusing workflows", docs.github.com/en/actions/sharing-automations/reusing-workflows):
 * - Permissions: "The GITHUB_TOKEN permissions passed from the caller workflow can be only downgraded
 *   (not elevated) by the called workflow." The caller job's permissions are its own `permissions`, else
 *   the caller workflow's, else the repository's default; a called job asks for its own, else its
 *   workflow's. GitHub refuses the whole caller workflow when a called job asks for more ("The nested job
 *   ... is requesting 'id-token: write', but is only allowed 'id-token: none'").
 * - Inputs: every `with` key must be an input the called workflow declares under `on.workflow_call.inputs`,
 *   every required input must be given, and a literal must be of the declared type.
 * - Secrets: a called workflow sees only the secrets passed to it: all of the caller's with `secrets:
 *   inherit`, else the ones named under `secrets`, each of which it must declare; one it requires must be
 *   passed. A secret it reads without being passed is empty (GITHUB_TOKEN is always there).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";

type Level = "none" | "read" | "write";
type Permissions = Record<string, Level>;

/** The GITHUB_TOKEN scopes a `permissions` key may name (docs "Workflow syntax", `permissions`). */
export const SCOPES = [
  "actions",
  "attestations",
  "checks",
  "contents",
  "deployments",
  "discussions",
  "id-token",
  "issues",
  "models",
  "packages",
  "pages",
  "pull-requests",
  "repository-projects",
  "security-events",
  "statuses",
] as const;

/**
 * The repository default when neither the job nor the workflow sets `permissions`. It is a repository
 * setting ("permissive" or "restricted", docs "Controlling permissions for GITHUB_TOKEN"); the rule
 * assumes the restricted one, which GitHub gives new repositories, so nothing passes on the other's grace.
 */
const RESTRICTED_DEFAULT: Permissions = { contents: "read", packages: "read" };

const RANK: Record<Level, number> = { none: 0, read: 1, write: 2 };

/** A `permissions` value as a level per scope: `read-all`, `write-all`, `{}` or a map (unnamed: none). */
export function permissionsOf(value: unknown): Permissions | undefined {
  if (value === undefined) return undefined;
  if (value === "read-all" || value === "write-all") {
    const level = value === "read-all" ? "read" : "write";
    return Object.fromEntries(SCOPES.map((scope) => [scope, level]));
  }
  if (typeof value !== "object" || value === null) throw new Error(`permissions: ${JSON.stringify(value)}`);
  return Object.fromEntries(SCOPES.map((s) => [s, (value as Record<string, Level>)[s] ?? "none"]));
}

export interface WorkflowFile {
  name: string;
  text: string;
  parsed: {
    on?: { workflow_call?: WorkflowCall } & Record<string, unknown>;
    permissions?: unknown;
    jobs: Record<string, CallerJob>;
  };
}

interface WorkflowCall {
  inputs?: Record<string, { required?: boolean; type?: string; default?: unknown }>;
  secrets?: Record<string, { required?: boolean }>;
}

export interface CallerJob {
  uses?: string;
  permissions?: unknown;
  with?: Record<string, unknown>;
  secrets?: "inherit" | Record<string, unknown>;
}

/** Every workflow file in `dir`, parsed. */
export function readWorkflows(dir: string): WorkflowFile[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((name) => {
      const text = fs.readFileSync(path.join(dir, name), "utf8");
      return { name, text, parsed: YAML.parse(text) as WorkflowFile["parsed"] };
    });
}

/** The file a `uses:` of a workflow in this repository names, or undefined for another repository's. */
export function localCallee(uses: string | undefined): string | undefined {
  const match = /^\.\/\.github\/workflows\/([^/@]+\.ya?ml)$/.exec(uses ?? "");
  return match?.[1];
}

const isExpression = (value: unknown) => typeof value === "string" && /\$\{\{.*\}\}/s.test(value);

/** What breaks GitHub's rules in one caller job (`caller`'s job `id`) calling `callee`. */
export function callProblems(caller: WorkflowFile, id: string, callee: WorkflowFile): string[] {
  const job = caller.parsed.jobs[id];
  const where = `${caller.name} job ${id} calling ${callee.name}`;
  const problems: string[] = [];

  const allowed =
    permissionsOf(job.permissions) ??
    permissionsOf(caller.parsed.permissions) ??
    permissionsOf(RESTRICTED_DEFAULT);
  for (const [calledId, calledJob] of Object.entries(callee.parsed.jobs)) {
    const asked = permissionsOf(calledJob.permissions) ?? permissionsOf(callee.parsed.permissions);
    for (const [scope, level] of Object.entries(asked ?? {})) {
      const have = allowed?.[scope] ?? "none";
      if (RANK[level] > RANK[have])
        problems.push(
          `${where}: job ${calledId} asks for '${scope}: ${level}', but is only allowed '${scope}: ${have}'`,
        );
    }
  }

  const call = callee.parsed.on?.workflow_call ?? {};
  const inputs = call.inputs ?? {};
  const given = job.with ?? {};
  for (const key of Object.keys(given)) {
    if (!(key in inputs)) problems.push(`${where}: input ${key} is not defined in the called workflow`);
  }
  for (const [name, input] of Object.entries(inputs)) {
    if (input.required === true && input.default === undefined && !(name in given))
      problems.push(`${where}: required input ${name} is not given`);
    const value = given[name];
    if (value === undefined || isExpression(value) || input.type === undefined) continue;
    if (typeof value !== input.type)
      problems.push(`${where}: input ${name} is a ${typeof value}, not a ${input.type}`);
  }

  const declared = call.secrets ?? {};
  const read = new Set([...callee.text.matchAll(/secrets\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));
  read.delete("GITHUB_TOKEN");
  if (job.secrets !== "inherit") {
    const passed = job.secrets ?? {};
    for (const name of Object.keys(passed)) {
      if (!(name in declared))
        problems.push(`${where}: secret ${name} is not declared by the called workflow`);
    }
    for (const name of read) {
      if (!(name in passed))
        problems.push(`${where}: the called workflow reads secret ${name}, which is not passed`);
    }
    for (const [name, secret] of Object.entries(declared)) {
      if (secret.required === true && !(name in passed))
        problems.push(`${where}: required secret ${name} is not passed`);
    }
  }
  return problems;
}

/** Every `uses:` job of every workflow in `workflows` against the workflow it calls. */
export function allCallProblems(workflows: readonly WorkflowFile[]): { calls: number; problems: string[] } {
  let calls = 0;
  const problems: string[] = [];
  for (const caller of workflows) {
    for (const [id, job] of Object.entries(caller.parsed.jobs)) {
      const file = localCallee(job.uses);
      if (job.uses !== undefined && file === undefined) {
        problems.push(`${caller.name} job ${id}: ${job.uses} is not a workflow of this repository`);
        continue;
      }
      if (file === undefined) continue;
      const callee = workflows.find((w) => w.name === file);
      calls += 1;
      if (callee === undefined) problems.push(`${caller.name} job ${id}: ${file} does not exist`);
      else problems.push(...callProblems(caller, id, callee));
    }
  }
  return { calls, problems };
}
