"""
Runs parliament and cloudsplaining over IAM policy files and prints every finding as one JSON list:
{"tool", "policy", "finding", "actions", "detail"}. `npm run lint:iam` (scripts/lint-iam.ts) calls it in
its own virtual environment, from tools/iam-analyzers/requirements.txt, and compares the list with
tools/iam-analyzers/accepted-findings.json.

parliament (https://github.com/duo-labs/parliament) runs as its CLI does with --include-community-auditors
on every file; cloudsplaining (https://github.com/salesforce/cloudsplaining) runs its scan-policy-file
scan, with its default exclusions, on permission policies only: it reads Action and Resource, which a
trust policy does not grant.
"""
import json
import os
import subprocess
import sys

from cloudsplaining.command.scan_policy_file import scan_policy


def parliament_findings(path):
    name = os.path.basename(path)
    cli = os.path.join(os.path.dirname(sys.executable), "parliament")
    # --files, not --file: --file refuses to run when stdin is not a terminal (parliament/cli.py).
    run = subprocess.run(
        [cli, "--files", path, "--json", "--include-community-auditors"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if run.returncode not in (0, 1) or run.stderr.strip():
        raise SystemExit(f"parliament failed on {name} (exit {run.returncode}): {run.stderr}")
    findings = []
    for line in run.stdout.splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        detail = item.get("detail")
        listed = isinstance(detail, list) and all(isinstance(a, str) for a in detail)
        actions = detail if listed else item.get("location", {}).get("actions", [])
        findings.append(
            {
                "tool": "parliament",
                "policy": name,
                "finding": item["issue"] + (f" {item['location']['type']}" if "type" in item["location"] else ""),
                "actions": sorted({a.lower() for a in actions}),
                "detail": "" if listed else detail if isinstance(detail, str) else json.dumps(detail),
            }
        )
    return findings


def cloudsplaining_findings(path):
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as file:
        results = scan_policy(json.load(file)) or {}
    findings = []
    for category, result in sorted(results.items()):
        # ServicesAffected is a plain list of services, not a finding.
        if not isinstance(result, dict):
            continue
        for item in result.get("findings", []):
            # Privilege escalation findings are methods with their actions; the others are actions.
            if isinstance(item, dict):
                finding, actions = f"{category} {item['type']}", item.get("actions", [])
            else:
                finding, actions = category, [item]
            findings.append({"tool": "cloudsplaining", "policy": name, "finding": finding, "actions": actions})
    merged = {}
    for item in findings:
        key = (item["policy"], item["finding"])
        merged.setdefault(key, {**item, "actions": set()})["actions"].update(a.lower() for a in item["actions"])
    return [{**item, "actions": sorted(item["actions"]), "detail": ""} for item in merged.values()]


def main(paths):
    findings = []
    for path in sorted(paths):
        findings += parliament_findings(path)
        if path.endswith("-policy.json"):
            findings += cloudsplaining_findings(path)
    json.dump(findings, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
