/**
 * The rules that decide whether a Typha accepts a calico-node pod (local-cluster/typha-acceptance.ts),
 * applied to the plan's own objects and to the old manifests in test/fixtures/adopt/: pods are built from
 * the workloads' templates and EndpointSlices from the Services, as the controllers would. Each mutation
 * a takeover could get wrong (the wrong Service, TLS on one side only, another CA, another name, another
 * port, no ready Typha) must be refused; test/cluster/typha-takeover.test.ts applies the same rules to
 * what a real control plane holds during the rollouts.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { plan, planObjects, type PlannedObject } from "../local-cluster/deploy";
import {
  type ClusterSnapshot,
  type EndpointSlice,
  type Pod,
  typhaVerdicts,
} from "../local-cluster/typha-acceptance";
import { parseManifest } from "../offline/adoption/manifest";
import type { ManifestObject } from "../offline/adoption/objects";
import { CALICO_TYPHA, STANDARD_TYPHA, TAKEOVER_TYPHA } from "../components/calico/names";

const FIXTURES = path.join(__dirname, "fixtures", "adopt");
const NS = "kube-system";

interface Workload {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: { template: { metadata?: { labels?: Record<string, string> }; spec: Pod["spec"] } };
}
interface ServiceObject {
  metadata: { name: string; namespace?: string };
  spec: {
    selector: Record<string, string>;
    ports: { name?: string; port: number; targetPort?: string | number }[];
  };
}

function podOf(workload: Workload, node: string, patch: (env: Map<string, string>) => void = () => {}): Pod {
  const spec = structuredClone(workload.spec.template.spec);
  for (const container of spec.containers) {
    const env = new Map((container.env ?? []).map((e) => [e.name, e.value ?? ""]));
    patch(env);
    container.env = (container.env ?? [])
      .filter((e) => env.has(e.name))
      .map((e) => (env.get(e.name) === (e.value ?? "") ? e : { name: e.name, value: env.get(e.name) }));
    for (const [name, value] of env) {
      if (!container.env.some((e) => e.name === name)) container.env.push({ name, value });
    }
  }
  return {
    metadata: {
      name: `${workload.metadata.name}-${node}`,
      namespace: NS,
      labels: workload.spec.template.metadata?.labels,
    },
    spec: { ...spec, nodeName: node },
  };
}

/** The EndpointSlice the controller would write for `service` over `pods`, all ready. */
function sliceOf(service: ServiceObject, pods: readonly Pod[]): EndpointSlice {
  const selected = pods.filter((p) =>
    Object.entries(service.spec.selector).every(([k, v]) => p.metadata.labels?.[k] === v),
  );
  const ports = service.spec.ports.map((port) => {
    const named = selected[0]?.spec.containers
      .flatMap((c) => (c as { ports?: { name?: string; containerPort: number }[] }).ports ?? [])
      .find((p) => p.name === port.targetPort);
    return {
      name: port.name,
      port: typeof port.targetPort === "number" ? port.targetPort : named?.containerPort,
    };
  });
  return {
    metadata: { namespace: NS, labels: { "kubernetes.io/service-name": service.metadata.name } },
    ports,
    endpoints: selected.map((p) => ({
      addresses: ["10.0.0.1"],
      conditions: { ready: true },
      targetRef: { kind: "Pod", name: p.metadata.name, namespace: NS },
    })),
  };
}

/** The plan's Secrets and ConfigMaps as the API serves them. */
function dataOf(objects: readonly PlannedObject[]) {
  const of = (kind: string) => objects.filter((o) => o.object.kind === kind).map((o) => o.object);
  return {
    secrets: of("Secret").map((s) => ({
      metadata: { name: s.metadata.name, namespace: NS },
      data: Object.fromEntries(
        Object.entries((s as { stringData?: Record<string, string> }).stringData ?? {}).map(([k, v]) => [
          k,
          Buffer.from(v).toString("base64"),
        ]),
      ),
    })),
    configMaps: of("ConfigMap").map((c) => ({
      metadata: { name: c.metadata.name, namespace: NS },
      data: (c as { data?: Record<string, string> }).data,
    })),
  };
}

const find = <T>(
  objects: readonly { kind: string; metadata: { name: string } }[],
  kind: string,
  name: string,
) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `${kind} ${name}`);
  return found as unknown as T;
};

