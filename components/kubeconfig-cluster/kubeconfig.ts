/**
 * What a kubeconfig says about the cluster it reaches: the context in use and its cluster's API server URL
 * (https://kubernetes.io/docs/reference/config-api/kubeconfig.v1/). Pure: the file is read in stacks/.
 */
import { parse } from "yaml";

/** The context a kubeconfig stack uses, and the API server its cluster entry names. */
export interface KubeconfigTarget {
  readonly context: string;
  readonly server: string;
}

/** What is wrong, and which key of `cluster.kubeconfig` to report it at. */
export interface KubeconfigFault {
  readonly key: "path" | "context";
  readonly rule: string;
}

/**
 * Fields naming files, which kubectl reads relative to the kubeconfig's own directory; the provider gets
 * the contents, not the file, so a relative one would be read from wherever Pulumi runs.
 * https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/#file-references
 */
const FILE_FIELDS = {
  cluster: ["certificate-authority"],
  user: ["client-certificate", "client-key", "tokenFile"],
} as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `[{name, <field>: {...}}]` by name; entries without a string name are left out. */
function byName(list: unknown, field: string): Map<string, Record<string, unknown>> {
  const entries = Array.isArray(list) ? list : [];
  return new Map(
    entries.flatMap((e: unknown) =>
      isRecord(e) && typeof e.name === "string"
        ? [[e.name, isRecord(e[field]) ? e[field] : {}] as const]
        : [],
    ),
  );
}

const listed = (names: Iterable<string>) => [...names].join(", ") || "none";

/** Relative file references in the cluster and user entries a context uses. */
function relativeFiles(cluster: Record<string, unknown>, user: Record<string, unknown>): string[] {
  const relative = (entry: Record<string, unknown>, fields: readonly string[]) =>
    fields.flatMap((field) => {
      const value = entry[field];
      return typeof value === "string" && value !== "" && !/^(\/|[A-Za-z]:[\\/])/.test(value)
        ? [`${field}: ${value}`]
        : [];
    });
  return [...relative(cluster, FILE_FIELDS.cluster), ...relative(user, FILE_FIELDS.user)];
}

/**
 * The context to use (`context`, else the file's current-context) and its cluster's server, or what is
 * wrong with the kubeconfig `text` for that. Rules of `path` read after the file's name ("names FILE, which
 * ..."); `label` names the file in rules of `context`.
 */
export function kubeconfigTarget(
  text: string,
  context: string | undefined,
  label = "the kubeconfig",
): { target: KubeconfigTarget } | { fault: KubeconfigFault } {
  const fault = (key: KubeconfigFault["key"], rule: string) => ({ fault: { key, rule } });
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    return fault("path", `does not parse as YAML: ${String((error as Error).message).split("\n")[0]}`);
  }
  if (!isRecord(doc) || !Array.isArray(doc.clusters) || !Array.isArray(doc.contexts)) {
    return fault("path", "is not a kubeconfig: it has no `clusters` and `contexts` lists");
  }
  const contexts = byName(doc.contexts, "context");
  const current = doc["current-context"];
  const name = context ?? (typeof current === "string" && current !== "" ? current : undefined);
  if (name === undefined) {
    return fault(
      "context",
      `is required: ${label} sets no current-context (its contexts: ${listed(contexts.keys())})`,
    );
  }
  // Faults of the context in use: the configured one's, or (unset) the file's current-context's.
  const ofContext = (whose: string) =>
    context === undefined
      ? fault("path", `has current-context "${name}", ${whose}`)
      : fault("context", `names a context of ${label} ${whose}`);
  const entry = contexts.get(name);
  if (entry === undefined) {
    return context === undefined
      ? fault("path", `has current-context "${name}", not one of its contexts (${listed(contexts.keys())})`)
      : fault("context", `is not a context of ${label} (its contexts: ${listed(contexts.keys())})`);
  }
  const cluster =
    typeof entry.cluster === "string" ? byName(doc.clusters, "cluster").get(entry.cluster) : undefined;
  if (cluster === undefined) {
    return ofContext(`whose cluster entry ${JSON.stringify(entry.cluster)} does not exist`);
  }
  const server = typeof cluster.server === "string" ? cluster.server : undefined;
  if (server === undefined || !isHttpUrl(server)) {
    return ofContext(
      `whose cluster has no https:// or http:// server URL (got ${JSON.stringify(cluster.server)})`,
    );
  }
  const user = (typeof entry.user === "string" ? byName(doc.users, "user").get(entry.user) : undefined) ?? {};
  const files = relativeFiles(cluster, user);
  if (files.length > 0) {
    return fault(
      "path",
      `refers to files by relative paths (${files.join("; ")}): kubectl reads them beside the kubeconfig, but the provider gets its contents, not the file; make them absolute, or embed them with \`kubectl config view --flatten --minify\``,
    );
  }
  return { target: { context: name, server } };
}

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}
