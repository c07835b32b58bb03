/**
 * The calico-node DaemonSet in policy-only mode on the AWS VPC CNI: Felix only, no BGP, no Calico IPAM
 * and no CNI installer (the VPC CNI stays the CNI). Facts from Calico's calico-policy-only.yaml and the
 * amazon-vpc-cni-k8s Calico manifests; deliberate differences are commented where they are made.
 */
import { nodeAgentPlacement } from "./scheduling";
import { FELIX_INTERFACE_PREFIX } from "./defaults";
import type { MaxUnavailable } from "./rollout";
import { felixTls } from "./typha-tls";
import { DEFAULT_FELIX, type FelixSettings, felixEnv } from "./felix-settings";
import { selectorLabels, workloadLabels } from "./labels";
import { CALICO_NODE, CALICO_NODE_IMAGE, STANDARD_TYPHA, type TyphaEndpoint } from "./names";
import type { Container, DaemonSet, EnvVar } from "./object-shapes";

/** Route tables Felix may use: outside the VPC CNI's per-ENI policy-routing tables. */
export const FELIX_ROUTE_TABLE_RANGES = "65-99";

function env(name: string, value: string): EnvVar {
  return { name, value };
}

/** calico-node's environment, in a fixed order so renders diff cleanly. */
export function calicoNodeEnv(
  namespace: string,
  typha: TyphaEndpoint = STANDARD_TYPHA,
  felix: FelixSettings = DEFAULT_FELIX,
): EnvVar[] {
  return [
    // The Kubernetes API is the datastore; no etcd.
    env("DATASTORE_TYPE", "kubernetes"),
    env("WAIT_FOR_DATASTORE", "true"),
    { name: "NODENAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
    // Policy only: no BGP, no IP pools, no node IP to advertise.
    env("CALICO_NETWORKING_BACKEND", "none"),
    env("NO_DEFAULT_POOLS", "true"),
    env("IP", ""),
    // Felix maps "eks" to its EKS provider (felix/config/config_params.go, newProvider).
    env("CLUSTER_TYPE", "k8s,eks"),
    // The VPC CNI writes the CNI config; calico-node must not manage CNI credentials.
    env("CALICO_MANAGE_CNI", "false"),
    // The VPC CNI names pod veths eni*.
    env("FELIX_INTERFACEPREFIX", FELIX_INTERFACE_PREFIX),
    // Return from the mangle table so the VPC CNI's connmark rules still run (NodePort on secondary ENIs).
    env("FELIX_IPTABLESMANGLEALLOWACTION", "Return"),
    // Routes come from workload endpoints; Felix must not remove the VPC CNI's routes.
    env("FELIX_ROUTESOURCE", "WorkloadIPs"),
    // v3.31+ Felix reads RouteTableRanges; RouteTableRange is deprecated and overridden by it.
    env("FELIX_ROUTETABLERANGES", FELIX_ROUTE_TABLE_RANGES),
    // Felix finds Typha through this Service's endpoints, in the namespace Calico runs in.
    env("FELIX_TYPHAK8SSERVICENAME", typha.name),
    env("FELIX_TYPHAK8SNAMESPACE", namespace),
    // Host-to-local-pod traffic stays allowed (kubelet probes reach pods).
    env("FELIX_DEFAULTENDPOINTTOHOSTACTION", "ACCEPT"),
    env("FELIX_IPV6SUPPORT", "false"),
    env("FELIX_HEALTHENABLED", "true"),
    // Log to stdout only, so `kubectl logs` shows everything.
    env("CALICO_DISABLE_FILE_LOGGING", "true"),
    // `calico.felix` (./felix-settings.ts).
    ...felixEnv(felix),
  ];
}

/** A host path calico-node mounts at the same path in the container. */
interface HostMount {
  name: string;
  path: string;
  /** hostPath type; none means no check, as upstream mounts /lib/modules. */
  type?: "FileOrCreate" | "DirectoryOrCreate";
  readOnly: boolean;
}

/** The host paths Felix needs, and nothing for a CNI installer. */
export const CALICO_NODE_HOST_MOUNTS: readonly HostMount[] = [
  // Kernel modules for iptables and ipset, read-only.
  { name: "lib-modules", path: "/lib/modules", readOnly: true },
  // The iptables lock shared with kube-proxy and the VPC CNI.
  { name: "xtables-lock", path: "/run/xtables.lock", type: "FileOrCreate", readOnly: false },
  { name: "var-run-calico", path: "/var/run/calico", type: "DirectoryOrCreate", readOnly: false },
  { name: "var-lib-calico", path: "/var/lib/calico", type: "DirectoryOrCreate", readOnly: false },
];

/** Exec probe of calico-node; 1 s timeouts caused false failures upstream, so 10 s. */
function felixProbe(flag: "-felix-live" | "-felix-ready") {
  return { exec: { command: ["/bin/calico-node", flag] }, periodSeconds: 10, timeoutSeconds: 10 };
}

function calicoNodeContainer(
  registry: string,
  version: string,
  namespace: string,
  typha: TyphaEndpoint,
  felix: FelixSettings,
): Container {
  return {
    name: CALICO_NODE,
    image: `${registry}/${CALICO_NODE_IMAGE}:${version}`,
    imagePullPolicy: "IfNotPresent",
    // Felix reaches Typha over mutual TLS (typha-tls.ts).
    env: [...calicoNodeEnv(namespace, typha, felix), ...felixTls.env],
    // Felix programs iptables in the host network namespace.
    securityContext: { privileged: true },
    // Requests only: a CPU or memory limit on the node's policy enforcer risks throttling or OOM kills.
    resources: { requests: { cpu: "250m", memory: "128Mi" } },
    livenessProbe: { ...felixProbe("-felix-live"), initialDelaySeconds: 10, failureThreshold: 6 },
    readinessProbe: felixProbe("-felix-ready"),
    volumeMounts: [
      ...CALICO_NODE_HOST_MOUNTS.map((m) => ({ name: m.name, mountPath: m.path, readOnly: m.readOnly })),
      ...felixTls.volumeMounts,
    ],
  };
}

/** The calico-node DaemonSet: one Felix on every Linux EC2 node, whatever its taints. */
export function renderCalicoNode(
  namespace: string,
  registry: string,
  version: string,
  maxUnavailable: MaxUnavailable,
  typha: TyphaEndpoint = STANDARD_TYPHA,
  felix: FelixSettings = DEFAULT_FELIX,
): DaemonSet {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: CALICO_NODE, namespace, labels: workloadLabels(CALICO_NODE, version) },
    spec: {
      selector: { matchLabels: selectorLabels(CALICO_NODE) },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable } },
      template: {
        metadata: { labels: workloadLabels(CALICO_NODE, version) },
        spec: {
          hostNetwork: true,
          // Every node needs Felix; evicting it would leave a node's pods unpoliced.
          ...nodeAgentPlacement(),
          serviceAccountName: CALICO_NODE,
          // Felix leaves its rules in place when it stops; upstream kills it at once to shorten rollouts.
          terminationGracePeriodSeconds: 0,
          containers: [calicoNodeContainer(registry, version, namespace, typha, felix)],
          volumes: [
            ...CALICO_NODE_HOST_MOUNTS.map((m) => ({
              name: m.name,
              hostPath: m.type === undefined ? { path: m.path } : { path: m.path, type: m.type },
            })),
            ...felixTls.volumes,
          ],
        },
      },
    },
  };
}
