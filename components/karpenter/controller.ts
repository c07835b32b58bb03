/**
 * Karpenter's controller as Kubernetes objects, written from the pinned release's chart
 * (github.com/aws/karpenter-provider-aws v1.15.0 charts/karpenter: templates/ and values.yaml defaults):
 * its ServiceAccount, its roles (clusterrole-core.yaml, clusterrole.yaml, role.yaml and the kube-dns read
 * of rolebinding.yaml), and a Deployment that never runs on a node Karpenter launched (the chart's
 * `karpenter.sh/nodepool DoesNotExist` affinity), so it stays up while it disrupts its own nodes.
 */
import { KARPENTER_SERVICE_ACCOUNT } from "./names";
import { KARPENTER_VERSION } from "./defaults";
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type {
  ClusterRole,
  ClusterRoleBinding,
  PodDisruptionBudget,
  PolicyRule,
  Role,
  RoleBinding,
  ServiceAccount,
} from "../calico/object-shapes";

const { namespace: NAMESPACE, name: NAME } = KARPENTER_SERVICE_ACCOUNT;

/** The controller's image; the release's digest is published only with the release, so the tag pins it. */
export const CONTROLLER_IMAGE = `public.ecr.aws/karpenter/controller:${KARPENTER_VERSION}`;

const LABELS = { "app.kubernetes.io/name": "karpenter", "app.kubernetes.io/instance": "karpenter" };
const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace === undefined ? {} : { namespace }),
  labels: { ...LABELS },
});

type Rule = PolicyRule & { apiGroups: string[]; resources: string[]; verbs: string[] };
const rule = (apiGroups: string[], resources: string[], verbs: string[]): Rule => ({
  apiGroups,
  resources,
  verbs,
});
const READ = ["get", "list", "watch"];

/** clusterrole-core.yaml: what the core controllers read and write (podDeletionCostManagement off). */
export const CORE_RULES: readonly Rule[] = [
  rule(
    ["karpenter.sh"],
    [
      "nodepools",
      "nodepools/status",
      "nodeclaims",
      "nodeclaims/status",
      "nodeoverlays",
      "nodeoverlays/status",
    ],
    READ,
  ),
  rule(["autoscaling.x-k8s.io"], ["capacitybuffers", "capacitybuffers/status"], READ),
  rule([""], ["podtemplates"], READ),
  rule(
    [""],
    ["pods", "nodes", "persistentvolumes", "persistentvolumeclaims", "replicationcontrollers", "namespaces"],
    READ,
  ),
  rule(["storage.k8s.io"], ["storageclasses", "csinodes", "volumeattachments"], READ),
  rule(["apps"], ["daemonsets", "deployments", "replicasets", "statefulsets"], READ),
  rule(["autoscaling.k8s.io"], ["verticalpodautoscalers"], READ),
  rule(["policy"], ["poddisruptionbudgets"], READ),
  rule([""], ["events"], READ),
  rule(["resource.k8s.io"], ["deviceclasses", "resourceclaims", "resourceslices"], READ),
  rule(["karpenter.sh"], ["nodeclaims", "nodeclaims/status"], ["create", "delete", "update", "patch"]),
  rule(["karpenter.sh"], ["nodepools", "nodepools/status", "nodeoverlays/status"], ["update", "patch"]),
  rule(["autoscaling.x-k8s.io"], ["capacitybuffers/status"], ["update", "patch"]),
  rule([""], ["events"], ["create", "patch"]),
  rule([""], ["nodes"], ["patch", "delete", "update"]),
  rule([""], ["pods/eviction"], ["create"]),
  rule([""], ["pods"], ["delete"]),
];

/** clusterrole.yaml: the AWS provider's node classes. */
export const PROVIDER_RULES: readonly Rule[] = [
  rule(["karpenter.k8s.aws"], ["ec2nodeclasses"], READ),
  rule(["karpenter.k8s.aws"], ["ec2nodeclasses", "ec2nodeclasses/status"], ["patch", "update"]),
];

/** role.yaml: its leader-election lease, in its namespace. */
export const LEASE_RULES: readonly Rule[] = [
  rule(["coordination.k8s.io"], ["leases"], ["get", "watch"]),
  {
    ...rule(["coordination.k8s.io"], ["leases"], ["patch", "update"]),
    resourceNames: ["karpenter-leader-election"],
  },
  rule(["coordination.k8s.io"], ["leases"], ["create"]),
];

/** The kube-dns Service, whose ClusterIP it gives nodes as their cluster DNS. */
export const DNS_RULES: readonly Rule[] = [
  { ...rule([""], ["services"], ["get"]), resourceNames: ["kube-dns"] },
];

export interface ControllerSettings {
  readonly clusterName: pulumi.Input<string>;
  /** The interruption queue's name (INTERRUPTION_QUEUE takes a name, not a URL). */
  readonly queueName: pulumi.Input<string>;
  /** 2 as the chart has it, or 1 where the managed node groups keep fewer than 2 nodes (one per node). */
  readonly replicas: number;
  /**
   * The AWS region, as AWS_REGION. Unset, Karpenter asks IMDS (karpenter-provider-aws v1.15
   * pkg/operator/operator.go, NewOperator), which the managed nodes' hop limit of 1 keeps from its pods.
   */
  readonly region: string;
}

