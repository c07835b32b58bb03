/**
 * The calico-node DaemonSet and Typha's Deployment, read over and over while a `pulumi up` runs: for each
 * read, each object's generation, the network-policy kinds its ClusterRole grants, and whether the
 * controller has rolled that generation out on every pod, by the rules of `kubectl rollout status` (k8s.io/kubectl v0.35.4, kubernetes v1.35.4's staging,
 * pkg/polymorphichelpers/rollout_status.go: observedGeneration at least generation, then every pod
 * updated and available, and for a Deployment no old replica left).
 */
import type { LocalCluster } from "../../local-cluster/deploy";
import { CALICO_NODE, CALICO_TYPHA } from "../../components/calico/names";

interface Workload {
  metadata: { generation?: number };
  spec?: { replicas?: number };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
  };
}

/** One workload at one read: its generation, whether that generation is rolled out, and what its role grants. */
export interface Seen {
  readonly generation: number;
  readonly rolledOut: boolean;
  /** The network-policy-api kinds (policy.networking.k8s.io) its ClusterRole lets it read, sorted. */
  readonly policyKinds: readonly string[];
}

interface Role {
  rules?: { apiGroups?: string[]; resources?: string[] }[];
}

function policyKinds(role: Role): string[] {
  return (role.rules ?? [])
    .filter((rule) => rule.apiGroups?.includes("policy.networking.k8s.io"))
    .flatMap((rule) => rule.resources ?? [])
    .sort();
}

/** One read of both workloads. */
export interface Read {
  readonly calicoNode: Seen;
  readonly typha: Seen;
}

function daemonSetSeen(ds: Workload): Omit<Seen, "policyKinds"> {
  const s = ds.status ?? {};
  const generation = ds.metadata.generation ?? 0;
  const desired = s.desiredNumberScheduled ?? 0;
  const rolledOut =
    (s.observedGeneration ?? 0) >= generation &&
    (s.updatedNumberScheduled ?? 0) >= desired &&
    (s.numberAvailable ?? 0) >= desired;
  return { generation, rolledOut };
}

function deploymentSeen(d: Workload): Omit<Seen, "policyKinds"> {
  const s = d.status ?? {};
  const generation = d.metadata.generation ?? 0;
  const updated = s.updatedReplicas ?? 0;
  const rolledOut =
    (s.observedGeneration ?? 0) >= generation &&
    updated >= (d.spec?.replicas ?? 1) &&
    (s.replicas ?? 0) <= updated &&
    (s.availableReplicas ?? 0) >= updated;
  return { generation, rolledOut };
}

/**
 * Reads both workloads in `namespace` until `finished`, then once more. `second` is the one expected to
 * change last, read first in each pass: a pass that shows it changed then shows the other as it was
 * after that change, never before.
 */
export function rolloutWatcher(
  cluster: LocalCluster,
  second: "calico-node" | "typha",
  namespace = "kube-system",
) {
  const reads: Read[] = [];
  const path = (kind: string, name: string) => `/apis/apps/v1/namespaces/${namespace}/${kind}/${name}`;
  const role = async (name: string) =>
    policyKinds(await cluster.api.get<Role>(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`));
  // The role is read before the workload: a read that shows the workload changed shows its role as it
  // was then or later.
  const readNode = async (): Promise<Seen> => {
    const kinds = await role(CALICO_NODE);
    return {
      ...daemonSetSeen(await cluster.api.get<Workload>(path("daemonsets", CALICO_NODE))),
      policyKinds: kinds,
    };
  };
  const readTypha = async (): Promise<Seen> => {
    const kinds = await role(CALICO_TYPHA);
    return {
      ...deploymentSeen(await cluster.api.get<Workload>(path("deployments", CALICO_TYPHA))),
      policyKinds: kinds,
    };
  };
  const watch = async (finished: () => boolean) => {
    for (let last = false; !last;) {
      last = finished();
      if (second === "typha") {
        const typha = await readTypha();
        reads.push({ typha, calicoNode: await readNode() });
      } else {
        const calicoNode = await readNode();
        reads.push({ calicoNode, typha: await readTypha() });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  return { reads, watch };
}

/**
 * The reads in which `second` had changed (its generation above its first read's) while `first` had not
 * yet rolled out a generation above its own first read's: each one a Felix of one release meeting the
 * other release's Typha before its turn. Empty when `second` waited for `first`'s whole rollout.
 */
export function outOfTurn(reads: readonly Read[], first: keyof Read, second: keyof Read): Read[] {
  const [start] = reads;
  if (start === undefined) return [];
  return reads.filter(
    (read) =>
      read[second].generation > start[second].generation &&
      !(read[first].generation > start[first].generation && read[first].rolledOut),
  );
}

/**
 * The reads in which `second`'s ClusterRole had changed its network-policy kinds while `first` had not yet
 * rolled out: each one the running `second` losing what its own release reads before its turn
 * (components/calico/rbac.ts KUBERNETES_POLICY_READABLE differs per line). Empty when the role waited.
 */
export function roleOutOfTurn(reads: readonly Read[], first: keyof Read, second: keyof Read): Read[] {
  const [start] = reads;
  if (start === undefined) return [];
  return reads.filter(
    (read) =>
      read[second].policyKinds.join() !== start[second].policyKinds.join() &&
      !(read[first].generation > start[first].generation && read[first].rolledOut),
  );
}
