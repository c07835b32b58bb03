/**
 * A kubeconfig file as clientcmd.Load reads it (k8s.io/client-go@v0.35.4 tools/clientcmd/loader.go): YAML
 * 1.1 as go-yaml v2 reads it, converted to JSON and decoded into api/v1 Config with encoding/json (unknown
 * keys ignored, every known key of its Go type, `*-data` base64), then its lists turned into maps by name
 * (api/v1/conversion.go) and its exec plugins defaulted (api/v1/defaults.go). A file that breaks any of
 * these is refused whichever context is used. Sources per rule: rules.ts.
 */
import { parseAllDocuments } from "yaml";
import { goBase64Decode } from "./go-encodings";
import type { KubeconfigRuleId } from "./rules";

/** One thing client-go refuses, at a path inside the file (`users[0].user.token`; "" for the file). */
export interface FileProblem {
  readonly at: string;
  readonly rule: KubeconfigRuleId;
  /** client-go's (or Go's) own message, when it has one. */
  readonly reason?: string;
  /** The value at `at`, or undefined when it is missing or a credential. */
  readonly value?: unknown;
  /** The value at `at` is a credential, never shown. */
  readonly credential?: boolean;
  /** Words that follow the rule: the YAML parser's message, the file's contexts. */
  readonly detail?: string;
}

/** The Go type of a field of api/v1 Config (tools/clientcmd/api/v1/types.go), and its Go name. */
type Field =
  | { readonly t: "string" | "bool" | "bytes" | "strings" | "stringMap" | "stringsMap" | "any" }
  | { readonly t: "struct"; readonly go: string; readonly fields: Readonly<Record<string, Field>> }
  | { readonly t: "list"; readonly of: Field & { t: "struct" } };

const S = { t: "string" } as const;
const B = { t: "bool" } as const;
const BYTES = { t: "bytes" } as const;
const struct = (go: string, fields: Record<string, Field>) => ({ t: "struct", go, fields }) as const;
const named = (go: string, key: string, value: Field) =>
  ({ t: "list", of: struct(go, { name: S, [key]: value }) }) as const;
const EXTENSIONS = named("NamedExtension", "extension", { t: "any" });

const CLUSTER = struct("Cluster", {
  server: S,
  "tls-server-name": S,
  "insecure-skip-tls-verify": B,
  "certificate-authority": S,
  "certificate-authority-data": BYTES,
  "proxy-url": S,
  "disable-compression": B,
  extensions: EXTENSIONS,
});
const USER = struct("AuthInfo", {
  "client-certificate": S,
  "client-certificate-data": BYTES,
  "client-key": S,
  "client-key-data": BYTES,
  token: S,
  tokenFile: S,
  as: S,
  "as-uid": S,
  "as-groups": { t: "strings" },
  "as-user-extra": { t: "stringsMap" },
  username: S,
  password: S,
  "auth-provider": struct("AuthProviderConfig", { name: S, config: { t: "stringMap" } }),
  exec: struct("ExecConfig", {
    command: S,
    args: { t: "strings" },
    env: { t: "list", of: struct("ExecEnvVar", { name: S, value: S }) },
    apiVersion: S,
    installHint: S,
    provideClusterInfo: B,
    interactiveMode: S,
  }),
  extensions: EXTENSIONS,
});
const CONTEXT = struct("Context", { cluster: S, user: S, namespace: S, extensions: EXTENSIONS });
const CONFIG = struct("Config", {
  kind: S,
  apiVersion: S,
  preferences: struct("Preferences", { colors: B, extensions: EXTENSIONS }),
  clusters: named("NamedCluster", "cluster", CLUSTER),
  users: named("NamedAuthInfo", "user", USER),
  contexts: named("NamedContext", "context", CONTEXT),
  "current-context": S,
  extensions: EXTENSIONS,
});

