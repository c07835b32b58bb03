/**
 * The files `npm start` writes, applied as calico.yaml's header says (calico-tls.sh, then kubectl apply
 * --server-side in `pulumi up`'s order) with the real kubectl and openssl, on a real control plane shaped
 * like each stack: every command exits 0, every object of the file exists, and the certificates the
 * Secrets now hold carry the names the live workloads' env requires, signed by the CA they mount.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { LocalCluster } from "../../local-cluster/deploy";
import { requireTools } from "../../local-cluster";
import { applySteps } from "../../offline/calico-apply";
import { evaluateStack, listStacks } from "../../offline/engine";
import { renderPlanFiles } from "../../offline/plan-files";

const DIR = path.join(os.tmpdir(), `eks-calico-yaml-cluster-${process.pid}`);

/** Stacks with node groups (full stacks), from the stack files. */
const SHAPES = listStacks().filter((stack) => !stack.endsWith(".example"));

interface Env {
  name: string;
  value?: string;
}
interface Workload {
  spec: { template: { spec: { containers: { env?: Env[] }[] } } };
}

function envOf(workload: Workload, name: string): string | undefined {
  return workload.spec.template.spec.containers[0].env?.find((e) => e.name === name)?.value;
}

describe("calico.yaml and calico-tls.sh applied with kubectl, as the header says", function () {
  this.timeout(20 * 60_000);

  for (const stack of SHAPES) {
    it(`${stack}: every command succeeds and leaves Calico with working Typha TLS`, async function () {
      const evaluation = await evaluateStack(stack);
      const files = renderPlanFiles(evaluation);
      const work = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-yaml-"));
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(work, name), text);
      const cluster = await LocalCluster.start(stack, { dir: DIR });
      try {
        const env = {
          ...process.env,
          PATH: `${requireTools()}:${process.env.PATH}`,
          KUBECONFIG: cluster.state.kubeconfig,
        };
        for (const step of applySteps(evaluation)) {
          const run = spawnSync("sh", ["-c", step.command], { cwd: work, env, encoding: "utf8" });
          assert.equal(run.status, 0, `${step.command}\n${run.stdout}${run.stderr}`);
        }

        // Every object of the file exists.
        const count = YAML.parseAllDocuments(files["calico.yaml"]).filter((d) => d.contents !== null).length;
        const got = cluster.kubectl(["get", "-f", path.join(work, "calico.yaml"), "-o", "name"]);
        assert.ok(got.ok, got.output);
        assert.equal(got.output.split("\n").length, count);

        // The live certificates: each side's names, as the live workloads require them, from one CA.
        const namespace = String((evaluation.outputs.calico as { namespace: string }).namespace);
        const read = <T>(kind: string, name: string) =>
          cluster.api.get<T>(
            `/${kind.includes("/") ? "apis" : "api"}/${kind}/namespaces/${namespace}/${name}`,
          );
        const node = await read<Workload>("apps/v1", "daemonsets/calico-node");
        const typha = await read<Workload>("apps/v1", "deployments/calico-typha");
        const ca = new X509Certificate(
          (await read<{ data: Record<string, string> }>("v1", "configmaps/calico-typha-ca")).data["ca.crt"],
        );
        const secret = async (name: string) => {
          const s = await read<{ type: string; data: Record<string, string> }>("v1", `secrets/${name}`);
          assert.equal(s.type, "kubernetes.io/tls");
          return new X509Certificate(Buffer.from(s.data["tls.crt"], "base64"));
        };
        const server = await secret("calico-typha-tls");
        const client = await secret("calico-felix-typha-tls");
        assert.equal(server.subject, `CN=${envOf(node, "FELIX_TYPHACN")}`);
        assert.equal(client.subject, `CN=${envOf(typha, "TYPHA_CLIENTCN")}`);
        for (const cert of [server, client]) assert.ok(cert.verify(ca.publicKey), cert.subject);
      } finally {
        await cluster.stop();
        fs.rmSync(work, { recursive: true, force: true });
      }
    });
  }
});
