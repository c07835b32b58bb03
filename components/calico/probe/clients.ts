/**
 * The probe's client Jobs, in two pairs. In each pair an allowed client (the allow policy admits it: it
 * must connect), then a denied client (it must be blocked on every attempt), then a recheck client (the
 * allowed client once more: it must connect after the denied window) run on one node, so a blocked
 * connection is compared with working ones from the same place, before and after it:
 * - the same-node pair on the server's node, by required pod affinity to the server pod;
 * - the other-node pair on another node, by required pod affinity to the run's anchor (anchor.ts), which
 *   keeps away from the server's node. Without such a node the pair's Jobs are created suspended and
 *   not awaited, saying why; the report says the pair did not run.
 * Pod affinity: https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity
 */
import { COMMON_LABELS } from "../labels";
import type { AnchorPlacement } from "./anchor";
import { anchorLabels } from "./anchor";
import {
  HOSTNAME_TOPOLOGY,
  type Job,
  type LabelSelector,
  PROBE_LABELS,
  PROBE_NAMESPACE,
  type ProbeSettings,
  REPLACE_UNREADY_ANNOTATION,
  SERVICE_PORT,
  SKIP_AWAIT_ANNOTATION,
  meta,
  podSpec,
} from "./common";
import { allowedClientScript, deniedClientScript, recheckClientScript } from "./script";

/** What the allow policy sees of a client: it admits `allowed` ones only. */
export type Access = "allowed" | "denied";
/** A pair's clients, in the order they run. */
export type Client = "allowed" | "denied" | "recheck";
export const CLIENTS: readonly Client[] = ["allowed", "denied", "recheck"];
export type Pair = "same-node" | "other-node";
export const PAIRS: readonly Pair[] = ["same-node", "other-node"];

/** The recheck client is an allowed client run again: the policy admits it. */
export function accessOf(client: Client): Access {
  return client === "denied" ? "denied" : "allowed";
}

const SCRIPTS: Record<Client, () => string> = {
  allowed: allowedClientScript,
  denied: deniedClientScript,
  recheck: recheckClientScript,
};

/** On a Job of the other-node pair that did not run: why (the anchor found no node). */
export const NOT_RUN_ANNOTATION = "eks-calico.io/probe-not-run";

/** A client Job's in-cluster name for a probe id: what the Job ran against, so a change names new Jobs. */
export function clientJobName(client: Client, id: string, pair: Pair = "same-node"): string {
  return `${pair === "same-node" ? "" : "other-node-"}${client}-client-${id}`;
}

/** The three Jobs of a pair. */
export type ClientPair = Record<Client, Job>;

function clientJob(
  settings: ProbeSettings,
  image: string,
  id: string,
  pair: Pair,
  client: Client,
  follow: LabelSelector,
): Job {
  const access = accessOf(client);
  const labels = {
    ...PROBE_LABELS.client,
    [PROBE_LABELS.access]: access,
    [PROBE_LABELS.role]: client,
    [PROBE_LABELS.pair]: pair,
    [PROBE_LABELS.expect]: access === "allowed" ? "connect" : "blocked",
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      ...meta(clientJobName(client, id, pair), labels),
      annotations: { [REPLACE_UNREADY_ANNOTATION]: "true" },
    },
    spec: {
      // One pod, no retries: a second pod would hide a failure and restart the denied client's window.
      backoffLimit: 0,
      activeDeadlineSeconds: settings.timeoutMinutes * 60,
      template: {
        metadata: { labels: { ...COMMON_LABELS, ...PROBE_LABELS.app, ...labels } },
        spec: {
          restartPolicy: "Never",
          ...podSpec(
            image,
            {
              name: `${client}-client`,
              command: ["/bin/sh", "-c", SCRIPTS[client]()],
              env: [
                {
                  name: "TARGET",
                  value: `probe-server.${PROBE_NAMESPACE}.svc.cluster.local:${SERVICE_PORT}`,
                },
              ],
              terminationMessagePolicy: "FallbackToLogsOnError",
            },
            {
              podAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  { labelSelector: follow, topologyKey: HOSTNAME_TOPOLOGY },
                ],
              },
            },
          ),
        },
      },
    },
  };
}

/**
 * Both pairs of a run: the same-node pair follows the pods `serverSelector` selects (the server
 * Deployment's selector), the other-node pair the run's anchor.
 */
export function renderClients(
  settings: ProbeSettings,
  image: string,
  id: string,
  serverSelector: LabelSelector,
): Record<Pair, ClientPair> {
  const pair = (which: Pair, follow: LabelSelector): ClientPair => ({
    allowed: clientJob(settings, image, id, which, "allowed", follow),
    denied: clientJob(settings, image, id, which, "denied", follow),
    recheck: clientJob(settings, image, id, which, "recheck", follow),
  });
  return {
    "same-node": pair("same-node", serverSelector),
    "other-node": pair("other-node", { matchLabels: anchorLabels(id) }),
  };
}

/**
 * An other-node Job as the anchor's placement allows: unchanged when the anchor has a node; otherwise
 * suspended (the Job controller creates no pod), not awaited, and without `replaceUnready` (a suspended
 * Job is never complete, and would be replaced on every update), with why it did not run.
 */
export function forPlacement(job: Job, placement: AnchorPlacement): Job {
  if (placement.placed) return job;
  const annotations = Object.fromEntries(
    Object.entries(job.metadata.annotations ?? {}).filter(([key]) => key !== REPLACE_UNREADY_ANNOTATION),
  );
  return {
    ...job,
    metadata: {
      ...job.metadata,
      annotations: { ...annotations, [SKIP_AWAIT_ANNOTATION]: "true", [NOT_RUN_ANNOTATION]: placement.why },
    },
    spec: { ...job.spec, suspend: true },
  };
}
