/**
 * `npm run lint:iam`: the IAM policy analyzers parliament and cloudsplaining over every policy in docs/iam/
 * and every policy document the stack itself writes (Karpenter's controller's six), compared with
 * tools/iam-analyzers/accepted-findings.json. It fails on a finding that file does not
 * accept, and on an accepted finding no longer reported (stale: the policy changed, delete the entry).
 *
 * The analyzers are Python, installed from tools/iam-analyzers/requirements.txt (every file pinned by
 * hash) into a virtual environment of scripts/python-venv.ts. Not part of `npm test`, which stays offline
 * and needs no Python; CI runs both.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pinnedVenv } from "./python-venv";
import { controllerPolicies } from "../components/karpenter/iam";

const ROOT = path.resolve(__dirname, "..");
export const IAM_DIR = path.join(ROOT, "docs", "iam");
export const ANALYZERS_DIR = path.join(ROOT, "tools", "iam-analyzers");
export const ACCEPTED_FILE = path.join(ANALYZERS_DIR, "accepted-findings.json");
export const TOOLS = ["parliament", "cloudsplaining"] as const;

/** One finding as tools/iam-analyzers/analyze.py prints it; actions lower-case and sorted. */
export interface Finding {
  tool: (typeof TOOLS)[number];
  policy: string;
  finding: string;
  actions: string[];
  detail?: string;
}
/** An accepted finding: the same fields and why it stays. */
export interface AcceptedFinding extends Finding {
  reason: string;
}

/**
 * docs/fork.md's placeholders, filled the way its `fill` function fills them for the dev stack, so the
 * analyzers read ARNs, not `<account-id>` (111122223333 is the IAM User Guide's example account).
 */
export const EXAMPLE_FILL: Readonly<Record<string, string>> = {
  "<account-id>": "111122223333",
  "<owner>/<repo>": "my-org/eks-calico",
  "<cluster-name>": "eks-calico-dev",
  "<stack>": "dev",
};
export const fillPolicy = (text: string) =>
  Object.entries(EXAMPLE_FILL).reduce((filled, [from, to]) => filled.replaceAll(from, to), text);

/** The policy files the analyzers read: every permission and trust policy in docs/iam/. */
export const policyFiles = (dir = IAM_DIR) =>
  fs
    .readdirSync(dir)
    .filter((name) => /-(policy|trust)\.json$/.test(name))
    .sort();

const key = (f: Finding) => JSON.stringify([f.tool, f.policy, f.finding, [...f.actions].sort()]);

/** The reported findings no accepted entry names, and the accepted entries nothing reported matches. */
export function compareFindings(
  reported: readonly Finding[],
  accepted: readonly AcceptedFinding[],
): { unaccepted: Finding[]; stale: AcceptedFinding[] } {
  const acceptedKeys = new Set(accepted.map(key));
  const reportedKeys = new Set(reported.map(key));
  return {
    unaccepted: reported.filter((f) => !acceptedKeys.has(key(f))),
    stale: accepted.filter((f) => !reportedKeys.has(key(f))),
  };
}

export const readAccepted = (file = ACCEPTED_FILE) =>
  JSON.parse(fs.readFileSync(file, "utf8")) as AcceptedFinding[];

/** The analyzers' virtual environment's python, created from the pinned requirements when missing. */
const analyzerPython = () =>
  path.join(pinnedVenv("iam-analyzers", path.join(ANALYZERS_DIR, "requirements.txt"), "lint:iam"), "python");

/** The example scope the stack's own policies are read at: the dev stack's names in EXAMPLE_FILL's account. */
const EXAMPLE_SCOPE = {
  partition: "aws",
  region: "us-west-2",
  accountId: EXAMPLE_FILL["<account-id>"],
  clusterName: EXAMPLE_FILL["<cluster-name>"],
  nodeRoleArn: `arn:aws:iam::${EXAMPLE_FILL["<account-id>"]}:role/karpenter-node-0123456`,
  queueArn: `arn:aws:sqs:us-west-2:${EXAMPLE_FILL["<account-id>"]}:karpenter-interruption-0123456`,
};

/** The policies the stack itself creates, by the file name findings give them: Karpenter's controller's. */
export function stackPolicies(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(controllerPolicies(EXAMPLE_SCOPE)).map(([stem, document]) => [
      `karpenter-controller-${stem}-policy.json`,
      JSON.stringify(document, null, 2),
    ]),
  );
}

/** Every policy the analyzers read, filled, by file name: docs/iam/'s and the stack's own. */
export function analyzedPolicies(dir = IAM_DIR): Record<string, string> {
  const documented = policyFiles(dir).map((file): [string, string] => [
    file,
    fillPolicy(fs.readFileSync(path.join(dir, file), "utf8")),
  ]);
  return { ...Object.fromEntries(documented), ...stackPolicies() };
}

/** Runs both analyzers on `policies` (file name to text) and returns their findings. */
export function analyze(python: string, policies: Readonly<Record<string, string>>): Finding[] {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "lint-iam-"));
  try {
    const paths = Object.entries(policies).map(([file, text]) => {
      const filled = path.join(work, file);
      fs.writeFileSync(filled, text);
      return filled;
    });
    const output = execFileSync(python, [path.join(ANALYZERS_DIR, "analyze.py"), ...paths], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(output) as Finding[];
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const describe = (f: Finding) =>
  `${f.tool} ${f.policy}: ${f.finding}` +
  (f.actions.length > 0 ? ` [${f.actions.join(", ")}]` : "") +
  (f.detail ? ` (${f.detail})` : "");

function main(): number {
  const files = Object.keys(analyzedPolicies());
  const reported = analyze(analyzerPython(), analyzedPolicies());
  const accepted = readAccepted();
  const { unaccepted, stale } = compareFindings(reported, accepted);
  for (const f of unaccepted) console.error(`not accepted: ${describe(f)}`);
  for (const f of stale) console.error(`stale (no longer reported): ${describe(f)}`);
  console.log(
    `lint:iam: ${files.length} policies, ${reported.length} findings (${TOOLS.map(
      (tool) => `${tool} ${reported.filter((f) => f.tool === tool).length}`,
    ).join(", ")}), ${reported.length - unaccepted.length} accepted in ` +
      `${path.relative(ROOT, ACCEPTED_FILE)}, ${unaccepted.length} not accepted, ${stale.length} stale`,
  );
  return unaccepted.length + stale.length > 0 ? 1 : 0;
}

if (require.main === module) {
  try {
    process.exitCode = main();
  } catch (error: unknown) {
    console.error(error);
    process.exitCode = 1;
  }
}
