/**
 * A takeover without an outage, on a real control plane: Calico applied with `kubectl apply` from each
 * manifest in test/fixtures/adopt/ runs on kwok nodes (its calico-node pods and its Typha, without TLS),
 * then `pulumi up` with `calico.adopt` as it runs: the takeover step, Calico's objects with the requests
 * pulumi-kubernetes sends, Typha awaited before calico-node, the DaemonSet's rollout (the real DaemonSet
 * controller replacing pods node by node), then the Typha retirement step loaded from its serialized text;
 * then `calico.adopt: false`, which brings `calico-typha` back and deletes the takeover's Typha at the end,
 * as Pulumi deletes removed resources after every other step. At every state of both rollouts the test
 * reads the API server and judges, for every calico-node pod, whether the Typha its env names accepts it
 * (local-cluster/typha-acceptance.ts: the Service, its ready endpoints, the port, TLS on both sides).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import YAML from "yaml";
import { LocalCluster, type PlannedObject, plan, planObjects } from "../../local-cluster/deploy";
import { waitFor } from "../../local-cluster/api";
import {
  type ClusterSnapshot,
  type EndpointSlice,
  type Pod,
  type Verdict,
  typhaVerdicts,
} from "../../local-cluster/typha-acceptance";
import { parseManifest } from "../../offline/adoption/manifest";
import { adoptionReport } from "../../offline/adoption/report";
import { CALICO_TYPHA, TAKEOVER_TYPHA } from "../../components/calico/names";
import {
  type RetirementInputs,
  TYPHA_OBJECT_KINDS,
  TYPHA_RETIREMENT_TYPE,
  retirementProvider,
  typhaObjectPath,
} from "../../components/calico/takeover/typha-retirement";
import { PROBE_NAMESPACE } from "../../components/calico/probe/common";
import { compare, summary } from "./agreement";
import { asStoredToday } from "./old-manifest";
import { loadedProvider, runTakeoverStep } from "./takeover-step";

const DIR = path.join(os.tmpdir(), `eks-calico-typha-takeover-test-${process.pid}`);
const FIXTURES = path.join(__dirname, "..", "fixtures", "adopt");
const NS = "kube-system";

async function snapshotOf(cluster: LocalCluster): Promise<ClusterSnapshot> {
  const list = async <T>(p: string) => (await cluster.api.get<{ items: T[] }>(p)).items;
  // Slices before pods: a Typha pod a slice names is then in the pod list.
  const endpointSlices = await list<EndpointSlice>(
    `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
  );
  const [pods, configMaps, secrets] = await Promise.all([
    list<Pod>(`/api/v1/namespaces/${NS}/pods`),
    list<ClusterSnapshot["configMaps"][number]>(`/api/v1/namespaces/${NS}/configmaps`),
    list<ClusterSnapshot["secrets"][number]>(`/api/v1/namespaces/${NS}/secrets`),
  ]);
  return { pods, endpointSlices, configMaps, secrets };
}

/** A state of a rollout: how many calico-node pods name each Typha Service. */
function stateOf(verdicts: readonly Verdict[]): string {
  const counts = new Map<string, number>();
  for (const v of verdicts) counts.set(v.service, (counts.get(v.service) ?? 0) + 1);
  return [...counts.entries()]
    .sort()
    .map(([service, n]) => `${n} on ${service}`)
    .join(", ");
}

interface Watched {
  /** Every distinct state seen, in order. */
  readonly states: string[];
  /** Every pod a Typha did not accept, with the state it was seen in. */
  readonly refused: string[];
}

/**
 * Sends `write` (the DaemonSet's update) and reads the cluster until every calico-node pod names
 * `target` and the DaemonSet has rolled out, judging every calico-node pod at every read.
 */
