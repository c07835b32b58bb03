/**
 * The IAM policy documents of docs/iam/, read and judged as IAM would: whether a statement's action and
 * resource patterns (`*`, `?`) name a request, whether its conditions hold, and whether a Deny names it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PROJECT_ROOT } from "../offline/engine";

export interface Statement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
  Principal?: { Federated?: string };
}
export interface PolicyDocument {
  Version: string;
  Statement: Statement[];
}

export const IAM_DIR = path.join(PROJECT_ROOT, "docs", "iam");
export const ROLES = ["deploy", "preview", "drift"] as const;
export const policyFile = (role: string, kind: "policy" | "trust") => `${role}-${kind}.json`;
export const readPolicy = (file: string) =>
  JSON.parse(fs.readFileSync(path.join(IAM_DIR, file), "utf8")) as PolicyDocument;
export const list = (value: string | string[]) => (Array.isArray(value) ? value : [value]);
export const allowed = (policy: PolicyDocument) =>
  policy.Statement.filter((s) => s.Effect === "Allow").flatMap((s) => list(s.Action));

/** A policy's pattern (`*` and `?` wildcards) as a regular expression. */
const wildcard = (pattern: string, flags = "") =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    flags,
  );

/** Whether an IAM action pattern (`*` and `?` wildcards, case-insensitive) matches `action`. */
export const matches = (pattern: string, action: string) => wildcard(pattern, "i").test(action);
export const grants = (policy: PolicyDocument, action: string) =>
  allowed(policy).some((pattern) => matches(pattern, action));
export const services = (policy: PolicyDocument) => new Set(allowed(policy).map((a) => a.split(":")[0]));

/** What a request carries for the condition keys the policies use, each key's one value. */
export type RequestContext = Readonly<Record<string, string | undefined>>;

/**
 * Whether a statement's condition holds for a request: every operator and every key in it (IAM's AND),
 * each key matching one of its values (OR). Only the operators the policies use: StringEquals, ArnEquals and
 * ArnLike (`*` and `?` wildcards; case-sensitive as IAM compares them). Any other operator, or a key the
 * request does not carry, fails.
 */
function conditionHolds(condition: Statement["Condition"], context: RequestContext): boolean {
  return Object.entries(condition ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, values]) => {
      const value = context[key];
      const patterns = list(values as string | string[]);
      if (value === undefined) return false;
      if (operator === "StringEquals" || operator === "ArnEquals") return patterns.includes(value);
      if (operator === "ArnLike") return patterns.some((pattern) => globMatches(pattern, value));
      return false;
    }),
  );
}

/** A resource pattern or ARN condition value (`*`, `?`) against a value, case-sensitive. */
const globMatches = (pattern: string, value: string) => wildcard(pattern).test(value);

/**
 * Whether the policy lets `action` on `resource` with `context`: an Allow statement names the action and
 * the resource and its condition holds, and no Deny statement names both (a Deny's condition is ignored,
 * so this only errs toward denying).
 */
export function allows(
  policy: PolicyDocument,
  action: string,
  resource: string,
  context: RequestContext = {},
) {
  const names = (s: Statement) =>
    list(s.Action).some((a) => matches(a, action)) && list(s.Resource).some((r) => globMatches(r, resource));
  const denied = policy.Statement.some((s) => s.Effect === "Deny" && names(s));
  return (
    !denied &&
    policy.Statement.some((s) => s.Effect === "Allow" && names(s) && conditionHolds(s.Condition, context))
  );
}
