/**
 * `npm run docs:config`: writes the keys of docs/config-reference.md from the config schema (stacks/schema/,
 * through zod's JSON Schema: every key, its default, its values and its description), between the page's
 * BEGIN KEYS and END KEYS comments; the rest of the page is written by hand. test/docs-config.test.ts
 * fails while the page in the repository is not what this writes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { stackConfigSchema } from "../stacks/schema";
import { type JsonSchema, keysMarkdown, sections } from "./config-keys";
import { wrap } from "./markdown-wrap";
import { runMain } from "./entry";

const ROOT = path.resolve(__dirname, "..");
export const CONFIG_REFERENCE = "docs/config-reference.md";

/** The widest line this writes, within the 110 characters of a docs prose line (docs-links.test.ts). */
const WIDTH = 105;

/** The comments around what this writes, each on a line of its own; the first is kept as the page has it. */
const BEGIN = /^<!-- BEGIN KEYS\b.*-->$/m;
const END = /^<!-- END KEYS -->$/m;

/** The keys as the page shows them: the links to the sections (one per top-level key), then the sections. */
function keysPart(): string {
  const schema = z.toJSONSchema(stackConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  // A top-level key is a plain identifier: GitHub's anchor for its heading is the key in lowercase.
  const links = sections(schema).map((name) => `[${name}](#${name.toLowerCase()})`);
  return [
    wrap(`The keys by section: ${links.join(", ")}.`, WIDTH).join("\n"),
    keysMarkdown(schema, WIDTH),
  ].join("\n\n");
}

/** `page` (docs/config-reference.md) with its keys written from the schema; throws without both comments. */
export function renderConfigReference(page: string): string {
  const begin = BEGIN.exec(page);
  const end = END.exec(page);
  if (begin === null || end === null || end.index < begin.index) {
    throw new Error(
      `${CONFIG_REFERENCE} needs a line <!-- BEGIN KEYS ... --> and, after it, <!-- END KEYS -->`,
    );
  }
  const from = begin.index + begin[0].length;
  return `${page.slice(0, from)}\n\n${keysPart()}\n\n${page.slice(end.index)}`;
}

function main(): Promise<number> {
  const file = path.join(ROOT, CONFIG_REFERENCE);
  fs.writeFileSync(file, renderConfigReference(fs.readFileSync(file, "utf8")));
  console.log(`wrote the keys of ${CONFIG_REFERENCE}`);
  return Promise.resolve(0);
}

if (require.main === module) {
  runMain(main);
}
