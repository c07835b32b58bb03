/**
 * The Calico half of the program's creation and deletion order (./ordering.ts has the whole table and
 * what each row means): the checks and the takeover, the install's objects, the operator, the Felix
 * cleanup and restore, and the probe's run.
 */

import { AWS_NODE_POD_PATCHER } from "../components/calico/names";
import { OPERATOR_NAME, OPERATOR_NAMESPACE } from "../components/calico/operator/settings";
import {
  T,
  ACCESS_TYPES,
  NODE_GROUPS,
  CALICO_OBJECTS,
  CLUSTER_SCOPED,
  INSTALLATION,
  OPERATOR,
  AUTOSCALER,
  TYPHA,
  CALICO_NODE_DAEMONSET,
  type OrderingRule,
  type ResourceSet,
} from "./ordering-sets";

/** A workload's own ServiceAccount, ClusterRole and binding, applied just before it. */
const ownRbac = (who: string, workload: string): ResourceSet => ({
  label: `${who}'s ServiceAccount, ClusterRole and binding`,
  types: [T.serviceAccount, T.clusterRole, T.clusterRoleBinding],
  name: new RegExp(`^calico-(sa|role|binding)-${workload}$`),
});
const NODE_RBAC = ownRbac("calico-node", "calico-node");
const TYPHA_RBAC = ownRbac("Typha", "calico-typha");

