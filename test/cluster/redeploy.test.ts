/**
 * `pulumi destroy`, then `pulumi up`, on a real API server, for each stack mode with manifest-installed
 * Calico: destroy removes every object but the CRDs (retained: deleting one deletes every policy of its
 * kind), and the next deployment takes those back (the takeover step, then the CRDs' upserting
 * provider) instead of failing with AlreadyExists. A CRD another install made is refused by the step,
 * before anything changes, unless `calico.adopt` is set.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { type PlannedObject, LocalCluster, plan, planObjects } from "../../local-cluster/deploy";
import type { ConfigOverrides, StackEvaluation } from "../../offline/engine";
import { calicoObjects } from "../../offline/calico-yaml";
import { parseManifest } from "../../offline/adoption/manifest";
import { ADOPT_FIELD_MANAGER, FIELD_MANAGER_ANNOTATION } from "../../components/calico/takeover";
import type { ManagedFieldsEntry } from "../../components/calico/takeover/managed-fields";
import { compare, summary } from "./agreement";
import { runTakeoverStep } from "./takeover-step";

const DIR = path.join(os.tmpdir(), `eks-calico-redeploy-test-${process.pid}`);
const CRD = "CustomResourceDefinition";

interface Mode {
  readonly name: string;
  readonly plan: (cluster: LocalCluster) => Promise<StackEvaluation>;
}

/** The stack modes with manifest-installed Calico, each planned for the local cluster. */
const MODES: readonly Mode[] = [
  { name: "a cluster this stack creates (dev)", plan: () => plan("dev") },
  { name: "an existing EKS cluster (existing.example)", plan: () => plan("existing.example") },
  {
    name: "a cluster reached by kubeconfig (kubeconfig.example)",
    plan: (cluster) =>
      plan(
        "kubeconfig.example",
        {
          "eks-calico:cluster.kubeconfig.path": cluster.state.kubeconfig,
          "eks-calico:cluster.kubeconfig.context": "local",
        } satisfies ConfigOverrides,
        { kubeconfigCluster: { nodes: cluster.state.nodes } },
      ),
  },
];

/** `pulumi destroy`: every object deleted, dependents first, except those retained on delete. */
function destroy(cluster: LocalCluster, evaluation: StackEvaluation, objects: readonly PlannedObject[]) {
  const retained = new Set(
    calicoObjects(evaluation)
      .filter((r) => r.options.retainOnDelete)
      .map((r) => r.urn),
  );
  const failures = [...objects]
    .reverse()
    .filter((o) => !retained.has(o.urn))
    .map((o) => cluster.delete(o))
    .filter((f): f is string => f !== undefined);
  assert.deepEqual(failures, [], "destroy deletes what the stack owns");
  for (const o of objects) if (retained.has(o.urn)) cluster.forget(o);
  return retained;
}

/** Every manager that owns fields of any of `crds`. */
async function ownersOf(cluster: LocalCluster, crds: readonly PlannedObject[]): Promise<string[]> {
  const owners = new Set<string>();
  for (const crd of crds) {
    for (const m of await managersOf(cluster, crd.object.metadata.name)) owners.add(m);
  }
  return [...owners];
}

/** The managers of an object's fields, its status writers aside. */
async function managersOf(cluster: LocalCluster, name: string): Promise<string[]> {
  const crd = await cluster.api.get<{ metadata: { managedFields?: ManagedFieldsEntry[] } }>(
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
  );
  return (crd.metadata.managedFields ?? [])
    .filter((e) => e.subresource !== "status")
    .map((e) => `${e.manager ?? "?"} (${e.operation ?? "?"})`);
}

after(function () {
  for (const line of summary()) console.log(line);
});

