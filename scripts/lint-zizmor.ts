/**
 * `npm run lint:zizmor`: zizmor (pinned in tools/zizmor/requirements.txt, installed into a virtual
 * environment of scripts/python-venv.ts) over .github/workflows/, offline, with its default audits and
 * persona, compared with tools/zizmor/accepted-findings.json. It fails on a finding that file does not
 * accept, and on an accepted finding no longer reported (stale: the workflow changed, delete the entry).
 *
 * zizmor reads no configuration file and honours no `# zizmor: ignore` comment (`--no-config
 * --no-ignores`), so every accepted finding and its reason is in that one file, and a workflow zizmor
 * cannot read fails the run (`--strict-collection`). Needs `python3` with `venv`, and PyPI the first
 * time; not part of `npm test`, which stays offline and needs no Python. CI runs both.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pinnedVenv } from "./python-venv";

const ROOT = path.resolve(__dirname, "..");
export const ZIZMOR_DIR = path.join(ROOT, "tools", "zizmor");
export const ACCEPTED_FILE = path.join(ZIZMOR_DIR, "accepted-findings.json");
/** What zizmor audits, relative to the project root (zizmor names its findings' files the same way). */
export const INPUT = ".github/workflows/";

/** zizmor's arguments: offline, only the committed rules, every finding as JSON on stdout. */
export const ZIZMOR_ARGS = [
  "--offline",
  "--no-config",
  "--no-ignores",
  "--strict-collection",
  "--no-exit-codes",
  "--no-progress",
  "--quiet",
  "--format",
  "json",
  INPUT,
] as const;

/** One finding: its audit, where (`<file> <YAML route>`, e.g. `.github/workflows/pr.yml jobs.test.uses`). */
export interface Finding {
  audit: string;
  at: string;
  line: number;
  severity: string;
  message: string;
}

/** Accepted findings of one audit: the places, and why each stays. */
export interface AcceptedFindings {
  audit: string;
  at: string[];
  reason: string;
}

/** The parts of zizmor's JSON format (v1) read here. */
interface ZizmorFinding {
  ident: string;
  desc: string;
  determinations: { severity: string };
  locations: {
    symbolic: {
      key: { Local?: { verbatim_path: string } };
      route: { route: ({ Key: string } | { Index: number })[] };
      kind: string;
    };
    concrete: { location: { start_point: { row: number } } };
  }[];
}

/** The findings in zizmor's `--format json` output, each at its primary location. */
export function parseFindings(json: string): Finding[] {
  return (JSON.parse(json) as ZizmorFinding[]).map((finding) => {
    const primary = finding.locations.find((l) => l.symbolic.kind === "Primary") ?? finding.locations[0];
    const file = primary.symbolic.key.Local?.verbatim_path ?? "?";
    const route = primary.symbolic.route.route.map((part) => ("Key" in part ? part.Key : part.Index));
    return {
      audit: finding.ident,
      at: `${file} ${route.join(".")}`,
      line: primary.concrete.location.start_point.row + 1,
      severity: finding.determinations.severity.toLowerCase(),
      message: finding.desc,
    };
  });
}

const key = (audit: string, at: string) => JSON.stringify([audit, at]);

/** The reported findings no accepted entry names, and the accepted places nothing reported matches. */
export function compareFindings(
  reported: readonly Finding[],
  accepted: readonly AcceptedFindings[],
): { unaccepted: Finding[]; stale: { audit: string; at: string }[] } {
  const acceptedPlaces = accepted.flatMap(({ audit, at }) => at.map((place) => ({ audit, at: place })));
  const acceptedKeys = new Set(acceptedPlaces.map((p) => key(p.audit, p.at)));
  const reportedKeys = new Set(reported.map((f) => key(f.audit, f.at)));
  return {
    unaccepted: reported.filter((f) => !acceptedKeys.has(key(f.audit, f.at))),
    stale: acceptedPlaces.filter((p) => !reportedKeys.has(key(p.audit, p.at))),
  };
}

export const readAccepted = (file = ACCEPTED_FILE) =>
  JSON.parse(fs.readFileSync(file, "utf8")) as AcceptedFindings[];

/** Runs the pinned zizmor over the workflows and returns its findings. */
export function zizmor(): Finding[] {
  const bin = pinnedVenv("zizmor", path.join(ZIZMOR_DIR, "requirements.txt"), "lint:zizmor");
  const output = execFileSync(path.join(bin, "zizmor"), ZIZMOR_ARGS, {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  });
  return parseFindings(output);
}

const describe = (f: Finding) => {
  const [file, route] = f.at.split(" ");
  return `${file}:${f.line} ${route}: ${f.message} [${f.audit}, ${f.severity}]`;
};

function main(): number {
  const reported = zizmor();
  const { unaccepted, stale } = compareFindings(reported, readAccepted());
  for (const f of unaccepted) console.error(`not accepted: ${describe(f)}`);
  for (const p of stale) console.error(`stale (no longer reported): ${p.at} [${p.audit}]`);
  console.log(
    `lint:zizmor: ${INPUT}, ${reported.length} findings, ${reported.length - unaccepted.length} accepted in ` +
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