async function watchRollout(
  cluster: LocalCluster,
  write: () => Promise<string[]>,
  target: string,
): Promise<Watched> {
  const states: string[] = [];
  const refused: string[] = [];
  const written = write();
  await waitFor(
    `calico-node rolled out onto ${target}`,
    async () => {
      const verdicts = typhaVerdicts(await snapshotOf(cluster));
      const state = stateOf(verdicts);
      if (states.at(-1) !== state) states.push(state);
      for (const v of verdicts.filter((x) => !x.accepted)) {
        const line = `${state}: ${v.pod}: ${v.detail}`;
        if (!refused.includes(line)) refused.push(line);
      }
      const ds = await cluster.api.get<{
        metadata: { generation: number };
        status: {
          observedGeneration?: number;
          desiredNumberScheduled: number;
          updatedNumberScheduled?: number;
          numberReady: number;
        };
      }>(`/apis/apps/v1/namespaces/${NS}/daemonsets/calico-node`);
      const { status } = ds;
      const done =
        (status.observedGeneration ?? 0) >= ds.metadata.generation &&
        status.updatedNumberScheduled === status.desiredNumberScheduled &&
        status.numberReady === status.desiredNumberScheduled &&
        verdicts.length === status.desiredNumberScheduled &&
        verdicts.every((v) => v.service === target);
      return done ? true : undefined;
    },
    180_000,
    250,
  );
  assert.deepEqual(await written, [], "the API server accepts the DaemonSet's update");
  return { states, refused };
}

/** As pulumi-kubernetes awaits a Deployment: every replica updated and available. */
async function deploymentAvailable(cluster: LocalCluster, name: string): Promise<void> {
  await waitFor(
    `Deployment ${name} available`,
    async () => {
      const d = await cluster.api.get<{
        spec: { replicas: number };
        status: { availableReplicas?: number; updatedReplicas?: number };
      }>(`/apis/apps/v1/namespaces/${NS}/deployments/${name}`);
      const { availableReplicas = 0, updatedReplicas = 0 } = d.status;
      return availableReplicas >= d.spec.replicas && updatedReplicas >= d.spec.replicas ? true : undefined;
    },
    120_000,
  );
}

async function allAccepted(cluster: LocalCluster, service: string, nodes: number, what: string) {
  const verdicts = await waitFor(
    what,
    async () => {
      const v = typhaVerdicts(await snapshotOf(cluster));
      return v.length === nodes && v.every((x) => x.accepted && x.service === service) ? v : undefined;
    },
    120_000,
  ).catch(async (error: Error) => {
    const v = typhaVerdicts(await snapshotOf(cluster));
    throw new Error(`${error.message}\n${v.map((x) => `${x.pod} (${x.service}): ${x.detail}`).join("\n")}`);
  });
  return verdicts;
}

/** A state in which some pods name the old Typha and some the takeover's. */
const bothTyphas = (state: string) =>
  new RegExp(`on ${CALICO_TYPHA}(,|$)`).test(state) && state.includes(`on ${TAKEOVER_TYPHA.name}`);

/** The Typha Service a planned calico-node DaemonSet names. */
function typhaServiceOf(planned: PlannedObject | undefined): string {
  const spec = planned?.object.spec as {
    template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } };
  };
  const env = spec.template.spec.containers.flatMap((c) => c.env ?? []);
  const name = env.find((e) => e.name === "FELIX_TYPHAK8SSERVICENAME")?.value;
  assert.ok(name, "calico-node names a Typha Service");
  return name;
}

const isTypha = (o: PlannedObject, name: string) =>
  TYPHA_OBJECT_KINDS.some((k) => k.kind === o.object.kind) && o.object.metadata.name === name;

