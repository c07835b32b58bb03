/**
 * Typha: fans datastore updates out to every Felix, so the API server sees a few watchers instead of one
 * per node. Deployment, Service and PodDisruptionBudget `calico-typha` (another name and ports during a
 * takeover: names.ts TAKEOVER_TYPHA).
 */
import { LINUX_NODE_SELECTOR, TOLERATE_EVERY_TAINT, notOnFargate } from "./scheduling";
import { appLabels, selectorLabels, workloadLabels } from "./labels";
import { CALICO_TYPHA, STANDARD_TYPHA, TYPHA_IMAGE, type TyphaEndpoint } from "./names";
import type { Container, Deployment, PodDisruptionBudget, Service } from "./object-shapes";
import { typhaTls } from "./typha-tls";
import { FELIX_INTERFACE_PREFIX } from "./defaults";

/** Ceiling on replicas; the operator's formula reaches it at 3,600 nodes. */
export const MAX_TYPHA_REPLICAS = 20;

/** Nodes one Typha serves, per Calico's guidance (at least one replica per 200 nodes). */
const NODES_PER_TYPHA = 200;

/**
 * Typha replicas for a cluster of `nodes` nodes: the Tigera operator's formula
 * (GetExpectedTyphaScale: 1-2 nodes -> 1, 3-4 -> 2, else max(3, floor(n/200) + 2)) capped at
 * {@link MAX_TYPHA_REPLICAS}, and never more replicas than nodes: Typha binds a fixed host port, so two
 * replicas cannot share a node.
 */
export function typhaReplicas(nodes: number): number {
  if (!Number.isInteger(nodes) || nodes < 1) {
    throw new Error(`the node count must be a whole number of at least 1, got ${String(nodes)}`);
  }
  let replicas: number;
  if (nodes <= 2) replicas = 1;
  else if (nodes <= 4) replicas = 2;
  else replicas = Math.max(3, Math.floor(nodes / NODES_PER_TYPHA) + 2);
  return Math.min(replicas, MAX_TYPHA_REPLICAS, nodes);
}

/** Typha sheds its clients gradually over this many seconds on shutdown; the env var must match. */
const TYPHA_SHUTDOWN_SECONDS = 300;

function env(name: string, value: string) {
  return { name, value };
}

function healthProbe(path: "/liveness" | "/readiness", typha: TyphaEndpoint) {
  return { httpGet: { path, port: typha.healthPort, host: "localhost" }, timeoutSeconds: 10 };
}

/** The port's name: Felix takes the port of the Service's port with this name (discovery.go). */
const TYPHA_PORT_NAME = CALICO_TYPHA;

function typhaContainer(
  registry: string,
  version: string,
  namespace: string,
  typha: TyphaEndpoint,
): Container {
  return {
    name: CALICO_TYPHA,
    image: `${registry}/${TYPHA_IMAGE}:${version}`,
    imagePullPolicy: "IfNotPresent",
    ports: [{ containerPort: typha.port, name: TYPHA_PORT_NAME, protocol: "TCP" }],
    env: [
      env("TYPHA_DATASTORETYPE", "kubernetes"),
      // The port the Service names (Typha's default is 5473, typha/pkg/config ServerPort).
      env("TYPHA_SERVERPORT", String(typha.port)),
      env("TYPHA_HEALTHENABLED", "true"),
      env("TYPHA_HEALTHPORT", String(typha.healthPort)),
      // Rebalance Felix connections across the replicas behind this Typha's own Service.
      env("TYPHA_CONNECTIONREBALANCINGMODE", "kubernetes"),
      env("TYPHA_K8SNAMESPACE", namespace),
      env("TYPHA_K8SSERVICENAME", typha.name),
      env("TYPHA_SHUTDOWNTIMEOUTSECS", String(TYPHA_SHUTDOWN_SECONDS)),
      // Log to stdout only.
      env("TYPHA_LOGSEVERITYSCREEN", "info"),
      env("TYPHA_LOGFILEPATH", "none"),
      env("TYPHA_LOGSEVERITYSYS", "none"),
      // Workload endpoints are VPC CNI veths (the operator sets this for the AmazonVPC CNI).
      env("FELIX_INTERFACEPREFIX", FELIX_INTERFACE_PREFIX),
      // Only Felix, over mutual TLS (typha-tls.ts).
      ...typhaTls.env,
    ],
    volumeMounts: [...typhaTls.volumeMounts],
    resources: { requests: { cpu: "100m", memory: "128Mi" } },
    livenessProbe: { ...healthProbe("/liveness", typha), periodSeconds: 30, initialDelaySeconds: 30 },
    readinessProbe: { ...healthProbe("/readiness", typha), periodSeconds: 10 },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    },
  };
}

