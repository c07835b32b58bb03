/**
 * How long and with which seed the property tests run. By default each property tries as many generated
 * configs as fit in its time budget, with a new seed each run; the seed and the number tried are printed,
 * so a failure can be replayed exactly. For a deeper run:
 *
 *   EKS_CALICO_PROPERTY_SECONDS=600 npm run test:unit        # ten minutes per property
 *   EKS_CALICO_PROPERTY_RUNS=500 npx mocha test/idempotence.test.ts
 *   EKS_CALICO_PROPERTY_SEED=1234 npx mocha ...              # replay a printed seed
 *
 * (docs/testing.md, "Property tests").
 */
import fc from "fast-check";

/** A whole number from the environment, or the fallback; anything else stops the run with the reason. */
function fromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number, not "${raw}"`);
  return value;
}

/** Each property's default time budget in seconds: about a minute of `npm test` between them. */
export const PROPERTY_SECONDS = { idempotence: 40, dayTwo: 30 } as const;

/** Generated settings the real engine runs by default (test/cluster/generated.test.ts). */
export const DEFAULT_ENGINE_SAMPLES = 2;

/** How many generated settings run on the real engine: EKS_CALICO_ENGINE_SAMPLES, at least 1. */
export function engineSamples(): number {
  const samples = fromEnv("EKS_CALICO_ENGINE_SAMPLES", DEFAULT_ENGINE_SAMPLES);
  if (samples < 1) throw new Error("EKS_CALICO_ENGINE_SAMPLES must be at least 1");
  return samples;
}

/** Cases per step the interruption property runs on the real engine (test/cluster/interrupted-up.test.ts). */
export const DEFAULT_INTERRUPTION_SAMPLES = 1;

/** How many cases of each step the interruption property runs: EKS_CALICO_INTERRUPT_SAMPLES, at least 1. */
export function interruptionSamples(): number {
  const samples = fromEnv("EKS_CALICO_INTERRUPT_SAMPLES", DEFAULT_INTERRUPTION_SAMPLES);
  if (samples < 1) throw new Error("EKS_CALICO_INTERRUPT_SAMPLES must be at least 1");
  return samples;
}

/** The settings one property runs with. */
export interface PropertyRun {
  readonly seed: number;
  /** At most this many configs (EKS_CALICO_PROPERTY_RUNS), or as many as fit in `seconds`. */
  readonly runs: number;
  readonly seconds: number;
  /** The mocha timeout: the budget, plus time to shrink a failing case to its smallest config. */
  readonly timeoutMs: number;
}

/** The run settings for a property whose default time budget is `seconds`. */
export function propertyRun(seconds: number): PropertyRun {
  const runs = fromEnv("EKS_CALICO_PROPERTY_RUNS", 0);
  const budget = fromEnv("EKS_CALICO_PROPERTY_SECONDS", runs > 0 ? 0 : seconds);
  return {
    seed: fromEnv("EKS_CALICO_PROPERTY_SEED", Math.floor(Math.random() * 2 ** 31)),
    runs: runs > 0 ? runs : 100_000,
    seconds: budget,
    timeoutMs: (budget > 0 ? budget : runs * 5) * 1000 + 10 * 60_000,
  };
}

/**
 * Checks `property` under `run`, and returns how many configs it tried and how many the program refused
 * (dropped with fc.pre). A failure throws fast-check's report: the seed, the path and the shrunk config.
 * Fewer than `minimum` tried means the budget did not allow a meaningful run: that fails too.
 */
export async function checkProperty<T>(
  run: PropertyRun,
  property: fc.IAsyncPropertyWithHooks<T>,
  minimum = 3,
): Promise<{ tried: number; skipped: number }> {
  const details = await fc.check(property, {
    seed: run.seed,
    numRuns: run.runs,
    ...(run.seconds > 0 ? { interruptAfterTimeLimit: run.seconds * 1000 } : {}),
    markInterruptAsFailure: false,
  });
  if (details.failed) {
    const cause =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `${fc.defaultReportMessage(details) ?? "property failed"}\nThe shrunk case failed with: ${cause}`,
    );
  }
  const tried = details.numRuns;
  if (tried < minimum) {
    throw new Error(
      `only ${tried} configs tried in ${run.seconds}s (seed ${run.seed}): raise EKS_CALICO_PROPERTY_SECONDS`,
    );
  }
  return { tried, skipped: details.numSkips };
}