describe("calico.adopt without an outage: a Typha accepts every calico-node pod at every step", function () {
  this.timeout(20 * 60_000);

  for (const fixture of fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    it(`${fixture}: through the takeover's rollout, the old Typha's retirement and the return to calico-typha`, async function () {
      const manifest = parseManifest(fs.readFileSync(path.join(FIXTURES, fixture), "utf8"), fixture);
      const cluster = await LocalCluster.start("dev", { dir: DIR, podStartSeconds: 2 });
      try {
        const kubeconfig = fs.readFileSync(cluster.state.kubeconfig, "utf8");
        const nodes = cluster.state.nodes;
        assert.ok(nodes >= 2, "a rollout with a state between old and new needs two nodes");

        // 1. The old manifest, applied client-side; its calico-node pods reach its Typha, without TLS.
        for (const o of manifest.map(asStoredToday)) {
          const r = cluster.kubectl(["apply", "-f", "-"], YAML.stringify(o));
          assert.ok(r.ok, r.output);
        }
        await allAccepted(cluster, CALICO_TYPHA, nodes, "the old manifest's calico-node pods on its Typha");

        // 2. pulumi up with calico.adopt: the takeover step, then Calico's objects, Typha awaited.
        const evaluation = await plan(
          "dev",
          { "eks-calico:calico.adopt": true },
          { existingObjects: manifest },
        );
        await runTakeoverStep(evaluation, kubeconfig);
        const calico = planObjects(evaluation).filter((o) => o.provider.upsert);
        const daemonSet = calico.filter((o) => o.object.kind === "DaemonSet");
        // The Typha the plan's calico-node names, awaited before the DaemonSet as Pulumi orders them.
        const serving = typhaServiceOf(daemonSet[0]);
        assert.deepEqual(await cluster.create(calico.filter((o) => o.object.kind !== "DaemonSet")), []);
        await deploymentAvailable(cluster, serving);

        // 3. The DaemonSet's update, node by node: every pod keeps a Typha that accepts it.
        const retire = await loadedProvider(retirementProvider);
        const retirement = evaluation.resources.find((r) => r.type === TYPHA_RETIREMENT_TYPE);
        const inputs = {
          ...(retirement?.inputs as unknown as RetirementInputs),
          kubeconfig,
          context: undefined,
        };
        // Before the update, the retirement step refuses: every pod still names the old Typha.
        if (retirement !== undefined) {
          await assert.rejects(
            retire.create(inputs),
            /names Typha Service calico-typha, not calico-typha-takeover/,
          );
        }
        const takeover = await watchRollout(cluster, () => cluster.create(daemonSet), serving);
        assert.deepEqual(takeover.refused, [], "no calico-node pod without a Typha during the takeover");
        assert.ok(
          takeover.states.some(bothTyphas),
          `a state with pods on both Typhas was seen: ${takeover.states.join(" | ")}`,
        );
        assert.ok(retirement, "the plan has the Typha retirement step");

        // 4. The retirement: the old Typha goes, as the adoption report and the offline plan said.
        const { deleted } = (await retire.create(inputs)).outs as { deleted: string[] };
        // What the offline plan says the step deletes (offline/world/adoption.ts retireTypha).
        const note = evaluation.simulated.find((n) => n.startsWith("the old Typha deleted once"));
        const offline = note?.split(": ").slice(1).join(": ").split(", ") ?? [];
        compare(`${fixture}: the Typha retirement deletes what the offline plan said`, offline, deleted);
        compare(
          `${fixture}: the adoption report names the Typha objects the retirement deleted`,
          adoptionReport(manifest, evaluation)
            .retired.map((r) => r.object)
            .sort(),
          [...deleted].sort(),
        );
        await allAccepted(
          cluster,
          TAKEOVER_TYPHA.name,
          nodes,
          "every calico-node pod on the takeover's Typha",
        );

        // 5. calico.adopt: false: calico-typha created and awaited, the DaemonSet rolls onto it, then the
        // takeover's Typha is deleted, last (Pulumi deletes removed resources after every other step).
        const settled = planObjects(await plan("dev", {})).filter(
          (o) => o.object.kind !== "Namespace" && o.object.metadata.namespace !== PROBE_NAMESPACE,
        );
        const back = settled.filter((o) => isTypha(o, CALICO_TYPHA));
        assert.equal(back.length, 3, "calico-typha's Deployment, Service and PodDisruptionBudget");
        assert.deepEqual(await cluster.create(back), []);
        const others = settled.filter((o) => !back.includes(o) && o.object.kind !== "DaemonSet");
        assert.deepEqual(await cluster.update(others), []);
        await deploymentAvailable(cluster, CALICO_TYPHA);
        const node = settled.filter((o) => o.object.kind === "DaemonSet");
        const flip = await watchRollout(cluster, () => cluster.update(node), CALICO_TYPHA);
        assert.deepEqual(flip.refused, [], "no calico-node pod without a Typha on the way back");
        console.log(
          `      takeover: ${takeover.states.join(" -> ")}\n      back: ${flip.states.join(" -> ")}`,
        );
        assert.ok(flip.states.some(bothTyphas), `both Typhas served at once: ${flip.states.join(" | ")}`);
        for (const kind of TYPHA_OBJECT_KINDS) {
          await cluster.api.request("DELETE", typhaObjectPath(kind, NS, TAKEOVER_TYPHA.name));
        }
        await allAccepted(cluster, CALICO_TYPHA, nodes, "every calico-node pod on calico-typha at the end");
        assert.deepEqual(summary().slice(1), [], summary().join("\n"));
      } finally {
        await cluster.stop();
      }
    });
  }
});
