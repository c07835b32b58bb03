/**
 * The cluster-proportional-autoscaler that keeps Typha's replicas in step with the nodes that exist
 * (the AWS VPC CNI's Calico manifests shipped one for Typha). Ladder mode, with the ladder generated from
 * {@link typhaReplicas} so the autoscaler and the initial replica count follow one formula. Its RBAC is the
 * least it needs: list and watch nodes, read its own ConfigMap, and scale the calico-typha Deployment.
 * https://github.com/kubernetes-sigs/cluster-proportional-autoscaler
 */
import { AUTOSCALER_IMAGE } from "./defaults";
import { nonRootPodSecurity, restrictedContainerSecurity } from "./security";
import { appLabels, selectorLabels, workloadLabels } from "./labels";
import { CALICO_TYPHA_AUTOSCALER, STANDARD_TYPHA } from "./names";
import { LINUX_NODE_SELECTOR, TOLERATE_EVERY_TAINT, calicoNodesSelector, notOnFargate } from "./scheduling";
import { MAX_TYPHA_REPLICAS, typhaReplicas } from "./typha";
import type {
  CalicoObject,
  ClusterRole,
  ClusterRoleBinding,
  ConfigMap,
  Deployment,
  Role,
  RoleBinding,
  ServiceAccount,
} from "./object-shapes";

/** The cluster-proportional-autoscaler release, pinned (its default registry: defaults.ts). */
export const AUTOSCALER_VERSION = "v1.10.3";

/** The ConfigMap key the autoscaler reads ladder parameters from. */
const LADDER_KEY = "ladder";

/**
 * `[nodes, replicas]` steps of the ladder: for a cluster of n schedulable nodes the autoscaler takes the
 * step with the largest node count <= n. Every step where {@link typhaReplicas} changes, up to its cap.
 */
export function typhaLadder(): [number, number][] {
  const steps: [number, number][] = [];
  for (let nodes = 1; ; nodes++) {
    const replicas = typhaReplicas(nodes);
    if (steps.length === 0 || steps[steps.length - 1][1] !== replicas) steps.push([nodes, replicas]);
    if (replicas === MAX_TYPHA_REPLICAS) return steps;
  }
}

/**
 * The replicas the ladder gives `nodes` schedulable nodes (what the autoscaler will set): the step with
 * the largest node count <= nodes, or the first step below it (CPA v1.10.3
 * pkg/autoscaler/controller/laddercontroller/ladder_controller.go, getExpectedReplicasFromEntries).
 */
export function ladderReplicas(ladder: readonly [number, number][], nodes: number): number {
  let replicas = ladder.length === 0 ? 0 : ladder[0][1];
  for (const [atLeast, stepReplicas] of ladder) if (atLeast <= nodes) replicas = stepReplicas;
  return replicas;
}

function meta(name: string, namespace?: string) {
  return {
    name,
    ...(namespace !== undefined ? { namespace } : {}),
    labels: appLabels(CALICO_TYPHA_AUTOSCALER),
  };
}

export interface AutoscalerObjects {
  serviceAccount: ServiceAccount;
  clusterRole: ClusterRole;
  clusterRoleBinding: ClusterRoleBinding;
  role: Role;
  roleBinding: RoleBinding;
  configMap: ConfigMap;
  deployment: Deployment;
}

/** The autoscaler's objects in apply order: RBAC, the ladder, then the Deployment. */
export function autoscalerObjectList(objects: AutoscalerObjects): CalicoObject[] {
  return [
    objects.serviceAccount,
    objects.clusterRole,
    objects.clusterRoleBinding,
    objects.role,
    objects.roleBinding,
    objects.configMap,
    objects.deployment,
  ];
}

/** Every object of Typha's autoscaler, in the namespace Calico runs in. */
export function renderTyphaAutoscaler(
  namespace: string,
  registry: string,
  typha = STANDARD_TYPHA.name,
): AutoscalerObjects {
  const subject = { kind: "ServiceAccount", name: CALICO_TYPHA_AUTOSCALER, namespace };
  return {
    serviceAccount: {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: meta(CALICO_TYPHA_AUTOSCALER, namespace),
    },
    clusterRole: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: meta(CALICO_TYPHA_AUTOSCALER),
      // It counts schedulable nodes; nothing else cluster-wide.
      rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["list", "watch"] }],
    },
    clusterRoleBinding: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: meta(CALICO_TYPHA_AUTOSCALER),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: CALICO_TYPHA_AUTOSCALER },
      subjects: [subject],
    },
    role: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(CALICO_TYPHA_AUTOSCALER, namespace),
      rules: [
        // Its own parameters only; the ConfigMap exists, so it never creates one.
        {
          apiGroups: [""],
          resources: ["configmaps"],
          resourceNames: [CALICO_TYPHA_AUTOSCALER],
          verbs: ["get"],
        },
        // The scale of its Typha only.
        {
          apiGroups: ["apps"],
          resources: ["deployments/scale"],
          resourceNames: [typha],
          verbs: ["get", "update"],
        },
      ],
    },
    roleBinding: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(CALICO_TYPHA_AUTOSCALER, namespace),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: CALICO_TYPHA_AUTOSCALER },
      subjects: [subject],
    },
    configMap: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: meta(CALICO_TYPHA_AUTOSCALER, namespace),
      data: { [LADDER_KEY]: JSON.stringify({ nodesToReplicas: typhaLadder() }) },
    },
    deployment: renderAutoscalerDeployment(namespace, registry, typha),
  };
}

/** Labelled with the autoscaler's own release, so a Calico upgrade does not restart it. */
function renderAutoscalerDeployment(namespace: string, registry: string, typha: string): Deployment {
  const selector = selectorLabels(CALICO_TYPHA_AUTOSCALER);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: CALICO_TYPHA_AUTOSCALER,
      namespace,
      labels: workloadLabels(CALICO_TYPHA_AUTOSCALER, AUTOSCALER_VERSION),
    },
    spec: {
      replicas: 1,
      revisionHistoryLimit: 2,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: workloadLabels(CALICO_TYPHA_AUTOSCALER, AUTOSCALER_VERSION) },
        spec: {
          nodeSelector: { ...LINUX_NODE_SELECTOR },
          affinity: { nodeAffinity: notOnFargate() },
          // Wherever calico-node and Typha can run, it can: a cluster tainted everywhere still scales Typha.
          tolerations: [...TOLERATE_EVERY_TAINT],
          priorityClassName: "system-cluster-critical",
          serviceAccountName: CALICO_TYPHA_AUTOSCALER,
          securityContext: nonRootPodSecurity(),
          containers: [
            {
              name: "autoscaler",
              image: `${registry}/${AUTOSCALER_IMAGE}:${AUTOSCALER_VERSION}`,
              imagePullPolicy: "IfNotPresent",
              command: [
                "/cluster-proportional-autoscaler",
                `--namespace=${namespace}`,
                `--configmap=${CALICO_TYPHA_AUTOSCALER}`,
                `--target=deployment/${typha}`,
                // It counts only the nodes Typha may run on. Unfiltered, it counts every Ready, schedulable
                // node, Fargate's included (CPA v1.10.3 k8sclient.go, GetClusterStatus), and asks for
                // Typhas that stay Pending. The value is the node informer's label selector (NewK8sClient).
                `--nodelabels=${calicoNodesSelector()}`,
                "--logtostderr=true",
                "--v=2",
              ],
              resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "64Mi" } },
              securityContext: restrictedContainerSecurity(),
            },
          ],
        },
      },
    },
  };
}
