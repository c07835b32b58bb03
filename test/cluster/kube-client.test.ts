/**
 * The API client of the dynamic steps (components/kubernetes/client.ts) and the takeover's hand-over of
 * fields (components/calico/takeover/run.ts) against a real API server: reached through a proxy that
 * serves it under a path, as Rancher does (`https://host/k8s/clusters/c-1`); a server URL that answers
 * 404 to everything is an error, never "absent"; a write between the takeover's read and its patch is
 * read again and handed over, not a failed step.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { LocalCluster } from "../../local-cluster/deploy";
import {
  type Credentials,
  credentialsOf,
  kubeGetOrMissing,
  kubeRequest,
} from "../../components/kubernetes/client";
import { handOverObject, takeOver } from "../../components/calico/takeover/run";

const PREFIX = "/k8s/clusters/c-1";

/** An HTTPS proxy serving the API server under {@link PREFIX}, and a plain 404 anywhere else. */
async function pathProxy(cluster: LocalCluster): Promise<{ url: string; close: () => void }> {
  const pki = path.join(cluster.state.dir, "pki");
  const ca = fs.readFileSync(path.join(pki, "apiserver.crt"));
  const upstream = new URL(cluster.state.server);
  const server = https.createServer(
    { cert: ca, key: fs.readFileSync(path.join(pki, "apiserver.key")) },
    (req, res) => {
      if (!(req.url ?? "").startsWith(`${PREFIX}/`)) {
        res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
        return;
      }
      const forwarded = https.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: (req.url ?? "").slice(PREFIX.length),
          method: req.method,
          headers: req.headers,
          ca,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forwarded);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}`, close: () => server.close() };
}

describe("The dynamic steps' API client on a real API server", function () {
  this.timeout(10 * 60_000);

  let cluster: LocalCluster;
  let credentials: Credentials;
  before(async function () {
    cluster = await LocalCluster.start("dev", {
      dir: path.join(os.tmpdir(), `eks-calico-client-${process.pid}`),
    });
    credentials = credentialsOf(fs.readFileSync(cluster.state.kubeconfig, "utf8"));
  });
  after(async () => cluster?.stop());

  it("keeps the path of a server URL behind a proxy, and refuses to read a proxy's 404 as absent", async function () {
    const proxy = await pathProxy(cluster);
    try {
      const through = { ...credentials, server: `${proxy.url}${PREFIX}` };
      const namespace = await kubeGetOrMissing<{ metadata: { name: string } }>(
        through,
        "/api/v1/namespaces/kube-system",
      );
      assert.equal(namespace?.metadata.name, "kube-system");
      assert.equal(await kubeGetOrMissing(through, "/api/v1/namespaces/no-such-namespace"), undefined);
      // The same proxy without the path: every request is its 404.
      const pathless = { ...credentials, server: proxy.url };
      await assert.rejects(
        kubeGetOrMissing(pathless, "/api/v1/namespaces/kube-system"),
        /answered 404 \(GET \/api\/v1\/namespaces\/kube-system\), and is no Kubernetes API server/,
      );
    } finally {
      proxy.close();
    }
  });

  it("hands an object's fields over even when something writes it between the read and the patch", async function () {
    const created = cluster.kubectl(["create", "configmap", "raced", "-n", "default", "--from-literal=a=b"]);
    assert.ok(created.ok, created.output);
    const objectPath = "/api/v1/namespaces/default/configmaps/raced";
    type Live = Parameters<typeof handOverObject>[1]["live"];
    const stale = await kubeRequest<Live>(credentials, "GET", objectPath);
    const labelled = cluster.kubectl(["label", "configmap", "raced", "-n", "default", "written=between"]);
    assert.ok(labelled.ok, labelled.output);

    const outcome = await handOverObject(
      credentials,
      {
        ref: { apiVersion: "v1", kind: "ConfigMap", name: "raced", namespace: "default" },
        path: objectPath,
        live: stale,
      },
      "eks-calico",
      false,
    );
    assert.equal(outcome, "from kubectl-create (Update), kubectl-label (Update)");
    const now = await kubeRequest<{
      metadata: { labels?: Record<string, string>; managedFields?: { manager?: string }[] };
    }>(credentials, "GET", objectPath);
    assert.deepEqual(now.metadata.labels, { written: "between" }, "the write in between is kept");
    assert.deepEqual(
      (now.metadata.managedFields ?? []).map((e) => e.manager),
      ["eks-calico"],
      "every kubectl field is the program's",
    );
  });

  it("refuses, before changing anything, to take over an object another tool applied, and takes it once its ownership is cleared", async function () {
    const object = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "applied-by-argo", namespace: "default" },
      data: { typhaServiceName: "calico-typha" },
    };
    const applied = cluster.kubectl(
      ["apply", "--server-side", "--field-manager=argocd-controller", "-f", "-"],
      JSON.stringify(object),
    );
    assert.ok(applied.ok, applied.output);
    const objectPath = "/api/v1/namespaces/default/configmaps/applied-by-argo";
    const managers = async () =>
      (
        await kubeRequest<{ metadata: { managedFields?: { manager?: string }[] } }>(
          credentials,
          "GET",
          objectPath,
        )
      ).metadata.managedFields?.map((e) => e.manager);
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: "applied-by-argo", namespace: "default" };
    const options = {
      manager: "eks-calico",
      labels: { "app.kubernetes.io/part-of": "eks-calico" },
      adopt: true,
    };
    await assert.rejects(
      takeOver(credentials, [ref], options),
      /ConfigMap default\/applied-by-argo \(argocd-controller \(Apply\)\)[\s\S]*Nothing was changed/,
    );
    assert.deepEqual(await managers(), ["argocd-controller"], "nothing changed");

    // The way out the refusal gives: clear the object's field ownership.
    const cleared = cluster.kubectl([
      "patch",
      "configmap",
      "applied-by-argo",
      "-n",
      "default",
      "--type=json",
      "-p",
      '[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]',
    ]);
    assert.ok(cleared.ok, cleared.output);
    const [result] = await takeOver(credentials, [ref], options);
    assert.match(result.outcome, /^from .*before-first-apply/);
    assert.deepEqual(await managers(), ["eks-calico"]);
  });
});
