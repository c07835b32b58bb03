/**
 * The adoption report (`npm start -- --adopt-from FILE`) against manifests in the shape of the
 * amazon-vpc-cni-k8s v1.5 and v1.6 Calico manifests and Calico's current policy-only manifest
 * (test/fixtures/adopt/): what is taken over and how it changes, what is left behind with the command to
 * remove it, what is created, which API versions a current cluster refuses, and what stops the switch.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ManifestError, parseManifest } from "../offline/adoption/manifest";
import type { ManifestObject } from "../offline/adoption/objects";
import { type AdoptionReport, adoptionReport } from "../offline/adoption/report";
import { PROJECT_ROOT, type StackEvaluation } from "../offline/engine";
import { evaluatedWith } from "./helpers";
import { runStart } from "./start-runner";

const FIXTURES = path.join(PROJECT_ROOT, "test", "fixtures", "adopt");
const ADOPT = { "eks-calico:calico": { adopt: true } };

function fixture(name: string): ManifestObject[] {
  const file = path.join(FIXTURES, name);
  return parseManifest(fs.readFileSync(file, "utf8"), file);
}

const takenOver = (report: AdoptionReport, object: string) => {
  const found = report.takenOver.find((t) => t.object === object);
  assert.ok(found, `${object} is taken over`);
  return found;
};
const leftBehind = (report: AdoptionReport) => new Map(report.leftBehind.map((l) => [l.object, l]));

describe("adoption report", () => {
  let adopting: StackEvaluation;
  before(async () => {
    adopting = await evaluatedWith("dev", { config: ADOPT });
  });

  it("v1.5 (2019): takes over calico-node from extensions/v1beta1, lists the old autoscaler to delete, and the dead APIs", () => {
    const report = adoptionReport(fixture("amazon-vpc-cni-v1.5.yaml"), adopting);
    assert.deepEqual(report.problems, []);
    const node = takenOver(report, "DaemonSet kube-system/calico-node");
    assert.deepEqual(node.apiVersion, { from: "extensions/v1beta1", to: "apps/v1" });
    const image = node.set.find((d) => d.path === "spec.template.spec.containers[calico-node].image");
    assert.deepEqual(
      [image?.before, image?.after],
      ["quay.io/calico/node:v3.3.6", "quay.io/calico/node:v3.31.7"],
    );
    const critical = node.removed.find((d) =>
      d.path.endsWith('["scheduler.alpha.kubernetes.io/critical-pod"]'),
    );
    assert.match(critical?.note ?? "", /ignored since Kubernetes 1\.16/);
    // The old Typha serves the old pods until they are replaced, then the retirement step deletes it,
    // and the old autoscaler (--target=deployment/calico-typha) with it.
    assert.deepEqual(
      report.retired.map((r) => r.object),
      [
        "Deployment kube-system/calico-typha",
        "PodDisruptionBudget kube-system/calico-typha",
        "Deployment kube-system/calico-typha-horizontal-autoscaler",
        "Service kube-system/calico-typha",
      ],
    );
    assert.match(report.retired[0].why, /accepts only Felix clients with this stack's certificates/);
    assert.match(
      report.retired[2].why,
      /^it scales the old Typha, calico-typha; left running, it would resize/,
    );
    const left = leftBehind(report);
    assert.equal(left.has("Deployment kube-system/calico-typha"), false);
    assert.equal(left.has("Deployment kube-system/calico-typha-horizontal-autoscaler"), false);
    assert.equal(
      left.get("ClusterRoleBinding typha-cpha")?.command,
      "kubectl delete clusterrolebinding.rbac.authorization.k8s.io typha-cpha",
    );
    for (const object of [
      "ConfigMap kube-system/calico-typha-horizontal-autoscaler",
      "Role kube-system/typha-cpha",
    ]) {
      assert.match(left.get(object)?.why ?? "", /the old Typha autoscaler/, object);
    }
    const removed = report.removedApis.join("\n");
    for (const api of [
      /extensions\/v1beta1 DaemonSet \(calico-node\): removed in Kubernetes 1\.16/,
      /apiextensions\.k8s\.io\/v1beta1 CustomResourceDefinition .*removed in Kubernetes 1\.22/,
      /rbac\.authorization\.k8s\.io\/v1beta1 ClusterRole .*removed in Kubernetes 1\.22/,
      /policy\/v1beta1 PodDisruptionBudget \(calico-typha\): removed in Kubernetes 1\.25/,
    ]) {
      assert.match(removed, api);
    }
    assert.ok(report.created.includes("Deployment kube-system/calico-typha-autoscaler"));
  });

  it("v1.6 (2020): CRDs compared as a current cluster holds them (v1 versions list), not as written in v1beta1", () => {
    const report = adoptionReport(fixture("amazon-vpc-cni-v1.6.yaml"), adopting);
    assert.deepEqual(report.problems, []);
    const crd = takenOver(report, "CustomResourceDefinition ipamblocks.crd.projectcalico.org");
    assert.deepEqual(crd.apiVersion, { from: "apiextensions.k8s.io/v1beta1", to: "apiextensions.k8s.io/v1" });
    assert.deepEqual(
      crd.removed.map((d) => d.path),
      [],
      "spec.version became versions[]: nothing of it stays behind",
    );
    const node = takenOver(report, "DaemonSet kube-system/calico-node");
    assert.equal(
      node.removed.some((d) => d.path.includes("critical-pod")),
      false,
    );
    assert.ok(!report.removedApis.some((r) => r.startsWith("extensions/")));
    assert.ok(report.removedApis.some((r) => r.startsWith("policy/v1beta1 PodDisruptionBudget")));
  });

  it("Calico's policy-only manifest: kube-controllers, the CNI plugin and its config left behind; the CNI installer flagged", () => {
    const report = adoptionReport(fixture("calico-policy-only.yaml"), adopting);
    assert.deepEqual(report.problems, []);
    const left = leftBehind(report);
    assert.equal(
      left.get("Deployment kube-system/calico-kube-controllers")?.command,
      "kubectl delete -n kube-system deployment.apps calico-kube-controllers",
    );
    assert.match(left.get("ConfigMap kube-system/calico-config")?.why ?? "", /Calico's CNI plugin/);
    assert.match(left.get("ClusterRole calico-cni-plugin")?.why ?? "", /aws-node's plugin wires pods/);
    // A CRD this release lacks is kept: deleting it would delete the objects of its kind.
    const crd = left.get("CustomResourceDefinition clusternetworkpolicies.policy.networking.k8s.io");
    assert.equal(crd?.delete, false);
    assert.equal(crd?.command, undefined);
    const node = takenOver(report, "DaemonSet kube-system/calico-node");
    const installer = node.removed.find((d) => d.path === "spec.template.spec.initContainers[install-cni]");
    assert.match(installer?.note ?? "", /Calico's CNI installer/);
    assert.ok(
      node.removed.some((d) => d.path === "spec.template.spec.containers[calico-node].env[USE_POD_CIDR]"),
    );
    const manage = node.set.find(
      (d) => d.path === "spec.template.spec.containers[calico-node].env[CALICO_MANAGE_CNI].value",
    );
    assert.deepEqual([manage?.before, manage?.after], ["true", "false"]);
    assert.deepEqual(report.removedApis, []);
  });

  it("stops the switch without calico.adopt, and where a selector differs", async () => {
    const plain = await evaluatedWith("dev", {});
    const report = adoptionReport(fixture("amazon-vpc-cni-v1.6.yaml"), plain);
    assert.equal(report.problems.length, 1);
    // Its CRDs (another install's) stop the takeover step before anything is applied, as the plan does.
    assert.match(
      report.problems[0],
      /objects of the manifest exist with the plan's kind and name: the takeover step refuses the \d+ CRDs this program did not make, before anything changes; set calico\.adopt: true/,
    );
    // The step's own refusal, on a real API server: test/cluster/redeploy.test.ts ("a CRD another install
    // made stops pulumi up with the takeover step's message").
    // Without CRDs, the first object's create fails with AlreadyExists.
    const withoutCrds = fixture("amazon-vpc-cni-v1.6.yaml").filter(
      (o) => o.kind !== "CustomResourceDefinition",
    );
    assert.match(
      adoptionReport(withoutCrds, plain).problems[0],
      /pulumi up fails with AlreadyExists on the first/,
    );
    const withSelector = (kind: string, name: string) =>
      fixture("amazon-vpc-cni-v1.6.yaml").map((o) =>
        o.kind === kind && o.metadata.name === name
          ? { ...o, spec: { ...(o.spec as object), selector: { matchLabels: { app: "other" } } } }
          : o,
      );
    assert.match(
      adoptionReport(withSelector("DaemonSet", "calico-node"), adopting).problems.join("\n"),
      /DaemonSet kube-system\/calico-node: the takeover would be refused: spec\.selector: .*field is immutable/,
    );
    // The old Typha is not taken over (the takeover runs its own beside it), so its selector is free.
    assert.deepEqual(adoptionReport(withSelector("Deployment", "calico-typha"), adopting).problems, []);
  });

  it("stops a manifest install beside a calico-node it would not take over (another namespace)", async () => {
    const elsewhere = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { adopt: true, namespace: "calico-system" } },
    });
    const report = adoptionReport(fixture("amazon-vpc-cni-v1.6.yaml"), elsewhere);
    assert.match(
      report.problems.join("\n"),
      /DaemonSet kube-system\/calico-node is not the one this plan runs .*two Felixes/,
    );
  });

  it("with the operator: the migration is the operator's, refused where its converter or the release stop it", async () => {
    const operator = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { installer: "operator" } },
    });
    const report = adoptionReport(fixture("amazon-vpc-cni-v1.6.yaml"), operator);
    assert.equal(report.installer, "operator");
    assert.match(
      leftBehind(report).get("DaemonSet kube-system/calico-node")?.why ?? "",
      /migrated by the Tigera operator/,
    );
    assert.deepEqual(report.problems, [
      "the operator cannot migrate DaemonSet kube-system/calico-node: the manifest runs Calico v3.13.4 and the Installation asks for v3.31.7: the operator migrates only the release that runs (set calico.version to v3.13.4, or upgrade first)",
    ]);
    const policyOnly = adoptionReport(fixture("calico-policy-only.yaml"), operator);
    assert.match(policyOnly.problems.join("\n"), /env CALICO_MANAGE_CNI/);
  });

  it("reads List objects, skips empty documents, and names the line of what it cannot read", () => {
    const objects = parseManifest(
      "---\n---\napiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ServiceAccount\n    metadata: {name: a, namespace: kube-system}\n",
      "m.yaml",
    );
    assert.deepEqual(
      objects.map((o) => o.metadata.name),
      ["a"],
    );
    assert.throws(
      () => parseManifest("kind: [", "bad.yaml"),
      (e: unknown) => e instanceof ManifestError && /^bad\.yaml:1:/.test(e.message),
    );
    assert.throws(
      () => parseManifest("apiVersion: v1\nkind: ConfigMap\n", "x.yaml"),
      /x\.yaml:1 \(document 1\): a Kubernetes object needs apiVersion, kind and metadata\.name/,
    );
  });

  describe("npm start --adopt-from", () => {
    let tmp: string;
    before(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-adopt-"));
    });
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const manifest = path.join(FIXTURES, "amazon-vpc-cni-v1.5.yaml");

    it("exits 2 with the report when the switch cannot go ahead", async () => {
      const { code, out } = await runStart("--out", tmp, "--adopt-from", manifest);
      assert.equal(code, 2);
      assert.match(out, /The switch cannot go ahead \(1\):\n {2}- \d+ objects of the manifest exist/);
    });

    it("reports what the plan takes over and leaves behind, and writes adoption.txt", async () => {
      const { code, out } = await runStart(
        "--out",
        tmp,
        "--adopt-from",
        manifest,
        "--config",
        'eks-calico:calico={"adopt":true}',
      );
      assert.equal(code, 0);
      assert.match(out, /\n {2}DaemonSet kube-system\/calico-node {2}\(extensions\/v1beta1 -> apps\/v1\)\n/);
      assert.match(out, /Nothing stops the switch\./);
      const written = fs.readFileSync(path.join(tmp, "dev", "adoption.txt"), "utf8");
      assert.match(
        written,
        /\n {2}Deployment kube-system\/calico-typha-horizontal-autoscaler: it scales the old Typha, calico-typha;/,
      );
      assert.match(written, /after the switch: kubectl delete -n kube-system serviceaccount typha-cpha/);
    });

    it("exits 2 for a manifest it cannot read", async () => {
      const bad = path.join(tmp, "bad.yaml");
      fs.writeFileSync(bad, "kind: [\n");
      const { code, err } = await runStart("--out", tmp, "--adopt-from", bad);
      assert.equal(code, 2);
      assert.match(err, /--adopt-from: .*bad\.yaml:\d+:\d+: /);
    });
  });
});
