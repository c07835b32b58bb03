/**
 * The operator's own objects, as plain data (Calico's `manifests/tigera-operator.yaml`, written here):
 * its namespace (Pod Security `privileged`: the operator runs on the host network), ServiceAccount,
 * ClusterRoles and bindings, and its Deployment; plus the `pods: patch` grant aws-node needs for
 * ANNOTATE_POD_IP, as in the manifest install. CRDs are not among them: the operator creates and updates
 * its own at start (`-manage-crds=true`), since the Installation CRD alone (~1.5 MB) is over client-side
 * apply's annotation limit, and Pulumi never deletes them.
 */
import { COMMON_LABELS } from "../labels";
import { childResourceName } from "../manifest";
import { awsNodePodPatcher } from "../rbac";
import type {
  ClusterRole,
  ClusterRoleBinding,
  Deployment,
  Namespace,
  RoleBinding,
  ServiceAccount,
} from "../object-shapes";
import type { OperatorCustomResource } from "./custom-resources";
import { OPERATOR_SECRETS_RULES, operatorRules } from "./rbac";
import { OPERATOR_IMAGE, OPERATOR_NAME, OPERATOR_NAMESPACE } from "./settings";

const SECRETS = "tigera-operator-secrets";

export interface OperatorSettings {
  /** Registry prefix of the operator image, e.g. "quay.io/tigera". */
  registry: string;
  /** Operator image tag, from the release table. */
  operatorVersion: string;
  /** The Calico release it installs: its permissions differ per release. */
  calicoVersion: string;
}

export interface OperatorObjects {
  namespace: Namespace;
  rbac: Array<ServiceAccount | ClusterRole | ClusterRoleBinding | RoleBinding>;
  deployment: Deployment;
}

const labels = () => ({ ...COMMON_LABELS, "k8s-app": OPERATOR_NAME });
const operatorSubject = { kind: "ServiceAccount", name: OPERATOR_NAME, namespace: OPERATOR_NAMESPACE };
const roleRef = (name: string) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name });

/** The operator Deployment: one replica on the host network, on any Linux node whatever its taints. */
export function renderOperatorDeployment(settings: OperatorSettings): Deployment {
  const selector = { name: OPERATOR_NAME };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: OPERATOR_NAME, namespace: OPERATOR_NAMESPACE, labels: labels() },
    spec: {
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...labels(), ...selector } },
        spec: {
          nodeSelector: { "kubernetes.io/os": "linux" },
          tolerations: [
            { effect: "NoExecute", operator: "Exists" },
            { effect: "NoSchedule", operator: "Exists" },
          ],
          serviceAccountName: OPERATOR_NAME,
          // Time to finish a reconcile (and remove finalizers) when it is stopped.
          terminationGracePeriodSeconds: 60,
          // Host network: it must run before any pod network policy exists, and on a cluster being set up.
          hostNetwork: true,
          dnsPolicy: "ClusterFirstWithHostNet",
          containers: [
            {
              name: OPERATOR_NAME,
              image: `${settings.registry}/${OPERATOR_IMAGE}:${settings.operatorVersion}`,
              imagePullPolicy: "IfNotPresent",
              command: ["operator"],
              args: ["-manage-crds=true"],
              env: [
                { name: "WATCH_NAMESPACE", value: "" },
                { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "OPERATOR_NAME", value: OPERATOR_NAME },
                { name: "TIGERA_OPERATOR_INIT_IMAGE_VERSION", value: settings.operatorVersion },
              ],
              // Where a manifest install left its state: read during a migration.
              volumeMounts: [{ name: "var-lib-calico", mountPath: "/var/lib/calico", readOnly: true }],
            },
          ],
          volumes: [{ name: "var-lib-calico", hostPath: { path: "/var/lib/calico" } }],
        },
      },
    },
  };
}

/** Every operator object, in apply order. */
export function renderOperatorObjects(settings: OperatorSettings): OperatorObjects {
  return {
    namespace: {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: OPERATOR_NAMESPACE,
        labels: {
          ...COMMON_LABELS,
          name: OPERATOR_NAMESPACE,
          "pod-security.kubernetes.io/enforce": "privileged",
        },
      },
    },
    rbac: [
      {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: OPERATOR_NAME, namespace: OPERATOR_NAMESPACE, labels: labels() },
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: OPERATOR_NAME, labels: labels() },
        rules: operatorRules(settings.calicoVersion),
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: SECRETS, labels: labels() },
        rules: OPERATOR_SECRETS_RULES,
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: OPERATOR_NAME, labels: labels() },
        roleRef: roleRef(OPERATOR_NAME),
        subjects: [operatorSubject],
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: SECRETS, namespace: OPERATOR_NAMESPACE, labels: labels() },
        roleRef: roleRef(SECRETS),
        subjects: [operatorSubject],
      },
      ...awsNodePodPatcher(),
    ],
    deployment: renderOperatorDeployment(settings),
  };
}

/** The Pulumi name of an operator object or custom resource inside a component called `name`. */
export function operatorObjectName(
  name: string,
  object: OperatorObjects["rbac"][number] | Namespace | Deployment | OperatorCustomResource,
): string {
  if (object.apiVersion === "operator.tigera.io/v1")
    return `${name}-${object.kind.toLowerCase()}-${object.metadata.name}`;
  return childResourceName(name, object);
}
