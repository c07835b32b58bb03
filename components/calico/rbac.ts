/**
 * ServiceAccounts, ClusterRoles and bindings, least privilege for policy-only mode on the VPC CNI: no
 * Calico CNI plugin and no Calico IPAM, so none of their write rules. No wildcard anywhere.
 * Sources: calico-node ClusterRole of Calico's calico-policy-only.yaml (v3.31/v3.32), the Tigera
 * operator's Typha ClusterRole (pkg/render/typha.go), and the code paths cited per rule.
 */
import { type CalicoMinor, supportedMinorOf } from "./defaults";
import { CALICO_CRD_GROUP, KUBERNETES_POLICY_GROUP } from "./crds";
import { COMMON_LABELS, appLabels } from "./labels";
import {
  AWS_NODE_POD_PATCHER,
  AWS_NODE_SERVICE_ACCOUNT,
  CALICO_NODE,
  CALICO_TYPHA,
  TIER_GETTER,
} from "./names";
import type { ClusterRole, ClusterRoleBinding, PolicyRule, ServiceAccount } from "./object-shapes";

const READ = ["get", "list", "watch"];
const LIST_WATCH = ["list", "watch"];

/**
 * Every crd.projectcalico.org kind Felix's syncers, calico-node's startup or Typha read. Written out
 * rather than derived from crds.ts, so a CRD added without RBAC fails the tests instead of passing.
 */
const CALICO_READABLE = [
  "bgpconfigurations",
  "bgpfilters",
  "bgppeers",
  "blockaffinities",
  "caliconodestatuses",
  "clusterinformations",
  "felixconfigurations",
  "globalnetworkpolicies",
  "globalnetworksets",
  "hostendpoints",
  "ipamblocks",
  "ipamconfigs",
  "ipamhandles",
  "ippools",
  "ipreservations",
  "kubecontrollersconfigurations",
  "networkpolicies",
  "networksets",
  "stagedglobalnetworkpolicies",
  "stagedkubernetesnetworkpolicies",
  "stagednetworkpolicies",
  "tiers",
];

/** Upstream network-policy-api kinds Felix watches on each line (see crds.ts for the evidence). */
const KUBERNETES_POLICY_READABLE: Record<CalicoMinor, string[]> = {
  "3.31": ["adminnetworkpolicies", "baselineadminnetworkpolicies"],
  "3.32": ["clusternetworkpolicies"],
};

/**
 * The v1 kinds of Calico's v1-to-v3 data migration check. On v3.31, Typha (typha/pkg/daemon/daemon.go)
 * and calico-node's startup run libcalico-go's ShouldMigrate (lib/upgrade/migrator/migrate.go) in a
 * retry-forever loop: with no ClusterInformation version yet, it gets the v1 `globalfelixconfigs`
 * object `calicoversion`. Only a 404 means "nothing to migrate"; a 403 keeps Typha from ever serving.
 * v3.32 dropped the check; upstream's policy-only ClusterRole grants these reads on both lines.
 */
const CALICO_V1_READABLE = ["globalfelixconfigs", "globalbgpconfigs"];

/**
 * KubeVirt live migrations, which v3.32's Felix syncer watches cluster-wide (KindLiveMigration in
 * felixsyncerv1.go, backed by virtualmachineinstancemigrations): a 403 retries forever and the syncer
 * never reaches InSync. An API the cluster does not serve answers 404, which the syncer takes as in sync and retries later
 * (watchersyncer/watchercache.go, "Backing API not installed").
 */
const KUBEVIRT_READABLE: Record<CalicoMinor, PolicyRule[]> = {
  "3.31": [],
  "3.32": [{ apiGroups: ["kubevirt.io"], resources: ["virtualmachineinstancemigrations"], verbs: READ }],
};

