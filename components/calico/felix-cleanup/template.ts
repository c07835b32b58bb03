/**
 * What the Felix cleanup (./index.ts) does to the calico-node DaemonSet, and how it reads the rollout: pure
 * functions of the objects the API server returns, so tests check them directly.
 */
import { CALICO_NODE_HOST_MOUNTS } from "../daemonset";
import { appLabels, selectorLabels } from "../labels";
import { nodeAgentPlacement } from "../scheduling";
import { type DaemonSetCounts, count, isRolledOut } from "../readiness";
import { CLEANED_MARKER, CLEANUP_DIR, felixCleanupScript } from "./script";

/** On the cleanup pods and their template: the pod runs the cleanup, not Felix. */
export const CLEANUP_LABEL = "eks-calico.io/felix-cleanup";

/**
 * The field manager of the cleanup's writes (the patch of calico-node, the operator install's cleanup
 * DaemonSet), so that ./restore.ts knows whose fields to hand back. Before it was named, the API server
 * recorded the patch under the client's User-Agent prefix, which this program's client does not send: an
 * empty name (apiserver v0.35.4 pkg/endpoints/handlers/create.go managerOrUserAgent).
 */
export const CLEANUP_FIELD_MANAGER = "eks-calico-felix-cleanup";

/** The host paths the cleanup needs: the iptables lock it shares with kube-proxy and the VPC CNI, modules. */
const CLEANUP_HOST_MOUNTS = CALICO_NODE_HOST_MOUNTS.filter(
  (m) => m.name === "xtables-lock" || m.name === "lib-modules",
);

interface Container {
  name: string;
  image?: string;
}

/** The calico-node DaemonSet as the API server returns it: the fields the cleanup reads. */
export interface LiveDaemonSet {
  metadata: { name: string; namespace?: string; generation?: number };
  spec: {
    selector: { matchLabels?: Record<string, string> };
    template: {
      metadata?: { labels?: Record<string, string> };
      spec: {
        containers: Container[];
        nodeSelector?: Record<string, string>;
        affinity?: unknown;
        tolerations?: unknown[];
        priorityClassName?: string;
        serviceAccountName?: string;
      };
    };
  };
  status?: DaemonSetCounts & { observedGeneration?: number };
}

/** A calico-node pod as the API server returns it: the fields the cleanup reads. */
export interface LivePod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Where and as whom the cleanup runs: on exactly the nodes Felix ran on. */
interface Placement {
  nodeSelector?: Record<string, string>;
  affinity?: unknown;
  tolerations?: unknown[];
  priorityClassName?: string;
  serviceAccountName?: string;
}

/**
 * A cleanup pod's spec: calico-node's image (already on every node), privileged in the host network with
 * the iptables lock, running the script (./script.ts) instead of Felix. It is Ready once the script has
 * left its marker: a Ready pod means "cleaned on this node". It needs no API access, so no
 * service-account token is mounted, even where it keeps calico-node's service account (the manifest
 * install's template).
 */
function cleanupPodSpec(container: { name: string; image?: string }, placement: Placement) {
  return {
    hostNetwork: true,
    ...placement,
    automountServiceAccountToken: false,
    // The script ends at once on SIGTERM; nothing to wait for when the DaemonSet goes.
    terminationGracePeriodSeconds: 5,
    containers: [
      {
        name: container.name,
        image: container.image,
        imagePullPolicy: "IfNotPresent",
        command: ["/bin/sh", "-c", felixCleanupScript(CLEANED_MARKER)],
        securityContext: { privileged: true },
        readinessProbe: {
          exec: { command: ["/bin/sh", "-c", `test -f ${CLEANED_MARKER}`] },
          periodSeconds: 2,
          timeoutSeconds: 5,
        },
        volumeMounts: [
          ...CLEANUP_HOST_MOUNTS.map((m) => ({ name: m.name, mountPath: m.path, readOnly: m.readOnly })),
          { name: "felix-cleanup", mountPath: CLEANUP_DIR },
        ],
      },
    ],
    volumes: [
      ...CLEANUP_HOST_MOUNTS.map((m) => ({
        name: m.name,
        hostPath: m.type === undefined ? { path: m.path } : { path: m.path, type: m.type },
      })),
      { name: "felix-cleanup", emptyDir: {} },
    ],
  };
}

