/**
 * pulumi-kubernetes' `pulumi.com/waitFor` annotation (provider 4.18+), judged against the status the
 * simulated cluster reports: `condition=Type` (status True), `condition=Type=Status`, `jsonpath={.a.b}`
 * (the field exists) or `jsonpath={.a.b}=value`, or a JSON array of these that must all hold. A condition
 * whose observedGeneration lags the object's generation does not count (provider/pkg/await/condition.go).
 * Only dotted field paths are modelled; any other JSONPath cannot be judged here and is refused.
 */
import { CannotSimulate } from "./scheduling";

export const WAIT_FOR = "pulumi.com/waitFor";

interface Condition {
  type?: string;
  status?: string;
  observedGeneration?: number;
}

interface Observed {
  metadata?: { generation?: number };
  status?: { conditions?: Condition[] } & Record<string, unknown>;
}

/** The expressions of a waitFor annotation: one string, or a JSON array of them. */
export function waitForExpressions(annotation: string): string[] {
  const text = annotation.trim();
  if (!text.startsWith("[")) return [text];
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((e) => typeof e === "string")) {
    throw new CannotSimulate(`pulumi.com/waitFor ${annotation}: a JSON array must hold strings`);
  }
  return parsed;
}

function field(object: unknown, path: string): unknown {
  if (!/^\.[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(path)) {
    throw new CannotSimulate(`pulumi.com/waitFor JSONPath {${path}} is not a dotted field path`);
  }
  let value: unknown = object;
  for (const key of path.slice(1).split(".")) {
    value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/** Why one expression does not hold for `object`, or undefined when it holds. */
function unmet(expression: string, object: Observed): string | undefined {
  const condition = /^condition=([^=]+)(?:=(.+))?$/.exec(expression);
  if (condition !== null) {
    const [, type, wanted = "True"] = condition;
    const generation = object.metadata?.generation ?? 1;
    const found = (object.status?.conditions ?? []).find((c) => c.type === type);
    if (found === undefined) return `no ${type} condition is reported`;
    if ((found.observedGeneration ?? generation) < generation) return `the ${type} condition is stale`;
    return found.status?.toLowerCase() === wanted.toLowerCase()
      ? undefined
      : `condition ${type} is ${String(found.status)}, not ${wanted}`;
  }
  const jsonpath = /^jsonpath=\{([^}]*)\}(?:=(.*))?$/.exec(expression);
  if (jsonpath !== null) {
    const [, path, wanted] = jsonpath;
    const value = field(object, path);
    if (value === undefined) return `{${path}} is not set`;
    if (wanted === undefined) return undefined;
    const shown = typeof value === "string" ? value : JSON.stringify(value);
    return shown === wanted ? undefined : `{${path}} is ${JSON.stringify(value)}, not ${wanted}`;
  }
  throw new CannotSimulate(`pulumi.com/waitFor expression ${JSON.stringify(expression)} is not modelled`);
}

/** Every expression of the annotation that does not hold, with why; empty when the wait ends. */
export function unmetWaits(annotation: string, object: Observed): string[] {
  return waitForExpressions(annotation).flatMap((expression) => {
    const reason = unmet(expression, object);
    return reason === undefined ? [] : [`${expression}: ${reason}`];
  });
}
