/**
 * A kubeconfig stack whose kubeconfig cannot reach its cluster, on the real engine (Pulumi CLI v3.248.0,
 * pulumi-kubernetes v4.25.0) and a local control plane: `pulumi preview` and `pulumi up` stop before any
 * resource, with a problem at cluster.kubeconfig.path that names the file and the context
 * (stacks/kubeconfig.ts: the credentials' first request, GET /version through @kubernetes/client-node).
 * The kubeconfigs are the local cluster's own, each broken one way: a token the API server refuses, a CA
 * file that is not there, a server nothing listens on.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { type ClusterState, startControlPlane, stopControlPlane } from "../../local-cluster/control-plane";
import { requireTools } from "../../local-cluster/index";
import { EngineStack, type OperationResult } from "../../local-cluster/pulumi";

interface Kubeconfig {
  clusters: { cluster: Record<string, unknown> }[];
  users: { user: Record<string, unknown> }[];
  "current-context": string;
}

const BROKEN: Record<string, { change: (k: Kubeconfig) => void; reason: RegExp }> = {
  "a token the API server refuses": {
    change: (k) => (k.users[0].user.token = "not-a-token"),
    reason: /GET \/version: HTTP 401/,
  },
  "a CA file that is not there": {
    change: (k) => (k.clusters[0].cluster["certificate-authority"] = "/nonexistent/ca.crt"),
    reason: /no such file or directory/,
  },
  "a server nothing listens on": {
    change: (k) => (k.clusters[0].cluster.server = "https://127.0.0.1:2"),
    reason: /ECONNREFUSED/,
  },
};

describe("a kubeconfig that cannot reach its cluster, on the real engine", function () {
  this.timeout(20 * 60_000);

  const dir = path.join(os.tmpdir(), `eks-calico-kubeconfig-reach-${process.pid}`);
  let bin: string;
  let state: ClusterState;

  before(async function () {
    bin = requireTools();
    state = await startControlPlane(path.join(dir, "cluster"), bin);
  });

  after(async function () {
    await stopControlPlane(path.join(dir, "cluster"));
  });

  for (const [broken, { change, reason }] of Object.entries(BROKEN)) {
    it(`stops preview and up before any resource, naming the file and the context: ${broken}`, async function () {
      const kubeconfig = YAML.parse(fs.readFileSync(state.kubeconfig, "utf8")) as Kubeconfig;
      const context = kubeconfig["current-context"];
      change(kubeconfig);
      const file = path.join(dir, `${broken.replace(/\W+/g, "-")}.yaml`);
      fs.writeFileSync(file, YAML.stringify(kubeconfig));
      const engine = new EngineStack({
        stack: "local",
        dir: path.join(dir, "engine", broken.replace(/\W+/g, "-")),
        bin,
        kubeconfig: file,
        context,
        nodes: 1,
      });
      for (const operation of ["preview", "up"] as const) {
        const result: OperationResult = await engine.run(operation);
        // The refusal as one line: the engine wraps it to the terminal's width.
        const output = [...result.errors, result.error ?? ""].join("\n").replace(/\s+/g, " ");
        assert.equal(result.ok, false, `${operation} succeeded with ${broken}`);
        assert.match(output, /cluster\.kubeconfig\.path/, output);
        assert.ok(output.includes(file), `${operation} names the file:\n${output}`);
        assert.ok(output.includes(`context "${context}"`), `${operation} names the context:\n${output}`);
        assert.match(output, reason);
        // The stack itself, and the default provider of the previous outputs' StackReference, only.
        const ours = (type: string) =>
          type !== "pulumi:pulumi:Stack" && !type.startsWith("pulumi:providers:");
        const created = result.steps.filter((s) => ours(s.type));
        assert.deepEqual(created, [], `${operation} registered no resource`);
      }
      const resources = engine.exportState().deployment.resources ?? [];
      assert.deepEqual(
        resources.filter((r) => r.type !== "pulumi:pulumi:Stack" && !r.type.startsWith("pulumi:providers:")),
        [],
        "the state holds no resource",
      );
    });
  }
});
