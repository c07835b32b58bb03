/**
 * The files people look for first: a LICENSE that is the license package.json names, word for word, and
 * a CHANGELOG.md in the Keep a Changelog format (https://keepachangelog.com/en/1.1.0/) whose latest
 * release is package.json's version.
 */
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";

const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
  version: string;
  license: string;
};
const read = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), "utf8");

/**
 * SHA-256 of each license's standard text, by SPDX identifier: Apache-2.0 is
 * https://www.apache.org/licenses/LICENSE-2.0.txt as published (202 lines, appendix included).
 */
const LICENSE_TEXTS: Readonly<Record<string, { sha256: string; opening: RegExp }>> = {
  "Apache-2.0": {
    sha256: "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
    opening: /^\s*Apache License\n\s*Version 2\.0, January 2004\n\s*http:\/\/www\.apache\.org\/licenses\/\n/,
  },
};

describe("LICENSE", () => {
  it("is the standard text of the license package.json names", () => {
    const expected = LICENSE_TEXTS[pkg.license];
    assert.ok(expected, `no standard text recorded for package.json's license ${pkg.license}`);
    const text = read("LICENSE");
    assert.match(text, expected.opening);
    assert.equal(
      createHash("sha256").update(text).digest("hex"),
      expected.sha256,
      "LICENSE differs from the standard text",
    );
  });
});

/** Keep a Changelog's kinds of change, in the order it lists them. */
const CHANGE_KINDS = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"];

interface Release {
  readonly version: string;
  readonly date?: string;
  readonly kinds: { kind: string; entries: number }[];
}

/** The releases of a Keep a Changelog file, newest first; throws on a line out of the format. */
function parseChangelog(text: string): Release[] {
  const lines = text.split("\n");
  assert.equal(lines[0], "# Changelog", "the first line is the title");
  assert.match(text, /\[Keep a Changelog\]\(https:\/\/keepachangelog\.com\/en\/1\.1\.0\/\)/);
  assert.match(text, /\[Semantic Versioning\]\(https:\/\/semver\.org\/spec\/v2\.0\.0\.html\)/);
  const releases: { version: string; date?: string; kinds: { kind: string; entries: number }[] }[] = [];
  for (const [index, line] of lines.entries()) {
    const where = `CHANGELOG.md:${index + 1}: ${line}`;
    if (index === 0) continue;
    if (line.startsWith("# ")) assert.fail(`${where}: one title only`);
    if (line.startsWith("## ")) {
      const heading = /^## \[(Unreleased|\d+\.\d+\.\d+)\](?: - (\d{4}-\d{2}-\d{2}))?$/.exec(line);
      assert.ok(heading, `${where}: a release is "## [X.Y.Z] - YYYY-MM-DD" or "## [Unreleased]"`);
      const [, version, date] = heading;
      assert.equal(
        date === undefined,
        version === "Unreleased",
        `${where}: a release has a date, Unreleased none`,
      );
      if (date !== undefined) {
        assert.equal(new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10), date, `${where}: not a date`);
      }
      releases.push({ version, ...(date !== undefined ? { date } : {}), kinds: [] });
    } else if (line.startsWith("### ")) {
      const kind = line.slice(4);
      assert.ok(
        CHANGE_KINDS.includes(kind),
        `${where}: a kind of change is one of ${CHANGE_KINDS.join(", ")}`,
      );
      const release = releases[releases.length - 1];
      assert.ok(release, `${where}: under a release`);
      assert.ok(!release.kinds.some((k) => k.kind === kind), `${where}: once per release`);
      release.kinds.push({ kind, entries: 0 });
    } else if (line.startsWith("- ")) {
      const kinds = releases[releases.length - 1]?.kinds;
      assert.ok(kinds !== undefined && kinds.length > 0, `${where}: an entry sits under a kind of change`);
      kinds[kinds.length - 1].entries++;
    } else if (line.startsWith("#")) {
      assert.fail(`${where}: only #, ## and ### headings`);
    }
  }
  return releases;
}

function semver(version: string): number[] {
  return version.split(".").map(Number);
}

describe("CHANGELOG.md", () => {
  let releases: Release[] = [];
  let dated: Release[] = [];
  before(() => {
    releases = parseChangelog(read("CHANGELOG.md"));
    dated = releases.filter((r) => r.version !== "Unreleased");
  });

  it("keeps Unreleased on top, then releases newest first, each version once", () => {
    assert.ok(releases.findIndex((r) => r.version === "Unreleased") <= 0, "Unreleased comes first");
    assert.ok(dated.length > 0, "at least one release");
    for (let i = 1; i < dated.length; i++) {
      const [a, b] = [semver(dated[i - 1].version), semver(dated[i].version)];
      const newer = a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
      assert.ok(newer > 0, `${dated[i - 1].version} is listed above ${dated[i].version}`);
      assert.ok(
        (dated[i - 1].date ?? "") >= (dated[i].date ?? ""),
        `${dated[i - 1].version} is dated before ${dated[i].version}`,
      );
    }
  });

  it("has package.json's version as its latest release", () => {
    assert.equal(dated[0].version, pkg.version);
  });

  it("lists changes under each release, in Keep a Changelog's order of kinds", () => {
    for (const release of dated) {
      assert.ok(release.kinds.length > 0, `${release.version} lists no change`);
      for (const { kind, entries } of release.kinds)
        assert.ok(entries > 0, `${release.version}: ${kind} is empty`);
      const order = release.kinds.map((k) => CHANGE_KINDS.indexOf(k.kind));
      assert.deepEqual(
        order,
        [...order].sort((a, b) => a - b),
        `${release.version}: kinds out of order`,
      );
    }
  });

  it("refuses what is out of the format", () => {
    const head =
      "# Changelog\n\n[Keep a Changelog](https://keepachangelog.com/en/1.1.0/) [Semantic Versioning](https://semver.org/spec/v2.0.0.html)\n\n";
    assert.throws(() => parseChangelog(`${head}## [0.1.0]\n`), /a release has a date/);
    assert.throws(() => parseChangelog(`${head}## 0.1.0 - 2026-11-24\n`), /a release is/);
    assert.throws(() => parseChangelog(`${head}## [0.1.0] - 2026-13-01\n`), /not a date|Invalid time value/);
    assert.throws(
      () => parseChangelog(`${head}## [0.1.0] - 2026-11-24\n### New\n- x\n`),
      /a kind of change is one of/,
    );
    assert.throws(
      () => parseChangelog(`${head}## [0.1.0] - 2026-11-24\n- x\n`),
      /an entry sits under a kind of change/,
    );
    assert.throws(() => parseChangelog(`${head}# Again\n`), /one title only/);
    assert.throws(() => parseChangelog(`${head}#### Detail\n`), /only #, ## and ### headings/);
    assert.deepEqual(
      parseChangelog(`${head}## [Unreleased]\n\n## [0.1.0] - 2026-11-24\n\n### Added\n\n- x\n`),
      [
        { version: "Unreleased", kinds: [] },
        { version: "0.1.0", date: "2026-11-24", kinds: [{ kind: "Added", entries: 1 }] },
      ],
    );
  });
});
