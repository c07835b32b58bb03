/** Operator mode's config rules, release table, RBAC, and switching install mode on a deployed stack. */
import * as assert from "node:assert/strict";
import { renderCalicoNode } from "../components/calico/daemonset";
import { conversionBlockers } from "../components/calico/operator/migration";
import { operatorRules } from "../components/calico/operator/rbac";
import { OPERATOR_CALICO_RELEASES, requireOperatorVersion } from "../components/calico/operator/releases";
import { installationRegistry } from "../components/calico/operator/settings";
import { evaluateStackExpectingError } from "../offline/engine";
import { ConfigError } from "../stacks";
import { calicoStep } from "../stacks/previous";
import { stackConfigSchema } from "../stacks/schema";
import { evaluatedWith, one, ofType } from "./helpers";

const baseConfig = {
  nodeGroups: [{ name: "general", instanceTypes: ["m6i.large"], minSize: 1, desiredSize: 2, maxSize: 3 }],
};

function problems(calico: Record<string, unknown>): string[] {
  const parsed = stackConfigSchema.safeParse({ ...baseConfig, calico });
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

const calicoDefaults = () => stackConfigSchema.parse(baseConfig).calico;

describe("operator config", () => {
  it("refuses a release the operator table lacks, naming every supported one", () => {
    const found = problems({ installer: "operator", version: "v3.31.2" });
    assert.equal(found.length, 1);
    assert.match(found[0], /^calico\.version: /);
    for (const release of OPERATOR_CALICO_RELEASES) assert.ok(found[0].includes(release), release);
    assert.deepEqual(problems({ installer: "operator", version: "v3.32.1" }), []);
    // The manifest install takes any release of a supported line.
    assert.deepEqual(problems({ version: "v3.31.2" }), []);
    assert.throws(
      () => requireOperatorVersion("v3.31.2"),
      /supports v3\.31\.6, v3\.31\.7, v3\.32\.0, v3\.32\.1/,
    );
  });

  it("refuses keys only the other mode reads, all at once", () => {
    const found = problems({
      installer: "operator",
      namespace: "calico",
      autoscalerRegistry: "mirror.example.com/cpa",
      // Both installs run the startup taint's remover.
      startupTaintRegistry: "mirror.example.com/k8s",
      registry: "mirror.example.com",
    });
    assert.deepEqual(
      found.map((p) => p.split(":")[0]),
      ["namespace", "autoscalerRegistry", "registry"].map((k) => `calico.${k}`),
    );
    const manifest = problems({ observability: true, operatorRegistry: "mirror.example.com/tigera" });
    assert.deepEqual(
      manifest.map((p) => p.split(":")[0]),
      ["calico.observability", "calico.operatorRegistry"],
    );
    assert.deepEqual(problems({ installer: "helm" }).length, 1);
  });

  it("maps a registry prefix onto the Installation's registry and imagePath", () => {
    assert.deepEqual(installationRegistry("quay.io/calico"), { registry: "quay.io/", imagePath: "calico" });
    assert.deepEqual(installationRegistry("r.example.com:5000/a/b"), {
      registry: "r.example.com:5000/",
      imagePath: "a/b",
    });
    assert.equal(installationRegistry("r.example.com"), undefined);
  });

  it("grants the operator no wildcard in verbs, resources or apiGroups, for every release", () => {
    for (const release of OPERATOR_CALICO_RELEASES) {
      for (const rule of operatorRules(release)) {
        for (const field of [rule.verbs, rule.resources ?? [], rule.apiGroups ?? []]) {
          assert.ok(!field.some((entry) => entry.includes("*")), `${release}: ${JSON.stringify(rule)}`);
        }
      }
      // What -manage-crds needs, and what the operator needs to run the Installation.
      const grants = (group: string, resource: string, verb: string) =>
        operatorRules(release).some(
          (r) =>
            (r.apiGroups ?? []).includes(group) &&
            (r.resources ?? []).includes(resource) &&
            r.verbs.includes(verb) &&
            r.resourceNames === undefined,
        );
      assert.ok(grants("apiextensions.k8s.io", "customresourcedefinitions", "create"), release);
      assert.ok(grants("operator.tigera.io", "installations/status", "update"), release);
      assert.ok(grants("apps", "daemonsets", "create"), release);
      // PodSecurityPolicy is gone from every Kubernetes release this program deploys.
      assert.ok(!operatorRules(release).some((r) => (r.resources ?? []).includes("podsecuritypolicies")));
    }
    // Rule counts of the upstream ClusterRole per release, less its two PodSecurityPolicy rules.
    assert.deepEqual(
      OPERATOR_CALICO_RELEASES.map((r) => operatorRules(r).length),
      [37, 37, 47, 48],
    );
  });

  it("plans the operator's RBAC objects and its privileged namespace", async () => {
    const plan = await evaluatedWith("dev", { config: { "eks-calico:calico": { installer: "operator" } } });
    const roles = ofType(plan, "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole").map((r) => r.name);
    assert.deepEqual(roles.sort(), [
      "calico-role-eks-calico-aws-node-pod-patch",
      "calico-role-tigera-operator",
      "calico-role-tigera-operator-secrets",
      "calico-startup-taint-cluster-role",
    ]);
    const namespace = one(plan, "kubernetes:core/v1:Namespace", "calico-namespace-tigera-operator");
    assert.equal(
      (namespace.inputs.metadata as { labels: Record<string, string> }).labels[
        "pod-security.kubernetes.io/enforce"
      ],
      "privileged",
    );
  });
});

describe("switching install mode", () => {
  const previousManifest = { installer: "manifest" as const, version: "v3.31.7", namespace: "kube-system" };

  it("finds what the operator's converter cannot convert in this program's calico-node", () => {
    const blockers = conversionBlockers(renderCalicoNode("kube-system", "quay.io/calico", "v3.31.7", "10%"));
    for (const expected of [
      "CALICO_MANAGE_CNI",
      "FELIX_ROUTETABLERANGES",
      "FELIX_TYPHACAFILE",
      "FELIX_TYPHAK8SNAMESPACE",
      "affinity",
    ]) {
      assert.ok(
        blockers.some((b) => b.includes(expected)),
        expected,
      );
    }
    assert.ok(!blockers.some((b) => b.includes("FELIX_ROUTESOURCE") || b.includes("DATASTORE_TYPE")));
  });

  it("refuses manifest to operator in place, names the release change, and reinstalls when asked", () => {
    const config = { ...calicoDefaults(), installer: "operator" as const, version: "v3.32.1" };
    const refused = calicoStep(previousManifest, config);
    assert.ok("problems" in refused);
    assert.equal(refused.problems[0].path, "calico.installer");
    // Each reason the operator cannot convert the install is listed under the rule.
    const reasons = refused.problems[0].details ?? [];
    assert.match(refused.problems[0].rule, new RegExp(`for these ${reasons.length} reasons$`));
    assert.ok(
      reasons.some((r) => /release changes from v3\.31\.7 to v3\.32\.1/.test(r)),
      reasons.join("\n"),
    );
    assert.ok(
      reasons.some((r) => r.includes("CALICO_MANAGE_CNI")),
      reasons.join("\n"),
    );
    assert.match(refused.problems[0].hint ?? "", /^set calico\.reinstall: true to reinstall instead/);
    assert.deepEqual(calicoStep(previousManifest, { ...config, reinstall: true }), {
      step: "remove-for-reinstall",
    });
    // Nothing deployed, the same mode, or the second update of a reinstall: install.
    assert.deepEqual(calicoStep(undefined, config), { step: "install" });
    assert.deepEqual(calicoStep({ installer: "none" }, config), { step: "install" });
    assert.deepEqual(calicoStep({ installer: "operator", version: "v3.31.7" }, config), { step: "install" });
  });

  it("refuses operator to manifest, even with reinstall", () => {
    const step = calicoStep(
      { installer: "operator", version: "v3.31.7" },
      { ...calicoDefaults(), reinstall: true },
    );
    assert.ok("problems" in step);
    assert.match(step.problems[0].rule, /AlreadyExists/);
  });

  it("reads the deployed install from the stack's own last outputs, through the real program", async () => {
    const switched = { "eks-calico:calico": { installer: "operator" } };
    const deployed = { calico: { installer: "manifest", version: "v3.31.7", namespace: "kube-system" } };
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: switched,
      previousOutputs: deployed,
    });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      resources.map((r) => r.type),
      ["pulumi:pulumi:Stack"],
      "refused before any resource but the stack itself is registered",
    );

    const first = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { installer: "operator", reinstall: true } },
      previousOutputs: deployed,
    });
    assert.equal(
      ofType(first, "eks-calico:calico:PolicyOnly").length +
        ofType(first, "eks-calico:calico:Operator").length,
      0,
    );
    assert.equal((first.outputs.calico as { installer: string }).installer, "none");
    const second = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { installer: "operator", reinstall: true } },
      previousOutputs: { calico: first.outputs.calico },
    });
    assert.equal(ofType(second, "eks-calico:calico:Operator").length, 1);
  });
});
