/**
 * Typha and Felix over mutual TLS, proven with node's crypto on the certificates the stack creates (the
 * offline world runs the tls provider with real keys): the chain, the names each side requires, the key
 * pairs, usages and validity, secrets kept secret, and a renewal that rolls both workloads.
 */
import * as assert from "node:assert/strict";
import { X509Certificate, createPrivateKey } from "node:crypto";
import {
  CERTIFICATE_EXPIRY_ANNOTATION,
  CERTIFICATE_VALIDITY,
  FELIX_CLIENT_CN,
  TYPHA_SERVER_CN,
} from "../components/calico/typha-tls";
import type { ResourceRecord, StackEvaluation } from "../offline/engine";
import { PEM_PLACEHOLDER } from "../offline/plan";
import { renderPlanFiles } from "../offline/plan-files";
import { STACKS, evaluated, input, one, ofType } from "./helpers";

const SECRET = "kubernetes:core/v1:Secret";

function secretData(
  evaluation: StackEvaluation,
  name: string,
): { cert: string; key: string; record: ResourceRecord } {
  const record = one(evaluation, SECRET, `calico-secret-${name}`);
  const data = record.inputs.stringData as Record<string, string>;
  return { cert: data["tls.crt"], key: data["tls.key"], record };
}

function env(record: ResourceRecord, name: string): string | undefined {
  const containers = input<{ env: { name: string; value?: string }[] }[]>(
    record,
    "spec.template.spec.containers",
  );
  return containers[0].env.find((e) => e.name === name)?.value;
}

for (const stack of STACKS) {
  describe(`Typha mutual TLS in ${stack}`, () => {
    it("signs Typha's and Felix's certificates with the stack's CA, with the names each side requires", async () => {
      const evaluation = await evaluated(stack);
      const ca = new X509Certificate(
        input<Record<string, string>>(
          one(evaluation, "kubernetes:core/v1:ConfigMap", "calico-configmap-calico-typha-ca"),
          "data",
        )["ca.crt"],
      );
      const server = new X509Certificate(secretData(evaluation, "calico-typha-tls").cert);
      const client = new X509Certificate(secretData(evaluation, "calico-felix-typha-tls").cert);

      assert.equal(ca.ca, true);
      assert.equal(ca.verify(ca.publicKey), true, "the CA is self-signed");
      for (const [cert, cn] of [
        [server, TYPHA_SERVER_CN],
        [client, FELIX_CLIENT_CN],
      ] as const) {
        assert.equal(cert.ca, false);
        assert.ok(cert.checkIssued(ca), `${cn} is issued by the CA`);
        assert.equal(cert.verify(ca.publicKey), true, `${cn} carries the CA's signature`);
        assert.equal(cert.subject, `CN=${cn}`);
      }
      // Each side requires the other's name, and trusts the CA file it is given.
      const typha = one(evaluation, "kubernetes:apps/v1:Deployment", "calico-deployment-calico-typha");
      const node = one(evaluation, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
      assert.equal(env(typha, "TYPHA_CLIENTCN"), client.subject.replace("CN=", ""));
      assert.equal(env(node, "FELIX_TYPHACN"), server.subject.replace("CN=", ""));
      assert.equal(env(typha, "TYPHA_CAFILE"), env(node, "FELIX_TYPHACAFILE"));
      // A certificate from another CA would not pass.
      assert.equal(server.verify(client.publicKey), false);
    });

    it("pairs each certificate with its key and limits it to server or client authentication", async () => {
      const evaluation = await evaluated(stack);
      for (const [name, usage] of [
        ["calico-typha-tls", "1.3.6.1.5.5.7.3.1"],
        ["calico-felix-typha-tls", "1.3.6.1.5.5.7.3.2"],
      ] as const) {
        const { cert, key } = secretData(evaluation, name);
        const x509 = new X509Certificate(cert);
        assert.ok(x509.checkPrivateKey(createPrivateKey(key)), `${name}: key matches certificate`);
        assert.deepEqual(x509.keyUsage, [usage]);
        assert.equal(x509.publicKey.asymmetricKeyType, "ec");
      }
    });

    it("keeps private keys secret in state, and the plan files show no key or certificate", async () => {
      const evaluation = await evaluated(stack);
      for (const name of ["calico-typha-tls", "calico-felix-typha-tls"]) {
        assert.deepEqual(secretData(evaluation, name).record.secretInputs, ["stringData"]);
      }
      const files = renderPlanFiles(evaluation);
      assert.ok(!/-----BEGIN/.test(files["resources.json"]));
      assert.ok(files["resources.json"].includes(PEM_PLACEHOLDER));
      // calico.yaml leaves the material out; calico-tls.sh makes new material where it runs.
      for (const name of ["calico.yaml", "calico-tls.sh"] as const) {
        assert.ok(!/-----BEGIN/.test(files[name]), name);
        assert.ok(!files[name].includes(PEM_PLACEHOLDER), name);
      }
    });

    it("renews leaves before they expire, and rolls Typha and calico-node when one is renewed", async () => {
      const evaluation = await evaluated(stack);
      const ca = one(evaluation, "tls:index/selfSignedCert:SelfSignedCert", "calico-typha-ca");
      assert.equal(ca.inputs.validityPeriodHours, CERTIFICATE_VALIDITY.caHours);
      const leaves = ofType(evaluation, "tls:index/locallySignedCert:LocallySignedCert");
      assert.equal(leaves.length, 2);
      for (const leaf of leaves) {
        assert.equal(leaf.inputs.validityPeriodHours, CERTIFICATE_VALIDITY.leafHours);
        assert.equal(leaf.inputs.earlyRenewalHours, CERTIFICATE_VALIDITY.leafEarlyRenewalHours);
        assert.ok(CERTIFICATE_VALIDITY.leafEarlyRenewalHours < CERTIFICATE_VALIDITY.leafHours);
      }
      const server = new X509Certificate(secretData(evaluation, "calico-typha-tls").cert);
      const days = (Date.parse(server.validTo) - Date.parse(server.validFrom)) / 86_400_000;
      assert.equal(days, CERTIFICATE_VALIDITY.leafHours / 24);
      // The offline tls provider issues every certificate at one fixed instant.
      assert.equal(Date.parse(server.validFrom), Date.parse("2026-01-01T00:00:00Z"));
      // The pod templates carry each leaf's expiry: a renewal changes it, and so rolls the workload.
      const expiry = new Date(Date.parse(server.validTo)).toISOString().replace(".000", "");
      for (const workload of [
        one(evaluation, "kubernetes:apps/v1:Deployment", "calico-deployment-calico-typha"),
        one(evaluation, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node"),
      ]) {
        const annotations = input<Record<string, string>>(workload, "spec.template.metadata.annotations");
        assert.equal(annotations[CERTIFICATE_EXPIRY_ANNOTATION], expiry, workload.name);
      }
    });
  });
}
