/**
 * The Kubernetes API as the program's own steps call it (the takeover, the line check, the Felix cleanup,
 * the Typha retirement, the readiness read): @kubernetes/client-node reads the kubeconfig (a token, a
 * token file, a client certificate, an exec credential plugin such as `aws eks get-token`, the CA) and
 * sends each request through its own HTTP library, as its generated APIs do.
 *
 * The module is required where it is used, never imported at the top: Pulumi serializes a dynamic
 * provider's code, and it emits `require(...)` for a module only when the code requires it; a namespace
 * import of this ES module is captured by value and cannot be serialized (checked with @pulumi/pulumi
 * 3.248 `runtime.serializeFunction`). The offline plan then never loads it.
 */
import * as fs from "node:fs";
import type * as ClientNode from "@kubernetes/client-node";
import YAML from "yaml";

/** The API server and the kubeconfig that reaches it, its context current. */
export interface Credentials {
  /** The cluster's server URL, as client-node keeps it (a trailing slash cut). */
  readonly server: string;
  readonly config: ClientNode.KubeConfig;
  /** The context in use, and the name of its cluster. */
  readonly context: string;
  readonly cluster: string;
}

export function clientNode(): typeof ClientNode {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see the file's opening comment
  return require("@kubernetes/client-node") as typeof ClientNode;
}

/**
 * The server and credentials of `context` (or the current context) in a kubeconfig's text. Entries
 * client-node cannot read are left out, as client-go ignores what the context does not use.
 */