/** The controller's objects, by what they are. */
export interface ControllerObjects {
  serviceAccount: ServiceAccount & { automountServiceAccountToken: boolean };
  clusterRoles: ClusterRole[];
  clusterRoleBindings: ClusterRoleBinding[];
  roles: Role[];
  roleBindings: RoleBinding[];
  disruptionBudget: PodDisruptionBudget;
  deployment: k8s.apps.v1.DeploymentArgs;
}

export function renderController(settings: ControllerSettings): ControllerObjects {
  const subjects = [{ kind: "ServiceAccount", name: NAME, namespace: NAMESPACE }];
  const rbac = "rbac.authorization.k8s.io/v1" as const;
  const roleRef = (kind: "ClusterRole" | "Role", name: string) => ({
    apiGroup: "rbac.authorization.k8s.io",
    kind,
    name,
  });
  const clusterRole = (name: string, rules: readonly Rule[]): ClusterRole => ({
    apiVersion: rbac,
    kind: "ClusterRole",
    metadata: meta(name),
    rules: rules.map((r) => ({ ...r })),
  });
  const role = (name: string, namespace: string, rules: readonly Rule[]): Role => ({
    apiVersion: rbac,
    kind: "Role",
    metadata: meta(name, namespace),
    rules: rules.map((r) => ({ ...r })),
  });
  return {
    serviceAccount: {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: meta(NAME, NAMESPACE),
      automountServiceAccountToken: false,
    },
    clusterRoles: [clusterRole(`${NAME}-core`, CORE_RULES), clusterRole(NAME, PROVIDER_RULES)],
    clusterRoleBindings: [`${NAME}-core`, NAME].map((name) => ({
      apiVersion: rbac,
      kind: "ClusterRoleBinding",
      metadata: meta(name),
      roleRef: roleRef("ClusterRole", name),
      subjects,
    })),
    roles: [role(NAME, NAMESPACE, LEASE_RULES), role(`${NAME}-dns`, "kube-system", DNS_RULES)],
    roleBindings: [
      [NAME, NAMESPACE],
      [`${NAME}-dns`, "kube-system"],
    ].map(([name, namespace]) => ({
      apiVersion: rbac,
      kind: "RoleBinding",
      metadata: meta(name, namespace),
      roleRef: roleRef("Role", name),
      subjects,
    })),
    disruptionBudget: {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: meta(NAME, NAMESPACE),
      spec: { maxUnavailable: 1, selector: { matchLabels: { ...LABELS } } },
    },
    deployment: renderDeployment(settings),
  };
}

function renderDeployment(settings: ControllerSettings): k8s.apps.v1.DeploymentArgs {
  const env = (name: string, value: pulumi.Input<string>) => ({ name, value });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta(NAME, NAMESPACE),
    spec: {
      replicas: settings.replicas,
      revisionHistoryLimit: 2,
      strategy: { rollingUpdate: { maxUnavailable: 1 } },
      selector: { matchLabels: { ...LABELS } },
      template: {
        metadata: { labels: { ...LABELS } },
        spec: {
          serviceAccountName: NAME,
          automountServiceAccountToken: true,
          priorityClassName: "system-cluster-critical",
          securityContext: { fsGroup: 65532, seccompProfile: { type: "RuntimeDefault" } },
          nodeSelector: { "kubernetes.io/os": "linux" },
          affinity: {
            // Never on a node it launched: it would disrupt the node it runs on.
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] },
                ],
              },
            },
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { ...LABELS } } },
              ],
            },
          },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: "topology.kubernetes.io/zone",
              whenUnsatisfiable: "DoNotSchedule",
              labelSelector: { matchLabels: { ...LABELS } },
            },
          ],
          tolerations: [{ key: "CriticalAddonsOnly", operator: "Exists" }],
          containers: [
            {
              name: "controller",
              image: CONTROLLER_IMAGE,
              imagePullPolicy: "IfNotPresent",
              env: [
                env("KARPENTER_SERVICE", NAME),
                env("LOG_LEVEL", "info"),
                env("METRICS_PORT", "8080"),
                env("HEALTH_PROBE_PORT", "8081"),
                { name: "SYSTEM_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
                {
                  name: "MEMORY_LIMIT",
                  valueFrom: {
                    resourceFieldRef: {
                      containerName: "controller",
                      resource: "limits.memory",
                      divisor: "0",
                    },
                  },
                },
                {
                  name: "CPU_REQUESTS",
                  valueFrom: {
                    resourceFieldRef: {
                      containerName: "controller",
                      resource: "requests.cpu",
                      divisor: "1m",
                    },
                  },
                },
                env("CLUSTER_NAME", settings.clusterName),
                env("INTERRUPTION_QUEUE", settings.queueName),
                env("AWS_REGION", settings.region),
              ],
              ports: [
                { name: "http-metrics", containerPort: 8080, protocol: "TCP" },
                { name: "http", containerPort: 8081, protocol: "TCP" },
              ],
              livenessProbe: {
                initialDelaySeconds: 30,
                timeoutSeconds: 30,
                httpGet: { path: "/healthz", port: "http" },
              },
              readinessProbe: {
                initialDelaySeconds: 5,
                timeoutSeconds: 30,
                httpGet: { path: "/readyz", port: "http" },
              },
              // The getting-started guide's: one vCPU, and memory requested as much as its limit.
              resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "1Gi" } },
              securityContext: {
                privileged: false,
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                runAsUser: 65532,
                runAsGroup: 65532,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
        },
      },
    },
  };
}
