/**
 * `npm run lint:zizmor` (scripts/lint-zizmor.ts), offline and without Python: zizmor is pinned by version
 * and hash and runs offline over .github/workflows/ with no configuration or ignore comment; each accepted
 * finding names a place that exists, once, with its reason; zizmor's JSON is read at each finding's
 * primary location; a new finding and a stale accepted one both fail the comparison; and CI runs it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { PROJECT_ROOT } from "../offline/engine";
import {
  type AcceptedFindings,
  type Finding,
  INPUT,
  ZIZMOR_ARGS,
  compareFindings,
  parseFindings,
  readAccepted,
} from "../scripts/lint-zizmor";
import { TEST_STEPS } from "../scripts/test";

const read = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), "utf8");

/** The value at a dotted YAML route (`jobs.test.steps.0.uses`) of a workflow, or undefined. */
function at(file: string, route: string): unknown {
  return route
    .split(".")
    .reduce<unknown>(
      (node, part) => (node === null || typeof node !== "object" ? undefined : (node as never)[part]),
      YAML.parse(read(file)),
    );
}

/** zizmor 1.32.0's JSON for one finding (`--format json`), trimmed to what the lint reads. */
const zizmorFinding = (ident: string, file: string, route: (string | number)[], row: number) => ({
  ident,
  desc: `${ident} finding`,
  determinations: { confidence: "High", severity: "Low", persona: "Regular" },
  locations: [
    {
      symbolic: {
        key: { Local: { verbatim_path: file } },
        route: { route: route.slice(0, -1).map((p) => (typeof p === "number" ? { Index: p } : { Key: p })) },
        kind: "Related",
      },
      concrete: { location: { start_point: { row: row - 1, column: 2 } } },
    },
    {
      symbolic: {
        key: { Local: { verbatim_path: file } },
        route: { route: route.map((p) => (typeof p === "number" ? { Index: p } : { Key: p })) },
        kind: "Primary",
      },
      concrete: { location: { start_point: { row, column: 10 } } },
    },
  ],
  ignored: false,
});

describe("npm run lint:zizmor: zizmor over .github/workflows/", () => {
  const accepted = readAccepted();

  it("pins zizmor 1.32.0 by the hash of each wheel, and nothing else", () => {
    const text = read("tools/zizmor/requirements.txt");
    const pins = text.split("\n").filter((line) => /^[a-z0-9]/i.test(line));
    assert.deepEqual(pins, ["zizmor==1.32.0 \\"]);
    const hashes = text.match(/--hash=sha256:[0-9a-f]{64}/g) ?? [];
    assert.ok(hashes.length >= 1 && new Set(hashes).size === hashes.length, hashes.join("\n"));
  });

  it("runs offline over .github/workflows/, reading no config and honouring no ignore comment", () => {
    assert.equal(INPUT, ".github/workflows/");
    assert.ok(fs.statSync(path.join(PROJECT_ROOT, INPUT)).isDirectory());
    const args: readonly string[] = ZIZMOR_ARGS;
    for (const flag of ["--offline", "--no-config", "--no-ignores", "--strict-collection"])
      assert.ok(args.includes(flag), flag);
    assert.equal(args.at(-1), INPUT);
    // zizmor's default persona (regular): the findings the workflows were audited against.
    assert.ok(!args.some((arg) => arg.startsWith("--persona") || arg === "--pedantic"));
  });

  it("accepts findings only at places that exist, each once, each audit with its reason", () => {
    const places = new Set<string>();
    for (const entry of accepted) {
      assert.match(entry.audit, /^[a-z]+(-[a-z]+)*$/, entry.audit);
      assert.ok(entry.reason.trim().split(/\s+/).length >= 8, `${entry.audit}: give the reason`);
      assert.ok(entry.at.length > 0, entry.audit);
      for (const place of entry.at) {
        const [file, route, ...rest] = place.split(" ");
        assert.deepEqual(rest, [], place);
        assert.ok(file.startsWith(INPUT) && fs.existsSync(path.join(PROJECT_ROOT, file)), place);
        assert.notEqual(at(file, route), undefined, `${place}: no such key`);
        const key = `${entry.audit} ${place}`;
        assert.ok(!places.has(key), `${key}: listed twice`);
        places.add(key);
      }
    }
  });

  it("accepts self-repository only on calls of this repository's reusable workflows", () => {
    const selfRepository = accepted.filter((entry) => entry.audit === "self-repository");
    for (const place of selfRepository.flatMap((entry) => entry.at)) {
      const [file, route] = place.split(" ");
      assert.match(route, /^jobs\.[\w-]+\.uses$/, place);
      assert.match(String(at(file, route)), /^\.\/\.github\/workflows\/[\w-]+\.yml$/, place);
    }
  });

  it("reads each finding at its primary location: file, YAML route and 1-based line", () => {
    const json = JSON.stringify([
      zizmorFinding("self-repository", ".github/workflows/pr.yml", ["jobs", "test", "uses"], 28),
      zizmorFinding("artipacked", ".github/workflows/up.yml", ["jobs", "up", "steps", 0, "uses"], 40),
    ]);
    assert.deepEqual(parseFindings(json), [
      {
        audit: "self-repository",
        at: ".github/workflows/pr.yml jobs.test.uses",
        line: 29,
        severity: "low",
        message: "self-repository finding",
      },
      {
        audit: "artipacked",
        at: ".github/workflows/up.yml jobs.up.steps.0.uses",
        line: 41,
        severity: "low",
        message: "artipacked finding",
      },
    ]);
  });

  it("fails on a finding not accepted and on an accepted one no longer reported", () => {
    const finding = (audit: string, place: string): Finding => ({
      audit,
      at: place,
      line: 1,
      severity: "low",
      message: audit,
    });
    const entry: AcceptedFindings = {
      audit: "self-repository",
      at: [".github/workflows/pr.yml jobs.test.uses", ".github/workflows/deploy.yml jobs.test.uses"],
      reason: "a reason",
    };
    const reported = [
      finding("self-repository", ".github/workflows/pr.yml jobs.test.uses"),
      finding("artipacked", ".github/workflows/pr.yml jobs.test.uses"),
    ];
    const { unaccepted, stale } = compareFindings(reported, [entry]);
    assert.deepEqual(unaccepted, [reported[1]]);
    assert.deepEqual(stale, [
      { audit: "self-repository", at: ".github/workflows/deploy.yml jobs.test.uses" },
    ]);
  });

  it("runs in CI beside npm test, not in it: package.json, .ci/run, test.yml, the README", () => {
    assert.ok(!(TEST_STEPS as readonly string[]).includes("lint:zizmor"), TEST_STEPS.join(", "));
    const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts["lint:zizmor"], "ts-node --transpile-only scripts/lint-zizmor.ts");
    assert.match(read(".ci/run"), /^npm run lint:zizmor \|\| status=\$\?$/m);
    assert.match(read(".github/workflows/test.yml"), /^ {6}- run: npm run lint:zizmor$/m);
    assert.match(read("README.md"), /^npm run lint:zizmor /m);
  });
});
