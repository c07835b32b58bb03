/**
 * What the `up` after an interrupted one reached, judged from the cluster itself, not from the engine's
 * state: the healthy install its config describes (calico-node's live pod template is the one the plan
 * renders, Felix Ready on every node, no cleanup pod, the old Typha of a takeover gone, the outputs'
 * `isReady` and `policyEnforced` true, a preview with nothing to change), the end of a removal (no
 * calico-node anywhere, the `calico` output's installer "none"), or a refusal (the `up` failed, changed
 * no object's spec, and its message names an object the cluster holds).
 */
import { isDeepStrictEqual } from "node:util";
import { CLEANUP_DAEMONSET, CLEANUP_LABEL } from "../../components/calico/felix-cleanup";
import { CALICO_NODE, CALICO_TYPHA, STANDARD_TYPHA, TAKEOVER_TYPHA } from "../../components/calico/names";
import { MARKER_NAME, MARKER_NAMESPACE, MARKER_PATH } from "../../components/calico/removal-marker";
import { CERTIFICATE_EXPIRY_ANNOTATION } from "../../components/calico/typha-tls";
import { TYPHA_OBJECT_KINDS, typhaObjectPath } from "../../components/calico/takeover/typha-retirement";
import type { LocalCluster } from "../../local-cluster/deploy";
import type { OperationResult } from "../../local-cluster/pulumi";
import type { StackEvaluation } from "../../offline/engine";
import type { CalicoSettings } from "../interruption-steps";