describe("pulumi destroy, then pulumi up, on a real API server", function () {
  this.timeout(20 * 60_000);

  for (const mode of MODES) {
    it(`${mode.name}: the retained CRDs are taken back, nothing is refused, and nothing changes after`, async function () {
      const cluster = await LocalCluster.start("dev", { dir: DIR });
      try {
        const kubeconfig = fs.readFileSync(cluster.state.kubeconfig, "utf8");
        const evaluation = await mode.plan(cluster);
        const objects = planObjects(evaluation);
        const crds = objects.filter((o) => o.object.kind === CRD);
        assert.ok(crds.length > 20, "the plan has Calico's CRDs");

        // First deployment: nothing exists, the step finds nothing.
        const first = (await runTakeoverStep(evaluation, kubeconfig)).results;
        assert.ok(
          first.every((r) => r.outcome === "absent"),
          JSON.stringify(first),
        );
        compare(`${mode.name}: the first deployment is accepted`, [], await cluster.create(objects));

        // Destroy: only the CRDs stay.
        const retained = destroy(cluster, evaluation, objects);
        assert.deepEqual(
          objects.filter((o) => retained.has(o.urn)).map((o) => o.object.kind),
          crds.map(() => CRD),
          "the CRDs, and only they, are retained",
        );

        // Deploy again, as a new stack would (no state: new field managers where the provider picks them).
        const again = (await runTakeoverStep(evaluation, kubeconfig)).results;
        assert.equal(again.filter((r) => r.outcome !== "absent").length, crds.length, JSON.stringify(again));
        compare(
          `${mode.name}: pulumi up after pulumi destroy is accepted (no AlreadyExists)`,
          [],
          await cluster.create(objects),
        );
        compare(
          `${mode.name}: after the second deployment, a preview changes nothing`,
          [],
          await cluster.changed(objects),
        );
        assert.deepEqual(
          await ownersOf(cluster, crds),
          [`${ADOPT_FIELD_MANAGER} (Apply)`],
          "the CRDs have one owner, ours",
        );
      } finally {
        await cluster.stop();
      }
      assert.deepEqual(summary().slice(1), [], summary().join("\n"));
    });
  }

  it("CRDs an earlier version of this program created (POST, no fixed field manager) are taken back with one owner", async function () {
    const cluster = await LocalCluster.start("dev", { dir: DIR });
    try {
      const kubeconfig = fs.readFileSync(cluster.state.kubeconfig, "utf8");
      const evaluation = await plan("dev");
      const crds = planObjects(evaluation).filter((o) => o.object.kind === CRD);
      // As created through the ordinary provider: a POST by `pulumi-kubernetes`, no field-manager annotation.
      const earlier = crds.map((o) => {
        const annotations = { ...o.object.metadata.annotations };
        delete annotations[FIELD_MANAGER_ANNOTATION];
        return {
          ...o,
          provider: { upsert: false, force: false },
          object: { ...o.object, metadata: { ...o.object.metadata, annotations } },
        };
      });
      compare("an earlier version's CRDs are created", [], await cluster.create(earlier));
      for (const o of earlier) cluster.forget(o);
      const results = (await runTakeoverStep(evaluation, kubeconfig)).results;
      assert.ok(
        results.every((r) => r.outcome.startsWith("from an earlier deployment: pulumi-kubernetes (Update)")),
        JSON.stringify(results),
      );
      compare("the CRDs are taken back", [], await cluster.create(crds));
      assert.deepEqual(await ownersOf(cluster, crds), [`${ADOPT_FIELD_MANAGER} (Apply)`]);
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });

  it("a CRD another install made stops the step before anything changes, unless calico.adopt is set", async function () {
    const cluster = await LocalCluster.start("dev", { dir: DIR });
    try {
      const kubeconfig = fs.readFileSync(cluster.state.kubeconfig, "utf8");
      const fixture = path.join(__dirname, "..", "fixtures", "adopt", "calico-policy-only.yaml");
      const evaluation = await plan("dev");
      const planned = new Set(
        planObjects(evaluation)
          .filter((o) => o.object.kind === CRD)
          .map((o) => o.object.metadata.name),
      );
      // Calico's CRDs of the kinds this release has (the fixture's newer line has one more).
      const others = parseManifest(fs.readFileSync(fixture, "utf8"), fixture).filter(
        (o) => o.kind === CRD && planned.has(o.metadata.name),
      );
      assert.ok(others.length > 0);
      for (const crd of others) {
        const result = cluster.kubectl(["apply", "-f", "-"], YAML.stringify(crd));
        assert.ok(result.ok, result.output);
      }
      const before = await Promise.all(others.map((o) => managersOf(cluster, o.metadata.name)));
      await assert.rejects(
        runTakeoverStep(evaluation, kubeconfig),
        (error: Error) =>
          /^These Calico objects exist already, and this program did not make them:/.test(error.message) &&
          others.every((o) => error.message.includes(`CustomResourceDefinition ${o.metadata.name}`)) &&
          /set calico\.adopt: true/.test(error.message),
      );
      const after = await Promise.all(others.map((o) => managersOf(cluster, o.metadata.name)));
      assert.deepEqual(after, before, "nothing changed");
      // With calico.adopt the same CRDs are taken over.
      const adopting = await plan("dev", { "eks-calico:calico.adopt": true });
      const adopted = (await runTakeoverStep(adopting, kubeconfig)).results;
      assert.equal(adopted.filter((r) => r.outcome.startsWith("from ")).length, others.length);
    } finally {
      await cluster.stop();
    }
  });
});
