/**
 * The anchor: a pod that holds a node other than the server's for the other-node pair of clients.
 *
 * A Job's pod that has completed no longer counts for pod affinity (the scheduler watches only pods
 * that are not terminated: kubernetes pkg/scheduler/scheduler.go, newPodInformer's
 * `status.phase!=Succeeded,status.phase!=Failed`), so the denied client cannot follow the allowed client
 * once it has finished. Both clients of the other-node pair follow the anchor instead: a long-running pod
 * with required anti-affinity to the server, which the scheduler places on any node but the server's
 * (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity).
 * While it runs, the scheduler also keeps a rescheduled server pod off its node (an existing pod's
 * required anti-affinity is honoured for incoming pods).
 *
 * It is a bare Pod, not a Deployment, because `pulumi up` must learn whether it was placed: a
 * Deployment's status never says that a pod is unschedulable, a Pod's `PodScheduled` condition does. The
 * anchor is awaited until the scheduler has decided either way (`pulumi.com/waitFor` on that condition's
 * status), never until it is Ready, so a cluster with one eligible node does not hold the update up: the
 * condition is False with the scheduler's message, and the other-node pair does not run.
 */
import {
  HOSTNAME_TOPOLOGY,
  type LabelSelector,
  PROBE_LABELS,
  type Pod,
  WAIT_FOR_ANNOTATION,
  meta,
  podSpec,
} from "./common";

/**
 * Satisfied once the pod has a `PodScheduled` condition, True or False: the binding that assigns a node
 * sets it True in the same write as `spec.nodeName` (kubernetes pkg/registry/core/pod/storage
 * `setPodNodeAndMetadata`), and the scheduler sets it False, reason Unschedulable, with its message when no
 * node fits. A JSONPath without a value holds when it selects anything (pulumi-kubernetes
 * provider/pkg/jsonpath, RFC 9535 filters).
 */
export const ANCHOR_WAIT_FOR = 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}';

/** The anchor's in-cluster name for a probe id: each run places a new one. */
export function anchorName(id: string): string {
  return `probe-anchor-${id}`;
}

/** The anchor's labels: the other-node clients' affinity selects exactly the anchor of their own run. */
export function anchorLabels(id: string): Record<string, string> {
  return { ...PROBE_LABELS.app, ...PROBE_LABELS.anchor, [PROBE_LABELS.run]: id };
}

/**
 * The anchor Pod for a run: `agnhost pause` on a node with no pod that `serverSelector` selects (the
 * server Deployment's selector).
 */
export function renderAnchor(image: string, id: string, serverSelector: LabelSelector): Pod {
  const labels = anchorLabels(id);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...meta(anchorName(id), labels),
      annotations: { [WAIT_FOR_ANNOTATION]: ANCHOR_WAIT_FOR },
    },
    spec: {
      ...podSpec(
        image,
        { name: "anchor", args: ["pause"] },
        {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: serverSelector, topologyKey: HOSTNAME_TOPOLOGY },
            ],
          },
        },
      ),
      restartPolicy: "Always",
    },
  };
}

/** Where the anchor went: a node other than the server's, or nowhere and the scheduler's reason. */
export type AnchorPlacement = { placed: true; node: string } | { placed: false; why: string };

/** The parts of the anchor's live object (the Pod's outputs) that say where it went. */
export interface AnchorState {
  spec?: { nodeName?: string };
  status?: { conditions?: { type?: string; status?: string; reason?: string; message?: string }[] };
}

/** The anchor's placement, read from the object its await ended on. */
export function anchorPlacement(state: AnchorState): AnchorPlacement {
  const node = state.spec?.nodeName;
  if (node !== undefined && node !== "") return { placed: true, node };
  const scheduled = state.status?.conditions?.find((c) => c.type === "PodScheduled");
  const said = scheduled?.message ?? scheduled?.reason;
  return {
    placed: false,
    why: `no node other than the server's could take the anchor${said === undefined ? "" : `: ${said}`}`,
  };
}
