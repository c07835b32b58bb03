/**
 * kwok's Stages for the local cluster: what a kubelet would report for the simulated nodes and their pods.
 * kwok applies a Stage's `next` to each object its selector matches (sigs.k8s.io/kwok, Stage API
 * v1alpha1; templates are Go templates over the object, with kwok's functions Now, Quote, NodeIPWith and
 * PodIPWith). Written for what this project needs: nodes become Ready and keep their allocatable; a
 * scheduled pod starts (after `podStartSeconds`) and becomes Ready; a Job's pod completes; a deleted pod
 * goes. Nothing here runs a container: readiness probes and scripts are not executed.
 */
import YAML from "yaml";

export interface StageOptions {
  /** Seconds between a pod being scheduled and it running and Ready (a rollout's pace). */
  readonly podStartSeconds?: number;
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

const POD_RUNNING = `{{ $now := Now }}
conditions:
{{ range list "PodScheduled" "Initialized" "ContainersReady" "Ready" }}
- type: {{ . }}
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: true
  started: true
  restartCount: 0
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ end }}
initContainerStatuses:
{{ range .spec.initContainers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: true
  restartCount: 0
  state:
    terminated:
      exitCode: 0
      reason: Completed
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
{{ with NodeIPWith .spec.nodeName }}
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
containerStatuses:
{{ range .spec.containers }}
- name: {{ .name | Quote }}
  image: {{ .image | Quote }}
  ready: false
  started: false
  restartCount: 0
  state:
    terminated:
      exitCode: 0
      reason: Completed
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}
{{ end }}
conditions:
{{ range list "Initialized" "PodScheduled" }}
- type: {{ . }}
  status: "True"
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
{{ range list "ContainersReady" "Ready" }}
- type: {{ . }}
  status: "False"
  reason: PodCompleted
  lastTransitionTime: {{ $now | Quote }}
{{ end }}
phase: Succeeded
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
    stage(
      "pod-running",
      "Pod",
      [
        NOT_DELETED,
        { key: ".spec.nodeName", operator: "Exists" },
        { key: ".status.phase", operator: "In", values: ["Pending"] },
      ],
      { statusTemplate: POD_RUNNING },
      options.podStartSeconds ?? 0,
    ),
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
