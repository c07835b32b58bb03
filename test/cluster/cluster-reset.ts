/**
 * One local cluster for many cases: what it holds right after it started is its baseline, and a reset
 * deletes every object of the swept kinds that is not in it (a new namespace whole), then waits until only
 * the baseline is left. Cheaper than a new cluster per case, and it fails, naming what stayed, rather than
 * hand a case a cluster that is not clean.
 */
import type { LocalCluster } from "../../local-cluster/deploy";
import { waitFor } from "../../local-cluster/api";

/** The kinds a case's objects can be of: Calico's, an old manifest's, the probe's, and what the test adds. */
const SWEPT = [
  "namespaces",
  "customresourcedefinitions",
  "clusterroles",
  "clusterrolebindings",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "daemonsets",
  "deployments",
  "jobs",
  "pods",
  "services",
  "configmaps",
  "secrets",
  "serviceaccounts",
  "roles",
  "rolebindings",
  "poddisruptionbudgets",
  "networkpolicies",
];

interface Listed {
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** `kind namespace/name` of each object of the swept kinds. */
function inventory(cluster: LocalCluster): Map<string, Listed> {
  const got = cluster.kubectl(["get", SWEPT.join(","), "--all-namespaces", "-o", "json"]);
  if (!got.ok) throw new Error(`kubectl get: ${got.output}`);
  const items = (JSON.parse(got.output) as { items: Listed[] }).items;
  return new Map(
    items.map((o) => [
      `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`,
      o,
    ]),
  );
}

export class ClusterBaseline {
  private constructor(
    private readonly cluster: LocalCluster,
    private readonly baseline: ReadonlySet<string>,
  ) {}

  static of(cluster: LocalCluster): ClusterBaseline {
    return new ClusterBaseline(cluster, new Set(inventory(cluster).keys()));
  }

  /** Deletes what is not in the baseline and waits until it is gone; throws naming what stayed. */
  async reset(): Promise<void> {
    const extra = () => [...inventory(this.cluster)].filter(([key]) => !this.baseline.has(key));
    const found = extra();
    // Objects in a new namespace go with it.
    const newNamespaces = new Set(
      found.filter(([, o]) => o.kind === "Namespace").map(([, o]) => o.metadata.name),
    );
    for (const [, object] of found) {
      if (object.metadata.namespace !== undefined && newNamespaces.has(object.metadata.namespace)) continue;
      const where = object.metadata.namespace === undefined ? [] : ["-n", object.metadata.namespace];
      this.cluster.kubectl([
        "delete",
        object.kind,
        object.metadata.name,
        ...where,
        "--ignore-not-found",
        "--wait=false",
      ]);
    }
    await waitFor(
      "the cluster to hold only its baseline",
      () => Promise.resolve(extra().length === 0 ? true : undefined),
      180_000,
      1000,
    ).catch((error: Error) => {
      const left = extra().map(([key]) => key);
      throw new Error(`${error.message}: left ${left.join(", ")}`);
    });
  }
}
