/**
 * Everything client-go refuses in a kubeconfig for the context in use, before it sends a request: the
 * file as clientcmd.Load reads it (load.ts), then the context, its cluster and its user as kubectl's
 * DirectClientConfig.ClientConfig, `kubectl config view --minify` and the transport client-go builds from
 * them check them. Only the context in use is checked past loading, as kubectl does. Rules and sources:
 * rules.ts. Pure: files the kubeconfig names are read through `readFile`.
 */
import * as path from "node:path";
import { caDataError, keyPairError } from "./go-encodings";
import { type FileProblem, type LoadedKubeconfig, filePath, loadKubeconfig } from "./load";

export interface KubeconfigTarget {
  readonly context: string;
  readonly server: string;
}

/** A problem of the file, or of `cluster.kubeconfig.context` (key "context"). */
export interface KubeconfigProblem extends FileProblem {
  readonly key: "path" | "context";
}

export interface CheckOptions {
  /** `cluster.kubeconfig.context`; unset: the file's current-context. */
  readonly context?: string;
  /** The kubeconfig's directory: relative file references start there (loader.go ResolveLocalPaths). */
  readonly directory: string;
  /** Reads a file the kubeconfig names; throws as fs.readFileSync does. */
  readonly readFile: (file: string) => Buffer;
}

type Entry = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" ? v : "");
const isMap = (v: unknown): v is Entry => v !== null && typeof v === "object" && !Array.isArray(v);
/** The base64 `*-data` fields, decoded (load.ts refused any that is not base64). */
const data = (v: unknown) => Buffer.from(str(v), "base64");

/** A file reference as client-go reads it: relative to the kubeconfig's directory. */
function resolved(file: string, directory: string): string {
  return path.isAbsolute(file) ? file : path.join(directory, file);
}

/** The file's bytes, or Go's error text for `open` (os.Open) or `read` (os.ReadFile of a directory). */
function readGo(file: string, readFile: CheckOptions["readFile"]): Buffer | { error: string } {
  try {
    return readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why: Record<string, string> = {
      ENOENT: "no such file or directory",
      EACCES: "permission denied",
      ENOTDIR: "not a directory",
    };
    if (code === "EISDIR") return { error: `read ${file}: is a directory` };
    return { error: `open ${file}: ${why[code ?? ""] ?? (error as Error).message}` };
  }
}

