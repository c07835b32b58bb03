/**
 * The ledger of offline-against-real comparisons: each case records what the offline plan said and what
 * the real control plane did; the suite prints `offline agrees with the real control plane on N/M cases`
 * and every disagreement, and fails on any.
 */
import { isDeepStrictEqual } from "node:util";

export interface Comparison {
  readonly name: string;
  readonly offline: unknown;
  readonly real: unknown;
  readonly agrees: boolean;
}

const comparisons: Comparison[] = [];

/** Records one comparison; returns whether the two agree. */
export function compare(name: string, offline: unknown, real: unknown): boolean {
  const agrees = isDeepStrictEqual(offline, real);
  comparisons.push({ name, offline, real, agrees });
  return agrees;
}

export function ledger(): readonly Comparison[] {
  return comparisons;
}

/** The summary line and one line per disagreement. */
export function summary(): string[] {
  const agreed = comparisons.filter((c) => c.agrees).length;
  return [
    `offline agrees with the real control plane on ${agreed}/${comparisons.length} cases`,
    ...comparisons
      .filter((c) => !c.agrees)
      .map(
        (c) => `  disagrees: ${c.name}: offline ${JSON.stringify(c.offline)}, real ${JSON.stringify(c.real)}`,
      ),
  ];
}
