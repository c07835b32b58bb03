/**
 * The ledger of offline-against-real comparisons: each case records what the offline plan said and what
 * the real engine (the Pulumi CLI and Kubernetes provider on the local control plane) or, where the engine
 * does not run the case, the control plane alone did (or kubectl, for the program's kubeconfig checks);
 * the suite prints `offline agrees with the real
 * engine on N/M cases` (and the same for the control plane's cases) and every disagreement, and fails on
 * any.
 */
import { isDeepStrictEqual } from "node:util";

/** What ran the case for real. */
export type RealSource = "engine" | "control plane" | "kubectl";

export interface Comparison {
  readonly name: string;
  readonly source: RealSource;
  readonly offline: unknown;
  readonly real: unknown;
  readonly agrees: boolean;
}

const comparisons: Comparison[] = [];

/** Records one comparison; returns whether the two agree. */
export function compare(
  name: string,
  offline: unknown,
  real: unknown,
  source: RealSource = "control plane",
): boolean {
  const agrees = isDeepStrictEqual(offline, real);
  comparisons.push({ name, source, offline, real, agrees });
  return agrees;
}

export function ledger(): readonly Comparison[] {
  return comparisons;
}

/** Where the running test's comparisons start (a root hook sets it before each test). */
let testStart = 0;

/** One line per disagreement of the running test; `all` for every test so far. */
export function disagreements(all = false): string[] {
  return comparisons
    .slice(all ? 0 : testStart)
    .filter((c) => !c.agrees)
    .map(
      (c) =>
        `  disagrees: ${c.name}: offline ${JSON.stringify(c.offline)}, real ${c.source} ${JSON.stringify(c.real)}`,
    );
}

/** A summary line per source that ran cases, then one line per disagreement. */
export function summary(): string[] {
  const sources: RealSource[] = ["engine", "control plane", "kubectl"];
  return [
    ...sources.flatMap((source) => {
      const cases = comparisons.filter((c) => c.source === source);
      const agreed = cases.filter((c) => c.agrees).length;
      return cases.length === 0
        ? []
        : [`offline agrees with the real ${source} on ${agreed}/${cases.length} cases`];
    }),
    ...disagreements(true),
  ];
}

// Root hooks, registered once: each test is held to its own comparisons; once every case has run, the
// ledger, whatever failed.
beforeEach(function () {
  testStart = comparisons.length;
});
after(function () {
  for (const line of summary()) console.log(line);
});
