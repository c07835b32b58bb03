import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";

/** One thing wrong with a stack's configuration. */
export interface ConfigProblem {
  /** Key path as a user writes it: `network.cidr`, `nodeGroups[0].maxSize`, `aws:region`. */
  readonly path: string;
  /** The offending value, or undefined when the key is missing. */
  readonly value: unknown;
  /** The rule that value breaks. */
  readonly rule: string;
}

/**
 * Every problem with a stack's configuration, raised before any resource is registered. A RunError,
 * so `pulumi up` prints the message without a stack trace.
 */
export class ConfigError extends pulumi.RunError {
  constructor(
    readonly stackName: string,
    readonly problems: readonly ConfigProblem[],
  ) {
    super(formatProblems(stackName, problems));
    this.name = "ConfigError";
  }

  static isConfigError(error: unknown): error is ConfigError {
    return error instanceof Error && error.name === "ConfigError" && "problems" in error;
  }
}

export function formatProblems(stack: string, problems: readonly ConfigProblem[]): string {
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  const lines = problems.map((p) => `  - ${p.path}: ${p.rule} (got ${describeValue(p.value)})`);
  return [`Stack "${stack}" has invalid configuration (${count}):`, ...lines].join("\n");
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** `["nodeGroups", 0, "maxSize"]` under key prefix "" becomes `nodeGroups[0].maxSize`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, part) => {
    if (typeof part === "number") return `${acc}[${part}]`;
    const key = String(part);
    return acc === "" ? key : `${acc}.${key}`;
  }, "");
}

/** Turns zod issues into problems; an unknown key becomes one problem per key. */
export function problemsFromIssues(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  return issues.flatMap((issue): ConfigProblem[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: formatPath([...issue.path, key]),
        value: issue.input?.[key],
        rule: "is not a known key (check its spelling against the README's config reference)",
      }));
    }
    if (issue.code === "invalid_key") {
      // A record key broke its rule: report the key's own rule, not zod's summary.
      return [
        {
          path: formatPath(issue.path),
          value: issue.input,
          rule: issue.issues.map((i) => i.message).join("; "),
        },
      ];
    }
    const missing = issue.code === "invalid_type" && issue.input === undefined;
    return [
      { path: formatPath(issue.path), value: issue.input, rule: missing ? "is required" : issue.message },
    ];
  });
}
