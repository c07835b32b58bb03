/**
 * A small Kubernetes API client for the takeover, the other steps and the read of Calico's status
 * (components/calico/live-status.ts), built from the same kubeconfig the stack's Kubernetes provider uses.
 * It runs inside `pulumi up` (a dynamic provider, or the program), so it reads the credentials the way
 * kubectl does: a bearer token, a client certificate, or an exec credential plugin such as
 * `aws eks get-token` (client.authentication.k8s.io ExecCredential; Kubernetes docs "client-go credential
 * plugins"), with the cluster's CA.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as https from "node:https";
import YAML from "yaml";

interface Named<T> {
  name: string;
  [key: string]: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}

interface KubeconfigFile {
  "current-context"?: string;
  clusters?: Named<{
    server?: string;
    "certificate-authority-data"?: string;
    "certificate-authority"?: string;
    "insecure-skip-tls-verify"?: boolean;
  }>[];
  users?: Named<{
    token?: string;
    tokenFile?: string;
    "client-certificate-data"?: string;
    "client-key-data"?: string;
    "client-certificate"?: string;
    "client-key"?: string;
    exec?: { command: string; args?: string[]; env?: { name: string; value: string }[]; apiVersion?: string };
  }>[];
  contexts?: Named<{ cluster: string; user: string }>[];
}

export interface Credentials {
  server: string;
  ca?: Buffer;
  insecure: boolean;
  token?: string;
  cert?: Buffer;
  key?: Buffer;
}

/** A kubeconfig's `<name>-data` (base64) or `<name>` (a file path), as kubectl reads them. */
function material(data: string | undefined, file: string | undefined): Buffer | undefined {
  if (data) return Buffer.from(data, "base64");
  return file ? fs.readFileSync(file) : undefined;
}

/** The server and credentials of `context` (or the current context) in a kubeconfig's text. */
export function credentialsOf(kubeconfig: string, context?: string): Credentials {
  const file = YAML.parse(kubeconfig) as KubeconfigFile;
  const contextName = context ?? file["current-context"];
  const ctx = file.contexts?.find((c) => c.name === contextName)?.context;
  if (!ctx) throw new Error(`kubeconfig: no context "${String(contextName)}"`);
  const cluster = file.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  const user = file.users?.find((u) => u.name === ctx.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`kubeconfig: context "${contextName}" names no cluster server`);
  const credentials: Credentials = {
    server: cluster.server,
    ca: material(cluster["certificate-authority-data"], cluster["certificate-authority"]),
    insecure: cluster["insecure-skip-tls-verify"] === true,
    token: user.token ?? (user.tokenFile ? fs.readFileSync(user.tokenFile, "utf8").trim() : undefined),
    cert: material(user["client-certificate-data"], user["client-certificate"]),
    key: material(user["client-key-data"], user["client-key"]),
  };
  if (user.exec) {
    const exec = user.exec;
    const apiVersion = exec.apiVersion ?? "client.authentication.k8s.io/v1beta1";
    const run = spawnSync(exec.command, exec.args ?? [], {
      encoding: "utf8",
      env: {
        ...process.env,
        ...Object.fromEntries((exec.env ?? []).map((e) => [e.name, e.value])),
        KUBERNETES_EXEC_INFO: JSON.stringify({
          apiVersion,
          kind: "ExecCredential",
          spec: { interactive: false },
        }),
      },
      timeout: 60_000,
    });
    if (run.status !== 0) {
      throw new Error(
        `kubeconfig exec credential "${exec.command}" failed: ${run.stderr || String(run.error)}`,
      );
    }
    const status = (JSON.parse(run.stdout) as { status?: Record<string, string> }).status ?? {};
    credentials.token = status.token ?? credentials.token;
    if (status.clientCertificateData) credentials.cert = Buffer.from(status.clientCertificateData);
    if (status.clientKeyData) credentials.key = Buffer.from(status.clientKeyData);
  }
  return credentials;
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

/** The request itself, sent once. */
function sendOnce<T>(
  credentials: Credentials,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<T> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const req = https.request(
      requestUrl(credentials.server, path),
      {
        method,
        ca: credentials.ca,
        cert: credentials.cert,
        key: credentials.key,
        rejectUnauthorized: !credentials.insecure,
        headers: {
          accept: "application/json",
          ...(credentials.token ? { authorization: `Bearer ${credentials.token}` } : {}),
          ...(payload === undefined ? {} : { "content-type": contentType }),
        },
        timeout: 30_000,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300)
            return reject(kubeRequestError(status, text, `${method} ${path}`));
          const json = (res.headers["content-type"] ?? "").includes("json");
          try {
            resolve((json ? JSON.parse(text) : text) as T);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
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
