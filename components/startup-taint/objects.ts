/**
 * The Calico startup taint and its remover, as plain objects. Every node the stack's node groups make
 * starts with STARTUP_TAINT, which workload pods do not tolerate, so none is scheduled where Felix does not
 * yet enforce policy: before calico-node is Ready on a node its pods have no `cali-` chains, and
 * connections opened then outlive the policy (Felix accepts established flows, calico v3.31.7
 * felix/rules/dispatch.go). Calico's and the add-ons' node agents tolerate every taint and start anyway.
 *
 * The remover is a DaemonSet of its own: on each node it waits until a calico-node pod there is Ready and
 * then takes the taint off that node (REMOVER_SCRIPT). Calico has no such step (nothing in calico v3.31.7
 * removes a taint), and kubernetes-sigs' node-readiness-controller is not a module this program can pin.
 * Its identity can get nodes and patch them; the ValidatingAdmissionPolicy lets its patches only remove
 * this taint, and only from the node its pod runs on, read from the token's node-name claim, which
 * tokens bound to a pod carry (`authentication.kubernetes.io/node-name`, Kubernetes 1.32 and later:
 * KEP-4193, ServiceAccountTokenPodNodeInfo).
 */
import { COMMON_LABELS, appLabels, selectorLabels } from "../calico/labels";
import { nodeAgentPlacement } from "../calico/scheduling";
import { nonRootPodSecurity, restrictedContainerSecurity } from "../calico/security";
import type { ClusterRole, ClusterRoleBinding, DaemonSet, Role, RoleBinding } from "../calico/object-shapes";
import { withFieldManager } from "../calico/takeover/field-manager";
import { DEFAULT_REMOVER_REGISTRY, REMOVER_IMAGE } from "../calico/defaults";

/** The taint every new node starts with, in Kubernetes spelling. */
export const STARTUP_TAINT = { key: "eks-calico.io/policy-not-ready", effect: "NoSchedule" } as const;

/** Its value on managed node groups (EKS takes a value; the remover matches key and effect only). */
export const STARTUP_TAINT_VALUE = "true";

/** The name of the remover's DaemonSet, ServiceAccount, roles and admission policy. */
export const REMOVER = "calico-startup-taint-remover";

/** The token claim naming the node of the pod a service account token is bound to. */
export const NODE_NAME_CLAIM = "authentication.kubernetes.io/node-name";

/**
 * What the remover runs on every node (NODE_NAME, CALICO_NAMESPACE, TAINT_KEY in its environment): every
 * few seconds, once a calico-node pod on the node is Ready, the taint comes off if the node has it. It
 * keeps watching, so a taint put back (a node group's config update) goes again. kubectl reads the pod's
 * own token in the cluster, and KUBECONFIG where one is set.
 */
export const REMOVER_SCRIPT = `set -u
while true; do
  ready=$(kubectl get pods -n "$CALICO_NAMESPACE" -l k8s-app=calico-node \\
    --field-selector "spec.nodeName=$NODE_NAME" \\
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{" "}{end}')
  case " $ready " in
    *" True "*)
      tainted=$(kubectl get node "$NODE_NAME" -o jsonpath="{.spec.taints[?(@.key==\\"$TAINT_KEY\\")].key}")
      if [ "$tainted" = "$TAINT_KEY" ]; then
        kubectl taint node "$NODE_NAME" "$TAINT_KEY:${STARTUP_TAINT.effect}-"
      fi
      ;;
  esac
  sleep "\${INTERVAL_SECONDS:-5}"
done
`;

const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace !== undefined ? { namespace } : {}),
  labels: appLabels(name),
});