describe("which Typha accepts which calico-node pod", () => {
  let adopt: PlannedObject[];
  let standard: PlannedObject[];
  let other: PlannedObject[];
  before(async function () {
    this.timeout(120_000);
    adopt = planObjects(await plan("dev", { "eks-calico:calico.adopt": true }));
    standard = planObjects(await plan("dev", {}));
    // Another plan: another CA and other keys (the tls world makes new ones each time).
    other = planObjects(await plan("dev", {}));
  });

  const objectsOf = (planned: readonly PlannedObject[]) => planned.map((o) => o.object);

  /** A snapshot with one calico-node pod of `node` and the pods of `typha`, behind `service`. */
  function snapshot(
    node: Pod,
    typha: Workload,
    service: ServiceObject,
    data: ReturnType<typeof dataOf>,
    typhaPatch?: (env: Map<string, string>) => void,
  ): ClusterSnapshot {
    const typhaPod = podOf(typha, "node-a", typhaPatch);
    return { pods: [node, typhaPod], endpointSlices: [sliceOf(service, [typhaPod])], ...data };
  }

  function takeoverParts(planned: readonly PlannedObject[] = adopt) {
    const objects = objectsOf(planned);
    return {
      node: find<Workload>(objects, "DaemonSet", "calico-node"),
      typha: find<Workload>(objects, "Deployment", TAKEOVER_TYPHA.name),
      service: find<ServiceObject>(objects, "Service", TAKEOVER_TYPHA.name),
      data: dataOf(planned),
    };
  }

  it("the plan's calico-node is accepted by the plan's Typha, with and without a takeover", () => {
    const t = takeoverParts();
    const [accepted] = typhaVerdicts(snapshot(podOf(t.node, "node-a"), t.typha, t.service, t.data));
    assert.equal(accepted.accepted, true, accepted.detail);
    assert.equal(accepted.service, TAKEOVER_TYPHA.name);
    const objects = objectsOf(standard);
    const [plain] = typhaVerdicts(
      snapshot(
        podOf(find<Workload>(objects, "DaemonSet", "calico-node"), "node-a"),
        find<Workload>(objects, "Deployment", CALICO_TYPHA),
        find<ServiceObject>(objects, "Service", CALICO_TYPHA),
        dataOf(standard),
      ),
    );
    assert.equal(plain.accepted, true, plain.detail);
    assert.equal(plain.service, CALICO_TYPHA);
  });

  it("refuses a v3.31 Felix at a v3.32 Typha, and keeps a v3.32 Felix at a v3.31 Typha", () => {
    const objects = objectsOf(standard);
    const tagged = (pod: Pod, release: string) => ({
      ...pod,
      spec: {
        ...pod.spec,
        containers: pod.spec.containers.map((c) => ({
          ...c,
          image: `quay.io/calico/${c.name === "calico-typha" ? "typha" : "node"}:${release}`,
        })),
      },
    });
    const judge = (felix: string, typha: string) => {
      const typhaPod = tagged(podOf(find<Workload>(objects, "Deployment", CALICO_TYPHA), "node-a"), typha);
      const service = find<ServiceObject>(objects, "Service", CALICO_TYPHA);
      const node = tagged(podOf(find<Workload>(objects, "DaemonSet", "calico-node"), "node-a"), felix);
      const [verdict] = typhaVerdicts({
        pods: [node, typhaPod],
        endpointSlices: [sliceOf(service, [typhaPod])],
        ...dataOf(standard),
      });
      return verdict;
    };
    assert.match(judge("v3.31.7", "v3.32.1").detail, /Typha v3\.32\.1 disconnects a v3\.31\.7 Felix/);
    assert.equal(judge("v3.32.1", "v3.31.7").accepted, true);
    assert.equal(judge("v3.31.6", "v3.31.7").accepted, true);
  });

  it("refuses a Felix certificate from another CA, another name, a key of another certificate", () => {
    const t = takeoverParts();
    const foreign = dataOf(other).secrets.find((s) => s.metadata.name === "calico-felix-typha-tls");
    assert.ok(foreign);
    const swapped = (secret: typeof foreign) => ({
      ...t.data,
      secrets: t.data.secrets.map((s) => (s.metadata.name === secret.metadata.name ? secret : s)),
    });
    const node = podOf(t.node, "node-a");
    const [ca] = typhaVerdicts(snapshot(node, t.typha, t.service, swapped(foreign)));
    assert.match(ca.detail, /not signed by the peer's CA/);
    const own = t.data.secrets.find((s) => s.metadata.name === "calico-felix-typha-tls");
    assert.ok(own?.data && foreign.data);
    const mixed = { ...own, data: { ...own.data, "tls.key": foreign.data["tls.key"] } };
    const [key] = typhaVerdicts(snapshot(node, t.typha, t.service, swapped(mixed)));
    assert.match(key.detail, /does not match its key/);
    const [name] = typhaVerdicts(
      snapshot(node, t.typha, t.service, t.data, (env) => env.set("TYPHA_CLIENTCN", "someone-else")),
    );
    assert.match(name.detail, /has CN calico-node; the peer requires CN someone-else/);
  });

  it("refuses TLS on one side only, a port the Typha does not listen on, and a Service with no Typha", () => {
    const t = takeoverParts();
    const noTls = (env: Map<string, string>) => {
      for (const k of [...env.keys()])
        if (/^(FELIX_TYPHA(KEY|CERT|CA)FILE|FELIX_TYPHACN)$/.test(k)) env.delete(k);
    };
    const [plainFelix] = typhaVerdicts(snapshot(podOf(t.node, "node-a", noTls), t.typha, t.service, t.data));
    assert.match(plainFelix.detail, /accepts only TLS clients/);
    const [wrongPort] = typhaVerdicts(
      snapshot(podOf(t.node, "node-a"), t.typha, t.service, t.data, (env) =>
        env.set("TYPHA_SERVERPORT", String(STANDARD_TYPHA.port)),
      ),
    );
    assert.match(wrongPort.detail, /listens on 5473, the Service sends Felix to 5474/);
    const [none] = typhaVerdicts({
      pods: [podOf(t.node, "node-a")],
      endpointSlices: [],
      ...t.data,
    });
    assert.equal(none.accepted, false);
    assert.match(none.detail, /no ready Typha behind Service kube-system\/calico-typha-takeover/);
  });

  for (const fixture of fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".yaml"))) {
    describe(fixture, () => {
      let manifest: ManifestObject[];
      before(() => {
        manifest = parseManifest(fs.readFileSync(path.join(FIXTURES, fixture), "utf8"), fixture);
      });
      const old = () => {
        const objects = manifest as unknown as { kind: string; metadata: { name: string } }[];
        return {
          node: find<Workload>(objects, "DaemonSet", "calico-node"),
          typha: find<Workload>(objects, "Deployment", CALICO_TYPHA),
          service: find<ServiceObject>(objects, "Service", CALICO_TYPHA),
          configMaps: manifest
            .filter((o) => o.kind === "ConfigMap")
            .map((o) => ({
              metadata: { name: o.metadata.name, namespace: NS },
              data: o.data as Record<string, string>,
            })),
        };
      };

      it("its calico-node pods keep its Typha; the takeover's Typha refuses them; new pods refuse its Typha", () => {
        const o = old();
        const t = takeoverParts();
        const data = { secrets: t.data.secrets, configMaps: [...t.data.configMaps, ...o.configMaps] };
        const oldPod = podOf(o.node, "node-a");
        const [kept] = typhaVerdicts(snapshot(oldPod, o.typha, o.service, data));
        assert.equal(kept.accepted, true, kept.detail);
        assert.equal(kept.service, CALICO_TYPHA);
        // The same old pod sent to the takeover's Typha: it speaks no TLS.
        const redirected = podOf(o.node, "node-a", (env) =>
          env.set("FELIX_TYPHAK8SSERVICENAME", TAKEOVER_TYPHA.name),
        );
        const [refused] = typhaVerdicts(snapshot(redirected, t.typha, t.service, data));
        assert.match(refused.detail, /accepts only TLS clients and this Felix has no TLS settings/);
        // A new pod sent to the old Typha: it requires TLS.
        const newPod = podOf(t.node, "node-a", (env) => env.set("FELIX_TYPHAK8SSERVICENAME", CALICO_TYPHA));
        const [plain] = typhaVerdicts(snapshot(newPod, o.typha, o.service, data));
        assert.match(plain.detail, /requires TLS and the Typha serves none/);
      });

      it("the takeover's Typha shares no host port with its Typha or with calico-node", () => {
        const o = old();
        const ports = (w: Workload) =>
          w.spec.template.spec.containers.flatMap((c) => {
            const env = new Map((c.env ?? []).map((e) => [e.name, e.value]));
            const declared = ((c as { ports?: { containerPort: number }[] }).ports ?? []).map(
              (p) => p.containerPort,
            );
            const health = env.get("TYPHA_HEALTHPORT") ?? env.get("FELIX_HEALTHPORT");
            // Typha's health port defaults to 9098, Felix's to 9099 (their config_params.go).
            const defaultHealth = c.name === "calico-typha" ? 9098 : 9099;
            return [...declared, Number(health ?? defaultHealth)];
          });
        const taken = new Set([...ports(o.typha), ...ports(o.node)]);
        const t = takeoverParts();
        const ours = ports(t.typha);
        assert.deepEqual(ours.sort(), [TAKEOVER_TYPHA.port, TAKEOVER_TYPHA.healthPort].sort());
        assert.deepEqual(
          ours.filter((p) => taken.has(p)),
          [],
          `ports in use on every node: ${[...taken].join(", ")}`,
        );
      });
    });
  }
});
