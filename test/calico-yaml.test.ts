/**
 * calico.yaml and calico-tls.sh do what calico.yaml's header says: the file holds only values that apply as
 * written, every ConfigMap and Secret the workloads mount is in it or made by the script with the same
 * name, namespace and keys, the script's certificates carry the names the workloads require (checked by
 * running it with openssl), and the header's commands apply everything in `pulumi up`'s order. The same
 * commands run against a real API server in test/cluster/calico-yaml.test.ts.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { X509Certificate, createPrivateKey } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CERTIFICATE_EXPIRY_ANNOTATION, CERTIFICATE_VALIDITY } from "../components/calico/typha-tls";
import { applySteps } from "../offline/calico-apply";
import { tlsRecords } from "../offline/calico-objects";
import type { StackEvaluation } from "../offline/engine";
import { PEM_PLACEHOLDER, SECRET_MASK } from "../offline/plan";
import { renderPlanFiles } from "../offline/plan-files";
import {
  BUILT_IN,
  type Created,
  type Doc,
  configs,
  createdBy,
  docs,
  envOf,
  fileFor,
  mountedFiles,
  podSpecOf,
  selects,
} from "./calico-files";
import { STACKS, evaluated, evaluatedWithOperator, one } from "./helpers";

describe("calico.yaml and calico-tls.sh", () => {
  for (const stack of STACKS) {
    describe(stack, () => {
      let evaluation: StackEvaluation;
      let all: Doc[];
      let script: string;
      let created: Created[];
      before(async () => {
        evaluation = await evaluated(stack);
        const files = renderPlanFiles(evaluation);
        all = docs(files["calico.yaml"]);
        script = files["calico-tls.sh"];
        created = createdBy(script);
      });

      it("holds no masked, unknown or placeholder value", () => {
        const text = renderPlanFiles(evaluation)["calico.yaml"];
        for (const unknown of [SECRET_MASK, PEM_PLACEHOLDER, "[unknown]", "<computed>", "undefined"]) {
          assert.ok(!text.includes(unknown), `calico.yaml holds ${unknown}`);
        }
        // The offline placeholders for what only AWS knows: <kind:resource-name>.
        assert.doesNotMatch(text, /<[a-z-]+:[^>\n]+>/);
        assert.deepEqual(
          all.filter((d) => d.kind === "Secret"),
          [],
        );
      });

      it("leaves out exactly the objects calico-tls.sh creates, with their names, namespaces, types, labels and keys", () => {
        const rendered = tlsRecords(evaluation).map((r) => r.inputs as unknown as Doc);
        assert.equal(rendered.length, 3);
        assert.deepEqual(
          created.map((c) => ({
            kind: c.kind,
            name: c.name,
            namespace: c.namespace,
            type: c.type,
            keys: Object.keys(c.files).sort(),
            labels: c.labels,
          })),
          rendered.map((d) => ({
            kind: d.kind,
            name: d.metadata.name,
            namespace: d.metadata.namespace,
            type: d.type,
            keys: Object.keys({ ...d.data, ...d.stringData }).sort(),
            labels: d.metadata.labels,
          })),
        );
        for (const c of created) {
          assert.ok(
            !all.some((d) => d.kind === c.kind && d.metadata.name === c.name),
            `${c.name} is in one place`,
          );
        }
      });

      it("has every ConfigMap and Secret a workload mounts, with each key its env names, in the file or the script", () => {
        const volumes = all.flatMap((doc) =>
          (podSpecOf(doc)?.volumes ?? []).flatMap((v) =>
            v.configMap
              ? [{ kind: "ConfigMap", name: v.configMap.name, namespace: doc.metadata.namespace }]
              : v.secret
                ? [{ kind: "Secret", name: v.secret.secretName, namespace: doc.metadata.namespace }]
                : [],
          ),
        );
        assert.ok(volumes.length >= 4, "calico-node and Typha each mount the CA and their own Secret");
        const exists = (kind: string, name: string, namespace?: string) =>
          all.find(
            (d) => d.kind === kind && d.metadata.name === name && d.metadata.namespace === namespace,
          ) ?? created.find((c) => c.kind === kind && c.name === name && c.namespace === namespace);
        for (const v of volumes)
          assert.ok(exists(v.kind, v.name, v.namespace), `${v.kind} ${v.namespace}/${v.name}`);
        const files = mountedFiles(all);
        assert.equal(files.length, 6, "three files each for Typha and Felix");
        for (const f of files) {
          const object = exists(f.kind, f.name, f.namespace);
          const keys =
            object && "files" in object ? Object.keys(object.files) : Object.keys(object?.data ?? {});
          assert.ok(keys.includes(f.key), `${f.env}: ${f.kind} ${f.name} has ${f.key}`);
        }
      });

      it("issues each certificate with the common name the other side requires", () => {
        const cnOf = (file: string) => configs(script).get(file.replace(/\.crt$/, ""))?.CN;
        const server = fileFor(all, created, "Deployment", "calico-typha", "TYPHA_SERVERCERTFILE");
        const client = fileFor(all, created, "DaemonSet", "calico-node", "FELIX_TYPHACERTFILE");
        assert.equal(cnOf(server), envOf(all, "DaemonSet", "calico-node", "FELIX_TYPHACN"));
        assert.equal(cnOf(client), envOf(all, "Deployment", "calico-typha", "TYPHA_CLIENTCN"));
        // Neither side asks for a URI SAN, so the certificates carry none.
        assert.equal(envOf(all, "DaemonSet", "calico-node", "FELIX_TYPHAURISAN"), undefined);
        assert.equal(envOf(all, "Deployment", "calico-typha", "TYPHA_CLIENTURISAN"), undefined);
        assert.ok(![...configs(script).values()].some((c) => "subjectAltName" in c));
        // Both trust the one CA file.
        assert.equal(
          fileFor(all, created, "Deployment", "calico-typha", "TYPHA_CAFILE"),
          fileFor(all, created, "DaemonSet", "calico-node", "FELIX_TYPHACAFILE"),
        );
      });

      it("makes the certificates with openssl: signed by the CA, with the names, keys, uses and validity of the stack", function () {
        this.timeout(60_000);
        const openssl = spawnSync("openssl", ["version"], { encoding: "utf8" });
        assert.equal(
          openssl.status,
          0,
          `openssl is needed to run calico-tls.sh, and was not found on PATH (${String(openssl.error ?? openssl.stderr)}): install it (apt-get install openssl)`,
        );
        const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-tls-"));
        try {
          // kubectl is a stand-in that records its arguments: the cluster half runs in test/cluster/.
          fs.mkdirSync(path.join(tmp, "bin"));
          fs.writeFileSync(
            path.join(tmp, "bin", "kubectl"),
            `#!/bin/sh\necho "$@" >> "${tmp}/kubectl.log"\n`,
            {
              mode: 0o755,
            },
          );
          fs.writeFileSync(path.join(tmp, "calico-tls.sh"), script);
          const run = spawnSync("sh", ["calico-tls.sh", "certs"], {
            cwd: tmp,
            encoding: "utf8",
            env: { ...process.env, PATH: `${path.join(tmp, "bin")}:${process.env.PATH}` },
          });
          assert.equal(run.status, 0, run.stderr);
          const dir = path.join(tmp, "certs");
          const read = (file: string) => fs.readFileSync(path.join(dir, file), "utf8");
          const ca = new X509Certificate(
            read(fileFor(all, created, "DaemonSet", "calico-node", "FELIX_TYPHACAFILE")),
          );
          assert.equal(ca.ca, true);
          const subject = one(evaluation, "tls:index/selfSignedCert:SelfSignedCert").inputs.subject as {
            commonName: string;
            organization: string;
          };
          assert.equal(ca.subject, `CN=${subject.commonName}\nO=${subject.organization}`);
          assert.ok(ca.verify(ca.publicKey), "the CA is self-signed");
          for (const [kind, name, certVar, keyVar, cnVar, usage] of [
            [
              "Deployment",
              "calico-typha",
              "TYPHA_SERVERCERTFILE",
              "TYPHA_SERVERKEYFILE",
              "FELIX_TYPHACN",
              "1.3.6.1.5.5.7.3.1",
            ],
            [
              "DaemonSet",
              "calico-node",
              "FELIX_TYPHACERTFILE",
              "FELIX_TYPHAKEYFILE",
              "TYPHA_CLIENTCN",
              "1.3.6.1.5.5.7.3.2",
            ],
          ] as const) {
            const other =
              kind === "Deployment" ? ["DaemonSet", "calico-node"] : ["Deployment", "calico-typha"];
            const cert = new X509Certificate(read(fileFor(all, created, kind, name, certVar)));
            assert.ok(
              cert.checkIssued(ca) && cert.verify(ca.publicKey),
              `${name}'s certificate is signed by the CA`,
            );
            assert.equal(cert.subject, `CN=${envOf(all, other[0], other[1], cnVar)}`);
            assert.equal(cert.ca, false);
            assert.deepEqual(cert.keyUsage, [usage]);
            assert.ok(
              cert.checkPrivateKey(createPrivateKey(read(fileFor(all, created, kind, name, keyVar)))),
            );
            assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, "prime256v1");
            const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
            assert.equal(days, CERTIFICATE_VALIDITY.leafHours / 24);
          }
          const caDays = (Date.parse(ca.validTo) - Date.parse(ca.validFrom)) / 86_400_000;
          assert.equal(caDays, CERTIFICATE_VALIDITY.caHours / 24);
          // The kubectl commands ran after the files were made, each naming a file that exists.
          const log = fs.readFileSync(path.join(tmp, "kubectl.log"), "utf8");
          assert.equal(log.split("\n").filter((l) => l.startsWith("create ")).length, created.length);
          for (const file of created.flatMap((c) => Object.values(c.files))) {
            assert.ok(fs.existsSync(path.join(dir, file)), file);
          }
          // The keys are readable by their owner only.
          assert.equal(fs.statSync(path.join(dir, "calico-typha-ca.key")).mode & 0o077, 0);
        } finally {
          fs.rmSync(tmp, { recursive: true, force: true });
        }
      });

      it("applies everything in pulumi up's order: the TLS objects, Calico, then the probe's allowed and denied clients", () => {
        const steps = applySteps(evaluation).map((s) => s.command);
        assert.equal(steps[0], "sh calico-tls.sh");
        const applies = steps.filter((s) => s.startsWith("kubectl apply"));
        const selected = applies.map((s) => {
          const selector = /-l '?([^' ]+)'?/.exec(s)?.[1];
          return all.filter((d) => selector === undefined || selects(selector, d));
        });
        // Each object applied exactly once.
        assert.deepEqual(
          selected
            .flat()
            .map((d) => `${d.kind}/${d.metadata.name}`)
            .sort(),
          all.map((d) => `${d.kind}/${d.metadata.name}`).sort(),
        );
        const jobs = (client: string) =>
          all.filter((d) => d.kind === "Job" && d.metadata.labels?.["eks-calico.io/probe-client"] === client);
        // The same-node pair: the other-node one follows the anchor's placement, known after up.
        assert.equal(jobs("allowed").length, 1);
        const yaml = renderPlanFiles(evaluation)["calico.yaml"];
        const header = yaml.split("\n---\n")[0].replace(/\n#\s*/g, " ");
        assert.ok(
          header.includes(
            "Not in this file: Job calico-probe-other-node-probe-allowed-client, Job calico-probe-other-node-probe-denied-client, Job calico-probe-other-node-probe-recheck-client: known after up",
          ),
          header,
        );
        assert.deepEqual(selected.slice(1), [jobs("allowed"), jobs("denied"), jobs("recheck")]);
        // The clients wait for Calico's workloads, the denied ones for the allowed ones to complete, the
        // recheck ones for the denied ones.
        const at = (prefix: string) => steps.findIndex((s) => s.startsWith(prefix));
        assert.ok(
          at("kubectl rollout status daemonset/calico-node") <
            at("kubectl apply --server-side -f calico.yaml -l eks-calico.io/probe-client=allowed"),
        );
        const waits = steps.filter((s) => s.startsWith("kubectl wait --for=condition=Complete"));
        const running = (client: string) =>
          jobs(client)
            .filter((d) => d.spec?.suspend !== true)
            .map((d) => `job/${d.metadata.name}`);
        assert.deepEqual(
          waits.map((w) => w.split(" ").filter((word) => word.startsWith("job/"))),
          [running("allowed"), running("denied"), running("recheck")],
        );
        // No custom resource: its kind would not map in the run that creates its definition.
        const defined = all
          .filter((d) => d.kind === "CustomResourceDefinition")
          .map((d) => d.metadata.name.split(".").slice(1).join("."));
        const served = (d: Doc) => BUILT_IN.includes(`${d.apiVersion} ${d.kind}`);
        assert.deepEqual(
          all.filter((d) => !served(d) || defined.includes(d.apiVersion.split("/")[0])).map((d) => d.kind),
          [],
        );
      });

      it("says in its header which values only pulumi up knows", () => {
        const text = renderPlanFiles(evaluation)["calico.yaml"];
        const header = text.split("\n---\n")[0].replace(/\n#\s*/g, " ");
        const typha = all.find((d) => d.kind === "Deployment" && d.metadata.name === "calico-typha");
        const expiry = typha?.spec?.template?.metadata?.annotations?.[CERTIFICATE_EXPIRY_ANNOTATION];
        assert.ok(expiry);
        assert.ok(
          header.includes(
            `Deployment kube-system/calico-typha, DaemonSet kube-system/calico-node: spec.template.metadata.annotations["${CERTIFICATE_EXPIRY_ANNOTATION}"] = ${expiry}`,
          ),
          header,
        );
        const anchor = all.find((d) => d.kind === "Pod");
        const run = anchor?.metadata.labels?.["eks-calico.io/probe-run"];
        assert.ok(run && header.includes(`the suffix -${run} of the probe's run`));
        for (const d of all.filter((d) => d.metadata.name.endsWith(`-${run}`))) {
          assert.ok(header.includes(`${d.kind} ${d.metadata.namespace}/${d.metadata.name}`), d.metadata.name);
        }
      });
    });
  }

  it("with the operator: no TLS objects to make, and the custom resources applied once the operator made their CRDs", async () => {
    const evaluation = await evaluatedWithOperator("dev");
    const files = renderPlanFiles(evaluation);
    assert.match(
      files["calico-tls.sh"],
      /nothing to create, .*the Tigera operator makes Typha's certificates itself/,
    );
    const steps = applySteps(evaluation);
    const first = steps.findIndex((s) => s.command.startsWith("kubectl apply"));
    assert.match(steps[first].note ?? "", /exits 1 the first time.*Installation default/);
    const crds = steps.findIndex((s) =>
      s.command.startsWith("kubectl wait --for=create crd/installations.operator.tigera.io"),
    );
    assert.ok(crds > first);
    assert.equal(
      steps[crds + 2].command,
      steps[first].command,
      "applied again once the CRDs are established",
    );
    assert.ok(
      steps.some(
        (s) =>
          s.command ===
          "kubectl wait --for=condition=Ready installation.operator.tigera.io/default --timeout=10m",
      ),
    );
  });
});