/**
 * The manifest install's cleanup: calico-node's pod template with the cleanup's container, keeping its
 * name, image, scheduling and service account, and its labels (the DaemonSet's selector) plus
 * CLEANUP_LABEL.
 */
export function cleanupTemplate(live: LiveDaemonSet, containerName: string) {
  const template = live.spec.template;
  const container =
    template.spec.containers.find((c) => c.name === containerName) ?? template.spec.containers[0];
  const { nodeSelector, affinity, tolerations, priorityClassName, serviceAccountName } = template.spec;
  const labels: Record<string, string> = { ...template.metadata?.labels, [CLEANUP_LABEL]: "true" };
  return {
    metadata: { labels },
    spec: cleanupPodSpec(container, {
      nodeSelector,
      affinity,
      tolerations,
      priorityClassName,
      serviceAccountName,
    }),
  };
}

/** The operator install's cleanup DaemonSet, run once the operator has removed calico-node. */
export const CLEANUP_DAEMONSET = "calico-felix-cleanup";

/**
 * The operator install's cleanup: a DaemonSet of its own, placed as the operator places calico-node (every
 * Linux EC2 node, every taint tolerated: scheduling.ts), with calico-node's image. It needs no API access.
 */
export function cleanupDaemonSet(namespace: string, image: string) {
  const labels: Record<string, string> = { ...appLabels(CLEANUP_DAEMONSET), [CLEANUP_LABEL]: "true" };
  const spec = cleanupPodSpec({ name: CLEANUP_DAEMONSET, image }, nodeAgentPlacement());
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: CLEANUP_DAEMONSET, namespace, labels },
    spec: {
      selector: { matchLabels: selectorLabels(CLEANUP_DAEMONSET) },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "100%" } },
      template: { metadata: { labels }, spec },
    },
  };
}

/**
 * The JSON patch (RFC 6902) that turns calico-node into the cleanup: its pod template, and a rolling update
 * of every node at once, so Felix stops everywhere together and the window without Felix and with its
 * rules is as short as one pod restart.
 */
export function cleanupPatch(live: LiveDaemonSet, containerName: string) {
  return [
    { op: "replace", path: "/spec/template", value: cleanupTemplate(live, containerName) },
    {
      op: "replace",
      path: "/spec/updateStrategy",
      value: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "100%" } },
    },
  ];
}

function isReady(pod: LivePod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/**
 * Whether the cleanup has run on every node of the DaemonSet patched to `generation`, and if not, what
 * it waits for. Done when the controller has seen the patch and every node that should run the
 * DaemonSet has an updated pod, available (`kubectl rollout status`: ../readiness.ts isRolledOut), and no
 * pod still runs Felix: each pod is a Ready cleanup pod.
 */
export function cleanupProgress(
  daemonSet: LiveDaemonSet,
  pods: readonly LivePod[],
  generation: number,
): { done: boolean; waiting: string[] } {
  const waiting: string[] = [];
  const status = daemonSet.status ?? {};
  // As `kubectl rollout status` decides (../readiness.ts isRolledOut), which also covers no node to clean.
  const desired = count(status, "desiredNumberScheduled");
  if ((status.observedGeneration ?? 0) < generation) {
    waiting.push("the DaemonSet controller has not seen the cleanup template yet");
  } else if (!isRolledOut({ ...status, generation })) {
    const [available, updated] = [count(status, "numberAvailable"), count(status, "updatedNumberScheduled")];
    waiting.push(`${available} of ${desired} nodes available, ${updated} updated`);
  }
  for (const pod of pods) {
    const where = `pod ${pod.metadata.name} on ${pod.spec.nodeName ?? "no node"}`;
    if (pod.metadata.labels?.[CLEANUP_LABEL] !== "true") {
      const state = pod.metadata.deletionTimestamp === undefined ? "" : " (terminating)";
      waiting.push(`${where}${state} still runs Felix`);
    } else if (!isReady(pod)) {
      waiting.push(`${where} has not cleaned its node yet`);
    }
  }
  return { done: waiting.length === 0, waiting };
}
