/**
 * How a stack's configuration is refused: the ConfigProblem (key path, value, rule, hint), the hint of
 * each key, zod's issues in a stack file's words, secret values masked, and the message `pulumi up`
 * prints with every problem at once. A new rule goes where its key is checked: stacks/schema/ (one file
 * per top-level key), or a cross-check in stacks/ that returns ConfigProblems for stacks/index.ts to
 * collect; a key's general hint goes in HINTS here. Warnings that refuse nothing are notices
 * (stacks/table-notices.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { closestNames, didYouMean } from "./suggest";

/** The config namespace of this program (Pulumi.yaml `name`). */
export const CONFIG_NAMESPACE = "eks-calico";

/** One thing wrong with a stack's configuration. */
export interface ConfigProblem {
  /** Key path as a user writes it: `network.cidr`, `nodeGroups[0].maxSize`, `aws:region`. */
  readonly path: string;
  /** The offending value, or undefined when the key is missing. */
  readonly value: unknown;
  /** The rule that value breaks. */
  readonly rule: string;
  /** What to do, when it is more specific than the key's general hint. */
  readonly hint?: string;
  /** Each reason behind the rule, when there are several (listed under it, one a line). */
  readonly details?: readonly string[];
  /** What to do, in order, after the hint (numbered under it, one a line). */
  readonly steps?: readonly string[];
}

/**
 * What to do about a problem at a key, by key path with list indexes written `[]`. Keys not listed
 * point to docs/config-reference.md.
 */
const HINTS: Readonly<Record<string, string>> = {
  "aws:region": "set it with `pulumi config set aws:region us-west-2`",
  "network.cidr": "use a private range such as 10.0.0.0/16 that no peered network uses",
  "network.availabilityZones": "use 2 for development and 3 for production",
  "network.natGateways": "single is cheaper; perAz keeps egress when an AZ fails",
  "cluster.version": 'quote it in YAML ("1.35"): unquoted, 1.30 reads as the number 1.3',
  "cluster.publicAccessCidrs[]":
    "list your office or VPN ranges such as 203.0.113.0/24, or [] for a private endpoint",
  "cluster.logTypes[]": "api, audit and authenticator cover most investigations",
  "cluster.logRetentionDays": "90 or 365 are common choices",
  "cluster.addons.vpcCni.version":
    "list versions with `aws eks describe-addon-versions --addon-name vpc-cni --kubernetes-version 1.35`, or remove the pin",
  "cluster.addons.kubeProxy.version":
    "list versions with `aws eks describe-addon-versions --addon-name kube-proxy --kubernetes-version 1.35`, or remove the pin",
  "cluster.addons.coreDns.version":
    "list versions with `aws eks describe-addon-versions --addon-name coredns --kubernetes-version 1.35`, or remove the pin",
  "cluster.access":
    "for example [{principalArn: arn:aws:iam::123456789012:role/platform-admins, level: admin}]",
  "cluster.access[].principalArn":
    "use the role's ARN, arn:<partition>:iam::<account>:role/<name> (`aws sts get-caller-identity` shows a session ARN; drop the session)",
  "cluster.access[].level": "admin (AmazonEKSClusterAdminPolicy) or view (AmazonEKSViewPolicy)",
  "cluster.kubeconfig.path":
    "a kubeconfig file such as ~/.kube/config (`kubectl config view --flatten --minify > FILE` writes one for the current context); a relative path starts at the project directory",
  "cluster.kubeconfig.context":
    "list the file's contexts with `kubectl config get-contexts --kubeconfig FILE`, or remove the key to use its current-context",
  nodeGroups:
    "for example [{name: general, instanceTypes: [t3.large], minSize: 2, desiredSize: 2, maxSize: 4}]",
  "nodeGroups[].name": "for example general or system-arm64",
  "nodeGroups[].instanceTypes": "for example [t3.large]",
  "nodeGroups[].instanceTypes[]":
    "for example t3.large (x86_64) or m7g.xlarge (Graviton, with amiType AL2023_ARM_64_STANDARD)",
  "nodeGroups[].amiType": "AL2023_x86_64_STANDARD, or AL2023_ARM_64_STANDARD for Graviton instance types",
  "nodeGroups[].diskSizeGiB": "50 suits most nodes; image-heavy workloads need 100 or more",
  "nodeGroups[].clusterAddons": "true on the (tainted) group meant for cluster add-ons such as CoreDNS",
  "nodeGroups[].minSize": "keep 0 <= minSize <= desiredSize <= maxSize",
  "nodeGroups[].desiredSize": "keep 0 <= minSize <= desiredSize <= maxSize",
  "nodeGroups[].maxSize": "keep 0 <= minSize <= desiredSize <= maxSize, with maxSize >= 1",
  "nodeGroups[].taints[].effect": "use the Kubernetes spelling (NoSchedule), not the EKS API's (NO_SCHEDULE)",
  "calico.version": "pick a release from https://github.com/projectcalico/calico/releases, such as v3.31.7",
  "calico.registry":
    "quay.io/calico, or a mirror such as 123456789012.dkr.ecr.us-west-2.amazonaws.com/calico",
  "calico.namespace": "kube-system, or a dedicated namespace such as calico-system",
  "calico.readinessTimeoutMinutes":
    "remove it to use the timeout derived from the rollout estimate, or raise calico.maxUnavailable",
  "calico.maxUnavailable": 'a percentage such as "10%" keeps a rollout to about ten waves at any size',
  "calico.autoscalerRegistry":
    "registry.k8s.io/cpa, or a mirror such as 123456789012.dkr.ecr.us-west-2.amazonaws.com/cpa",
  "calico.startupTaintRegistry":
    "registry.k8s.io, or a mirror such as 123456789012.dkr.ecr.us-west-2.amazonaws.com/k8s",
  protect: "write true or false without quotes",
};

