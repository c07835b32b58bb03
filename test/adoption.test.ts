/**
 * `calico.adopt`: Calico objects that already exist in the cluster (applied with kubectl) are taken over
 * through a provider that upserts them and forces field ownership, after the takeover step hands kubectl's
 * fields over. The probe keeps the ordinary provider, and turning adoption off moves the objects back
 * without replacing them. What the step finds in a cluster is known after up: the real takeover runs on a
 * local control plane (test/cluster/takeover.test.ts), and the adoption report (test/adoption-report.test.ts)
 * says beforehand what it takes over and removes.
 */
import * as assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { adoptionReport, fieldDifferences } from "../offline/adoption/report";
import type { ManifestObject } from "../offline/adoption/objects";
import { renderCalicoYaml } from "../offline/calico-yaml";
import { diffDocuments } from "../offline/diff";
import { KNOWN_AFTER_UP, type StackEvaluation, evaluateStackExpectingError } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { evaluated, evaluatedWith, input, one, ofType } from "./helpers";
import { ADOPT_FIELD_MANAGER, FIELD_MANAGER_ANNOTATION, TAKEOVER_TYPE } from "../components/calico/takeover";
import { TYPHA_RETIREMENT_TYPE } from "../components/calico/takeover/typha-retirement";
import { CALICO_TYPHA, TAKEOVER_TYPHA } from "../components/calico/names";

const PROVIDER = "pulumi:providers:kubernetes";
const ADOPT = { "eks-calico:calico": { adopt: true } };
const PROBE_NAMESPACE = "calico-policy-probe";

/** The Calico objects of a stack's calico.yaml (not the probe's), as if applied with `kubectl apply -f`. */
function applied(evaluation: StackEvaluation, edit: (o: ManifestObject) => ManifestObject = (o) => o) {
  const probe = (o: ManifestObject) =>
    o.metadata.namespace === PROBE_NAMESPACE ||
    (o.kind === "Namespace" && o.metadata.name === PROBE_NAMESPACE);
  return parseAllDocuments(renderCalicoYaml(evaluation))
    .map((d) => d.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null && !probe(o))
    .map(edit);
}