interface LivePod {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string; containers: { name: string; image: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}
interface LiveWorkload {
  kind: string;
  metadata: { name: string; namespace?: string; generation?: number; resourceVersion?: string };
  spec?: { template?: { metadata?: { labels?: Record<string, string> } } };
}

/**
 * A value the API server's JSON leaves out (`omitempty` on the field in k8s.io/api, e.g. EnvVar.Value
 * and VolumeMount.ReadOnly in core/v1 types.go): written as false or "", read back as absent.
 */
function omittedWhenEmpty(value: unknown): boolean {
  return value === false || value === "" || value === 0;
}

/** The paths where `live` lacks or differs from what `rendered` sets (what the API server adds aside). */
export function notAsRendered(rendered: unknown, live: unknown, at = ""): string[] {
  if (live === undefined && omittedWhenEmpty(rendered)) return [];
  if (Array.isArray(rendered)) {
    if (!Array.isArray(live) || live.length !== rendered.length)
      return [`${at || "(root)"} (${JSON.stringify(live)?.slice(0, 200)})`];
    return rendered.flatMap((item, i) => notAsRendered(item, live[i], `${at}[${i}]`));
  }
  if (typeof rendered === "object" && rendered !== null) {
    if (typeof live !== "object" || live === null) return [at || "(root)"];
    return Object.entries(rendered).flatMap(([key, value]) =>
      notAsRendered(value, (live as Record<string, unknown>)[key], at ? `${at}.${key}` : key),
    );
  }
  return isDeepStrictEqual(rendered, live) ? [] : [`${at} (${JSON.stringify(live)?.slice(0, 200)})`];
}

/** The plan's calico-node DaemonSet. */
function renderedCalicoNode(plan: StackEvaluation) {
  const record = plan.resources.find(
    (r) =>
      r.type === "kubernetes:apps/v1:DaemonSet" &&
      (r.inputs as { metadata?: { name?: string } }).metadata?.name === CALICO_NODE,
  );
  if (record === undefined) throw new Error("the plan has no calico-node DaemonSet");
  return record.inputs as {
    metadata: { namespace: string };
    spec: {
      template: {
        metadata: { annotations?: Record<string, string> };
        spec: { containers: { name: string; image: string }[] };
      };
    };
  };
}

const isReady = (pod: LivePod) =>
  pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

async function list<T>(cluster: LocalCluster, path: string): Promise<T[]> {
  return (await cluster.api.get<{ items: T[] }>(path)).items;
}

/** Every calico-node DaemonSet the cluster runs, and the cleanup DaemonSet, as `namespace/name`. */
async function calicoDaemonSets(cluster: LocalCluster): Promise<string[]> {
  const all = await list<LiveWorkload>(cluster, "/apis/apps/v1/daemonsets");
  return all
    .filter((d) => d.metadata.name === CALICO_NODE || d.metadata.name === CLEANUP_DAEMONSET)
    .map((d) => `${d.metadata.namespace}/${d.metadata.name}`);
}

/** Pods of the Felix cleanup, anywhere. */
async function cleanupPods(cluster: LocalCluster): Promise<string[]> {
  const pods = await list<LivePod>(
    cluster,
    `/api/v1/pods?labelSelector=${encodeURIComponent(`${CLEANUP_LABEL}=true`)}`,
  );
  return pods.map((p) => `${p.metadata.namespace}/${p.metadata.name} on ${p.spec.nodeName ?? "no node"}`);
}

/** Why the cluster is not the healthy install `plan` renders (empty when it is). */
export async function notInstalled(
  cluster: LocalCluster,
  plan: StackEvaluation,
  next: CalicoSettings,
  up: OperationResult,
): Promise<string[]> {
  const problems: string[] = [];
  const calico = (up.outputs.calico ?? {}) as Record<string, unknown>;
  if (calico.isReady !== true) problems.push(`the calico output's isReady is ${String(calico.isReady)}`);
  const probe = next.probe as { enabled?: boolean } | undefined;
  if (probe?.enabled !== false && calico.policyEnforced !== true) {
    problems.push(`the probe is on and policyEnforced is ${String(calico.policyEnforced)}`);
  }
  const rendered = renderedCalicoNode(plan);
  const ns = rendered.metadata.namespace;
  const live = await cluster.api.find<{
    spec: { template: unknown; selector: { matchLabels: Record<string, string> } };
  }>(`/apis/apps/v1/namespaces/${ns}/daemonsets/${CALICO_NODE}`);
  if (live === undefined) return [...problems, `DaemonSet ${ns}/${CALICO_NODE} does not exist`];
  // The certificate's validity is what the offline TLS world invents; the live one is the real certificate's.
  const annotations = { ...rendered.spec.template.metadata.annotations };
  delete annotations[CERTIFICATE_EXPIRY_ANNOTATION];
  const template = {
    ...rendered.spec.template,
    metadata: { ...rendered.spec.template.metadata, annotations },
  };
  const differs = notAsRendered(template, live.spec.template);
  if (differs.length > 0)
    problems.push(
      `calico-node's live pod template is not the rendered one at ${differs.slice(0, 6).join(", ")}`,
    );
  const others = (await calicoDaemonSets(cluster)).filter((d) => d !== `${ns}/${CALICO_NODE}`);
  if (others.length > 0) problems.push(`another calico-node or cleanup DaemonSet runs: ${others.join(", ")}`);
  const cleaning = await cleanupPods(cluster);
  if (cleaning.length > 0) problems.push(`cleanup pods run: ${cleaning.join(", ")}`);
  problems.push(...(await markerLeft(cluster)));
  // Felix on every node: a Ready pod of the rendered image, not a cleanup pod.
  const image = rendered.spec.template.spec.containers.find((c) => c.name === CALICO_NODE)?.image;
  const selector = Object.entries(live.spec.selector.matchLabels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const pods = await list<LivePod>(
    cluster,
    `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`,
  );
  const felixOn = new Set(
    pods
      .filter((p) => p.metadata.deletionTimestamp === undefined && isReady(p))
      .filter((p) => p.metadata.labels?.[CLEANUP_LABEL] === undefined)
      .filter((p) => p.spec.containers.find((c) => c.name === CALICO_NODE)?.image === image)
      .map((p) => p.spec.nodeName),
  );
  const nodes = (await list<{ metadata: { name: string } }>(cluster, "/api/v1/nodes")).map(
    (n) => n.metadata.name,
  );
  const without = nodes.filter((n) => !felixOn.has(n));
  if (without.length > 0) problems.push(`no Ready Felix (${image}) on ${without.join(", ")}`);
  // Typha serving: Felix reads the datastore through it.
  const typha = (next.adopt === true ? TAKEOVER_TYPHA : STANDARD_TYPHA).name;
  const deployment = await cluster.api.find<{ status?: { readyReplicas?: number } }>(
    `/apis/apps/v1/namespaces/${ns}/deployments/${typha}`,
  );
  if (deployment === undefined) problems.push(`Deployment ${ns}/${typha} does not exist`);
  else if ((deployment.status?.readyReplicas ?? 0) < 1)
    problems.push(`Deployment ${ns}/${typha} has no ready replica`);
  if (next.adopt === true) {
    for (const kind of TYPHA_OBJECT_KINDS) {
      if ((await cluster.api.find(typhaObjectPath(kind, "kube-system", CALICO_TYPHA))) !== undefined) {
        problems.push(`the old Typha's ${kind.kind} kube-system/${CALICO_TYPHA} is left`);
      }
    }
  }
  return problems;
}

/** The removal marker, when an install or a finished removal left it (components/calico/removal-marker.ts). */
async function markerLeft(cluster: LocalCluster): Promise<string[]> {
  const marker = await cluster.api.find(MARKER_PATH);
  return marker === undefined ? [] : [`the removal marker ${MARKER_NAMESPACE}/${MARKER_NAME} is left`];
}

/** Why the cluster is not the end of a removal (empty when it is). */
export async function notRemoved(cluster: LocalCluster, up: OperationResult): Promise<string[]> {
  const problems: string[] = [];
  const installer = ((up.outputs.calico ?? {}) as Record<string, unknown>).installer;
  if (installer !== "none") problems.push(`the calico output's installer is ${String(installer)}, not none`);
  const left = await calicoDaemonSets(cluster);
  if (left.length > 0) problems.push(`DaemonSets left: ${left.join(", ")}`);
  const cleaning = await cleanupPods(cluster);
  if (cleaning.length > 0) problems.push(`cleanup pods run: ${cleaning.join(", ")}`);
  return [...problems, ...(await markerLeft(cluster))];
}

/** Each workload-like object of the namespaces with its generation (or resourceVersion), to see what a refusal changed. */
export async function specs(
  cluster: LocalCluster,
  namespaces: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const ns of new Set(namespaces)) {
    for (const resource of [
      "apps/v1/daemonsets",
      "apps/v1/deployments",
      "v1/services",
      "v1/configmaps",
      "v1/secrets",
    ]) {
      const base = resource.startsWith("v1/")
        ? `/api/v1/namespaces/${ns}/${resource.slice(3)}`
        : `/apis/${resource.replace(/\/([a-z]+)$/, `/namespaces/${ns}/$1`)}`;
      const items = await cluster.api.find<{ items: LiveWorkload[] }>(base);
      for (const o of items?.items ?? []) {
        found.set(
          `${resource.split("/").pop()} ${ns}/${o.metadata.name}`,
          String(o.metadata.generation ?? o.metadata.resourceVersion),
        );
      }
    }
  }
  return found;
}

/** The objects whose spec changed between two {@link specs}, or that came or went. */
export function specChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).sort();
}

/** The refusal's text, and the objects of `objects` (`namespace/name` or a pod's name) it names. */
export function namedIn(
  result: OperationResult,
  objects: readonly string[],
): { text: string; named: string[] } {
  const text = [...result.errors, result.error ?? ""].join("\n");
  return { text, named: objects.filter((o) => text.includes(o)) };
}
