/**
 * `calico.adopt` by the real engine: a Calico applied with `kubectl apply` (client-side, as teams did)
 * from each manifest in test/fixtures/adopt/ runs on kwok nodes (its calico-node pods and its Typha,
 * without TLS); then `pulumi up` of a kubeconfig stack with `calico.adopt`: the takeover step as the engine
 * runs it (serialized by the runtime, in the dynamic provider host), every Calico object through
 * pulumi-resource-kubernetes, Typha awaited before calico-node, the DaemonSet's rollout (the real
 * DaemonSet controller replacing pods node by node), then the Typha retirement step. It must succeed, and
 * afterwards each object holds what the plan renders and nothing of the old manifest, a preview changes
 * nothing, the adoption report (`npm start -- --adopt-from`) must have predicted which fields and which
 * Typha objects went. Then `calico.adopt: false` brings `calico-typha` back and deletes the takeover's
 * Typha at the end, as Pulumi deletes removed resources after every other step. While each `up` runs,
 * every calico-node pod is judged against the Typha its env names (typha-watch.ts): none may be left
 * without one, and both Typhas serve at some point.
 *
 * pulumi-resource-kubernetes v4.25.0 creates by a server-side apply that upserts and has no
 * `enablePatchForce`: a field another manager still owned would conflict here where 4.34 (with the
 * adopting provider's `enablePatchForce`) would take it, so a takeover accepted here is accepted there.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import YAML from "yaml";
import { parseManifest } from "../../offline/adoption/manifest";
import { adoptionReport } from "../../offline/adoption/report";
import { KNOWN_AFTER_UP } from "../../offline/engine";
import { fieldDifferences } from "../../offline/adoption/report";
import { asServedToday } from "../../offline/adoption/objects";
import { ADOPT_FIELD_MANAGER } from "../../components/calico/takeover";
import { CALICO_TYPHA, TAKEOVER_TYPHA } from "../../components/calico/names";
import { credentialsOf, kubeRequest } from "../../components/kubernetes/client";
import { isHandedOver } from "../../components/calico/takeover/managed-fields";
import { objectPath } from "../../components/calico/takeover/run";
import { planObjects } from "../../local-cluster/deploy";
import { refOf } from "../../local-cluster/provider-requests";
import { compare, disagreements, summary } from "./agreement";
import { EngineCase } from "./engine-case";
import { allAccepted, bothTyphas, oldAutoscaler, typhaObjects, watcher } from "./typha-watch";
import { type KubeObject, asStoredToday } from "./old-manifest";

const FIXTURES = path.join(__dirname, "..", "fixtures", "adopt");

/**
 * Manifests applied before Kubernetes 1.18, when objects had no managed fields yet: their objects are
 * stored with none (amazon-vpc-cni v1.5 was published for EKS 1.12-1.14).
 */
const BEFORE_MANAGED_FIELDS = new Set(["amazon-vpc-cni-v1.5.yaml"]);

/** Managers that may own fields after the takeover: ours, and the controllers that write status. */
function foreignManagers(live: KubeObject): string[] {
  return (live.metadata.managedFields ?? [])
    .filter((e) => !(e.manager === ADOPT_FIELD_MANAGER && e.operation === "Apply"))
    .filter((e) => e.subresource !== "status" && e.manager !== "kube-controller-manager")
    .map((e) => `${e.manager} (${e.operation})`);
}

/** Annotations the API server or a controller writes on its own. */
const SERVER_ANNOTATIONS = new Set([
  "deprecated.daemonset.template.generation",
  "deployment.kubernetes.io/revision",
]);

interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  livenessProbe?: Record<string, unknown>;
  readinessProbe?: Record<string, unknown>;
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string }[];
  nodeSelector?: Record<string, string>;
}
const podSpec = (o: KubeObject) => (o.spec as { template: { spec: PodSpec } }).template.spec;
const names = (list: { name: string }[] | undefined) => (list ?? []).map((i) => i.name).sort();
const handlers = (probe: Record<string, unknown> | undefined) =>
  Object.keys(probe ?? {}).filter((k) => ["exec", "httpGet", "tcpSocket", "grpc"].includes(k));