/** The Go type name encoding/json reports. */
function goType(field: Field): string {
  if (field.t === "struct") return `v1.${field.go}`;
  if (field.t === "list") return `[]v1.${field.of.go}`;
  const names = { bytes: "[]uint8", strings: "[]string", stringMap: "map[string]string" } as const;
  if (field.t === "stringsMap") return "map[string][]string";
  return field.t in names ? names[field.t as keyof typeof names] : field.t;
}

/** JSON's name for a value's type, as encoding/json's UnmarshalTypeError says it. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  return typeof value === "boolean" ? "bool" : typeof value;
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** `users[0].user.token` from its parts. */
export function filePath(parts: readonly (string | number)[]): string {
  return parts.reduce<string>(
    (acc, p) =>
      typeof p === "number"
        ? `${acc}[${p}]`
        : /^[A-Za-z][\w-]*$/.test(p)
          ? acc
            ? `${acc}.${p}`
            : p
          : `${acc}[${JSON.stringify(p)}]`,
    "",
  );
}

/** Fields whose values are credentials: never shown in a problem. */
const CREDENTIALS = new Set(["token", "password", "client-key-data", "config", "value"]);

/**
 * Every type and base64 problem of `value`, a `field` at `parts` of the file; `go` is the Go struct and
 * JSON path encoding/json names in its message (`AuthInfo.users.user.token`).
 */
function typeProblems(value: unknown, field: Field, parts: (string | number)[], go: string): FileProblem[] {
  if (value === null || value === undefined || field.t === "any") return [];
  const at = filePath(parts);
  const credential = CREDENTIALS.has(String(parts.at(-1)));
  const shown = credential ? undefined : value;
  const wrong = (expected: Field, got: unknown, where = at): FileProblem[] => [
    {
      at: where,
      rule: "type",
      value: shown,
      credential,
      reason:
        typeof got === "number" && !Number.isFinite(got)
          ? `json: unsupported value: ${Number.isNaN(got) ? "NaN" : got > 0 ? "+Inf" : "-Inf"}`
          : `json: cannot unmarshal ${jsonType(got)} into Go struct field ${go} of type ${goType(expected)}`,
    },
  ];
  const elements = (entries: [string | number, unknown][]) =>
    entries.flatMap(([k, v]) =>
      v === null || typeof v === "string" ? [] : wrong(S, v, filePath([...parts, k])),
    );
  switch (field.t) {
    case "string":
      return typeof value === "string" ? [] : wrong(field, value);
    case "bool":
      return typeof value === "boolean" ? [] : wrong(field, value);
    case "bytes": {
      if (typeof value !== "string") return wrong(field, value);
      const decoded = goBase64Decode(Buffer.from(value, "utf8"));
      return "error" in decoded
        ? [{ at, rule: "base64", value: shown, credential, reason: decoded.error }]
        : [];
    }
    case "strings":
      return Array.isArray(value) ? elements(value.map((v, i) => [i, v])) : wrong(field, value);
    case "stringMap":
      return isMap(value) ? elements(Object.entries(value)) : wrong(field, value);
    case "stringsMap":
      if (!isMap(value)) return wrong(field, value);
      return Object.entries(value).flatMap(([k, v]) => typeProblems(v, { t: "strings" }, [...parts, k], go));
    case "struct":
      if (!isMap(value)) return wrong(field, value);
      return Object.entries(field.fields).flatMap(([k, f]) =>
        typeProblems(value[k], f, [...parts, k], `${field.go}.${jsonPath([...parts, k])}`),
      );
    case "list":
      if (!Array.isArray(value)) return wrong(field, value);
      return value.flatMap((v, i) => typeProblems(v, field.of, [...parts, i], go));
  }
}

/** The JSON field path encoding/json reports: field names from the top, without list indexes. */
function jsonPath(parts: readonly (string | number)[]): string {
  return parts.filter((p) => typeof p === "string").join(".");
}

export interface NamedEntry<T> {
  /** Its index in the file's list. */
  readonly index: number;
  readonly value: T;
}

