/**
 * pulumi-kubernetes' `pulumi.com/waitFor` annotation (provider 4.18+), judged against the status the
 * simulated cluster reports: `condition=Type` (status True), `condition=Type=Status`, `jsonpath={.a.b}`
 * (the field exists) or `jsonpath={.a.b}=value`, or a JSON array of these that must all hold. A condition
 * whose observedGeneration lags the object's generation does not count (provider/pkg/await/condition.go).
 * Only dotted field paths are modelled, where a list may be filtered by one field's value
 * (`.status.conditions[?(@.type=="PodScheduled")].status`, the first element that matches: the provider
 * compares the first value selected, provider/pkg/jsonpath); any other JSONPath cannot be judged here and
 * is refused.
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

/** One step of a modelled path: a field, and optionally a filter on the list it holds. */
const SEGMENT = String.raw`\.([A-Za-z0-9_]+)(?:\[\?\(@\.([A-Za-z0-9_]+)=="([^"]*)"\)\])?`;

function field(object: unknown, path: string): unknown {
  const steps: { key: string; filter?: { key: string; value: string } }[] = [];
  const segment = new RegExp(SEGMENT, "y");
  let read = 0;
  for (let m = segment.exec(path); m !== null && read < path.length; m = segment.exec(path)) {
    steps.push({ key: m[1], ...(m[2] === undefined ? {} : { filter: { key: m[2], value: m[3] } }) });
    read = segment.lastIndex;
  }
  if (steps.length === 0 || read !== path.length) {
    throw new CannotSimulate(`pulumi.com/waitFor JSONPath {${path}} is not a dotted field path`);
  }
  const at = (value: unknown, key: string) =>
    value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  let value: unknown = object;
  for (const step of steps) {
    value = at(value, step.key);
    const filter = step.filter;
    if (filter !== undefined) {
      value = Array.isArray(value) ? value.find((item) => at(item, filter.key) === filter.value) : undefined;
    }
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
    // A status that has not caught up with the object's generation is not judged (condition/jsonpath.go).
    const generation = object.metadata?.generation;
    const observed = object.status?.observedGeneration;
    if (typeof generation === "number" && typeof observed === "number" && observed < generation) {
      return `status.observedGeneration ${observed} lags generation ${generation}`;
    }
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
