/**
 * The README and docs/*.md hold together and stay readable: every relative link reaches a file or folder
 * of the repository, every `#anchor` a heading of its target (slugged as GitHub does), prose lines fit
 * 110 characters, the README fits on a screen and links every docs page.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";
import { docPages, headingAnchors, pageLines, pageLinks, readPage } from "./docs-pages";

/** The widest prose line; tables, code blocks and a line that is one long link are exempt. */
const WIDTH = 110;
/** The README stays under this many lines: reference material lives in docs/. */
const README_MAX_LINES = 250;

/** `https:`, `mailto:` and the like: not this repository's to check. */
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/**
 * What is wrong with the links of `page` (relative to `root`), one line each: a relative target that does
 * not exist, an anchor on something other than a markdown page, or an anchor no heading of the target has.
 */
function brokenLinks(page: string, root: string): string[] {
  const text = fs.readFileSync(path.join(root, page), "utf8");
  const problems: string[] = [];
  for (const { line, target } of pageLinks(text)) {
    if (EXTERNAL.test(target)) continue;
    const hash = target.indexOf("#");
    const file = hash < 0 ? target : target.slice(0, hash);
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved =
      file === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
    const where = `${page}:${line}: ${target}`;
    if (resolved.startsWith("..") || !fs.existsSync(path.join(root, resolved))) {
      problems.push(`${where}: ${resolved} does not exist`);
    } else if (anchor !== undefined) {
      if (!resolved.endsWith(".md")) {
        problems.push(`${where}: an anchor needs a markdown page, ${resolved} is not one`);
      } else if (!headingAnchors(fs.readFileSync(path.join(root, resolved), "utf8")).includes(anchor)) {
        problems.push(`${where}: ${resolved} has no heading with the anchor #${anchor}`);
      }
    }
  }
  return problems;
}

/**
 * A line that is one link or URL, maybe in parentheses and followed by punctuation, and nothing else; or
 * one link reference definition (`[label]: https://...`).
 */
function isOneLink(line: string): boolean {
  const body = line.trim().replace(/^[-*] /, "");
  return (
    /^\(?(?:!?\[[^\]]*\]\([^)\s]+\)|<?https?:\/\/\S+?>?)\)?[.,;:]?$/.test(body) ||
    /^\[[^\]]+\]: <?https?:\/\/\S+?>?$/.test(line)
  );
}

/** Prose lines of `text` wider than `width`, as `line: length`. */
function wideLines(text: string, width: number): string[] {
  return pageLines(text)
    .filter((line) => !line.code && !line.text.trimStart().startsWith("|") && !isOneLink(line.text))
    .filter((line) => line.text.length > width)
    .map((line) => `${line.number}: ${line.text.length} characters`);
}

describe("docs: links, anchors and width", () => {
  const pages = docPages();

  it("reads the README and every page of docs/", () => {
    assert.equal(pages[0], "README.md");
    assert.ok(
      pages.includes("docs/config-reference.md") && pages.includes("docs/real-cluster.md"),
      pages.join(),
    );
  });

  for (const page of docPages()) {
    it(`${page}: every relative link reaches a file and every anchor a heading`, () => {
      assert.deepEqual(brokenLinks(page, PROJECT_ROOT), []);
    });

    it(`${page}: no prose line is wider than ${WIDTH} characters`, () => {
      assert.deepEqual(wideLines(readPage(page), WIDTH), []);
    });
  }

  it(`README.md is under ${README_MAX_LINES} lines`, () => {
    const lines = readPage("README.md").trimEnd().split("\n").length;
    assert.ok(lines < README_MAX_LINES, `README.md has ${lines} lines`);
  });

  it("README.md links every docs page, each with a one-line description", () => {
    const section = readPage("README.md").split("\n## Documentation\n")[1]?.split("\n## ")[0] ?? "";
    const entries = [...section.matchAll(/^- \[[^\]]+\]\((docs\/[^)#]+\.md)\): \S/gm)].map((m) => m[1]);
    assert.deepEqual([...entries].sort(), pages.slice(1));
  });

  describe("the checks themselves", () => {
    let root: string;

    before(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-docs-"));
      fs.mkdirSync(path.join(root, "docs"));
      fs.mkdirSync(path.join(root, "components"));
      fs.writeFileSync(
        path.join(root, "docs", "a.md"),
        "# Page A\n\n## Install modes\n\n## Notes\n\n## Notes\n",
      );
    });

    after(() => fs.rmSync(root, { recursive: true, force: true }));

    const check = (markdown: string) => {
      fs.writeFileSync(path.join(root, "README.md"), markdown);
      return brokenLinks("README.md", root);
    };

    it("accept links to files, folders and headings, duplicates numbered as GitHub numbers them", () => {
      assert.deepEqual(
        check(
          "# Top\n\n[a](docs/a.md#install-modes), [b](docs/a.md#notes-1), [c](components/), [d](#top),\n" +
            "[e](https://example.com/x#y), `[f](missing.md)`\n\n```md\n[g](missing.md)\n```\n",
        ),
        [],
      );
    });

    it("report a missing file, a missing anchor and an anchor on a folder", () => {
      assert.deepEqual(
        check(
          "[a](docs/b.md)\n[b](docs/a.md#install-mode)\n[c](components#x)\n[d](#nowhere)\n[e](../x.md)\n",
        ),
        [
          "README.md:1: docs/b.md: docs/b.md does not exist",
          "README.md:2: docs/a.md#install-mode: docs/a.md has no heading with the anchor #install-mode",
          "README.md:3: components#x: an anchor needs a markdown page, components is not one",
          "README.md:4: #nowhere: README.md has no heading with the anchor #nowhere",
          "README.md:5: ../x.md: ../x.md does not exist",
        ],
      );
    });

    it("slug headings as GitHub does: lowercase, punctuation dropped, spaces to hyphens", () => {
      assert.deepEqual(
        headingAnchors(
          "# The real control plane: `npm run tools`\n## Taking over a Calico installed with kubectl\n" +
            "## [Link](x.md) and *more*\n```\n# not a heading\n```\n## Notes\n## Notes\n",
        ),
        [
          "the-real-control-plane-npm-run-tools",
          "taking-over-a-calico-installed-with-kubectl",
          "link-and-more",
          "notes",
          "notes-1",
        ],
      );
    });

    it("measure prose only: tables, code and a line that is one long link or link definition are exempt", () => {
      const long = "x".repeat(WIDTH + 1);
      const link = `[docs](https://example.com/${"y".repeat(WIDTH)})`;
      const definition = `[docs]: https://example.com/${"y".repeat(WIDTH)}`;
      assert.deepEqual(
        wideLines(
          `${long}\n| ${long} |\n\`\`\`\n${long}\n\`\`\`\n${link},\n  (${link}).\n${definition}\n${definition} x\n`,
          WIDTH,
        ),
        [`1: ${WIDTH + 1} characters`, `9: ${definition.length + 2} characters`],
      );
    });
  });
});