/** What Felix's syncer watches (libcalico-go felixsyncerv1.go), needed by whoever runs the syncer. */
function policyReadRules(minor: CalicoMinor): PolicyRule[] {
  return [
    // Selectors match on pod, namespace and service-account labels; calico-node also reads its own Node.
    { apiGroups: [""], resources: ["nodes", "pods", "namespaces", "serviceaccounts"], verbs: READ },
    // Service-based policy rules; Felix and Typha also `get` the calico-typha Service and its endpoints.
    { apiGroups: [""], resources: ["services", "endpoints"], verbs: READ },
    { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
    { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: LIST_WATCH },
    { apiGroups: [KUBERNETES_POLICY_GROUP], resources: KUBERNETES_POLICY_READABLE[minor], verbs: LIST_WATCH },
    // IPAM kinds are read-only here: the VPC CNI owns pod addresses.
    { apiGroups: [CALICO_CRD_GROUP], resources: CALICO_READABLE, verbs: READ },
    { apiGroups: [CALICO_CRD_GROUP], resources: CALICO_V1_READABLE, verbs: READ },
    ...KUBEVIRT_READABLE[minor],
  ];
}

/** calico-node: Felix plus the startup that writes node-level config. */
export function calicoNodeRules(version: string): PolicyRule[] {
  return [
    ...policyReadRules(supportedMinorOf(version)),
    // Clears the NodeNetworkUnavailable condition and stores Calico's node annotations.
    { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch", "update"] },
    // Granted by Calico's own policy-only manifest (shared with the CNI plugin's pod-status patch).
    { apiGroups: [""], resources: ["pods/status"], verbs: ["patch"] },
    // Startup creates the default tiers (libcalico-go clientv3 EnsureInitialized).
    { apiGroups: [CALICO_CRD_GROUP], resources: ["tiers"], verbs: ["create"] },
    // Startup creates or updates the default and per-node configuration.
    {
      apiGroups: [CALICO_CRD_GROUP],
      resources: ["ippools", "felixconfigurations", "bgpconfigurations", "clusterinformations"],
      verbs: ["create", "update"],
    },
    { apiGroups: [CALICO_CRD_GROUP], resources: ["caliconodestatuses"], verbs: ["update"] },
    // No serviceaccounts/token: it mints the Calico CNI plugin's token, and calico-node starts that
    // "CNI token monitor" only when CALICO_MANAGE_CNI is not "false" (set so in daemonset.ts).
  ];
}

/** Typha: runs the syncers for every Felix, and initialises the datastore when it starts. */
export function calicoTyphaRules(version: string): PolicyRule[] {
  return [
    ...policyReadRules(supportedMinorOf(version)),
    // Typha's daemon calls EnsureInitialized(ctx, "", "typha") and retries until it has created or
    // updated ClusterInformation and created the default tiers; without these Typha never starts serving.
    { apiGroups: [CALICO_CRD_GROUP], resources: ["clusterinformations"], verbs: ["create", "update"] },
    { apiGroups: [CALICO_CRD_GROUP], resources: ["tiers"], verbs: ["create"] },
  ];
}

function serviceAccount(name: string, namespace: string): ServiceAccount {
  return { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace, labels: appLabels(name) } };
}

function clusterRole(name: string, labels: Record<string, string>, rules: PolicyRule[]): ClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name, labels },
    rules,
  };
}

function binding(
  name: string,
  labels: Record<string, string>,
  subjects: ClusterRoleBinding["subjects"],
): ClusterRoleBinding {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
    subjects,
  };
}

function serviceAccountSubject(name: string, namespace: string): ClusterRoleBinding["subjects"][number] {
  return { kind: "ServiceAccount", name, namespace };
}

/** ServiceAccount, ClusterRole and binding of one Calico workload. */
function workloadIdentity(name: string, namespace: string, rules: PolicyRule[]) {
  return [
    serviceAccount(name, namespace),
    clusterRole(name, appLabels(name), rules),
    binding(name, appLabels(name), [serviceAccountSubject(name, namespace)]),
  ] as const;
}

/**
 * Tier owner lookups by kube-controller-manager's garbage collector (Calico's tier-getter.yaml and the
 * operator's apiserver.go use the projectcalico.org group, served by the Calico API server when present).
 */
function tierGetter(): [ClusterRole, ClusterRoleBinding] {
  return [
    clusterRole(TIER_GETTER, { ...COMMON_LABELS }, [
      { apiGroups: ["projectcalico.org"], resources: ["tiers"], verbs: ["get"] },
    ]),
    binding(TIER_GETTER, { ...COMMON_LABELS }, [
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:kube-controller-manager" },
    ]),
  ];
}

/**
 * ANNOTATE_POD_IP makes aws-node patch each new pod with its IP so Calico enforces policy from the
 * first packet; add-on versions whose ClusterRole lacks `pods: patch` need this (aws/containers-roadmap#1940).
 */
export function awsNodePodPatcher(): [ClusterRole, ClusterRoleBinding] {
  return [
    clusterRole(AWS_NODE_POD_PATCHER, { ...COMMON_LABELS }, [
      { apiGroups: [""], resources: ["pods"], verbs: ["patch"] },
    ]),
    binding(AWS_NODE_POD_PATCHER, { ...COMMON_LABELS }, [
      serviceAccountSubject(AWS_NODE_SERVICE_ACCOUNT.name, AWS_NODE_SERVICE_ACCOUNT.namespace),
    ]),
  ];
}

/** All RBAC objects, ServiceAccounts in `namespace`: calico-node, calico-typha, tier getter, aws-node. */
export function renderRbac(
  namespace: string,
  version: string,
): Array<ServiceAccount | ClusterRole | ClusterRoleBinding> {
  return [
    ...workloadIdentity(CALICO_NODE, namespace, calicoNodeRules(version)),
    ...workloadIdentity(CALICO_TYPHA, namespace, calicoTyphaRules(version)),
    ...tierGetter(),
    ...awsNodePodPatcher(),
  ];
}