/** What a secret value shows as in messages. */
export const SECRET_VALUE = "[secret]";

/** A problem of a key set with --secret: the value, and any hint that repeats it, left out. */
export function maskedProblem(problem: ConfigProblem): ConfigProblem {
  const text = problem.value === undefined ? undefined : JSON.stringify(problem.value);
  const hint =
    problem.hint !== undefined && text !== undefined
      ? problem.hint.replaceAll(text, SECRET_VALUE)
      : problem.hint;
  const masked = (lines: readonly string[] | undefined) =>
    lines?.map((line) => (text === undefined ? line : line.replaceAll(text, SECRET_VALUE)));
  const details = masked(problem.details);
  const steps = masked(problem.steps);
  return {
    path: problem.path,
    value: SECRET_VALUE,
    rule: problem.rule,
    ...(hint !== undefined ? { hint } : {}),
    ...(details !== undefined ? { details } : {}),
    ...(steps !== undefined ? { steps } : {}),
  };
}

/**
 * `problems` with every text value of a key set with --secret replaced by [secret], wherever it appears:
 * refusals decided from the deployed stack (a new CIDR, a removed AZ) quote values in their rule and
 * details. Numbers are left as they are: a secret 2 cannot be told from every other 2 in the text.
 */
export function hideSecretValues(
  problems: readonly ConfigProblem[],
  leaves: readonly (string | number)[],
): ConfigProblem[] {
  const texts = leaves.filter((leaf): leaf is string => typeof leaf === "string" && leaf.length > 0);
  if (texts.length === 0) return [...problems];
  const hide = (text: string) => texts.reduce((out, secret) => out.replaceAll(secret, SECRET_VALUE), text);
  const hideAll = (lines: readonly string[] | undefined) => lines?.map(hide);
  return problems.map((problem) => {
    const shown = JSON.stringify(problem.value);
    const hidden = shown !== undefined && texts.some((secret) => shown.includes(secret));
    const details = hideAll(problem.details);
    const steps = hideAll(problem.steps);
    return {
      ...problem,
      value: hidden ? SECRET_VALUE : problem.value,
      rule: hide(problem.rule),
      ...(problem.hint !== undefined ? { hint: hide(problem.hint) } : {}),
      ...(details !== undefined ? { details } : {}),
      ...(steps !== undefined ? { steps } : {}),
    };
  });
}

