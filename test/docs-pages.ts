/**
 * The documentation pages (README.md and docs/*.md) as the docs tests read them: their lines with whether
 * each is inside a fenced code block, their headings' anchors as GitHub makes them, and their links.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import GithubSlugger from "github-slugger";
import { PROJECT_ROOT } from "../offline/engine";

/** Every page, relative to the project root: README.md first, then docs/*.md. */
export function docPages(root = PROJECT_ROOT): string[] {
  const docs = fs
    .readdirSync(path.join(root, "docs"))
    .filter((file) => file.endsWith(".md"))
    .sort();
  return ["README.md", ...docs.map((file) => `docs/${file}`)];
}

/** A page's text, `page` relative to the project root. */
export function readPage(page: string, root = PROJECT_ROOT): string {
  return fs.readFileSync(path.join(root, page), "utf8");
}

/** A page's text with its whitespace collapsed, so that a phrase may wrap anywhere. */
export function readProse(page: string, root = PROJECT_ROOT): string {
  return readPage(page, root).replace(/\s+/g, " ");
}

/** Asserts that `text` says `phrase`, naming `where` when it does not. */
export function says(text: string, phrase: string, where: string): void {
  assert.ok(text.includes(phrase), `${where} should say "${phrase}"`);
}

export interface PageLine {
  /** 1-based. */
  readonly number: number;
  readonly text: string;
  /** Inside a fenced code block, or one of its fences. */
  readonly code: boolean;
}

/** The lines of a markdown text, each marked when it belongs to a fenced code block. */
export function pageLines(markdown: string): PageLine[] {
  let fence: string | undefined;
  return markdown.split("\n").map((text, index) => {
    const opens = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    const code = fence !== undefined || opens !== undefined;
    if (fence === undefined && opens !== undefined) fence = opens;
    else if (
      fence !== undefined &&
      opens !== undefined &&
      opens[0] === fence[0] &&
      opens.length >= fence.length
    ) {
      fence = undefined;
    }
    return { number: index + 1, text, code };
  });
}

/** Text with its code spans blanked out (same length, newlines kept): a `[x](y)` in backticks is no link. */
function blankCodeSpans(text: string): string {
  return text.replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, " "));
}

/** The text a heading shows: links become their text, markup and inline HTML go. */
function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .trim();
}

/** The anchors of a page's headings, in order, as GitHub makes them (duplicates get -1, -2, ...). */
export function headingAnchors(markdown: string): string[] {
  const slugger = new GithubSlugger();
  return pageLines(markdown)
    .filter((line) => !line.code)
    .map((line) => /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line.text)?.[1])
    .filter((text): text is string => text !== undefined)
    .map((text) => slugger.slug(headingText(text)));
}

export interface PageLink {
  readonly line: number;
  /** As written: `path`, `path#anchor`, `#anchor` or a URL. */
  readonly target: string;
}

/** Every inline link and image of a page outside code blocks and code spans; its text may span lines. */
export function pageLinks(markdown: string): PageLink[] {
  const prose = blankCodeSpans(
    pageLines(markdown)
      .map((line) => (line.code ? "" : line.text))
      .join("\n"),
  );
  const link = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
  return [...prose.matchAll(link)].map((match) => ({
    line: prose.slice(0, match.index).split("\n").length,
    target: match[1],
  }));
}

/** The prose of a page: its paragraphs, list items and table cells, one string each, markup kept. */
function proseBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) blocks.push(current.join(" "));
    current = [];
  };
  for (const line of pageLines(markdown)) {
    const text = line.text.trim();
    const item = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(text);
    if (line.code || text === "" || /^#{1,6}\s/.test(text) || text.startsWith("<")) {
      flush();
    } else if (text.startsWith("|")) {
      flush();
      blocks.push(...text.split("|").filter((cell) => !/^[\s:-]*$/.test(cell)));
    } else if (item !== null) {
      flush();
      current = [item[1]];
    } else {
      current.push(text.replace(/^>\s?/, ""));
    }
  }
  flush();
  return blocks;
}

export interface PageSentence {
  readonly text: string;
  /** Words as a reader counts them: a code span or a link is one. */
  readonly words: number;
}

/** A page's sentences, as ICU's sentence segmenter splits its prose (code blocks and headings left out). */
export function pageSentences(markdown: string): PageSentence[] {
  const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });
  return proseBlocks(markdown)
    .flatMap((block) => [...segmenter.segment(block)].map((part) => part.segment.trim()))
    .filter((text) => text !== "")
    .map((text) => {
      const plain = text
        .replace(/(`+)[\s\S]*?\1/g, "code")
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, (_, label: string) => label.replace(/\s+/g, "-"));
      return { text, words: plain.split(/\s+/).filter((word) => /\w/.test(word)).length };
    });
}

/** The body rows of the markdown table whose header row starts with `first`, as trimmed cells. */
export function tableRows(markdown: string, first: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => new RegExp(`^\\| *${first} *\\|`).test(line));
  if (start < 0) throw new Error(`no table headed "${first}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}
