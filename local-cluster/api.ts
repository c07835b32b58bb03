/**
 * A small client for the local API server: JSON requests with the admin token over TLS verified against
 * the server's own certificate. For what kubectl would be slow at (hundreds of Node creates) and for reads.
 */
import * as fs from "node:fs";
import * as https from "node:https";
import YAML from "yaml";

export interface ApiAccess {
  readonly server: string;
  readonly token: string;
  readonly caFile: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    request: string,
  ) {
    super(`${request}: HTTP ${status}: ${body.slice(0, 500)}`);
    this.name = "ApiError";
  }
}

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

export class Api {
  private readonly ca: Buffer;

  constructor(private readonly access: ApiAccess) {
    this.ca = fs.readFileSync(access.caFile);
  }

  request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<T> {
    const url = new URL(path, this.access.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      const req = https.request(
        url,
        {
          method,
          ca: this.ca,
          headers: {
            authorization: `Bearer ${this.access.token}`,
            accept: "application/json",
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
            if (status < 200 || status >= 300) return reject(new ApiError(status, text, `${method} ${path}`));
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

  get<T = unknown>(path: string): Promise<T> {
    return this.request<T>("GET", path);
  }

  /** The object, or undefined when the server answers 404. */
  async find<T = unknown>(path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
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