/** The hint for a key path such as `nodeGroups[0].maxSize`. */
export function hintFor(path: string): string {
  const general = path.replace(/\[\d+\]/g, "[]");
  const key = Object.hasOwn(HINTS, general) ? general : general.split(".")[0];
  return Object.hasOwn(HINTS, key) ? HINTS[key] : "see docs/config-reference.md";
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

/**
 * The refusal as a list: a line per problem (`  - path: rule (got value)`), its reasons under it, then its
 * hint and numbered steps, every line at most MESSAGE_WIDTH characters. Pulumi prints the message as it
 * is, so the line breaks are in the text; a continuation line is indented under the text it continues.
 */
export function formatProblems(stack: string, problems: readonly ConfigProblem[]): string {
  const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  const lines = problems.flatMap((p) => [
    ...wrapLines(`${p.path}: ${p.rule} (got ${describeValue(p.value)})`, "  - ", "    "),
    ...(p.details ?? []).flatMap((detail) => wrapLines(detail, "      - ", "        ")),
    ...wrapLines(p.hint ?? hintFor(p.path), "      hint: ", " ".repeat(12)),
    ...(p.steps ?? []).flatMap((step, i) => wrapLines(step, `        (${i + 1}) `, " ".repeat(12))),
  ]);
  return [`Stack "${stack}" has invalid configuration (${count}):`, ...lines].join("\n");
}

/** The widest line of a refusal: a terminal's usual width. */
export const MESSAGE_WIDTH = 100;

/**
 * `text` broken at spaces into lines of at most `width` characters, the first line led by `first`, the
 * others by `rest`. A command in backticks stays on one line where it fits, so it can be copied; a word
 * longer than a line (a URL) is kept whole on its own.
 */
export function wrapLines(text: string, first: string, rest: string, width = MESSAGE_WIDTH): string[] {
  const room = width - Math.max(first.length, rest.length);
  const words = (text.match(/[^\s`]*`[^`]*`[^\s`]*|\S+/g) ?? []).flatMap((word) =>
    word.length > room && word.includes(" ") ? word.split(" ") : [word],
  );
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    const lead = lines.length === 0 ? first : rest;
    if (line !== "" && lead.length + line.length + 1 + word.length > width) {
      lines.push(`${lead}${line}`);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  lines.push(`${lines.length === 0 ? first : rest}${line}`);
  return lines;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === SECRET_VALUE) return "a secret value";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** `["nodeGroups", 0, "maxSize"]` becomes `nodeGroups[0].maxSize`; `["tags", "a:b"]`, `tags["a:b"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, part) => {
    if (typeof part === "number") return `${acc}[${part}]`;
    const key = String(part);
    // A key that is not a plain name is quoted, as `pulumi config set --path` reads it: labels["a.b/c"].
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return `${acc}[${JSON.stringify(key)}]`;
    return acc === "" ? key : `${acc}.${key}`;
  }, "");
}

/**
 * Turns zod issues into problems; an unknown key becomes one problem per key, with the closest of the
 * keys `knownKeys` gives for its place (the object at that issue path).
 */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  knownKeys: (path: readonly PropertyKey[]) => readonly string[] = () => [],
): ConfigProblem[] {
  return issues.flatMap((issue): ConfigProblem[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) =>
        issue.path.length === 0 && /[.[]/.test(key)
          ? pathWrittenAsKey(key, issue.input?.[key])
          : unknownKey(issue.path, key, issue.input?.[key], knownKeys(issue.path)),
      );
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
    const path = formatPath(issue.path);
    // A refinement may name a remedy specific to its case (`params: { hint }`).
    const ownHint =
      issue.code === "custom" ? (issue.params as { hint?: unknown } | undefined)?.hint : undefined;
    const typeHint =
      typeof ownHint === "string"
        ? ownHint
        : issue.code === "invalid_type"
          ? howToSetType(path, issue.expected, issue.input)
          : undefined;
    return [
      {
        path,
        value: issue.input,
        rule: missing ? "is required" : plainTypeRule(issue),
        ...(typeHint !== undefined ? { hint: typeHint } : {}),
      },
    ];
  });
}

/** A key its object does not have: the closest known key, and every key the object takes. */
function unknownKey(
  at: readonly PropertyKey[],
  key: string,
  value: unknown,
  known: readonly string[],
): ConfigProblem {
  const near = closestNames(key, known);
  const place = at.length === 0 ? `the ${CONFIG_NAMESPACE} namespace` : formatPath(at);
  return {
    path: formatPath([...at, key]),
    value,
    rule:
      known.length === 0
        ? "is not a known key (check its spelling against docs/config-reference.md)"
        : `is not a known key${didYouMean(near)}`,
    ...(known.length > 0
      ? {
          hint: `${near.length === 1 ? `rename it to ${near[0]}; ` : ""}${place} takes ${known.join(", ")} (see docs/config-reference.md)`,
        }
      : {}),
  };
}

/**
 * A top-level key with dots or brackets: what `pulumi config set eks-calico:cluster.version 1.36` writes
 * without `--path` (one key named "cluster.version"), where `--path` sets `version` inside `cluster`.
 */
function pathWrittenAsKey(key: string, value: unknown): ConfigProblem {
  const full = `${CONFIG_NAMESPACE}:${key}`;
  return {
    path: key,
    value,
    rule: `is one config key named "${key}", not a path into ${key.split(/[.[]/)[0]}: \`pulumi config set\` without --path writes such keys`,
    hint: `run \`pulumi config rm '${full}'\`, then \`pulumi config set --path '${full}' ${JSON.stringify(value)}\``,
  };
}

/** Zod's generic "Invalid input: expected object" in a stack file's words. */
function plainTypeRule(issue: z.core.$ZodIssue): string {
  if (issue.code !== "invalid_type" || !issue.message.startsWith("Invalid input")) return issue.message;
  const expected: Record<string, string> = {
    object: "must be a map of keys to values",
    record: "must be a map of keys to values",
    array: "must be a list",
    string: "must be a string",
    number: "must be a number",
    int: "must be a whole number",
    boolean: "must be true or false",
  };
  return expected[issue.expected] ?? issue.message;
}

/** How to give a value the type the schema wants, when it arrived as another (a quoted number, ...). */
function howToSetType(path: string, expected: string, input: unknown): string | undefined {
  const full = `'${CONFIG_NAMESPACE}:${path}'`;
  if (expected === "number" && typeof input === "string" && /^-?\d+(\.\d+)?$/.test(input)) {
    return `set it as a number: \`pulumi config set --path --type int ${full} ${input}\`, or write it unquoted in the stack file`;
  }
  if (expected === "boolean" && (input === "true" || input === "false")) {
    return `set it as a boolean: \`pulumi config set --path --type bool ${full} ${input}\`, or write it unquoted`;
  }
  if (expected === "string" && (typeof input === "number" || typeof input === "boolean")) {
    return `set it as a string: \`pulumi config set --path --type string ${full} ${String(input)}\`, or quote it in the stack file`;
  }
  return undefined;
}
