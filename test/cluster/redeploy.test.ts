/**
 * `pulumi destroy`, then `pulumi up`, on a real API server. By the real engine, on a kubeconfig stack:
 * destroy removes every object but the CRDs (retained: deleting one deletes every policy of its kind),
 * the next `up` takes those back, and neither a preview nor a refresh finds anything to change; a CRD
 * another install made stops `up` with the takeover step's message, before anything changes.
 *
 * What the engine here cannot show is replayed (local-cluster/provider-requests.ts), and each such case
 * says so in its title: pulumi-resource-kubernetes v4.25.0, the newest the Go module proxy serves, creates
 * by a server-side apply that upserts, where 4.29 and later (the SDK pins 4.34.2) answer AlreadyExists
 * unless the provider sets `upsertExistingObjects`; so whether a second deployment after destroy is
 * refused is replayed with 4.34's requests, for each stack mode. A replay applies the plan's Calico
 * objects as calico.yaml has them: an open CRD with the program's own schema (the takeover step finds
 * none in a fresh cluster), and without the probe's other-node Jobs, which follow where the anchor is placed
 * (known after up).
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
import { compare, disagreements, summary } from "./agreement";
import { runTakeoverStep } from "./takeover-step";
import { EngineCase } from "./engine-case";

/** Why a case is replayed instead of run by the engine (see the header). */
const REPLAY = "[replay: AlreadyExists needs pulumi-kubernetes 4.29+]";

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
      plan("kubeconfig.example", {
        "eks-calico:cluster.kubeconfig.path": cluster.state.kubeconfig,
        "eks-calico:cluster.kubeconfig.context": "local",
      } satisfies ConfigOverrides),
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

/** The stack's Calico CRDs on the cluster, by name, with their field managers (status writers aside). */
async function liveCrds(c: EngineCase): Promise<Map<string, string[]>> {
  const list = await c.cluster.api.get<{
    items: { metadata: { name: string; managedFields?: ManagedFieldsEntry[] } }[];
  }>("/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
  return new Map(
    list.items
      .filter((crd) => crd.metadata.name.endsWith(".projectcalico.org"))
      .map((crd) => [
        crd.metadata.name,
        (crd.metadata.managedFields ?? [])
          .filter((e) => e.subresource !== "status")
          .map((e) => `${e.manager ?? "?"} (${e.operation ?? "?"})`),
      ]),
  );
}

describe("pulumi destroy, then pulumi up, by the real engine", function () {
  this.timeout(30 * 60_000);

  it("a kubeconfig stack: destroy keeps only the CRDs, up takes them back, nothing to change or refresh after", async function () {
    const c = await EngineCase.start("redeploy", { stack: "dev" });
    try {
      const first = await c.up("first up");
      const namespace = String((first.outputs.calico as { namespace: string }).namespace);
      const crds = await liveCrds(c);
      assert.ok(crds.size > 20, "the stack created Calico's CRDs");

      await c.destroy("destroy");
      assert.deepEqual([...(await liveCrds(c)).keys()], [...crds.keys()], "every CRD stays");
      const names = async (resource: string) =>
        (
          await c.cluster.api.get<{ items: { metadata: { name: string } }[] }>(
            `/apis/apps/v1/namespaces/${namespace}/${resource}`,
          )
        ).items.map((o) => o.metadata.name);
      assert.deepEqual(
        [...(await names("daemonsets")), ...(await names("deployments"))],
        [],
        "the workloads are gone",
      );

      const again = await c.up("up after destroy");
      await c.kubectlAgrees("up after destroy", again);
      await c.refreshFindsNoDrift("up after destroy");
      for (const [name, owners] of await liveCrds(c)) {
        assert.deepEqual(owners, [`${ADOPT_FIELD_MANAGER} (Apply)`], `${name} has one owner, ours`);
      }
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });

  it("a CRD another install made stops pulumi up with the takeover step's message, and nothing changes", async function () {
    const c = await EngineCase.start("foreign CRD", { stack: "dev" });
    try {
      const fixture = path.join(__dirname, "..", "fixtures", "adopt", "calico-policy-only.yaml");
      const planned = new Set(
        planObjects(await c.plan())
          .filter((o) => o.object.kind === CRD)
          .map((o) => o.object.metadata.name),
      );
      const others = parseManifest(fs.readFileSync(fixture, "utf8"), fixture).filter(
        (o) => o.kind === CRD && planned.has(o.metadata.name),
      );
      assert.ok(others.length > 0);
      for (const crd of others) {
        const result = c.cluster.kubectl(["apply", "-f", "-"], YAML.stringify(crd));
        assert.ok(result.ok, result.output);
      }
      const before = await liveCrds(c);
      const up = await c.engine.run("up");
      assert.equal(up.ok, false, "pulumi up fails");
      const message = [...up.errors, up.error ?? ""].join("\n");
      assert.match(message, /These Calico objects exist already, and this program did not make them:/);
      for (const o of others) assert.ok(message.includes(`CustomResourceDefinition ${o.metadata.name}`));
      assert.match(message, /set calico\.adopt: true/);
      assert.deepEqual(await liveCrds(c), before, "nothing changed");
      const objects = c.cluster.kubectl(["get", "daemonset,deployment", "-A", "-o", "name"]);
      assert.ok(!objects.output.includes("calico"), objects.output);
    } finally {
      await c.stop();
    }
  });
});

describe(`pulumi destroy, then pulumi up, on a real API server ${REPLAY}`, function () {
  this.timeout(20 * 60_000);

  for (const mode of MODES) {
    it(`${REPLAY} ${mode.name}: the retained CRDs are taken back, nothing is refused, and nothing changes after`, async function () {
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
        compare(
          `${REPLAY} ${mode.name}: the first deployment is accepted`,
          [],
          await cluster.create(objects),
        );

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
          `${REPLAY} ${mode.name}: pulumi up after pulumi destroy is accepted (no AlreadyExists)`,
          [],
          await cluster.create(objects),
        );
        compare(
          `${REPLAY} ${mode.name}: after the second deployment, a preview changes nothing`,
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
      assert.deepEqual(disagreements(), [], summary().join("\n"));
    });
  }

  it(`${REPLAY} CRDs an earlier version of this program created (POST, no fixed field manager) are taken back with one owner`, async function () {
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
      compare(`${REPLAY} an earlier version's CRDs are created`, [], await cluster.create(earlier));
      for (const o of earlier) cluster.forget(o);
      const results = (await runTakeoverStep(evaluation, kubeconfig)).results;
      assert.ok(
        results.every((r) => r.outcome.startsWith("from an earlier deployment: pulumi-kubernetes (Update)")),
        JSON.stringify(results),
      );
      compare(`${REPLAY} the CRDs are taken back`, [], await cluster.create(crds));
      assert.deepEqual(await ownersOf(cluster, crds), [`${ADOPT_FIELD_MANAGER} (Apply)`]);
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });
});