export interface LoadedKubeconfig {
  readonly currentContext: string;
  readonly clusters: ReadonlyMap<string, NamedEntry<Record<string, unknown>>>;
  readonly users: ReadonlyMap<string, NamedEntry<Record<string, unknown>>>;
  readonly contexts: ReadonlyMap<string, NamedEntry<Record<string, unknown>>>;
  /** api/helpers.go IsConfigEmpty: no clusters, users, contexts, current-context or extensions. */
  readonly empty: boolean;
}

/** Lists by name (conversion.go), a problem for each repeated name; entries of the wrong type are left out. */
function byName(
  list: unknown,
  key: string,
  parts: (string | number)[],
  problems: FileProblem[],
): Map<string, NamedEntry<Record<string, unknown>>> {
  const map = new Map<string, NamedEntry<Record<string, unknown>>>();
  (Array.isArray(list) ? list : []).forEach((entry: unknown, index) => {
    if (!isMap(entry)) return;
    const name = typeof entry.name === "string" ? entry.name : "";
    if (map.has(name)) {
      problems.push({
        at: filePath([...parts, index, "name"]),
        rule: "duplicate",
        value: name,
        reason: `duplicate name "${name}" in list ${filePath(parts)}`,
      });
      return;
    }
    map.set(name, { index, value: isMap(entry[key]) ? entry[key] : {} });
  });
  return map;
}

/** Every list of named extensions in the file, with its path, for the duplicate-name check. */
function extensionLists(doc: Record<string, unknown>): [unknown, (string | number)[]][] {
  const lists: [unknown, (string | number)[]][] = [[doc.extensions, ["extensions"]]];
  if (isMap(doc.preferences)) lists.push([doc.preferences.extensions, ["preferences", "extensions"]]);
  for (const [list, key] of [
    ["clusters", "cluster"],
    ["users", "user"],
    ["contexts", "context"],
  ] as const) {
    (Array.isArray(doc[list]) ? (doc[list] as unknown[]) : []).forEach((entry, i) => {
      if (isMap(entry) && isMap(entry[key]))
        lists.push([entry[key].extensions, [list, i, key, "extensions"]]);
    });
  }
  return lists;
}

/**
 * Integers go-yaml v2 reads beyond YAML 1.1's: it hands a plain scalar starting with a digit or sign to
 * Go's strconv.ParseInt with base 0, which also takes 0o17, 0X1F and 0B11 (go-yaml v2 resolve.go).
 */
const GO_PREFIXED_INT = {
  tag: "tag:yaml.org,2002:int",
  default: true,
  test: /^[-+]?0(?:[oO][0-7_]+|X[0-9a-fA-F_]+|B[01_]+)$/,
  resolve: (text: string) =>
    Number(text.replace(/[-+_]/g, "").toLowerCase()) * (text.startsWith("-") ? -1 : 1),
};

/**
 * YAML 1.1 as go-yaml v2 reads it: y/n/yes/no/on/off are booleans, 0777 is octal; but timestamps and
 * base-60 numbers stay strings (go-yaml v2 converts neither for an untyped value), and a repeated key
 * keeps its last value.
 */
const YAML_OPTIONS = {
  version: "1.1",
  uniqueKeys: false,
  customTags: (tags: unknown[]) => [
    ...tags.filter((tag) => {
      const { tag: name, test } = tag as { tag?: string; test?: RegExp };
      return !name?.endsWith(":timestamp") && !(test?.test("1:20") || test?.test("1:20.5"));
    }),
    GO_PREFIXED_INT,
  ],
} as const;

/** The file's first YAML document as plain values, or why it does not parse. */
export function parseKubeconfigYaml(text: string): { value: unknown } | { error: string } {
  try {
    const docs = parseAllDocuments(text, YAML_OPTIONS as never);
    const doc = Array.isArray(docs) ? docs[0] : docs;
    if (doc === undefined) return { value: null };
    if (doc.errors.length > 0) return { error: doc.errors[0].message.split("\n")[0] };
    return { value: plain(doc.toJS({ maxAliasCount: -1 })) };
  } catch (error) {
    return { error: String((error as Error).message).split("\n")[0] };
  }
}

