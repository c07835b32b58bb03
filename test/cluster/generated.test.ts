/**
 * The idempotence property on the real engine: a sample of generated Calico settings
 * (test/generated-configs.ts, the manifest installer: the operator cannot run here), each deployed by the
 * real Pulumi engine in kubeconfig mode on a local control plane shaped like dev (test/cluster/engine-case.ts:
 * the preview's steps against the offline diff, `up` with the policy pack, `preview --expect-no-changes`).
 * Then a second `up` changes nothing; drift detection finds no drift right after each `up`
 * (`refresh --preview-only --expect-no-changes`, `refresh --expect-no-changes`, `preview --refresh
 * --expect-no-changes`); and a change made outside Pulumi, calico-node edited with kubectl, is reported by
 * both refreshes. EKS_CALICO_ENGINE_SAMPLES sets how many settings (default 2), EKS_CALICO_PROPERTY_SEED the
 * seed (printed; default a new one each run): docs/testing.md.
 */
import * as assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import fc from "fast-check";
import { disagreements, summary } from "./agreement";
import { EngineCase } from "./engine-case";
import { STANDARD_TYPHA, TAKEOVER_TYPHA } from "../../components/calico/names";
import { manifestCalicoSettings } from "../generated-configs";
import { engineSamples, propertyRun } from "../property-runs";

/** The earliest notAfter of the Typha CA and the two leaf certificates, as the cluster holds them. */
function earliestCertificateEnd(c: EngineCase, namespace: string): number {
  const pems = [
    ["configmap", "calico-typha-ca", "ca.crt"],
    ["secret", "calico-typha-tls", "tls.crt"],
    ["secret", "calico-felix-typha-tls", "tls.crt"],
  ].map(([kind, name, key]) => {
    const got = c.cluster.kubectl(["-n", namespace, "get", kind, name, "-o", "json"]);
    assert.ok(got.ok, got.output);
    const data = (JSON.parse(got.output) as { data: Record<string, string> }).data[key];
    return kind === "secret" ? Buffer.from(data, "base64").toString("utf8") : data;
  });
  return Math.min(...pems.map((pem) => Date.parse(new X509Certificate(pem).validTo)));
}

describe("Generated Calico settings on the real engine: the second up changes nothing, drift is only drift", function () {
  const { seed } = propertyRun(0);
  const settings = fc.sample(manifestCalicoSettings, { seed, numRuns: engineSamples() });
  this.timeout(settings.length * 20 * 60_000);

  settings.forEach((calico, index) => {
    it(`sample ${index + 1} of ${settings.length} (seed ${seed}): ${JSON.stringify(calico)}`, async function () {
      const c = await EngineCase.start(`generated ${seed} ${index + 1}`, {
        stack: "dev",
        config: { "eks-calico:calico": calico },
      });
      try {
        const typha = (calico.adopt === true ? TAKEOVER_TYPHA : STANDARD_TYPHA).name;
        const first = await c.up("first up");
        await c.kubectlAgrees("first up", first, typha);
        await c.refreshFindsNoDrift("after the first up");

        const second = await c.engine.run("up");
        assert.ok(second.ok, `second pulumi up failed: ${second.error ?? ""}`);
        const changed = second.steps.filter((step) => step.op !== "same").map((s) => `${s.op} ${s.urn}`);
        assert.deepEqual(changed, [], "the second pulumi up, with nothing changed, changes nothing");
        await c.kubectlAgrees("second up", second, typha);
        // To the second: the tls provider's validityEndTime keeps the fraction of Go's time (MarshalText),
        // which a certificate's notAfter drops (X.509 times are whole seconds).
        const expire = Date.parse(
          String((second.outputs.calico as Record<string, unknown>).typhaCertificatesExpire),
        );
        assert.equal(
          Math.floor(expire / 1000) * 1000,
          earliestCertificateEnd(c, String((second.outputs.calico as { namespace: string }).namespace)),
          "typhaCertificatesExpire is the earliest end of the certificates the workloads mount",
        );
        await c.refreshFindsNoDrift("after the second up");

        const namespace = String((second.outputs.calico as { namespace: string }).namespace);
        const edit = c.cluster.kubectl([
          "-n",
          namespace,
          "patch",
          "daemonset",
          "calico-node",
          "--type=merge",
          "-p",
          // A field the program sets (generated values are 1-4 or a percentage).
          JSON.stringify({ spec: { updateStrategy: { rollingUpdate: { maxUnavailable: 7 } } } }),
        ]);
        assert.ok(edit.ok, edit.output);
        await c.refreshFindsDrift(
          "calico-node edited with kubectl",
          "eks-calico:calico:PolicyOnly$kubernetes:apps/v1:DaemonSet::calico-daemonset-calico-node",
        );
      } finally {
        await c.stop();
      }
      assert.deepEqual(disagreements(), [], summary().join("\n"));
    });
  });
});
