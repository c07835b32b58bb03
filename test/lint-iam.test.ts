/**
 * `npm run lint:iam` (scripts/lint-iam.ts), offline and without Python: the accepted findings name only
 * policy files that exist and the two analyzers, each once and with its reason; the analyzers are pinned
 * by version and hash; a new finding and a stale accepted one both fail the comparison; and CI runs it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";
import {
  ANALYZERS_DIR,
  type AcceptedFinding,
  TOOLS,
  analyzedPolicies,
  compareFindings,
  fillPolicy,
  policyFiles,
  readAccepted,
} from "../scripts/lint-iam";
import { list, matches, policyFile, readPolicy } from "./iam-documents";

const read = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), "utf8");

describe("npm run lint:iam: IAM analyzers over docs/iam/ and the stack's own policies", () => {
  const accepted = readAccepted();

  it("accepts findings only of existing policy files and the two analyzers, each once, each with a reason", () => {
    const files = Object.keys(analyzedPolicies());
    assert.equal(policyFiles().length, 6);
    // The stack's own: Karpenter's controller's six, as upstream names them.
    assert.deepEqual(
      files.filter((file) => !policyFiles().includes(file)),
      [
        "NodeLifecycle",
        "IAMIntegration",
        "EKSIntegration",
        "Interruption",
        "ZonalShift",
        "ResourceDiscovery",
      ].map((stem) => `karpenter-controller-${stem}-policy.json`),
    );
    const keys = new Set<string>();
    for (const finding of accepted) {
      const where = `${finding.tool} ${finding.policy} ${finding.finding}`;
      assert.ok(files.includes(finding.policy), `${where}: no such policy`);
      assert.ok((TOOLS as readonly string[]).includes(finding.tool), where);
      assert.ok(finding.reason.trim().split(/\s+/).length >= 8, `${where}: give the reason`);
      assert.deepEqual(finding.actions, [...finding.actions].sort(), `${where}: actions sorted`);
      const key = JSON.stringify([finding.tool, finding.policy, finding.finding, finding.actions]);
      assert.ok(!keys.has(key), `${where}: listed twice`);
      keys.add(key);
    }
  });

  it("accepts no privilege escalation through IAM in the deploy policy but on the stack's own roles and policies", () => {
    const escalation = accepted.filter(
      (f) =>
        /PrivilegeEscalation|PRIVILEGE_ESCALATION/.test(f.finding) &&
        f.actions.some((a) => a.startsWith("iam:")),
    );
    // What stays: RunInstances with iam:PassRole, limited to the program's roles (deploy-policy.test.ts), and
    // iam:CreatePolicyVersion, with which the AWS provider updates a customer managed policy (aws_iam_policy),
    // limited to the stack's own: Karpenter's controller's policies.
    assert.deepEqual(
      escalation.map((f) => f.actions.filter((a) => a.startsWith("iam:"))),
      [["iam:passrole"], ["iam:createpolicyversion"]],
    );
    const versions = readPolicy(policyFile("deploy", "policy")).Statement.filter(
      (s) => s.Effect === "Allow" && list(s.Action).some((a) => matches(a, "iam:CreatePolicyVersion")),
    );
    assert.deepEqual(
      versions.map((s) => list(s.Resource)),
      [["arn:aws:iam::<account-id>:policy/karpenter-*"]],
    );
  });

  it("pins parliament 1.6.4, cloudsplaining 0.9.1 and every package they import, each by hash", () => {
    const text = read("tools/iam-analyzers/requirements.txt");
    const pins = text.split("\n").filter((line) => /^[a-z0-9]/i.test(line));
    assert.ok(pins.includes("parliament==1.6.4 \\") && pins.includes("cloudsplaining==0.9.1 \\"));
    for (const pin of pins) assert.match(pin, /^[a-z0-9_.-]+==[^\s]+ \\$/i, pin);
    const entries = text.split(/\n(?=[a-z0-9])/i).filter((entry) => /^[a-z0-9]/i.test(entry));
    for (const entry of entries) assert.match(entry, /--hash=sha256:[0-9a-f]{64}/, entry.split(" ")[0]);
    assert.ok(fs.existsSync(path.join(ANALYZERS_DIR, "analyze.py")));
  });

  it("fails on a finding not accepted and on an accepted one no longer reported", () => {
    const base = { tool: "parliament", policy: "deploy-policy.json", reason: "a reason" } as const;
    const kept: AcceptedFinding = { ...base, finding: "RESOURCE_STAR", actions: ["ec2:createvpc"] };
    const gone: AcceptedFinding = { ...base, finding: "RESOURCE_STAR", actions: ["kms:createkey"] };
    const reported = [
      { ...base, finding: "RESOURCE_STAR", actions: ["ec2:createvpc"] },
      { ...base, finding: "RESOURCE_STAR", actions: ["ec2:createvpc", "ec2:deletevpc"] },
    ];
    const { unaccepted, stale } = compareFindings(reported, [kept, gone]);
    assert.deepEqual(unaccepted, [reported[1]]);
    assert.deepEqual(stale, [gone]);
  });

  it("fills every placeholder of every policy before the analyzers read it", () => {
    for (const file of policyFiles()) {
      assert.doesNotMatch(fillPolicy(read(`docs/iam/${file}`)), /<[a-z-]+>/, file);
    }
  });

  it("runs in CI: package.json, .ci/run, the test workflow and the README's test commands", () => {
    const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts["lint:iam"], "ts-node --transpile-only scripts/lint-iam.ts");
    assert.match(read(".ci/run"), /^npm run lint:iam \|\| status=\$\?$/m);
    assert.match(read(".github/workflows/test.yml"), /^ {6}- run: npm run lint:iam$/m);
    assert.match(read("README.md"), /^npm run lint:iam /m);
  });
});