/** What of a rendered pod spec the live one must hold exactly: no leftovers of the old manifest. */
function podDifferences(rendered: PodSpec, live: PodSpec): string[] {
  const problems: string[] = [];
  const same = (what: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b))
      problems.push(`${what}: rendered ${JSON.stringify(a)}, live ${JSON.stringify(b)}`);
  };
  same("initContainers", names(rendered.initContainers), names(live.initContainers));
  same("containers", names(rendered.containers), names(live.containers));
  same("volumes", names(rendered.volumes), names(live.volumes));
  same("nodeSelector", rendered.nodeSelector ?? {}, live.nodeSelector ?? {});
  for (const container of rendered.containers) {
    const other = live.containers.find((c) => c.name === container.name);
    if (!other) continue;
    same(`${container.name} env`, names(container.env), names(other.env));
    for (const e of other.env ?? []) {
      if (e.value !== undefined && e.valueFrom !== undefined)
        problems.push(`${container.name} env ${e.name}: value beside valueFrom`);
    }
    for (const probe of ["livenessProbe", "readinessProbe"] as const) {
      same(`${container.name} ${probe} handler`, handlers(container[probe]), handlers(other[probe]));
    }
  }
  return problems;
}

describe("calico.adopt by the real engine: kubectl-applied Calico taken over", function () {
  this.timeout(30 * 60_000);

  for (const fixture of fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    it(`${fixture}: pulumi up takes it over without an outage, leaves what the plan renders as the report predicted, and gives it back`, async function () {
      const manifest = parseManifest(fs.readFileSync(path.join(FIXTURES, fixture), "utf8"), fixture);
      const c = await EngineCase.start(`adopt ${fixture}`, {
        stack: "dev",
        podStartSeconds: 2,
        config: { "eks-calico:calico.adopt": true },
      });
      try {
        const kubeconfig = fs.readFileSync(c.cluster.state.kubeconfig, "utf8");
        const credentials = credentialsOf(kubeconfig);

        // 1. kubectl apply, client-side, of the old manifest as the cluster stores it today.
        const stored = manifest.map(asStoredToday);
        const refused = stored
          .map((o) => ({ o, r: c.cluster.kubectl(["apply", "-f", "-"], YAML.stringify(o)) }))
          .filter(({ r }) => !r.ok)
          .map(({ o, r }) => `${String(o.kind)}: ${r.output}`);
        assert.deepEqual(refused, [], "the old manifest applies");
        c.cluster.kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"]);
        if (BEFORE_MANAGED_FIELDS.has(fixture)) {
          for (const o of stored as KubeObject[]) {
            const objectUrl = await objectPath(credentials, refOf(o));
            await kubeRequest(
              credentials,
              "PATCH",
              objectUrl,
              [{ op: "replace", path: "/metadata/managedFields", value: [{}] }],
              "application/json-patch+json",
            );
          }
        }

        const nodes = c.cluster.state.nodes;
        assert.ok(nodes >= 2, "a rollout with a state between old and new needs two nodes");
        await allAccepted(c.cluster, CALICO_TYPHA, nodes, "the old manifest's calico-node pods on its Typha");
        // The old Typha and, where the manifest has it, its autoscaler (the VPC CNI manifests' name).
        const oldTypha = [
          ...(await typhaObjects(c.cluster, CALICO_TYPHA)),
          ...(await oldAutoscaler(c.cluster)),
        ];

        // 2. The plan, with adoption, over those objects; its report.
        const evaluation = await c.plan();
        const report = adoptionReport(manifest, evaluation);
        assert.deepEqual(report.problems, [], "the report sees nothing that stops the switch");

        // 3. pulumi up, watched, then a preview that must change nothing (engine-case.ts).
        const takeover = watcher(c.cluster);
        await c.up("takeover", {}, takeover.watch);
        assert.deepEqual(
          takeover.watched.refused,
          [],
          "no calico-node pod without a Typha during the takeover",
        );
        assert.ok(
          takeover.watched.states.some(bothTyphas),
          `a state with pods on both Typhas was seen: ${takeover.watched.states.join(" | ")}`,
        );

        // 4. Each object holds what the plan renders: no manager but ours and controllers, no leftovers.
        const leftovers: string[] = [];
        const live = new Map<string, KubeObject>();
        const rendered = new Map<string, KubeObject>();
        // The objects taken over: those of the adopting provider (the probe's are new, through the other).
        const adopted = planObjects(evaluation).filter((planned) => planned.provider.upsert);
        assert.ok(adopted.length > 10, "the adopting provider applies Calico's objects");
        for (const planned of adopted) {
          const object = planned.object as KubeObject;
          rendered.set(`${object.kind}/${object.metadata.name}`, object);
          const current = await kubeRequest<KubeObject>(
            credentials,
            "GET",
            await objectPath(credentials, refOf(object)),
          );
          live.set(`${object.kind}/${object.metadata.name}`, current);
          const where = `${object.kind} ${object.metadata.name}`;
          const foreign = foreignManagers(current);
          if ((current.metadata.managedFields ?? []).some(isHandedOver) || foreign.length > 0) {
            leftovers.push(`${where}: fields still owned by ${foreign.join(", ")}`);
          }
          const labels = Object.keys(current.metadata.labels ?? {}).sort();
          const wanted = Object.keys(object.metadata.labels ?? {}).sort();
          if (JSON.stringify(labels) !== JSON.stringify(wanted))
            leftovers.push(`${where}: labels ${labels.join(",")}`);
          const extra = Object.keys(current.metadata.annotations ?? {}).filter(
            (a) => !(a in (object.metadata.annotations ?? {})) && !SERVER_ANNOTATIONS.has(a),
          );
          if (extra.length > 0) leftovers.push(`${where}: annotations ${extra.join(", ")}`);
          if (object.kind === "DaemonSet" || object.kind === "Deployment") {
            leftovers.push(...podDifferences(podSpec(object), podSpec(current)).map((p) => `${where}: ${p}`));
          }
        }
        compare(
          `${fixture}: after the takeover each object holds only what the plan renders`,
          [],
          leftovers,
          "engine",
        );

        // 5. The report predicted which fields of the old objects went: exactly those, for every object.
        const predicted = report.takenOver
          .flatMap((t) => t.removed.map((d) => `${t.object}: ${d.path}`))
          .sort();
        const real = manifest
          .flatMap((o) => {
            const now = live.get(`${o.kind}/${o.metadata.name}`);
            const ours = rendered.get(`${o.kind}/${o.metadata.name}`);
            if (!now || !ours) return [];
            // Fields the plan sets that the API server does not store (an empty env value) are not gone.
            const unstored = new Set(
              fieldDifferences(ours, now)
                .filter((d) => d.kind === "removed")
                .map((d) => d.path),
            );
            const gone = fieldDifferences(asServedToday(o), now).filter(
              (d) => d.kind === "removed" && !unstored.has(d.path),
            );
            const where = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
            return gone.map((d) => `${where}: ${d.path}`);
          })
          .sort();
        compare(
          `${fixture}: the adoption report's removed fields are the ones the real takeover removed`,
          predicted,
          real,
          "engine",
        );

        // 6. The retirement: the old Typha is gone, as the adoption report said.
        assert.deepEqual(await typhaObjects(c.cluster, CALICO_TYPHA), [], "the old Typha's objects are gone");
        // So is its autoscaler: left, it would fight this program's once Typha is calico-typha again (step 7).
        assert.deepEqual(await oldAutoscaler(c.cluster), [], "the old Typha autoscaler is gone");
        // Nothing else deletes them: every one that was there is one the retirement deleted.
        compare(
          `${fixture}: the adoption report names the Typha objects the retirement deleted`,
          report.retired.map((r) => r.object).sort(),
          [...oldTypha].sort(),
          "engine",
        );
        await allAccepted(
          c.cluster,
          TAKEOVER_TYPHA.name,
          nodes,
          "every calico-node pod on the takeover's Typha",
        );

        // 7. calico.adopt: false: calico-typha created and awaited, the DaemonSet rolls onto it, then the
        // takeover's Typha is deleted, last (Pulumi deletes removed resources after every other step).
        const back = watcher(c.cluster);
        await c.up("back to calico-typha", { "eks-calico:calico.adopt": false }, back.watch);
        assert.deepEqual(back.watched.refused, [], "no calico-node pod without a Typha on the way back");
        console.log(
          `      takeover: ${takeover.watched.states.join(" -> ")}\n      back: ${back.watched.states.join(" -> ")}`,
        );
        assert.ok(
          back.watched.states.some(bothTyphas),
          `both Typhas served at once: ${back.watched.states.join(" | ")}`,
        );
        assert.deepEqual(
          await typhaObjects(c.cluster, TAKEOVER_TYPHA.name),
          [],
          "the takeover's Typha is gone",
        );
        await allAccepted(c.cluster, CALICO_TYPHA, nodes, "every calico-node pod on calico-typha at the end");
        assert.deepEqual(disagreements(), [], summary().join("\n"));
      } finally {
        await c.stop();
      }
    });
  }

  it("a calico-node that selects other pods stops pulumi up with the API server's refusal the report predicts", async function () {
    const file = path.join(FIXTURES, "calico-policy-only.yaml");
    // The same manifest, its calico-node selecting (and labelling its pods) with one label more.
    const manifest = parseManifest(fs.readFileSync(file, "utf8"), file).map((o) => {
      if (o.kind !== "DaemonSet" || o.metadata.name !== "calico-node") return o;
      const spec = o.spec as {
        selector: { matchLabels: object };
        template: { metadata: { labels: object } };
      };
      const labels = { ...spec.selector.matchLabels, "example.com/install": "manifest" };
      const template = { ...spec.template, metadata: { ...spec.template.metadata, labels } };
      return { ...o, spec: { ...spec, selector: { matchLabels: labels }, template } };
    });
    const c = await EngineCase.start("other calico-node selector", {
      stack: "dev",
      podStartSeconds: 2,
      config: { "eks-calico:calico.adopt": true },
    });
    try {
      for (const o of manifest.map(asStoredToday)) {
        const applied = c.cluster.kubectl(["apply", "-f", "-"], YAML.stringify(o));
        assert.ok(applied.ok, applied.output);
      }
      c.cluster.kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"]);
      const report = adoptionReport(manifest, await c.plan());
      assert.deepEqual(
        report.problems.filter((p) => /field is immutable/.test(p)).length,
        1,
        report.problems.join("\n"),
      );
      assert.match(report.problems.join("\n"), /DaemonSet kube-system\/calico-node: .*spec\.selector/);
      const up = await c.engine.run("up");
      assert.equal(up.ok, false, "pulumi up fails");
      const message = [...up.errors, up.error ?? ""].join("\n");
      assert.match(message, /calico-node/);
      assert.match(message, /spec\.selector: Invalid value: .*field is immutable/);
    } finally {
      await c.stop();
    }
  });

  it("a stricter schema the cluster has is kept where this program's is open: never weakened", async function () {
    const file = path.join(__dirname, "..", "fixtures", "strict-crd", "ippools.yaml");
    const strict = parseManifest(fs.readFileSync(file, "utf8"), file);
    const c = await EngineCase.start("strict IPPool schema", {
      stack: "dev",
      config: { "eks-calico:calico.adopt": true },
    });
    try {
      for (const o of strict) assert.ok(c.cluster.kubectl(["apply", "-f", "-"], JSON.stringify(o)).ok);
      const schemaOf = (crd: KubeObject) =>
        (crd.spec as { versions: { schema: { openAPIV3Schema: unknown } }[] }).versions[0].schema
          .openAPIV3Schema;
      const name = "ippools.crd.projectcalico.org";
      const before = await c.cluster.api.get<KubeObject>(
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      );
      // Planned before the takeover: the plan of a first deployment, which leaves the schema to the step.
      const plan = await c.plan();
      const planned = plan.resources.find(
        (r) =>
          r.type.endsWith(":CustomResourceDefinition") &&
          r.inputs.metadata !== KNOWN_AFTER_UP &&
          (r.inputs.metadata as { name: string }).name === name,
      );
      await c.up("takeover");
      const after = await c.cluster.api.get<KubeObject>(
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      );
      assert.deepEqual(
        schemaOf(after),
        schemaOf(before),
        "pulumi up keeps the cluster's stricter IPPool schema",
      );
      // The offline plan does not claim the schema: only the step, reading the cluster, knows it.
      assert.ok(planned);
      assert.equal((planned.inputs.spec as { versions: unknown }).versions, KNOWN_AFTER_UP);
      // Still refused after the takeover: a misspelt field and a mode that does not exist.
      const pool = (spec: Record<string, unknown>) =>
        JSON.stringify({
          apiVersion: "crd.projectcalico.org/v1",
          kind: "IPPool",
          metadata: { name: "p" },
          spec,
        });
      assert.ok(c.cluster.kubectl(["apply", "-f", "-"], pool({ cidr: "10.9.0.0/16", ipipMode: "Never" })).ok);
      assert.ok(
        !c.cluster.kubectl(["apply", "-f", "-"], pool({ cidr: "10.9.0.0/16", ipipmode: "Never" })).ok,
      );
      assert.ok(
        !c.cluster.kubectl(["apply", "-f", "-"], pool({ cidr: "10.9.0.0/16", ipipMode: "Sometimes" })).ok,
      );
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });
});
