/**
 * The pages stay scannable: no sentence longer than a reader takes in at once. GOV.UK's style guide
 * ("Writing for GOV.UK") asks for about 25 words a sentence; 40 is this repo's ceiling. Code spans
 * and links count as one word each.
 */
import * as assert from "node:assert/strict";
import { docPages, pageSentences, readPage } from "./docs-pages";

const MOST_WORDS = 40;

describe("docs: readable sentences", () => {
  for (const page of docPages()) {
    it(`${page} has no sentence over ${MOST_WORDS} words`, () => {
      const long = pageSentences(readPage(page))
        .filter((sentence) => sentence.words > MOST_WORDS)
        .map((sentence) => `${sentence.words} words: ${sentence.text}`);
      assert.deepEqual(long, [], `split these sentences of ${page}:\n${long.join("\n")}`);
    });
  }

  it("docs/testing.md states the limit", () => {
    assert.ok(readPage("docs/testing.md").includes(`no sentence runs over ${MOST_WORDS} words`));
  });

  it("counts a code span and a link as one word, and splits at sentence ends", () => {
    const sentences = pageSentences(
      "Run `npm run test:cluster -- --grep x` once. See [the testing page](docs/testing.md) then.\n\n| a b | c |\n|---|---|\n\n```\nnot prose at all\n```",
    );
    assert.deepEqual(
      sentences.map((sentence) => [sentence.text, sentence.words]),
      [
        ["Run `npm run test:cluster -- --grep x` once.", 3],
        ["See [the testing page](docs/testing.md) then.", 3],
        [" a b ".trim(), 2],
        ["c", 1],
      ],
    );
  });
});