/**
 * A Typha rollout's pace. Typha holds a host port, so a node runs one replica; typhaReplicas leaves a
 * node without one on every cluster of two or more nodes (the autoscaler's ladder follows it). With at
 * least two nodes Typha can run on, a new replica starts there and an old one stops only once it is
 * ready: Felix always finds a ready Typha. On one node there is no room: the old replica stops first.
 */
export function typhaRollingUpdate(minNodes: number): { maxSurge: string; maxUnavailable: number } {
  return { maxSurge: "100%", maxUnavailable: minNodes >= 2 ? 0 : 1 };
}

/**
 * The Typha Deployment, `replicas` spread one per node and preferably across zones. `replicas` is the
 * count at creation; the autoscaler (autoscaler.ts) owns it afterwards. `minNodes`: the fewest nodes
 * the cluster keeps, for the rollout's pace.
 */
export function renderTyphaDeployment(
  namespace: string,
  registry: string,
  version: string,
  replicas: number,
  minNodes: number,
  typha: TyphaEndpoint = STANDARD_TYPHA,
): Deployment {
  const selector = selectorLabels(typha.name);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: typha.name, namespace, labels: workloadLabels(typha.name, version) },
    spec: {
      replicas,
      // No old ReplicaSet kept: a rollback to a template one still holds reuses it without the
      // NewReplicaSetCreated condition (kubernetes v1.35.4 pkg/controller/deployment/sync.go
      // getNewReplicaSet), so the previous rollout's NewReplicaSetAvailable stands while that ReplicaSet
      // is still at 0 replicas, which pulumi-kubernetes v4.25.0 (pkg/await/deployment.go) takes for a
      // finished rollout: calico-node would roll while the other release's Typhas still run.
      revisionHistoryLimit: 0,
      selector: { matchLabels: selector },
      strategy: { type: "RollingUpdate", rollingUpdate: typhaRollingUpdate(minNodes) },
      template: {
        metadata: {
          labels: workloadLabels(typha.name, version),
          // Host-network pods with a host port otherwise block cluster-autoscaler scale-down.
          annotations: { "cluster-autoscaler.kubernetes.io/safe-to-evict": "true" },
        },
        spec: {
          // Felix needs Typha before any pod networking is policed, so Typha uses the host network.
          hostNetwork: true,
          nodeSelector: { ...LINUX_NODE_SELECTOR },
          affinity: {
            nodeAffinity: notOnFargate(),
            podAntiAffinity: {
              // One replica per node (the host port forces it anyway; this states it).
              requiredDuringSchedulingIgnoredDuringExecution: [
                { labelSelector: { matchLabels: selector }, topologyKey: "kubernetes.io/hostname" },
              ],
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    labelSelector: { matchLabels: selector },
                    topologyKey: "topology.kubernetes.io/zone",
                  },
                },
              ],
            },
          },
          tolerations: [...TOLERATE_EVERY_TAINT],
          priorityClassName: "system-cluster-critical",
          serviceAccountName: CALICO_TYPHA,
          terminationGracePeriodSeconds: TYPHA_SHUTDOWN_SECONDS,
          // fsGroup makes the projected ServiceAccount token readable by the non-root user (kubernetes#82573).
          securityContext: { fsGroup: 65534, seccompProfile: { type: "RuntimeDefault" } },
          containers: [typhaContainer(registry, version, namespace, typha)],
          volumes: [...typhaTls.volumes],
        },
      },
    },
  };
}

/** The Service Felix discovers Typha through (its endpoints, not its ClusterIP). */
export function renderTyphaService(namespace: string, typha: TyphaEndpoint = STANDARD_TYPHA): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: typha.name, namespace, labels: appLabels(typha.name) },
    spec: {
      selector: selectorLabels(typha.name),
      ports: [{ name: TYPHA_PORT_NAME, port: typha.port, protocol: "TCP", targetPort: TYPHA_PORT_NAME }],
    },
  };
}

/**
 * maxUnavailable 1, not minAvailable 1: with a single replica (1-2 nodes) minAvailable 1 would refuse
 * every eviction and hang node drains and node-group updates, while maxUnavailable 1 lets a drain
 * proceed (Felix keeps its rules and reconnects). With 2 or more replicas it still keeps at least one
 * running, and it allows one disruption at a time however many replicas run, where minAvailable 1 would
 * let all but one go at once. Same choice as Calico's manifests and the Tigera operator.
 */
export function renderTyphaDisruptionBudget(
  namespace: string,
  typha: TyphaEndpoint = STANDARD_TYPHA,
): PodDisruptionBudget {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: typha.name, namespace, labels: appLabels(typha.name) },
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(typha.name) } },
  };
}
