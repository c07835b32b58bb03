/**
 * `calico.adopt` on a real API server: a Calico applied with `kubectl apply` (client-side, as teams did)
 * from each manifest in test/fixtures/adopt/, then this program's takeover as `pulumi up` runs it: the
 * takeover step's dynamic provider loaded from its serialized text (as Pulumi's dynamic provider host
 * loads it) and run against the cluster, then every Calico object created with the requests
 * pulumi-kubernetes sends (local-cluster/provider-requests.ts). The API server must accept each, and
 * afterwards each object holds what the plan renders and nothing of the old manifest; the adoption report
 * (`npm start -- --adopt-from`) must have predicted which fields went.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { LocalCluster, plan, planObjects } from "../../local-cluster/deploy";
import { refOf } from "../../local-cluster/provider-requests";
import { parseManifest } from "../../offline/adoption/manifest";
import { adoptionReport } from "../../offline/adoption/report";
import { fieldDifferences } from "../../offline/adoption/fields";
import { asServedToday } from "../../offline/adoption/objects";
import { ADOPT_FIELD_MANAGER } from "../../components/calico/takeover";
import { credentialsOf, kubeRequest } from "../../components/calico/takeover/kube-client";
import { isHandedOver } from "../../components/calico/takeover/managed-fields";
import { objectPath } from "../../components/calico/takeover/run";
import { compare, summary } from "./agreement";
import { runTakeoverStep } from "./takeover-step";
import { type KubeObject, asStoredToday } from "./old-manifest";

const DIR = path.join(os.tmpdir(), `eks-calico-takeover-test-${process.pid}`);
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

describe("calico.adopt on a real API server: kubectl-applied Calico taken over", function () {
  this.timeout(20 * 60_000);

  for (const fixture of fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    it(`${fixture}: the takeover is accepted and leaves exactly what the plan renders, as the report predicted`, async function () {
      const manifest = parseManifest(fs.readFileSync(path.join(FIXTURES, fixture), "utf8"), fixture);
      const cluster = await LocalCluster.start("dev", { dir: DIR });
      try {
        const kubeconfig = fs.readFileSync(cluster.state.kubeconfig, "utf8");
        const credentials = credentialsOf(kubeconfig);

        // 1. kubectl apply, client-side, of the old manifest as the cluster stores it today.
        const stored = manifest.map(asStoredToday);
        const refused = stored
          .map((o) => ({ o, r: cluster.kubectl(["apply", "-f", "-"], YAML.stringify(o)) }))
          .filter(({ r }) => !r.ok)
          .map(({ o, r }) => `${String(o.kind)}: ${r.output}`);
        assert.deepEqual(refused, [], "the old manifest applies");
        cluster.kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"]);
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

        // 2. The plan, with adoption, over those objects; its report.
        const evaluation = await plan(
          "dev",
          { "eks-calico:calico.adopt": true },
          { existingObjects: manifest },
        );
        const report = adoptionReport(manifest, evaluation);
        assert.deepEqual(report.problems, [], "the report sees nothing that stops the switch");

        // 3. pulumi up: the takeover step, then each object through its provider.
        const results = (await runTakeoverStep(evaluation, kubeconfig)).results;
        assert.ok(results.filter((r) => r.outcome.startsWith("from ")).length > 0, JSON.stringify(results));

        const objects = planObjects(evaluation);
        const refusals = await cluster.create(objects);
        compare(`${fixture}: the API server accepts every object of the takeover`, [], refusals);

        // 4. Each object holds what the plan renders: no manager but ours and controllers, no leftovers.
        const leftovers: string[] = [];
        const live = new Map<string, KubeObject>();
        const rendered = new Map<string, KubeObject>();
        // The objects taken over: those of the adopting provider (the probe's are new, through the other).
        const adopted = objects.filter((planned) => planned.provider.upsert);
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
        compare(`${fixture}: after the takeover each object holds only what the plan renders`, [], leftovers);
        // As `pulumi preview --expect-no-changes` afterwards: the provider's dry-run update changes nothing.
        compare(`${fixture}: a second apply changes nothing`, [], await cluster.changed(adopted));

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
                .filter((d) => d.kind === "kept")
                .map((d) => d.path),
            );
            const gone = fieldDifferences(asServedToday(o), now).filter(
              (d) => d.kind === "kept" && !unstored.has(d.path),
            );
            const where = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
            return gone.map((d) => `${where}: ${d.path}`);
          })
          .sort();
        compare(
          `${fixture}: the adoption report's removed fields are the ones the real takeover removed`,
          predicted,
          real,
        );
        assert.deepEqual(summary().slice(1), [], summary().join("\n"));
      } finally {
        await cluster.stop();
      }
    });
  }

  it("a stricter schema the cluster has is kept where this program's is open: never weakened", async function () {
    const file = path.join(__dirname, "..", "fixtures", "strict-crd", "ippools.yaml");
    const strict = parseManifest(fs.readFileSync(file, "utf8"), file);
    const cluster = await LocalCluster.start("dev", { dir: DIR });
    try {
      const kubeconfig = fs.readFileSync(cluster.state.kubeconfig, "utf8");
      for (const o of strict) assert.ok(cluster.kubectl(["apply", "-f", "-"], JSON.stringify(o)).ok);
      const evaluation = await plan("dev", { "eks-calico:calico.adopt": true }, { existingObjects: strict });
      const { schemas } = await runTakeoverStep(evaluation, kubeconfig);
      const live = await cluster.api.get<KubeObject>(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ippools.crd.projectcalico.org",
      );
      const served = (live.spec as { versions: { schema: { openAPIV3Schema: unknown } }[] }).versions[0];
      compare(
        "the step keeps the cluster's stricter IPPool schema",
        served.schema.openAPIV3Schema,
        schemas["ippools.crd.projectcalico.org"],
      );
      // The offline plan applies the schema the real step found.
      const objects = planObjects(evaluation);
      const planned = objects.find((o) => o.object.metadata.name === "ippools.crd.projectcalico.org");
      assert.ok(planned);
      compare(
        "the plan's IPPool CRD carries the schema the real step kept",
        schemas["ippools.crd.projectcalico.org"],
        (planned.object.spec as { versions: { schema: { openAPIV3Schema: unknown } }[] }).versions[0].schema
          .openAPIV3Schema,
      );
      compare("the takeover's objects are accepted", [], await cluster.create(objects));
      // Still refused after the takeover: a misspelt field and a mode that does not exist.
      const pool = (spec: Record<string, unknown>) =>
        JSON.stringify({
          apiVersion: "crd.projectcalico.org/v1",
          kind: "IPPool",
          metadata: { name: "p" },
          spec,
        });
      assert.ok(cluster.kubectl(["apply", "-f", "-"], pool({ cidr: "10.9.0.0/16", ipipMode: "Never" })).ok);
      assert.ok(!cluster.kubectl(["apply", "-f", "-"], pool({ cidr: "10.9.0.0/16", ipipmode: "Never" })).ok);
      assert.ok(
        !cluster.kubectl(["apply", "-f", "-"], pool({ cidr: "10.9.0.0/16", ipipMode: "Sometimes" })).ok,
      );
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });
});
