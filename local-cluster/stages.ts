/**
 * kwok's Stages for the local cluster: what a kubelet would report for the simulated nodes and their pods.
 * kwok applies a Stage's `next` to each object its selector matches (sigs.k8s.io/kwok, Stage API
 * v1alpha1; templates are Go templates over the object, with kwok's functions Now, Quote, NodeIPWith and
 * PodIPWith). Written for what this project needs: nodes become Ready and keep their allocatable; a
 * scheduled pod starts (after `podStartSeconds`) and becomes Ready; a Job's pod completes; a deleted pod
 * goes. Nothing here runs a container: readiness probes and scripts are not executed.
 */
import YAML from "yaml";
import { CLEANUP_LABEL } from "../components/calico/felix-cleanup/template";

/** On a Felix cleanup pod held on `cleanupHeldOn`: the pod may start now (its node cleaned at last). */
export const RELEASE_LABEL = "eks-calico.local/cleanup-released";

export interface StageOptions {
  /** Seconds between a pod being scheduled and it running and Ready (a rollout's pace). */
  readonly podStartSeconds?: number;
  /**
   * A node on which the Felix cleanup's pods (label CLEANUP_LABEL) stay Pending, as on a node whose
   * cleanup does not finish, until one is labelled RELEASE_LABEL. Felix's pods start there as anywhere.
   */
  readonly cleanupHeldOn?: string;
}

const NODE_READY = `{{ $now := Now }}
conditions:
- type: Ready
  status: "True"
  reason: KubeletReady
  message: kubelet is posting ready status
  lastHeartbeatTime: {{ $now | Quote }}
  lastTransitionTime: {{ $now | Quote }}
{{ range list "MemoryPressure" "DiskPressure" "PIDPressure" }}
- type: {{ . }}
  status: "False"
  reason: KubeletHas{{ . }}
  message: kubelet has no {{ . }}
  lastHeartbeatTime: {{ $now | Quote }}
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
phase: Running
`;

/** A status list for every container of `containers`: running, or terminated after completing. */
function containerStatuses(
  field: string,
  containers: string,
  state: "running" | "completed",
  ready: boolean,
): string {
  const body =
    state === "running"
      ? `  started: true
  state:
    running:
      startedAt: {{ $now | Quote }}`
      : `  state:
    terminated:
      exitCode: 0
      reason: Completed
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}`;
  return `${field}:
{{ range ${containers} }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: ${String(ready)}
  restartCount: 0
${body}
{{ end }}
`;
}

/** Pod conditions of the given types, all with one status. */
function conditions(types: string[], status: "True" | "False", reason?: string): string {
  return `{{ range list ${types.map((t) => `"${t}"`).join(" ")} }}
- type: {{ . }}
  status: "${status}"
${reason === undefined ? "" : `  reason: ${reason}\n`}  lastTransitionTime: {{ $now | Quote }}
{{ end }}
`;
}

const POD_RUNNING = `{{ $now := Now }}
conditions:
${conditions(["PodScheduled", "Initialized", "ContainersReady", "Ready"], "True")}${containerStatuses("containerStatuses", ".spec.containers", "running", true)}${containerStatuses("initContainerStatuses", ".spec.initContainers", "completed", true)}{{ with NodeIPWith .spec.nodeName }}
hostIP: {{ . | Quote }}
hostIPs:
- ip: {{ . | Quote }}
{{ end }}
{{ with PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
podIP: {{ . | Quote }}
podIPs:
- ip: {{ . | Quote }}
{{ end }}
phase: Running
startTime: {{ $now | Quote }}
`;

const POD_SUCCEEDED = `{{ $now := Now }}
${containerStatuses("containerStatuses", ".spec.containers", "completed", false)}conditions:
${conditions(["Initialized", "PodScheduled"], "True")}${conditions(["ContainersReady", "Ready"], "False", "PodCompleted")}phase: Succeeded
`;

type Expression = { key: string; operator: string; values?: string[] };

function stage(
  name: string,
  kind: "Node" | "Pod",
  matchExpressions: Expression[],
  next: object,
  delaySeconds = 0,
) {
  return {
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "Stage",
    metadata: { name },
    spec: {
      resourceRef: { apiGroup: "v1", kind },
      selector: { matchExpressions },
      ...(delaySeconds > 0 ? { delay: { durationMilliseconds: delaySeconds * 1000 } } : {}),
      next,
    },
  };
}

const NOT_DELETED: Expression = { key: ".metadata.deletionTimestamp", operator: "DoesNotExist" };
const PENDING: Expression = { key: ".status.phase", operator: "In", values: ["Pending"] };
const label = (key: string) => `.metadata.labels["${key}"]`;

/** Pods that start: every scheduled pod, but on `held` only those not held there. */
function podRunning(options: StageOptions): object[] {
  const start = (name: string, where: Expression[]) =>
    stage(
      name,
      "Pod",
      [NOT_DELETED, ...where, PENDING],
      { statusTemplate: POD_RUNNING },
      options.podStartSeconds ?? 0,
    );
  const held = options.cleanupHeldOn;
  if (held === undefined) return [start("pod-running", [{ key: ".spec.nodeName", operator: "Exists" }])];
  const on: Expression = { key: ".spec.nodeName", operator: "In", values: [held] };
  return [
    start("pod-running", [{ key: ".spec.nodeName", operator: "NotIn", values: [held] }]),
    start("pod-running-beside-held-cleanup", [on, { key: label(CLEANUP_LABEL), operator: "DoesNotExist" }]),
    start("pod-running-cleanup-released", [on, { key: label(RELEASE_LABEL), operator: "Exists" }]),
  ];
}

/** The Stage objects, in the order kwok matches them. */
export function stages(options: StageOptions = {}): object[] {
  return [
    stage(
      "node-ready",
      "Node",
      [
        {
          key: '.status.conditions.[] | select( .type == "Ready" ) | .status',
          operator: "NotIn",
          values: ["True"],
        },
      ],
      { statusTemplate: NODE_READY },
    ),
    ...podRunning(options),
    stage(
      "job-pod-succeeded",
      "Pod",
      [
        NOT_DELETED,
        { key: ".status.phase", operator: "In", values: ["Running"] },
        { key: ".metadata.ownerReferences.[].kind", operator: "In", values: ["Job"] },
      ],
      { statusTemplate: POD_SUCCEEDED },
    ),
    stage("pod-deleted", "Pod", [{ key: ".metadata.deletionTimestamp", operator: "Exists" }], {
      delete: true,
    }),
  ];
}

/** kwok's --config file: the Stages as multi-document YAML. */
export function stagesYaml(options: StageOptions = {}): string {
  return stages(options)
    .map((s) => `---\n${YAML.stringify(s, { lineWidth: 0 })}`)
    .join("");
}
