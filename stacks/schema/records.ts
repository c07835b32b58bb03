/**
 * Refinements here run even when a value failed its own type check (zod's `when: () => true`, so every
 * problem is reported at once): they must never assume a shape. This guard is the one they use.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A non-empty string: how a stack output that names something reads back. */
export function isText(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
