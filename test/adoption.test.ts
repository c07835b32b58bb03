/**
 * `calico.adopt`: Calico objects that already exist in the cluster (applied with kubectl) are taken over
 * through a provider that upserts them and forces field ownership; without it the plan fails as
 * pulumi-kubernetes 4.29+ does (AlreadyExists). The probe keeps the ordinary provider, and turning
 * adoption off moves the objects back without replacing them.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseAllDocuments } from "yaml";
import { fieldDifferences } from "../offline/adoption/fields";
import type { ManifestObject } from "../offline/adoption/objects";
import { renderCalicoYaml } from "../offline/calico-yaml";
import { diffDocuments } from "../offline/diff";
import { SimulatedFailure, type StackEvaluation, evaluateStackExpectingError } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { evaluated, evaluatedWith, input, one, ofType } from "./helpers";
import { ADOPT_FIELD_MANAGER, FIELD_MANAGER_ANNOTATION, TAKEOVER_TYPE } from "../components/calico/takeover";
import { TYPHA_OBJECT_KINDS, TYPHA_RETIREMENT_TYPE } from "../components/calico/takeover/typha-retirement";
import { CALICO_TYPHA } from "../components/calico/names";

const PROVIDER = "pulumi:providers:kubernetes";
const TYPHA_KINDS = new Set<string>(TYPHA_OBJECT_KINDS.map((k) => k.kind));
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

  it("fails the plan with AlreadyExists when Calico exists and adoption is off", async () => {
    const { error } = await evaluateStackExpectingError("dev", {
      simulate: { existingObjects: applied(dev) },
    });
    assert.ok(error instanceof SimulatedFailure, String(error));
    assert.match(error.message, /already exists in the cluster .*set calico\.adopt: true/);
  });

  it("takes every existing object over through an upserting provider; the probe keeps the ordinary one", async () => {
    const adopted = await evaluatedWith("dev", {
      config: ADOPT,
      simulate: { existingObjects: applied(dev) },
    });
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
    const takenOver = adopted.simulated.filter((line) =>
      line.includes(": taken over from the existing object"),
    );
    // All but the old Typha, which serves the old pods beside the takeover's own, then is deleted.
    const typha = applied(dev).filter((o) => o.metadata.name === CALICO_TYPHA && TYPHA_KINDS.has(o.kind));
    assert.equal(typha.length, 3);
    assert.equal(takenOver.length, applied(dev).length - typha.length);
    assert.ok(
      adopted.simulated.includes(
        "the old Typha deleted once every calico-node pod runs this program's spec (simulated as rolled out): Deployment kube-system/calico-typha, Service kube-system/calico-typha, PodDisruptionBudget kube-system/calico-typha",
      ),
      adopted.simulated.join("\n"),
    );
    assert.equal((adopted.outputs.calico as { isReady: boolean }).isReady, true);
  });

  it("hands kubectl's fields to one field manager before any object is applied over an existing one", async () => {
    const adopted = await evaluatedWith("dev", {
      config: ADOPT,
      simulate: { existingObjects: applied(dev) },
    });
    const takeover = one(adopted, TAKEOVER_TYPE, "calico-takeover");
    assert.deepEqual(takeover.secretInputs.includes("kubeconfig"), true);
    assert.equal(input(takeover, "fieldManager"), ADOPT_FIELD_MANAGER);
    const calico = adopted.resources.filter(
      (r) => r.custom && r.type.startsWith("kubernetes:") && !r.name.startsWith("calico-probe-"),
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

  it("keeps a CRD's stricter schema where this program's spec is open, never weakening it", async () => {
    const strict = parseAllDocuments(
      fs.readFileSync(path.join(__dirname, "fixtures", "strict-crd", "ippools.yaml"), "utf8"),
    ).map((d) => d.toJS() as ManifestObject);
    const felix = applied(dev).find(
      (o) =>
        o.kind === "CustomResourceDefinition" &&
        o.metadata.name === "felixconfigurations.crd.projectcalico.org",
    );
    assert.ok(felix);
    const adopted = await evaluatedWith("dev", {
      config: ADOPT,
      simulate: { existingObjects: [...strict, felix] },
    });
    const takeover = one(adopted, TAKEOVER_TYPE, "calico-takeover");
    const open = input<{ name: string }[]>(takeover, "openSchemas").map((o) => o.name);
    assert.ok(open.includes("ippools.crd.projectcalico.org"));
    assert.ok(!open.includes("felixconfigurations.crd.projectcalico.org"), "a typed spec is not open");
    const schemaOf = (evaluation: StackEvaluation, name: string) =>
      (
        one(evaluation, "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", name).inputs.spec as {
          versions: { schema: { openAPIV3Schema: unknown } }[];
        }
      ).versions[0].schema.openAPIV3Schema;
    const existing = (strict[0].spec as { versions: { schema: { openAPIV3Schema: unknown } }[] }).versions[0];
    assert.deepEqual(schemaOf(adopted, "calico-crd-ippools"), existing.schema.openAPIV3Schema);
    // Written by an older Calico line: not kept, so nothing later lines added is pruned.
    const older = strict.map((o) =>
      o.kind === "DaemonSet"
        ? (JSON.parse(JSON.stringify(o).replace(":v3.31.7", ":v3.30.4")) as ManifestObject)
        : o,
    );
    const fromOlder = await evaluatedWith("dev", {
      config: ADOPT,
      simulate: { existingObjects: [...older, felix] },
    });
    assert.deepEqual(schemaOf(fromOlder, "calico-crd-ippools"), schemaOf(dev, "calico-crd-ippools"));
    // This program's own typed schema stays where it types the spec; elsewhere, its open one.
    assert.deepEqual(
      schemaOf(adopted, "calico-crd-felixconfigurations"),
      schemaOf(dev, "calico-crd-felixconfigurations"),
    );
    assert.deepEqual(schemaOf(adopted, "calico-crd-bgppeers"), schemaOf(dev, "calico-crd-bgppeers"));
  });

  it("refuses, before anything changes, CRDs another install made when adoption is off", async () => {
    const manifest = parseAllDocuments(
      fs.readFileSync(path.join(__dirname, "fixtures", "adopt", "calico-policy-only.yaml"), "utf8"),
    )
      .map((d) => d.toJS() as ManifestObject | null)
      .filter((o): o is ManifestObject => o !== null && o.kind === "CustomResourceDefinition");
    assert.ok(manifest.length > 0);
    const { error } = await evaluateStackExpectingError("dev", { simulate: { existingObjects: manifest } });
    assert.ok(error instanceof SimulatedFailure, String(error));
    assert.match(error.message, /^These Calico objects exist already, and this program did not make them:/);
    assert.match(error.message, /CustomResourceDefinition felixconfigurations\.crd\.projectcalico\.org/);
    assert.match(error.message, /set calico\.adopt: true/);
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
    const adopted = await evaluatedWith("dev", { config: ADOPT, simulate: { existingObjects: withOldEnv } });
    const line = adopted.simulated.find((l) => l.startsWith("DaemonSet kube-system/calico-node: taken over"));
    assert.match(
      line ?? "",
      /removed, as this program does not set them: spec\.template\.spec\.containers\[calico-node\]\.env\[FELIX_OLDSETTING\]/,
    );
  });

  it("fails the takeover where an immutable field differs (a workload's selector)", async () => {
    const otherSelector = applied(dev, (o) =>
      o.kind === "DaemonSet"
        ? { ...o, spec: { ...(o.spec as object), selector: { matchLabels: { app: "calico" } } } }
        : o,
    );
    const { error } = await evaluateStackExpectingError("dev", {
      config: ADOPT,
      simulate: { existingObjects: otherSelector },
    });
    assert.ok(error instanceof SimulatedFailure, String(error));
    assert.match(error.message, /DaemonSet kube-system\/calico-node: .*spec\.selector: .*field is immutable/);
  });

  it("moves the objects back to the ordinary provider, without replacing them, when adoption is turned off", async () => {
    const adopted = await evaluatedWith("dev", { config: ADOPT });
    const diff = diffDocuments(resourcesDocument(adopted), resourcesDocument(dev));
    // Only the probe's run (its Jobs and anchor), renamed so the check runs again: adoption is an input of
    // enforcement.
    assert.deepEqual(
      diff.changed.filter((r) => r.op === "replace").map((r) => r.heading),
      [
        "kubernetes:batch/v1:Job calico-probe-allowed-client",
        "kubernetes:batch/v1:Job calico-probe-denied-client",
        "kubernetes:batch/v1:Job calico-probe-other-node-probe-allowed-client",
        "kubernetes:batch/v1:Job calico-probe-other-node-probe-denied-client",
        "kubernetes:core/v1:Pod calico-probe-anchor",
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
    const existing = await evaluated("existing.example");
    const adopted = await evaluatedWith("existing.example", {
      config: ADOPT,
      simulate: { existingObjects: applied(existing) },
    });
    assert.equal(
      adopted.simulated.filter((line) => line.includes(": taken over from the existing object")).length,
      applied(existing).filter((o) => !(o.metadata.name === CALICO_TYPHA && TYPHA_KINDS.has(o.kind))).length,
    );
    assert.equal(
      input(one(adopted, PROVIDER, "calico-adopt"), "clusterIdentifier"),
      input(one(adopted, PROVIDER, "cluster"), "clusterIdentifier"),
    );
  });

  it("refuses adoption with the operator, which migrates a manifest install itself", async () => {
    const { error } = await evaluateStackExpectingError("dev", {
      config: { "eks-calico:calico": { adopt: true, installer: "operator" } },
    });
    assert.match(String(error), /calico\.adopt: applies to installer "manifest" only/);
  });

  it("compares fields as a forced server-side apply merges them: by name in named lists, whole otherwise", () => {
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
      ["kept spec.containers[c].env[B]", "set spec.containers[c].image", "set spec.tolerations"],
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