export const CALICO_ORDERING: readonly OrderingRule[] = [
  {
    before: { label: "Calico's line check", types: [T.lineCheck] },
    after: { ...CALICO_OBJECTS, types: [...CALICO_OBJECTS.types, T.takeover] },
    why: "a new Calico line that does not enforce a policy kind the cluster holds is refused before any Calico object changes (in the preview's diff, and again in the update)",
    source:
      "projectcalico/calico release-notes/v3.32.0-release-notes.md (ANP and BANP must be removed or rewritten before upgrading)",
  },
  {
    before: { label: "Calico's install check", types: [T.installCheck] },
    after: { ...CALICO_OBJECTS, types: [...CALICO_OBJECTS.types, T.takeover] },
    why: "a calico-node of another install (this program's in another namespace, the operator's, or any outside calico.namespace with calico.adopt) refuses the install before any Calico object changes, in the preview and in the update: two installs cannot share the nodes",
    source:
      "components/calico/install-check.ts (pulumi-kubernetes provider/pkg/provider/provider.go Diff: a move creates the new objects before deleting the old)",
  },
  {
    before: { label: "Calico's takeover step", types: [T.takeover] },
    after: CALICO_OBJECTS,
    why: "a CRD left by another install stops it before anything changes (the CRDs' provider upserts); with calico.adopt, kubectl's fields are handed over first, or the forced apply keeps what the old manifest set",
    source:
      "components/calico/takeover (pulumi-kubernetes provider/pkg/await/await.go: an upsert moves no kubectl field)",
  },
  {
    before: {
      label: "the Calico namespace (when not kube-system)",
      types: [T.namespace],
      name: new RegExp(`^calico-namespace-(?!${OPERATOR_NAMESPACE}$)`),
    },
    after: {
      label: "every namespaced Calico object",
      types: CALICO_OBJECTS.types.filter((t) => !CLUSTER_SCOPED.includes(t)),
    },
    why: "objects are created in an existing namespace, and deleting a namespace deletes what is in it",
    source: "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/",
  },
  {
    before: {
      label: "the Calico CRDs and the RBAC no workload runs as",
      types: [T.crd, T.serviceAccount, T.clusterRole, T.clusterRoleBinding],
      // The workloads' own RBAC and the autoscaler's have rows of their own.
      name: /^calico-(crd|sa|role|binding)-(?!calico-typha-autoscaler$|calico-node$|calico-typha$)/,
    },
    after: {
      label: "Typha and calico-node",
      types: [T.deployment, T.daemonSet],
      name: /-calico-(typha|typha-takeover|node)$/,
    },
    why: "Felix and Typha list Calico's kinds at start and crash-loop without them",
    source: "https://docs.tigera.io/calico/latest/reference/typha/overview",
  },
  {
    before: NODE_RBAC,
    after: CALICO_NODE_DAEMONSET,
    why: "Felix lists Calico's kinds with its service account's permissions at start and crash-loops without them",
    source: "https://docs.tigera.io/calico/latest/reference/typha/overview",
  },
  {
    before: TYPHA_RBAC,
    after: { label: "Typha's Deployment", types: [T.deployment], name: TYPHA },
    why: "Typha lists Calico's kinds with its service account's permissions at start and crash-loops without them",
    source: "https://docs.tigera.io/calico/latest/reference/typha/overview",
  },
  {
    firstRolled: "calico-node",
    before: CALICO_NODE_DAEMONSET,
    after: TYPHA_RBAC,
    why: "v3.32's Typha role reads ClusterNetworkPolicy, not v3.31's AdminNetworkPolicy and BaselineAdminNetworkPolicy: applied before calico-node's rollout, it would take them from the running v3.31 Typha that every Felix still reads (rbac.ts KUBERNETES_POLICY_READABLE)",
    source: "../components/calico/rbac.ts",
  },
  {
    firstRolled: "Typha",
    before: { label: "Typha's Deployment", types: [T.deployment], name: TYPHA },
    after: NODE_RBAC,
    why: "the running calico-node keeps its own release's role while Typha rolls: a role of the new release may lack what the old Felix reads",
    source: "../components/calico/rbac.ts",
  },
  {
    before: { label: "Typha's Service", types: [T.service], name: TYPHA },
    after: CALICO_NODE_DAEMONSET,
    why: "Felix finds Typha through the Service's ready endpoints and is not ready until it connects to one",
    source: "https://github.com/projectcalico/calico/blob/v3.31.7/typha/pkg/discovery/discovery.go",
  },
  {
    firstRolled: "Typha",
    before: {
      label: "Typha's Deployment (a first install, or a new release whose Typha keeps the running Felix)",
      types: [T.deployment],
      name: TYPHA,
    },
    after: CALICO_NODE_DAEMONSET,
    why: "with no Typha, no Felix gets ready; on a change of release every old Felix meets the new Typha while calico-node waits for its rollout, and keeps it",
    source: "../components/calico/rollout-order.ts",
  },
  {
    firstRolled: "calico-node",
    before: {
      label: "the calico-node DaemonSet (a new release whose Typha disconnects the running Felix)",
      types: [T.daemonSet],
      name: /-calico-node$/,
    },
    after: { label: "Typha's Deployment", types: [T.deployment], name: TYPHA },
    why: "a v3.32 Typha disconnects every v3.31 Felix, and the DaemonSet controller replaces each NotReady pod at once: calico-node rolls first, its new Felix reading the old Typha",
    source: "../components/calico/typha-felix.ts",
  },
  {
    before: {
      label: "the Typha TLS CA and certificate Secrets",
      types: [T.configMap, T.secret],
      name: /-(calico-typha-ca|calico-typha-tls|calico-felix-typha-tls)$/,
    },
    after: {
      label: "Typha and calico-node",
      types: [T.deployment, T.daemonSet],
      name: /-calico-(typha|typha-takeover|node)$/,
    },
    why: "their pods mount the CA and certificates and stay in ContainerCreating until they exist",
    source: "https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-files-from-a-pod",
  },
  {
    before: { label: "Typha's Deployment", types: [T.deployment], name: TYPHA },
    after: { label: "Typha's autoscaler", types: [T.deployment], name: AUTOSCALER },
    why: "the autoscaler scales calico-typha and fails while its target does not exist",
    source: "https://github.com/kubernetes-sigs/cluster-proportional-autoscaler",
  },
  {
    before: {
      label: "the autoscaler's RBAC and ladder ConfigMap",
      types: [...ACCESS_TYPES, T.configMap],
      name: AUTOSCALER,
    },
    after: { label: "Typha's autoscaler", types: [T.deployment], name: AUTOSCALER },
    why: "it reads its ladder at start and lists nodes with its service account's permissions",
    source: "https://github.com/kubernetes-sigs/cluster-proportional-autoscaler",
  },
  {
    before: {
      label: "the operator's namespace",
      types: [T.namespace],
      name: new RegExp(`-namespace-${OPERATOR_NAMESPACE}$`),
    },
    after: {
      label: "the operator's ServiceAccount, Secrets RoleBinding and Deployment",
      types: [T.serviceAccount, T.k8sRoleBinding, T.deployment],
      name: new RegExp(`-${OPERATOR_NAME}(-secrets)?$`),
    },
    why: "objects are created in an existing namespace, and deleting a namespace deletes what is in it",
    source: "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/",
  },
  {
    before: {
      label: "the operator's ServiceAccount, ClusterRoles and bindings",
      types: [T.serviceAccount, T.clusterRole, T.clusterRoleBinding, T.k8sRoleBinding],
      name: new RegExp(`-${OPERATOR_NAME}(-secrets)?$`),
    },
    after: OPERATOR,
    why: "the operator watches every kind it manages, and creates its CRDs, with its service account's permissions from the start; without them its controllers fail and it installs nothing",
    source: "https://docs.tigera.io/calico/latest/getting-started/kubernetes/managed-public-cloud/eks",
  },
  {
    before: {
      label: "aws-node's `pods: patch` grant",
      types: [T.clusterRole, T.clusterRoleBinding],
      name: new RegExp(`-${AWS_NODE_POD_PATCHER}$`),
    },
    after: {
      label: "calico-node, or the Installation",
      types: [T.daemonSet, T.installation],
      name: /-calico-node$|-installation-default$/,
    },
    why: "with ANNOTATE_POD_IP aws-node writes each new pod's IP on the pod, so Calico applies policy to it without a multi-second open window at pod start; without the grant the patch is refused",
    source: "https://github.com/aws/containers-roadmap/issues/1940",
  },
  {
    before: OPERATOR,
    after: {
      label: "every operator custom resource (Installation, APIServer, Goldmane, Whisker)",
      types: [T.installation, T.apiServer, T.goldmane, T.whisker],
    },
    why: "the operator creates their CRDs at start (before it: no matches for kind) and runs their finalizers on delete; gone first, it leaves the Installation's deletion hanging forever",
    source: "https://github.com/tigera/operator/issues/2031",
  },
  {
    before: INSTALLATION,
    after: {
      label: "the APIServer, Goldmane and Whisker",
      types: [T.apiServer, T.goldmane, T.whisker],
    },
    why: "the operator runs them on the Calico the Installation installs, and each of their controllers holds a finalizer on the Installation until its own pods are torn down",
    source: "https://github.com/tigera/operator/blob/master/pkg/render/finalizers.go",
  },
  {
    before: CALICO_NODE_DAEMONSET,
    after: { label: "the Typha retirement step (`calico.adopt`)", types: [T.typhaRetirement] },
    why: "an old manifest's Typha serves the calico-node pods not yet replaced, which cannot reach this program's mutual-TLS Typha: it is deleted only once the DaemonSet's update, awaited until every pod is replaced, is done",
    source: "https://github.com/pulumi/pulumi-kubernetes/blob/v4.34.2/provider/pkg/await/daemonset.go",
  },
  {
    before: CALICO_NODE_DAEMONSET,
    after: { label: "the Felix cleanup step", types: [T.felixCleanup] },
    why: "Felix leaves its rules when it stops, and they drop every pod started on the node afterwards: the step, deleted first, turns calico-node into a cleanup of those rules on every node before the DaemonSet is deleted",
    source: "https://github.com/projectcalico/calico/issues/5100",
  },
  {
    before: NODE_GROUPS,
    after: { label: "the Felix cleanup step", types: [T.felixCleanup] },
    why: "the cleanup runs on the nodes: `pulumi destroy` must run it while they still run",
    source: "https://www.pulumi.com/docs/iac/concepts/options/dependson/",
  },
  {
    before: {
      label: "the probe's objects (manifest install)",
      types: [T.namespace, T.deployment, T.service, T.networkPolicy, T.job, T.pod],
      name: /-probe-/,
    },
    after: { label: "the Felix cleanup step", types: [T.felixCleanup] },
    unlessPresent: INSTALLATION,
    why: "a removal deletes the probe only once Felix's rules are gone, as it does the install's objects: a removal held in the cleanup has deleted nothing the next `up` would miss, and the install check refuses no such `up`",
    source: "components/calico/removal-marker.ts",
  },
  {
    before: { label: "the Felix cleanup step (`installer: operator`)", types: [T.felixCleanup] },
    after: INSTALLATION,
    why: "the operator owns calico-node and would undo a patch of it: the step, deleted after the Installation (whose deletion waits until the operator has removed calico-node), runs its own cleanup DaemonSet on every node",
    source: "https://github.com/projectcalico/calico/issues/5100",
  },
  {
    before: {
      label: "every Calico object, the probe's included, and the Felix cleanup step",
      types: [...CALICO_OBJECTS.types, T.job, T.felixCleanup],
    },
    after: { label: "the removal marker step", types: [T.removalMarker] },
    why: "a removal stopped part-way leaves the state holding objects the cluster lost, which `up` would not create again: the step, deleted first, writes kube-system/calico-removal, and the install check refuses while an object is missing",
    source:
      "components/calico/removal-marker.ts (pulumi-kubernetes provider/pkg/provider/provider.go Diff, v4.25.0: inputs against the state, not the cluster)",
  },
  {
    before: { label: "Calico's install check", types: [T.installCheck] },
    after: {
      label: "the Felix cleanup and restore steps",
      types: [T.felixCleanup, T.felixRestore],
      name: /^calico-felix-(cleanup|restore)$/,
    },
    why: "the install check goes last on delete and deletes the removal marker: a removal stopped while Felix's rules are removed keeps it",
    source: "components/calico/removal-marker.ts",
  },
  {
    before: {
      label: "the Calico CRDs, RBAC but Typha's and Typha TLS objects (manifest install)",
      types: [T.crd, T.serviceAccount, T.clusterRole, T.clusterRoleBinding, T.configMap, T.secret],
      name: /^calico-(crd|sa|role|binding)-(?!calico-typha-autoscaler$|calico-typha$)|-(calico-typha-ca|calico-typha-tls|calico-felix-typha-tls)$/,
    },
    after: { label: "the Felix restore step", types: [T.felixRestore], name: /^calico-felix-restore$/ },
    // The operator's restore step deletes a cleanup DaemonSet of its own: it needs none of these.
    unlessPresent: INSTALLATION,
    why: "the step applies calico-node as rendered, whose pods need what calico-node's need",
    source: "https://docs.tigera.io/calico/latest/reference/typha/overview",
  },
  {
    before: { label: "Typha's Service (manifest install)", types: [T.service], name: TYPHA },
    after: { label: "the Felix restore step", types: [T.felixRestore], name: /^calico-felix-restore$/ },
    why: "the step applies calico-node as rendered where a removal left the cleanup, so Felix starts on every node: it follows what calico-node follows",
    source: "https://docs.tigera.io/calico/latest/reference/typha/overview",
  },
  {
    firstRolled: "Typha",
    before: {
      label: "Typha's Deployment (manifest install; when Typha rolls first)",
      types: [T.deployment],
      name: TYPHA,
    },
    after: { label: "the Felix restore step", types: [T.felixRestore], name: /^calico-felix-restore$/ },
    why: "the step applies calico-node as rendered, so it waits for what calico-node waits for: Typha's rollout, when Typha rolls first",
    source: "../components/calico/rollout-order.ts",
  },
  {
    before: { label: "the Felix restore step", types: [T.felixRestore] },
    after: { label: "the calico-node DaemonSet", types: [T.daemonSet], name: /-calico-node$/ },
    why: "a removal that stopped half-way leaves calico-node running the cleanup, and pulumi-kubernetes diffs the DaemonSet against its state, not the cluster: the step puts back the rendered template first",
    source: "https://github.com/pulumi/pulumi-kubernetes/blob/v4.25.0/provider/pkg/provider/provider.go",
  },
  {
    before: { label: "the Felix restore step (`installer: operator`)", types: [T.felixRestore] },
    after: INSTALLATION,
    why: "a removal that stopped half-way leaves the cleanup DaemonSet, whose pods would take Felix's rules off again: the step deletes it before the operator runs Felix",
    source: "https://github.com/projectcalico/calico/issues/5100",
  },
];
