/**
 * What a workload pod on a node waits for, in the program's creation and deletion order (./ordering.ts has
 * the whole table): the startup taint's remover, which lets pods onto a node once Felix enforces there,
 * and the enforcement probe's run, whose pods are such workload pods.
 */

import {
  T,
  ACCESS_TYPES,
  PROBE_NAMESPACE,
  INSTALLATION,
  TYPHA,
  CALICO_NODE_DAEMONSET,
  type OrderingRule,
  type ResourceSet,
} from "./ordering-sets";

/** The remover's objects but its DaemonSet. */
const REMOVER_ACCESS: ResourceSet = {
  label: "the startup taint remover's ServiceAccount, roles, admission policy and binding",
  types: [...ACCESS_TYPES, T.admissionPolicy, T.admissionPolicyBinding],
  name: /-startup-taint-/,
};
const REMOVER_DAEMONSET: ResourceSet = {
  label: "the remover's DaemonSet",
  types: [T.daemonSet],
  name: /-startup-taint-remover$/,
};

export const PROBE_ORDERING: readonly OrderingRule[] = [
  {
    before: INSTALLATION,
    after: { ...REMOVER_ACCESS, label: "the startup taint remover's objects (`installer: operator`)" },
    why: "they live in calico-system, which the operator creates for the Installation, and their Role lists calico-node's pods there; the Installation's wait is not held by the taint, since every component it waits for tolerates it (CONTROL_PLANE_TOLERATIONS)",
    source:
      "components/calico/operator/custom-resources.ts (tigera/operator pkg/render/kubecontrollers/kube-controllers.go)",
  },
  {
    before: { label: "the startup taint's admission policy", types: [T.admissionPolicy] },
    after: { label: "its binding", types: [T.admissionPolicyBinding] },
    why: "a binding names its policy: bound before the policy exists, it narrows nothing yet",
    source: "https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/",
  },
  {
    before: {
      ...REMOVER_ACCESS,
      label: "the startup taint remover's ServiceAccount, roles and policy binding",
      types: REMOVER_ACCESS.types.filter((t) => t !== T.admissionPolicy),
    },
    after: REMOVER_DAEMONSET,
    why: "its pods patch nodes from their start: without their roles the patches fail, and before the policy binds nothing narrows them to the startup taint on their own node",
    source: "../components/startup-taint/objects.ts",
  },
  {
    before: CALICO_NODE_DAEMONSET,
    after: PROBE_NAMESPACE,
    why: "the probe proves that Felix enforces policy: run before calico-node is ready, its denied client could connect and fail the update",
    source:
      "https://docs.tigera.io/calico/latest/network-policy/get-started/kubernetes-policy/kubernetes-policy-basic",
  },
  {
    before: { label: "Typha's Deployment", types: [T.deployment], name: TYPHA },
    after: PROBE_NAMESPACE,
    why: "while Typha rolls, each Felix it sheds exits and reconnects, and a pod started meanwhile waits for its policy: the probe runs once both workloads have rolled",
    source: "https://github.com/projectcalico/calico/blob/v3.31.7/felix/daemon/daemon.go",
  },
  {
    before: INSTALLATION,
    after: PROBE_NAMESPACE,
    why: "the Installation is awaited until the operator reports calico-node Ready on every node: the probe run before that could see its denied client connect",
    source:
      "https://docs.tigera.io/calico/latest/network-policy/get-started/kubernetes-policy/kubernetes-policy-basic",
  },
  {
    before: PROBE_NAMESPACE,
    after: {
      label: "the probe's server, Service, policies and Jobs",
      types: [T.deployment, T.service, T.networkPolicy, T.job],
      name: /-probe-/,
    },
    why: "objects are created in an existing namespace, and deleting a namespace deletes what is in it",
    source: "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/",
  },
  {
    before: {
      label: "the probe's server, Service and NetworkPolicies",
      types: [T.deployment, T.service, T.networkPolicy],
      name: /-probe-/,
    },
    after: { label: "the probe's allowed client Job", types: [T.job], name: /-probe-allowed-client$/ },
    why: "the allowed client proves the policies admit it only once the server answers and both policies exist",
    source: "https://kubernetes.io/docs/concepts/services-networking/network-policies/",
  },
  {
    before: { label: "the probe's allowed client Job", types: [T.job], name: /-probe-allowed-client$/ },
    after: { label: "the probe's denied client Job", types: [T.job], name: /-probe-denied-client$/ },
    why: "a denied connection proves enforcement only if the server is known to answer: the allowed client has connected first",
    source: "https://kubernetes.io/docs/concepts/services-networking/network-policies/",
  },
  {
    before: { label: "the probe's denied client Job", types: [T.job], name: /-probe-denied-client$/ },
    after: { label: "the probe's recheck client Job", types: [T.job], name: /-probe-recheck-client$/ },
    why: "kube-proxy rejects a connection to a Service without endpoints as Felix's Reject would: the denied client's blocks count only once an allowed client connects again after them",
    source: "https://github.com/kubernetes/kubernetes/blob/master/pkg/proxy/iptables/proxier.go",
  },
  {
    before: REMOVER_DAEMONSET,
    after: PROBE_NAMESPACE,
    why: "the probe's pods are workload pods, held off every node that still carries the startup taint: run before the remover is ready, its Jobs wait for it",
    source: "components/startup-taint/objects.ts",
  },
];
