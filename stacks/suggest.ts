/**
 * "Did you mean": the known names closest to a misspelt one, for config keys and instance types. Plain
 * functions over strings; the edit distance is Levenshtein's (fastest-levenshtein).
 */
import { distance } from "fastest-levenshtein";

/** Case, `-`, `_` and spaces make no difference: instance_types and InstanceTypes are instanceTypes. */
function normalized(name: string): string {
  return name.toLowerCase().replace(/[-_ ]/g, "");
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * The candidates closest to `word`: fewest edits first, then the longest shared beginning (m7.large is
 * nearer m7g.large than m5.large), every tie kept in the candidates' order, at most `limit`. None farther
 * than `maxDistance` edits: by default a third of the word, so a short word matches only a near twin.
 */
export function closestNames(
  word: string,
  candidates: readonly string[],
  { maxDistance = Math.max(1, Math.floor(word.length / 3)), limit = 3 } = {},
): string[] {
  const wanted = normalized(word);
  const ranked = candidates.map((candidate, index) => ({
    candidate,
    index,
    edits: distance(wanted, normalized(candidate)),
    prefix: commonPrefix(wanted, normalized(candidate)),
  }));
  const near = ranked.filter((r) => r.edits <= maxDistance && r.candidate !== word);
  if (near.length === 0) return [];
  const best = near.reduce((a, b) =>
    b.edits < a.edits || (b.edits === a.edits && b.prefix > a.prefix) ? b : a,
  );
  return near
    .filter((r) => r.edits === best.edits && r.prefix === best.prefix)
    .sort((a, b) => a.index - b.index)
    .slice(0, limit)
    .map((r) => r.candidate);
}

/** `a`, `a or b`, `a, b or c`. */
export function orList(names: readonly string[]): string {
  return names.length <= 1
    ? names.join("")
    : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/** `; did you mean a or b?`, or nothing when nothing is near. */
export function didYouMean(names: readonly string[]): string {
  return names.length === 0 ? "" : `; did you mean ${orList(names)}?`;
}
