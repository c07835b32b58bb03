/** An HTTPS server that answers as a Kubernetes API server does, for tests of the steps that read one. */
import type * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import YAML from "yaml";
import { type Credentials, credentialsOf } from "../components/kubernetes/client";
import { clientPki } from "./kubeconfig-pki";

/** What the fake API server answers for a path: a status and a JSON body. */
export type Answer = { status: number; body: unknown };

/** An HTTPS server answering `routes` (and `/version`, as an API server does), recording each path. */
export class FakeApiServer {
  readonly requests: string[] = [];
  routes: Record<string, Answer> = {};
  /** Answers given once each, in order, before a path's route: a server that recovers. */
  firstAnswers: Record<string, Answer[]> = {};
  private constructor(private readonly server: https.Server) {}

  static async start(): Promise<FakeApiServer> {
    const { cert, key } = await clientPki("127.0.0.1");
    const server = https.createServer({ cert, key });
    const fake = new FakeApiServer(server);
    server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      const url = req.url ?? "";
      fake.requests.push(`${req.method} ${url}`);
      const answer =
        url === "/version"
          ? { status: 200, body: { gitVersion: "v1.33.0" } }
          : (fake.firstAnswers[url]?.shift() ??
            fake.routes[url] ?? { status: 404, body: { kind: "Status", reason: "NotFound" } });
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  /** Forgets the routes, answers and requests of the test before. */
  reset(): void {
    this.routes = {};
    this.firstAnswers = {};
    this.requests.length = 0;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Credentials for it: a token, and no CA check (its certificate names no IP address). */
  get credentials(): Credentials {
    return credentialsOf(this.kubeconfig());
  }

  /** A kubeconfig for it, with one context "fake". */
  kubeconfig(server = this.url): string {
    return YAML.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "fake", cluster: { server, "insecure-skip-tls-verify": true } }],
      contexts: [{ name: "fake", context: { cluster: "fake", user: "fake" } }],
      "current-context": "fake",
      users: [{ name: "fake", user: { token: "t" } }],
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
