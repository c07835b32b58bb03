/**
 * A small client for the local API server: JSON requests with the admin token over TLS verified against
 * the server's own certificate (the takeover's client, components/kubernetes/client.ts). For what kubectl would be slow at (hundreds of Node creates) and for reads.
 */
import * as fs from "node:fs";
import YAML from "yaml";
import {
  type Credentials,
  credentialsOf,
  isKubeRequestError,
  kubeRequest,
} from "../components/kubernetes/client";

export interface ApiAccess {
  readonly server: string;
  readonly token: string;
  readonly caFile: string;
}

/** A non-2xx answer of the API server (its status and body). */
export type { KubeRequestError as ApiError } from "../components/kubernetes/client";

/** The server, token and CA of a kubeconfig written by local-cluster/control-plane.ts. */
export function accessFromKubeconfig(file: string): ApiAccess {
  const config = YAML.parse(fs.readFileSync(file, "utf8")) as {
    clusters: { cluster: { server: string; "certificate-authority": string } }[];
    users: { user: { token: string } }[];
  };
  return {
    server: config.clusters[0].cluster.server,
    caFile: config.clusters[0].cluster["certificate-authority"],
    token: config.users[0].user.token,
  };
}

/** A one-context kubeconfig (`local`) for the local API server, as `user` with `token`. */
export function kubeconfigText(server: string, caFile: string, token: string, user = "admin"): string {
  return YAML.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "local", cluster: { server, "certificate-authority": caFile } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: "local", context: { cluster: "local", user } }],
    "current-context": "local",
  });
}

export class Api {
  /** The admin's credentials, for the provider-request replays. */
  readonly credentials: Credentials;

  constructor(access: ApiAccess) {
    this.credentials = credentialsOf(kubeconfigText(access.server, access.caFile, access.token));
  }

  request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<T> {
    return kubeRequest<T>(this.credentials, method, path, body, contentType);
  }

  get<T = unknown>(path: string): Promise<T> {
    return this.request<T>("GET", path);
  }

  /** The object, or undefined when the server answers 404. */
  async find<T = unknown>(path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path);
    } catch (error) {
      if (isKubeRequestError(error, 404)) return undefined;
      throw error;
    }
  }
}

/** Polls `check` every `intervalMs` until it returns a value, or fails with `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error instanceof Error ? error : new Error(String(error));
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${what}${last ? `: ${last.message}` : ""}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