/** A !!binary value is a string of its bytes to go-yaml v2; everything else as it is. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("latin1");
  if (Array.isArray(value)) return value.map(plain);
  if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** The exec plugin versions whose interactiveMode defaults to IfAvailable (api/v1/defaults.go). */
const DEFAULTED_EXEC = new Set([
  "client.authentication.k8s.io/v1beta1",
  "client.authentication.k8s.io/v1alpha1",
]);

/** A user entry with SetDefaults_ExecConfig applied. */
function withExecDefaults(user: Record<string, unknown>): Record<string, unknown> {
  const exec = user.exec;
  if (!isMap(exec) || (typeof exec.interactiveMode === "string" && exec.interactiveMode !== "")) return user;
  if (typeof exec.apiVersion !== "string" || !DEFAULTED_EXEC.has(exec.apiVersion)) return user;
  return { ...user, exec: { ...exec, interactiveMode: "IfAvailable" } };
}

const EMPTY: LoadedKubeconfig = {
  currentContext: "",
  clusters: new Map(),
  users: new Map(),
  contexts: new Map(),
  empty: true,
};

/**
 * The file's text as clientcmd.Load reads it, or every problem that makes Load fail (client-go stops at
 * the first; all are listed here).
 */
export function loadKubeconfig(text: string): { config?: LoadedKubeconfig; problems: FileProblem[] } {
  // An empty file is an empty config (loader.go Load).
  if (text.length === 0) return { config: EMPTY, problems: [] };
  const parsed = parseKubeconfigYaml(text);
  if ("error" in parsed) return { problems: [{ at: "", rule: "yaml", detail: `(${parsed.error})` }] };
  const doc = parsed.value;
  if (doc === null || doc === undefined) return { config: EMPTY, problems: [] };
  if (!isMap(doc)) {
    return {
      problems: [
        {
          at: "",
          rule: "topLevel",
          reason: `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(doc)} into Go value of type struct`,
        },
      ],
    };
  }
  const problems: FileProblem[] = [];
  const { apiVersion, kind } = doc;
  // Unset, they default to v1 and Config (loader.go Load); another type is a type problem.
  const version = typeof apiVersion === "string" && apiVersion !== "" ? apiVersion : "v1";
  const named = typeof kind === "string" && kind !== "" ? kind : "Config";
  if (version !== "v1" || named !== "Config") {
    problems.push({
      at: version !== "v1" ? "apiVersion" : "kind",
      rule: "version",
      value: version !== "v1" ? apiVersion : kind,
      reason: `no kind "${named}" is registered for version "${version}" in scheme "pkg/runtime/scheme.go:111"`,
    });
  }
  problems.push(...typeProblems(doc, CONFIG, [], "Config"));
  const clusters = byName(doc.clusters, "cluster", ["clusters"], problems);
  const users = byName(doc.users, "user", ["users"], problems);
  const contexts = byName(doc.contexts, "context", ["contexts"], problems);
  for (const [list, parts] of extensionLists(doc)) byName(list, "extension", parts, problems);
  if (problems.length > 0) return { problems };
  const currentContext = typeof doc["current-context"] === "string" ? doc["current-context"] : "";
  const preferences = isMap(doc.preferences) ? doc.preferences : {};
  const hasExtensions = (list: unknown) => Array.isArray(list) && list.length > 0;
  return {
    config: {
      currentContext,
      clusters,
      users: new Map([...users].map(([name, e]) => [name, { ...e, value: withExecDefaults(e.value) }])),
      contexts,
      empty:
        clusters.size === 0 &&
        users.size === 0 &&
        contexts.size === 0 &&
        currentContext === "" &&
        !hasExtensions(preferences.extensions) &&
        preferences.colors !== true &&
        !hasExtensions(doc.extensions),
    },
    problems: [],
  };
}