describe("taking over a Calico installed with kubectl (calico.adopt)", () => {
  let dev: StackEvaluation;
  before(async () => {
    dev = await evaluated("dev");
  });

  it("takes every existing object over through an upserting provider; the probe keeps the ordinary one", async () => {
    const adopted = await evaluatedWith("dev", { config: ADOPT });
    const adopting = one(adopted, PROVIDER, "calico-adopt");
    // The SDK sends a provider's settings as strings.
    assert.equal(input(adopting, "upsertExistingObjects"), "true");
    assert.equal(input(adopting, "enablePatchForce"), "true");
    const ordinary = one(adopted, PROVIDER, "cluster-k8s");
    // The same cluster, so objects can move between the two without being replaced.
    assert.equal(input(adopting, "clusterIdentifier"), input(ordinary, "clusterIdentifier"));
    assert.deepEqual(adopted.resources.find((r) => r.urn === adopting.urn)?.secretInputs, ["kubeconfig"]);
    for (const r of adopted.resources.filter((r) => r.type.startsWith("kubernetes:"))) {
      const probe = r.name.startsWith("calico-probe-");
      assert.equal(r.provider, probe ? ordinary.urn : adopting.urn, r.name);
    }
    // The old Typha serves the old pods beside the takeover's own, then the retirement step deletes it.
    const retirement = one(adopted, TYPHA_RETIREMENT_TYPE, "calico-typha-retirement");
    assert.deepEqual(
      [input(retirement, "retired"), input(retirement, "serving")],
      [CALICO_TYPHA, TAKEOVER_TYPHA.name],
    );
    // What the step found, and so whether Calico got ready over it, is known after up.
    assert.equal((adopted.outputs.calico as { isReady: unknown }).isReady, KNOWN_AFTER_UP);
  });

  it("hands kubectl's fields to one field manager before any object is applied over an existing one", async () => {
    const adopted = await evaluatedWith("dev", { config: ADOPT });
    const takeover = one(adopted, TAKEOVER_TYPE, "calico-takeover");
    assert.deepEqual(takeover.secretInputs.includes("kubeconfig"), true);
    assert.equal(input(takeover, "fieldManager"), ADOPT_FIELD_MANAGER);
    const calico = adopted.resources.filter(
      (r) =>
        r.custom &&
        r.type.startsWith("kubernetes:") &&
        !r.name.startsWith("calico-probe-") &&
        // The startup taint's remover is this program's own: no kubectl install has it.
        !r.name.includes("-startup-taint-"),
    );
    // Every Calico object is in the takeover's list, names that field manager, and waits for the takeover.
    const refs = input<{ kind: string; name: string; namespace?: string }[]>(takeover, "objects");
    const key = (kind: unknown, name: unknown, namespace: unknown) =>
      [kind, namespace ?? "", name].map(String).join("/");
    assert.deepEqual(
      refs.map((r) => key(r.kind, r.name, r.namespace)).sort(),
      calico
        .map((r) => {
          const metadata = r.inputs.metadata as { name: string; namespace?: string };
          return key(r.inputs.kind, metadata.name, metadata.namespace);
        })
        .sort(),
    );
    for (const r of calico) {
      const annotations = (r.inputs.metadata as { annotations?: Record<string, string> }).annotations;
      assert.equal(annotations?.[FIELD_MANAGER_ANNOTATION], ADOPT_FIELD_MANAGER, r.name);
      assert.ok(r.dependencies.includes(takeover.urn), `${r.name} waits for the takeover`);
    }
    // The plan shows the code the step runs by its digest, not as kilobytes of serialized JavaScript.
    const shown = resourcesDocument(adopted).resources.find((r) => r.type === TAKEOVER_TYPE);
    assert.match(String(shown?.inputs.__provider), /^<dynamic provider code sha256:[0-9a-f]{12}>$/);
    assert.equal(shown?.inputs.kubeconfig, "[secret]");
    // Without adoption, the step checks the CRDs only, which alone name that field manager (they outlive
    // the stack and are applied again after a destroy); the other objects keep the provider's own.
    const check = one(dev, TAKEOVER_TYPE, "calico-takeover");
    assert.equal(input(check, "adopt"), false);
    const crds = ofType(dev, "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition");
    assert.ok(crds.length > 20);
    assert.deepEqual(
      input<{ kind: string; name: string }[]>(check, "objects")
        .map((r) => `${r.kind}/${r.name}`)
        .sort(),
      crds
        .map((r) => `CustomResourceDefinition/${String((r.inputs.metadata as { name: string }).name)}`)
        .sort(),
    );
    for (const r of dev.resources.filter((r) => r.type.startsWith("kubernetes:") && r.custom)) {
      const annotations = (r.inputs.metadata as { annotations?: Record<string, string> } | undefined)
        ?.annotations;
      const crd = r.type.endsWith(":CustomResourceDefinition");
      assert.equal(annotations?.[FIELD_MANAGER_ANNOTATION], crd ? ADOPT_FIELD_MANAGER : undefined, r.name);
      if (r.parent?.endsWith("::calico")) assert.ok(r.dependencies.includes(check.urn), r.name);
    }
  });

  it("applies an open CRD with the schema the takeover step finds, known after up; a typed one as rendered", async () => {
    const adopted = await evaluatedWith("dev", { config: ADOPT });
    const takeover = one(adopted, TAKEOVER_TYPE, "calico-takeover");
    const open = input<{ name: string }[]>(takeover, "openSchemas").map((o) => o.name);
    assert.ok(open.includes("ippools.crd.projectcalico.org"));
    assert.ok(!open.includes("felixconfigurations.crd.projectcalico.org"), "a typed spec is not open");
    const versionsOf = (name: string) =>
      (
        one(adopted, "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", name).inputs.spec as {
          versions: unknown;
        }
      ).versions;
    // The stricter schema a cluster has is kept (test/cluster/takeover.test.ts): only the step knows it.
    assert.equal(versionsOf("calico-crd-ippools"), KNOWN_AFTER_UP);
    assert.ok(Array.isArray(versionsOf("calico-crd-felixconfigurations")));
    // calico.yaml has the program's own schema, and says the cluster's stricter one would be kept.
    const ippools = applied(adopted).find((o) => o.metadata.name === "ippools.crd.projectcalico.org");
    assert.ok(Array.isArray((ippools?.spec as { versions?: unknown }).versions));
  });

  it("says which fields of an old object the takeover removes (kubectl's fields, handed over first)", async () => {
    const withOldEnv = applied(dev, (o) => {
      if (o.kind !== "DaemonSet") return o;
      const copy = structuredClone(o) as ManifestObject & {
        spec: {
          template: { spec: { containers: { name: string; env: { name: string; value: string }[] }[] } };
        };
      };
      copy.spec.template.spec.containers[0].env.push({ name: "FELIX_OLDSETTING", value: "1" });
      return copy;
    });
    const adopted = await evaluatedWith("dev", { config: ADOPT });
    const node = adoptionReport(withOldEnv, adopted).takenOver.find(
      (t) => t.object === "DaemonSet kube-system/calico-node",
    );
    assert.deepEqual(
      node?.removed.map((d) => d.path),
      ["spec.template.spec.containers[calico-node].env[FELIX_OLDSETTING]"],
    );
  });

  it("moves the objects back to the ordinary provider, without replacing them, when adoption is turned off", async () => {
    const adopted = await evaluatedWith("dev", { config: ADOPT });
    const diff = diffDocuments(resourcesDocument(adopted), resourcesDocument(dev));
    // Only the probe's run (its Jobs and anchor), renamed so the check runs again: adoption is an input of
    // enforcement. The other-node Jobs follow the new anchor's placement: known after up, they may be.
    assert.deepEqual(
      diff.changed.filter((r) => r.op === "replace" || r.op === "unknown").map((r) => `${r.op} ${r.heading}`),
      [
        "replace kubernetes:batch/v1:Job calico-probe-allowed-client",
        "replace kubernetes:batch/v1:Job calico-probe-denied-client",
        "unknown kubernetes:batch/v1:Job calico-probe-other-node-probe-allowed-client",
        "unknown kubernetes:batch/v1:Job calico-probe-other-node-probe-denied-client",
        "unknown kubernetes:batch/v1:Job calico-probe-other-node-probe-recheck-client",
        "replace kubernetes:batch/v1:Job calico-probe-recheck-client",
        "replace kubernetes:core/v1:Pod calico-probe-anchor",
      ],
    );
    // The takeover's Typha and its retirement step go (last, as Pulumi deletes removed resources after
    // every other step); calico-typha comes back under the ordinary provider.
    assert.deepEqual(
      diff.removed.map((r) => r.heading),
      [
        "kubernetes:apps/v1:Deployment calico-deployment-calico-typha-takeover",
        "kubernetes:core/v1:Service calico-service-calico-typha-takeover",
        "kubernetes:policy/v1:PodDisruptionBudget calico-pdb-calico-typha-takeover",
        `${TYPHA_RETIREMENT_TYPE} calico-typha-retirement`,
        `${PROVIDER} calico-adopt`,
      ],
    );
    // The step stays, checking the CRDs only; the CRDs move to their own upserting provider.
    assert.equal(diff.changed.find((r) => r.heading === `${TAKEOVER_TYPE} calico-takeover`)?.op, "update");
    assert.deepEqual(
      diff.added.map((r) => r.heading),
      [
        "kubernetes:apps/v1:Deployment calico-deployment-calico-typha",
        "kubernetes:core/v1:Service calico-service-calico-typha",
        "kubernetes:policy/v1:PodDisruptionBudget calico-pdb-calico-typha",
        `${PROVIDER} calico-crds`,
      ],
    );
    const moved = diff.changed.filter((r) => r.changes.some((c) => c.path === "provider"));
    assert.ok(moved.length > 10);
    assert.ok(
      moved.every((r) =>
        r.changes.some((c) => c.note === "another provider for the same cluster: moved, not replaced"),
      ),
    );
  });

  it("takes over a kubectl-installed Calico on an existing cluster as well", async () => {
    const adopted = await evaluatedWith("existing.example", { config: ADOPT });
    assert.equal(
      input(one(adopted, PROVIDER, "calico-adopt"), "clusterIdentifier"),
      input(one(adopted, PROVIDER, "cluster"), "clusterIdentifier"),
    );
    const report = adoptionReport(applied(await evaluated("existing.example")), adopted);
    assert.deepEqual(report.problems, []);
    assert.equal(report.retired.length, 3, "the old Typha's Deployment, Service and PodDisruptionBudget");
  });

  it("refuses adoption with the operator, which migrates a manifest install itself", async () => {
    const { error } = await evaluateStackExpectingError("dev", {
      config: { "eks-calico:calico": { adopt: true, installer: "operator" } },
    });
    assert.match(String(error), /calico\.adopt: applies to installer "manifest" only/);
  });

  it("compares fields item by item in lists whose items are named, whole otherwise", () => {
    const existing = {
      metadata: {
        name: "x",
        labels: { a: "1" },
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" },
      },
      spec: {
        containers: [
          {
            name: "c",
            image: "old",
            env: [
              { name: "A", value: "1" },
              { name: "B", value: "2" },
            ],
          },
        ],
        tolerations: [{ operator: "Exists" }],
      },
    };
    const ours = {
      metadata: { name: "x", labels: { a: "1" } },
      spec: { containers: [{ name: "c", image: "new", env: [{ name: "A", value: "1" }] }], tolerations: [] },
    };
    assert.deepEqual(
      fieldDifferences(existing, ours).map((d) => `${d.kind} ${d.path}`),
      ["removed spec.containers[c].env[B]", "set spec.containers[c].image", "set spec.tolerations"],
    );
    assert.deepEqual(
      ofType(dev, PROVIDER)
        .map((r) => r.name)
        .sort(),
      ["calico-crds", "cluster-k8s"],
      "no adopting provider unless asked",
    );
  });
});