/** The scheme client-go uses for `server` (rest.DefaultServerURL), when it is an http(s) URL with a host. */
function serverScheme(server: string): "https" | "http" | undefined {
  const match = /^(https?):\/\/[^/?#]/i.exec(server);
  if (match === null) return undefined;
  try {
    new URL(server);
  } catch {
    return undefined;
  }
  return match[1].toLowerCase() as "https" | "http";
}

/** The problems of the context's cluster `name` at `at`; its CA only with an https server, as client-go reads it. */
function clusterProblems(name: string, cluster: Entry, at: string, options: CheckOptions): FileProblem[] {
  const problems: FileProblem[] = [];
  const field = (key: string) => `${at}.${key}`;
  const server = str(cluster.server);
  const empty = Object.values(cluster).every(
    (v) => v === null || v === false || v === "" || (Array.isArray(v) && v.length === 0),
  );
  if (server === "") {
    const reason = empty ? "cluster has no server defined" : `no server found for cluster "${name}"`;
    problems.push({ at: field("server"), rule: "server", reason });
  } else if (serverScheme(server) === undefined) {
    problems.push({ at: field("server"), rule: "serverScheme", value: server });
  }
  const proxy = str(cluster["proxy-url"]);
  const proxyScheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(proxy)?.[1].toLowerCase() ?? "";
  if (proxy !== "" && !["http", "https", "socks5"].includes(proxyScheme)) {
    problems.push({
      at: field("proxy-url"),
      rule: "proxyUrl",
      value: proxy,
      reason: `invalid 'proxy-url' "${proxy}" for cluster "${name}": unsupported scheme "${proxyScheme}", must be http, https, or socks5`,
    });
  }
  const caFile = str(cluster["certificate-authority"]);
  const caData = str(cluster["certificate-authority-data"]);
  if (caFile !== "" && caData !== "") {
    problems.push({
      at: field("certificate-authority"),
      rule: "caBoth",
      value: caFile,
      reason: `certificate-authority-data and certificate-authority are both specified for ${name}. certificate-authority-data will override.`,
    });
  }
  let ca: Buffer | undefined = caData !== "" ? data(caData) : undefined;
  if (caFile !== "") {
    const file = resolved(caFile, options.directory);
    const read = readGo(file, options.readFile);
    if ("error" in read) {
      const reason = read.error.startsWith("read ")
        ? read.error
        : `unable to read certificate-authority ${file} for ${name} due to ${read.error}`;
      problems.push({ at: field("certificate-authority"), rule: "caFile", value: caFile, reason });
    } else ca ??= read;
  }
  if (serverScheme(server) !== "https") return problems;
  // The transport (transport.go TLSConfigFor), built only for https.
  if (cluster["insecure-skip-tls-verify"] === true && (caFile !== "" || caData !== "")) {
    problems.push({
      at: field("insecure-skip-tls-verify"),
      rule: "insecureWithCa",
      value: true,
      reason: "specifying a root certificates file with the insecure flag is not allowed",
    });
  } else if (ca !== undefined && ca.length > 0) {
    const why = caDataError(ca);
    if (why !== undefined) {
      const key = caData !== "" ? "certificate-authority-data" : "certificate-authority";
      problems.push({ at: field(key), rule: "caData", reason: `unable to load root certificates: ${why}` });
    }
  }
  return problems;
}

const EXEC_VERSIONS = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"];
const INTERACTIVE_MODES = ["Never", "IfAvailable", "Always"];

/** validateAuthInfo's exec checks and exec.go newAuthenticator's, for user `name`'s plugin at `at`. */
function execProblems(name: string, exec: Entry, at: string, user: Entry, tls: boolean): FileProblem[] {
  const problems: FileProblem[] = [];
  const plugin = `for ${name} to use exec authentication plugin`;
  if (user["auth-provider"] != null) {
    const reason = `authProvider cannot be provided in combination with an exec plugin for ${name}`;
    problems.push({ at, rule: "execWithAuthProvider", reason });
  }
  if (str(exec.command) === "") {
    problems.push({
      at: `${at}.command`,
      rule: "execCommand",
      reason: `command must be specified ${plugin}`,
    });
  }
  const apiVersion = str(exec.apiVersion);
  if (apiVersion === "") {
    const reason = `apiVersion must be specified ${plugin}`;
    problems.push({ at: `${at}.apiVersion`, rule: "execApiVersionUnset", reason });
  } else if (tls && !EXEC_VERSIONS.includes(apiVersion)) {
    const reason = `exec plugin: invalid apiVersion "${apiVersion}"`;
    problems.push({ at: `${at}.apiVersion`, rule: "execApiVersion", value: apiVersion, reason });
  }
  (Array.isArray(exec.env) ? exec.env : []).forEach((env: unknown, i) => {
    if (isMap(env) && str(env.name) === "") {
      const reason = `env variable name must be specified ${plugin}`;
      problems.push({ at: `${at}.env[${i}].name`, rule: "execEnvName", reason });
    }
  });
  const mode = str(exec.interactiveMode);
  const modeAt = `${at}.interactiveMode`;
  if (mode === "") {
    const reason = `interactiveMode must be specified ${plugin}`;
    problems.push({ at: modeAt, rule: "execInteractiveUnset", reason });
  } else if (!INTERACTIVE_MODES.includes(mode)) {
    const reason = `invalid interactiveMode for ${name}: "${mode}"`;
    problems.push({ at: modeAt, rule: "execInteractive", value: mode, reason });
  } else if (mode === "Always" && tls) {
    const reason = "exec plugin cannot support interactive mode: standard input is not a terminal";
    problems.push({ at: modeAt, rule: "execInteractiveAlways", value: mode, reason });
  }
  return problems;
}

/** rest.GetAuthProvider with the plugins kubectl and the provider register: oidc, and gcp and azure removed. */
function authProviderReason(provider: Entry): string | undefined {
  const name = str(provider.name);
  const config = isMap(provider.config) ? provider.config : {};
  if (name === "gcp" || name === "azure") {
    return `The ${name} auth plugin has been removed.`;
  }
  if (name !== "oidc") return `no Auth Provider found for name "${name}"`;
  for (const key of ["idp-issuer-url", "client-id"]) {
    if (str(config[key]) === "") return `Must provide ${key}`;
  }
  return undefined;
}

/** The problems of the context's user `name` at `at`; `tls`: whether client-go reads its credentials. */
function userProblems(
  name: string,
  user: Entry,
  at: string,
  tls: boolean,
  options: CheckOptions,
): FileProblem[] {
  const problems: FileProblem[] = [];
  const field = (key: string) => `${at}.${key}`;
  const set = (key: string) => str(user[key]) !== "";
  const methods = [
    ...(set("token") ? ["token"] : []),
    ...(set("username") || set("password") ? ["basicAuth"] : []),
  ];
  if (methods.length > 1) {
    const reason = `more than one authentication method found for ${name}; found [${methods.join(" ")}], only one is allowed`;
    problems.push({ at: field("token"), rule: "authMethods", reason });
  }
  const certSet = set("client-certificate") || set("client-certificate-data");
  const keySet = set("client-key") || set("client-key-data");
  const files = new Map<string, Buffer>();
  if (certSet) {
    const certAt = field(set("client-certificate-data") ? "client-certificate-data" : "client-certificate");
    if (set("client-certificate") && set("client-certificate-data")) {
      const reason = `client-cert-data and client-cert are both specified for ${name}. client-cert-data will override.`;
      problems.push({
        at: field("client-certificate"),
        rule: "certBoth",
        value: user["client-certificate"],
        reason,
      });
    }
    if (set("client-key") && set("client-key-data")) {
      const reason = `client-key-data and client-key are both specified for ${name}; client-key-data will override`;
      problems.push({ at: field("client-key"), rule: "keyBoth", value: user["client-key"], reason });
    }
    if (!keySet) {
      const reason = `client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`;
      problems.push({ at: certAt, rule: "keyMissing", reason });
    }
    for (const [key, label] of [
      ["client-certificate", "client-cert"],
      ["client-key", "client-key"],
    ] as const) {
      if (!set(key)) continue;
      const file = resolved(str(user[key]), options.directory);
      const read = readGo(file, options.readFile);
      if (!("error" in read)) files.set(key, read);
      else {
        const reason = read.error.startsWith("read ")
          ? read.error
          : `unable to read ${label} ${file} for ${name} due to ${read.error}`;
        problems.push({ at: field(key), rule: "certFile", value: user[key], reason });
      }
    }
  }
  if (isMap(user.exec)) problems.push(...execProblems(name, user.exec, field("exec"), user, tls));
  const impersonating = ["as-uid", "as-groups", "as-user-extra"].find((key) => {
    const v = user[key];
    return Array.isArray(v) ? v.length > 0 : isMap(v) ? Object.keys(v).length > 0 : str(v) !== "";
  });
  if (impersonating !== undefined && !set("as")) {
    const reason = `requesting uid, groups or user-extra for ${name} without impersonating a user`;
    problems.push({ at: field(impersonating), rule: "impersonate", reason });
  }
  if (!tls) return problems;
  // What DirectClientConfig.ClientConfig and the transport read (https only).
  let token = str(user.token);
  let tokenUnread = false;
  if (token === "" && set("tokenFile")) {
    const read = readGo(resolved(str(user.tokenFile), options.directory), options.readFile);
    tokenUnread = "error" in read;
    if ("error" in read) {
      problems.push({ at: field("tokenFile"), rule: "tokenFile", value: user.tokenFile, reason: read.error });
    } else token = read.toString("utf8");
  }
  const provider = user["auth-provider"];
  // canIdentifyUser; an unreadable tokenFile has failed before it.
  const identified = set("username") || certSet || token !== "" || provider != null || user.exec != null;
  if (!identified && !tokenUnread) problems.push({ at, rule: "noCredentials" });
  if (isMap(provider)) {
    const reason = authProviderReason(provider);
    if (reason !== undefined)
      problems.push({ at: field("auth-provider.name"), rule: "authProvider", value: provider.name, reason });
  }
  const keyFile = files.get("client-key");
  const certFile = files.get("client-certificate");
  const cert = set("client-certificate-data") ? data(user["client-certificate-data"]) : certFile;
  const key = set("client-key-data") ? data(user["client-key-data"]) : keyFile;
  // Both from files, client-go reads the pair only when the server asks for a client certificate
  // (transport.go loadTLSFiles sets ReloadTLSFiles; cert_rotation.go loads them then).
  const fromData = set("client-certificate-data") || set("client-key-data");
  if (certSet && keySet && fromData && cert !== undefined && key !== undefined) {
    const why = keyPairError(cert, key);
    const certAt = field(set("client-certificate-data") ? "client-certificate-data" : "client-certificate");
    if (why !== undefined) problems.push({ at: certAt, rule: "keyPair", reason: why });
  }
  return problems;
}

/** Every problem client-go has with `text` for the context in use, and that context's target when none. */
export function checkKubeconfig(
  text: string,
  options: CheckOptions,
): { target?: KubeconfigTarget; problems: KubeconfigProblem[] } {
  const loaded = loadKubeconfig(text);
  const inFile = (p: FileProblem): KubeconfigProblem => ({ ...p, key: "path" });
  if (loaded.config === undefined) return { problems: loaded.problems.map(inFile) };
  return contextProblems(loaded.config, options);
}

function contextProblems(
  config: LoadedKubeconfig,
  options: CheckOptions,
): { target?: KubeconfigTarget; problems: KubeconfigProblem[] } {
  const explicit = options.context;
  const name = explicit ?? config.currentContext;
  const listed = `(its contexts: ${[...config.contexts.keys()].join(", ") || "none"})`;
  if (config.empty) {
    const reason = "no configuration has been provided, try setting KUBERNETES_MASTER environment variable";
    return { problems: [{ key: "path", at: "", rule: "empty", reason }] };
  }
  if (name === "") {
    return {
      problems: [{ key: "context", at: "", rule: "noContext", detail: listed, reason: "no context chosen" }],
    };
  }
  const entry = config.contexts.get(name);
  const problems: KubeconfigProblem[] = [];
  const current = config.currentContext;
  if (entry === undefined || (current !== "" && !config.contexts.has(current))) {
    const missing = entry === undefined ? name : current;
    const reason = `context was not found for specified context: ${missing}`;
    problems.push(
      entry === undefined && explicit !== undefined
        ? { key: "context", at: "", rule: "contextMissing", value: name, detail: listed, reason }
        : {
            key: "path",
            at: "current-context",
            rule: entry === undefined ? "contextMissing" : "currentContextMissing",
            value: current,
            detail: listed,
            reason,
          },
    );
    if (entry === undefined) return { problems };
  }
  const context = entry.value;
  const at = filePath(["contexts", entry.index, "context"]);
  const inFile = (p: FileProblem): KubeconfigProblem => ({ ...p, key: "path" });
  const clusterName = str(context.cluster);
  const userName = str(context.user);
  const cluster = config.clusters.get(clusterName);
  const user = config.users.get(userName);
  if (clusterName === "") {
    problems.push(
      inFile({
        at: `${at}.cluster`,
        rule: "clusterUnset",
        reason: `cluster was not specified for context "${name}"`,
      }),
    );
  } else if (cluster === undefined) {
    const reason = `cluster "${clusterName}" was not found for context "${name}"`;
    problems.push(inFile({ at: `${at}.cluster`, rule: "clusterMissing", value: clusterName, reason }));
  }
  if (userName === "") {
    problems.push(
      inFile({ at: `${at}.user`, rule: "userUnset", reason: `user was not specified for context "${name}"` }),
    );
  } else if (user === undefined) {
    const reason = `user "${userName}" was not found for context "${name}"`;
    problems.push(inFile({ at: `${at}.user`, rule: "userMissing", value: userName, reason }));
  }
  const server = str(cluster?.value.server);
  const tls = serverScheme(server) === "https";
  if (cluster !== undefined) {
    const clusterAt = filePath(["clusters", cluster.index, "cluster"]);
    problems.push(...clusterProblems(clusterName, cluster.value, clusterAt, options).map(inFile));
  }
  if (user !== undefined) {
    const userAt = filePath(["users", user.index, "user"]);
    problems.push(...userProblems(userName, user.value, userAt, tls, options).map(inFile));
  }
  return problems.length > 0 ? { problems } : { target: { context: name, server }, problems };
}