export function credentialsOf(kubeconfig: string, context?: string): Credentials {
  const config = new (clientNode().KubeConfig)();
  try {
    config.loadFromString(kubeconfig, { onInvalidEntry: "filter" });
  } catch (error) {
    throw new Error(`is no kubeconfig: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const name = context ?? config.getCurrentContext();
  const entry = name ? config.getContextObject(name) : null;
  if (entry === null) {
    const known = config.getContexts().map((c) => c.name);
    const which = name ? `has no context "${name}"` : "has no current-context";
    throw new Error(`${which}; its contexts: ${known.length > 0 ? known.join(", ") : "none"}`);
  }
  config.setCurrentContext(entry.name);
  const server = config.getCluster(entry.cluster)?.server;
  if (!server) {
    throw new Error(
      `has context "${entry.name}" naming cluster "${entry.cluster}", which it lacks or gives no server`,
    );
  }
  readTokenFile(config, kubeconfig);
  return { server, config, context: entry.name, cluster: entry.cluster };
}

/**
 * The context's user's `tokenFile` (kubeconfig.v1 AuthInfo), read as client-go reads it: client-node
 * 2.0.1 looks for `token-file` instead (config_types.js findToken) and sends no token.
 */
function readTokenFile(config: ClientNode.KubeConfig, kubeconfig: string): void {
  // client-node's User is read-only in its types; the KubeConfig keeps and sends this object.
  const user: { readonly name: string; token?: string } | null = config.getCurrentUser();
  if (user === null || user.token) return;
  const users = (YAML.parse(kubeconfig) as { users?: { name?: unknown; user?: { tokenFile?: unknown } }[] })
    .users;
  const file = users?.find((u) => u.name === user.name)?.user?.tokenFile;
  if (typeof file !== "string" || file === "") return;
  try {
    user.token = fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new Error(`has user "${user.name}" whose tokenFile cannot be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** A non-2xx answer: an Error with the answer's status and body. */
export interface KubeRequestError extends Error {
  readonly status: number;
  readonly body: string;
}

/**
 * A plain Error with fields, not a subclass: Pulumi serializes a dynamic provider's code, and a serialized
 * `class extends Error` constructs objects that are not Errors and have no message (checked with
 * @pulumi/pulumi 3.248 `runtime.serializeFunction`), so a failed request would reach the user without
 * its reason.
 */
export function kubeRequestError(status: number, body: string, what: string): KubeRequestError {
  return Object.assign(new Error(`${what}: HTTP ${status}: ${body.slice(0, 500)}`), { status, body });
}

/** Whether `error` is an answer of the API server (with the given status, when one is given). */
export function isKubeRequestError(error: unknown, status?: number): error is KubeRequestError {
  if (!(error instanceof Error) || !("status" in error) || typeof error.status !== "number") return false;
  return status === undefined || error.status === status;
}

/**
 * The credentials may not read it: 401 (no access entry, an unknown token) or 403 (RBAC). A read-only
 * preview role meets these (docs/access.md, "The preview role"); the deploy role of `up` does not.
 */
export function isNotAllowed(error: unknown): boolean {
  return isKubeRequestError(error, 401) || isKubeRequestError(error, 403);
}

/**
 * The URL of an API path on `server`, keeping the server URL's own path: behind Rancher or another proxy
 * the API is at `https://host/k8s/clusters/c-1`, and client-go appends each request's path to it
 * (rest.DefaultServerURL). `new URL(path, server)` would drop it.
 */
export function requestUrl(server: string, path: string): URL {
  return new URL(`${server.replace(/\/+$/, "")}${path}`);
}

/** How long one request may take. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * One request to the API server (JSON body; JSON or text answer); a non-2xx answer is a KubeRequestError.
 * A GET is sent again while the server answers 429 (getRetried); other methods are sent once.
 */
export function kubeRequest<T>(
  credentials: Credentials,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<T> {
  return method === "GET"
    ? getRetried<T>(credentials, path)
    : sendOnce<T>(credentials, method, path, body, contentType);
}

/** The request itself, sent once, authenticated and sent as client-node's generated APIs send theirs. */
async function sendOnce<T>(
  credentials: Credentials,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<T> {
  const { RequestContext, IsomorphicFetchHttpLibrary } = clientNode();
  const what = `${method} ${path}`;
  const request = new RequestContext(
    requestUrl(credentials.server, path).toString(),
    method as ClientNode.HttpMethod,
  );
  request.setHeaderParam("Accept", "application/json");
  if (body !== undefined) {
    request.setHeaderParam("Content-Type", contentType);
    request.setBody(JSON.stringify(body));
  }
  request.setSignal(AbortSignal.timeout(REQUEST_TIMEOUT_MS));
  let response: ClientNode.ResponseContext;
  let text: string;
  try {
    await credentials.config.applySecurityAuthentication(request);
    response = await new IsomorphicFetchHttpLibrary().send(request).toPromise();
    text = await response.body.text();
  } catch (error) {
    throw new Error(`${what}: ${causes(error)}`, { cause: error });
  }
  const status = response.httpStatusCode;
  if (status < 200 || status >= 300) throw kubeRequestError(status, text, what);
  return ((response.headers["content-type"] ?? "").includes("json") ? JSON.parse(text) : text) as T;
}

/** An error's message with its causes' (fetch reports "fetch failed", the reason in its cause). */
function causes(error: unknown): string {
  const messages: string[] = [];
  for (let e: unknown = error; e instanceof Error && messages.length < 4; e = e.cause) {
    messages.push(e.name === "TimeoutError" ? `timed out after ${REQUEST_TIMEOUT_MS / 1000} s` : e.message);
  }
  return messages.length > 0 ? messages.join(": ") : String(error);
}

/** How many times a GET the API server answers 429 is sent in all. */
const GET_ATTEMPTS = 10;

/**
 * A GET, sent again while the API server answers 429 Too Many Requests, after the `retryAfterSeconds` of
 * its Status (1 s when absent, at most 10 s). The API server answers so for a kind whose CRD was just
 * created, "storage is (re)initializing" with retryAfterSeconds 1 (seen on the local control plane right
 * after `kubectl apply` of a manifest with CRDs), and when API Priority and Fairness rejects a request.
 */
async function getRetried<T>(credentials: Credentials, path: string, attempt = 1): Promise<T> {
  try {
    return await sendOnce<T>(credentials, "GET", path);
  } catch (error) {
    if (!isKubeRequestError(error, 429) || attempt >= GET_ATTEMPTS) throw error;
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs(error.body)));
    return getRetried<T>(credentials, path, attempt + 1);
  }
}

/** The wait a 429 Status asks for (details.retryAfterSeconds), from 1 to 10 s. */
function retryAfterMs(body: string): number {
  let seconds = 1;
  try {
    const asked = (JSON.parse(body) as { details?: { retryAfterSeconds?: unknown } }).details
      ?.retryAfterSeconds;
    if (typeof asked === "number" && asked > 0) seconds = Math.min(asked, 10);
  } catch {
    // Not a Status: wait the default.
  }
  return seconds * 1000;
}

/**
 * A GET of one object, or undefined when the server answers 404. A 404 means "absent" only from a
 * Kubernetes API server: one that answers `/version` with its version. A proxy or a wrong server URL
 * answers 404 to everything, and reading that as "absent" would skip a check or a takeover silently.
 */
export async function kubeGetOrMissing<T>(credentials: Credentials, path: string): Promise<T | undefined> {
  try {
    return await kubeRequest<T>(credentials, "GET", path);
  } catch (error) {
    if (!isKubeRequestError(error, 404)) throw error;
    await requireApiServer(credentials, `GET ${path}`);
    return undefined;
  }
}

/**
 * Fails unless `credentials.server` answers `GET /version` as a Kubernetes API server does; `what` names
 * the request that answered 404.
 */
export async function requireApiServer(credentials: Credentials, what: string): Promise<void> {
  const why = (detail: string) =>
    new Error(
      `the kubeconfig's server ${credentials.server} answered 404 (${what.slice(0, 200)}), and is no Kubernetes API server: ${detail}. Check the cluster's server URL (with any path a proxy needs) in the kubeconfig.`,
    );
  let version: { gitVersion?: unknown };
  try {
    version = await kubeRequest<{ gitVersion?: unknown }>(credentials, "GET", "/version");
  } catch (error) {
    throw why(`GET /version: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof version?.gitVersion !== "string") throw why("GET /version names no gitVersion");
}
