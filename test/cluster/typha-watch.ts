/**
 * Typha during a takeover, on a real control plane: every calico-node pod judged against the Typha its env
 * names (local-cluster/typha-acceptance.ts: the Service, its ready endpoints, the port, TLS on both sides),
 * read over and over while a `pulumi up` runs.
 */
import type { LocalCluster } from "../../local-cluster/deploy";
import { waitFor } from "../../local-cluster/api";
import {
  type ClusterSnapshot,
  type EndpointSlice,
  type Pod,
  type Verdict,
  typhaVerdicts,
} from "../../local-cluster/typha-acceptance";
import { CALICO_TYPHA, TAKEOVER_TYPHA } from "../../components/calico/names";
import { TYPHA_OBJECT_KINDS, typhaObjectPath } from "../../components/calico/takeover/typha-retirement";

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
 * Reads the cluster until `finished` (the `up` it watches has ended), then once more, judging every
 * calico-node pod at every read: the distinct states seen, and every pod a Typha did not accept.
 */
export function watcher(cluster: LocalCluster) {
  const watched: Watched = { states: [], refused: [] };
  const watch = async (finished: () => boolean) => {
    for (let last = false; !last;) {
      last = finished();
      const verdicts = typhaVerdicts(await snapshotOf(cluster));
      const state = stateOf(verdicts);
      if (watched.states.at(-1) !== state) watched.states.push(state);
      for (const v of verdicts.filter((x) => !x.accepted)) {
        const line = `${state}: ${v.pod}: ${v.detail}`;
        if (!watched.refused.includes(line)) watched.refused.push(line);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  return { watched, watch };
}

/** The Typha objects of `name` that exist. */
export async function typhaObjects(cluster: LocalCluster, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const kind of TYPHA_OBJECT_KINDS) {
    try {
      await cluster.api.get(typhaObjectPath(kind, NS, name));
      found.push(`${kind.kind} ${NS}/${name}`);
    } catch {
      // not there
    }
  }
  return found;
}

/** The amazon-vpc-cni-k8s Calico manifests' Typha autoscaler (config/v1.5, v1.6 calico.yaml). */
export const OLD_TYPHA_AUTOSCALER = "calico-typha-horizontal-autoscaler";

/** `Deployment kube-system/calico-typha-horizontal-autoscaler` while it exists, as a list. */
export async function oldAutoscaler(cluster: LocalCluster): Promise<string[]> {
  const found = await cluster.api.find(`/apis/apps/v1/namespaces/${NS}/deployments/${OLD_TYPHA_AUTOSCALER}`);
  return found === undefined ? [] : [`Deployment ${NS}/${OLD_TYPHA_AUTOSCALER}`];
}

/** Waits until every calico-node pod (one per node) names `service` and that Typha accepts it. */
export async function allAccepted(cluster: LocalCluster, service: string, nodes: number, what: string) {
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
export const bothTyphas = (state: string) =>
  new RegExp(`on ${CALICO_TYPHA}(,|$)`).test(state) && state.includes(`on ${TAKEOVER_TYPHA.name}`);