/** The admission policy's objects (admissionregistration.k8s.io/v1, GA in Kubernetes 1.30). */
export interface AdmissionPolicy {
  apiVersion: "admissionregistration.k8s.io/v1";
  kind: "ValidatingAdmissionPolicy";
  metadata: { name: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
}
export interface AdmissionPolicyBinding {
  apiVersion: "admissionregistration.k8s.io/v1";
  kind: "ValidatingAdmissionPolicyBinding";
  metadata: { name: string; labels: Record<string, string> };
  spec: { policyName: string; validationActions: string[] };
}

export interface RemoverObjects {
  serviceAccount: { apiVersion: "v1"; kind: "ServiceAccount"; metadata: ReturnType<typeof meta> };
  clusterRole: ClusterRole;
  clusterRoleBinding: ClusterRoleBinding;
  role: Role;
  roleBinding: RoleBinding;
  policy: AdmissionPolicy;
  policyBinding: AdmissionPolicyBinding;
  daemonSet: DaemonSet;
}

/** The remover's objects as a list, for what looks each one up. */
export function removerObjectList(namespace: string): RemoverObjects[keyof RemoverObjects][] {
  const objects = renderRemover(namespace);
  return (Object.keys(objects) as (keyof RemoverObjects)[]).map((key) => objects[key]);
}

/** A list field that may be absent, as CEL reads it. */
const listOf = (object: string, field: string) =>
  `has(${object}.spec.${field}) ? ${object}.spec.${field} : []`;

/**
 * The remover's objects, its pods in `namespace` beside calico-node's; with `fieldManager`, each is
 * applied under that field manager, as every object of an adopting install is
 * (components/calico/takeover/field-manager.ts).
 */
export function renderRemover(
  namespace: string,
  { registry = DEFAULT_REMOVER_REGISTRY, fieldManager }: { registry?: string; fieldManager?: string } = {},
): RemoverObjects {
  const objects = renderRemoverObjects(namespace, registry);
  return fieldManager === undefined ? objects : withFieldManager(objects, fieldManager);
}

function renderRemoverObjects(namespace: string, registry: string): RemoverObjects {
  const subject = { kind: "ServiceAccount", name: REMOVER, namespace };
  const sameTaint = (a: string, b: string) =>
    `${a}.key == ${b}.key && ${a}.effect == ${b}.effect && (has(${a}.value) ? ${a}.value : '') == (has(${b}.value) ? ${b}.value : '')`;
  return {
    serviceAccount: { apiVersion: "v1", kind: "ServiceAccount", metadata: meta(REMOVER, namespace) },
    clusterRole: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: meta(REMOVER),
      // Patch is narrowed by the admission policy: RBAC cannot name "the node this pod runs on".
      rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "patch"] }],
    },
    clusterRoleBinding: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: meta(REMOVER),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: REMOVER },
      subjects: [subject],
    },
    role: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(REMOVER, namespace),
      // Whether calico-node is Ready on its node.
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }],
    },
    roleBinding: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(REMOVER, namespace),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: REMOVER },
      subjects: [subject],
    },
    policy: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: meta(REMOVER),
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["nodes"] },
          ],
        },
        matchConditions: [
          {
            name: "remover",
            expression: `request.userInfo.username == 'system:serviceaccount:${namespace}:${REMOVER}'`,
          },
        ],
        variables: [
          { name: "before", expression: listOf("oldObject", "taints") },
          { name: "after", expression: listOf("object", "taints") },
        ],
        validations: [
          {
            expression: `'${NODE_NAME_CLAIM}' in request.userInfo.extra && request.userInfo.extra['${NODE_NAME_CLAIM}'][0] == object.metadata.name`,
            message: `${REMOVER} may change only the node its pod runs on`,
          },
          {
            expression: `variables.after.all(t, variables.before.exists(o, ${sameTaint("o", "t")}))`,
            message: `${REMOVER} may add or change no taint`,
          },
          {
            expression: `variables.before.all(o, (o.key == '${STARTUP_TAINT.key}' && o.effect == '${STARTUP_TAINT.effect}') || variables.after.exists(t, ${sameTaint("t", "o")}))`,
            message: `${REMOVER} may remove only ${STARTUP_TAINT.key}:${STARTUP_TAINT.effect}`,
          },
          {
            expression:
              "(has(object.metadata.labels) ? object.metadata.labels : {}) == (has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}) && " +
              "(has(object.spec.unschedulable) && object.spec.unschedulable) == (has(oldObject.spec.unschedulable) && oldObject.spec.unschedulable)",
            message: `${REMOVER} may change nothing but the startup taint`,
          },
        ],
      },
    },
    policyBinding: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: meta(REMOVER),
      spec: { policyName: REMOVER, validationActions: ["Deny"] },
    },
    daemonSet: renderRemoverDaemonSet(namespace, registry),
  };
}

function renderRemoverDaemonSet(namespace: string, registry: string): DaemonSet {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: meta(REMOVER, namespace),
    spec: {
      selector: { matchLabels: selectorLabels(REMOVER) },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "10%" } },
      template: {
        metadata: { labels: { ...COMMON_LABELS, ...selectorLabels(REMOVER) } },
        spec: {
          // It must reach the API server before the node's pod networking is up.
          hostNetwork: true,
          ...nodeAgentPlacement(),
          serviceAccountName: REMOVER,
          securityContext: nonRootPodSecurity(),
          containers: [
            {
              name: "remover",
              image: `${registry}/${REMOVER_IMAGE.name}:${REMOVER_IMAGE.tag}`,
              imagePullPolicy: "IfNotPresent",
              command: ["/bin/bash", "-c", REMOVER_SCRIPT],
              env: [
                { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
                { name: "CALICO_NAMESPACE", value: namespace },
                { name: "TAINT_KEY", value: STARTUP_TAINT.key },
                // kubectl's discovery cache, off the read-only root.
                { name: "HOME", value: "/tmp" },
              ],
              resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
              securityContext: restrictedContainerSecurity(),
              volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
            },
          ],
          volumes: [{ name: "tmp", emptyDir: {} }],
        },
      },
    },
  };
}
