/**
 * Wrapping a line of markdown prose to a width, as the docs are written: breaks at spaces only, never
 * inside a code span, and never where the next line would open a list, a heading, a quote or a table
 * row. A word longer than the width stays whole on its own line.
 */

/**
 * A word that opens a block at the start of a line (CommonMark): a list marker (`-`, `+`, `*`, `1.`, `2)`),
 * a heading's `#`s, a thematic break or setext underline (`---`, `===`), a quote, a table row or HTML.
 */
const BLOCK_START = /^(?:[-+*=]+|#{1,6}|\d{1,9}[.)]|[>|<].*)$/;

/** The words of `text`: split at spaces outside code spans, each code span kept whole. */
function words(text: string): string[] {
  const found: string[] = [];
  let current = "";
  let fence: string | undefined;
  for (let i = 0; i < text.length;) {
    const ticks = /^`+/.exec(text.slice(i))?.[0];
    if (ticks !== undefined) {
      // A run of backticks opens a span, and only a run of the same length closes it (CommonMark).
      if (fence === undefined) fence = ticks;
      else if (ticks === fence) fence = undefined;
      current += ticks;
      i += ticks.length;
    } else if (text[i] === " " && fence === undefined) {
      if (current !== "") found.push(current);
      current = "";
      i++;
    } else {
      current += text[i];
      i++;
    }
  }
  if (current !== "") found.push(current);
  // A word markdown would read as a block at the start of a line stays with the word before it.
  return found.reduce<string[]>((joined, word) => {
    if (joined.length > 0 && BLOCK_START.test(word)) joined[joined.length - 1] += ` ${word}`;
    else joined.push(word);
    return joined;
  }, []);
}

/**
 * `text` as lines of at most `width` characters: the first starts with `first` (a list marker), the others
 * with `rest` (its indent).
 */
export function wrap(text: string, width: number, first = "", rest = ""): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words(text)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}
