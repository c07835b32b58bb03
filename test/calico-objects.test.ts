/**
 * The Calico object builders (components/calico), checked directly: exact values, RBAC coverage of the
 * CRDs, Typha sizing, what a version bump changes, and every object against Kubernetes' OpenAPI schema.
 */
import * as assert from "node:assert/strict";
import {
  DEFAULT_CALICO_NAMESPACE,
  DEFAULT_CALICO_REGISTRY,
  DEFAULT_CALICO_VERSION,
  SUPPORTED_CALICO_MINORS,
  isSupportedCalicoVersion,
} from "../components/calico/defaults";
import { CALICO_CRD_KINDS, crdKindsFor, crdName } from "../components/calico/crds";
import { childResourceName, renderCalicoObjects, type CalicoSettings } from "../components/calico/objects";
import { COMMON_LABELS } from "../components/calico/labels";
import { isDaemonSetReady } from "../components/calico/status";
import { MAX_TYPHA_REPLICAS, TYPHA_TOLERATIONS, typhaReplicas } from "../components/calico/typha";
import type { CalicoObject, Container, EnvVar, PolicyRule } from "../components/calico/types";
import { validateKubernetesObject as validate } from "./k8s-schema";

/** One release of each supported line. */
const VERSIONS = ["v3.31.7", "v3.32.1"] as const;

const DEFAULTS: CalicoSettings = {
  namespace: DEFAULT_CALICO_NAMESPACE,
  version: DEFAULT_CALICO_VERSION,
  registry: DEFAULT_CALICO_REGISTRY,
  expectedNodes: 10,
};

function render(overrides: Partial<CalicoSettings> = {}): CalicoObject[] {
  return renderCalicoObjects({ ...DEFAULTS, ...overrides });
}

type OfKind<K extends CalicoObject["kind"]> = Extract<CalicoObject, { kind: K }>;

function ofKind<K extends CalicoObject["kind"]>(objects: CalicoObject[], kind: K): OfKind<K>[] {
  return objects.filter((o): o is OfKind<K> => o.kind === kind);
}

/** Exactly one object of `kind` named `name`. */
function find<K extends CalicoObject["kind"]>(objects: CalicoObject[], kind: K, name: string): OfKind<K> {
  const matches = ofKind(objects, kind).filter((o) => o.metadata.name === name);
  assert.equal(matches.length, 1, `expected one ${kind} ${name}, found ${matches.length}`);
  return matches[0];
}

function calicoNode(objects = render()) {
  const daemonSet = find(objects, "DaemonSet", "calico-node");
  const pod = daemonSet.spec.template.spec;
  assert.ok(pod, "calico-node has a pod spec");
  return { daemonSet, pod, container: pod.containers[0] };
}

function typha(objects = render()) {
  const deployment = find(objects, "Deployment", "calico-typha");
  const pod = deployment.spec.template.spec;
  assert.ok(pod, "calico-typha has a pod spec");
  return { deployment, pod, container: pod.containers[0] };
}

function envOf(container: Container): Map<string, EnvVar> {
  const env = container.env ?? [];
  const byName = new Map(env.map((e) => [e.name, e]));
  assert.equal(byName.size, env.length, `duplicate env names in ${container.name}`);
  return byName;
}

/** Whether any rule grants `verb` on `resource` in `group`. */
function allows(rules: PolicyRule[], verb: string, group: string, resource: string): boolean {
  return rules.some(
    (r) =>
      (r.apiGroups ?? []).includes(group) && (r.resources ?? []).includes(resource) && r.verbs.includes(verb),
  );
}

const NAMESPACED_KINDS = new Set([
  "ServiceAccount",
  "Deployment",
  "Service",
  "PodDisruptionBudget",
  "DaemonSet",
]);

describe("calico defaults", () => {
  it("accepts exact releases of the supported lines only", () => {
    assert.deepEqual([...SUPPORTED_CALICO_MINORS], ["3.31", "3.32"]);
    assert.equal(DEFAULT_CALICO_VERSION, "v3.31.7");
    for (const ok of ["v3.31.7", "v3.31.0", "v3.32.1"]) assert.equal(isSupportedCalicoVersion(ok), true, ok);
    for (const bad of ["v3.30.4", "3.31.7", "v3.31", "v3.31.7-rc1", "latest", ""]) {
      assert.equal(isSupportedCalicoVersion(bad), false, bad);
    }
  });

  it("refuses to render an unsupported release, naming the supported lines", () => {
    assert.throws(() => render({ version: "v3.30.4" }), /v3\.30\.4.*not supported.*v3\.31 or v3\.32/);
  });
});

describe("calico CRDs", () => {
  const CALICO_22 = [
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
  ].map((plural) => `${plural}.crd.projectcalico.org`);

  it("v3.31: the 22 Calico CRDs plus AdminNetworkPolicy and BaselineAdminNetworkPolicy", () => {
    assert.equal(CALICO_22.length, 22);
    const names = ofKind(render({ version: "v3.31.7" }), "CustomResourceDefinition").map(
      (c) => c.metadata.name,
    );
    assert.deepEqual(names, [
      ...CALICO_22,
      "adminnetworkpolicies.policy.networking.k8s.io",
      "baselineadminnetworkpolicies.policy.networking.k8s.io",
    ]);
  });

  it("v3.32: the 22 Calico CRDs plus ClusterNetworkPolicy", () => {
    const names = ofKind(render({ version: "v3.32.1" }), "CustomResourceDefinition").map(
      (c) => c.metadata.name,
    );
    assert.deepEqual(names, [...CALICO_22, "clusternetworkpolicies.policy.networking.k8s.io"]);
  });

  it("exactly networkpolicies, networksets and the two staged namespaced kinds are namespaced", () => {
    const namespaced = CALICO_CRD_KINDS.filter((k) => k.scope === "Namespaced").map((k) => k.plural);
    assert.deepEqual(namespaced.sort(), [
      "networkpolicies",
      "networksets",
      "stagedkubernetesnetworkpolicies",
      "stagednetworkpolicies",
    ]);
    for (const version of VERSIONS) {
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const expected =
          crd.spec.group === "crd.projectcalico.org" && namespaced.includes(crd.spec.names.plural);
        assert.equal(crd.spec.scope, expected ? "Namespaced" : "Cluster", crd.metadata.name);
      }
    }
  });

  for (const version of VERSIONS) {
    it(`${version}: every CRD is apiextensions v1 with consistent names and a structural schema`, () => {
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const { names, group, versions } = crd.spec;
        assert.equal(crd.apiVersion, "apiextensions.k8s.io/v1");
        assert.equal(crd.metadata.name, `${names.plural}.${group}`);
        assert.equal(names.listKind, `${names.kind}List`);
        assert.equal(names.singular, names.kind.toLowerCase());
        assert.equal(versions.length, 1, crd.metadata.name);
        const [served] = versions;
        assert.equal(served.served, true);
        assert.equal(served.storage, true);
        if (group === "crd.projectcalico.org") assert.equal(served.name, "v1");
        assert.deepEqual(served.schema?.openAPIV3Schema, {
          type: "object",
          properties: {
            apiVersion: { type: "string" },
            kind: { type: "string" },
            metadata: { type: "object" },
            spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        });
      }
    });
  }

  it("has status subresources only where upstream has them (never on caliconodestatuses)", () => {
    for (const version of VERSIONS) {
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const hasStatus = crd.spec.versions[0].subresources?.status !== undefined;
        // calico-node writes CalicoNodeStatus with a plain update; a status subresource would drop it.
        assert.equal(hasStatus, crd.spec.group === "policy.networking.k8s.io", crd.metadata.name);
      }
    }
  });

  it("carries the API-approval annotation the API server requires for *.k8s.io groups", () => {
    for (const version of VERSIONS) {
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const approval = crd.metadata.annotations?.["api-approved.kubernetes.io"];
        if (crd.spec.group.endsWith(".k8s.io")) {
          assert.match(
            approval ?? "",
            /^https:\/\/github\.com\/kubernetes-sigs\/network-policy-api\/pull\/\d+$/,
          );
        } else {
          assert.equal(approval, undefined, crd.metadata.name);
        }
      }
    }
  });

  it("does not depend on the Calico version within a line, labels included", () => {
    const crds = (version: string) => ofKind(render({ version }), "CustomResourceDefinition");
    assert.deepEqual(crds("v3.31.6"), crds("v3.31.7"));
    for (const crd of crds("v3.31.7")) {
      assert.deepEqual(crd.metadata.labels, {
        "app.kubernetes.io/part-of": "eks-calico",
        "app.kubernetes.io/managed-by": "pulumi",
      });
    }
  });
});

describe("calico RBAC", () => {
  it("uses no wildcard in any ClusterRole", () => {
    for (const version of VERSIONS) {
      for (const role of ofKind(render({ version }), "ClusterRole")) {
        for (const rule of role.rules) {
          const fields = [rule.verbs, rule.resources ?? [], rule.apiGroups ?? [], rule.resourceNames ?? []];
          for (const value of fields.flat())
            assert.ok(!value.includes("*"), `${role.metadata.name}: ${value}`);
          assert.equal(rule.nonResourceURLs, undefined, role.metadata.name);
        }
      }
    }
  });

  for (const version of VERSIONS) {
    for (const workload of ["calico-node", "calico-typha"]) {
      it(`${version}: ${workload} can read every CRD kind the CRD list defines`, () => {
        const { rules } = find(render({ version }), "ClusterRole", workload);
        for (const kind of crdKindsFor(version)) {
          const verbs = kind.group === "crd.projectcalico.org" ? ["get", "list", "watch"] : ["list", "watch"];
          for (const verb of verbs) {
            assert.ok(
              allows(rules, verb, kind.group, kind.plural),
              `${workload} cannot ${verb} ${crdName(kind)}`,
            );
          }
        }
      });
    }
  }

  it("lets calico-node write exactly what its startup and status reporting write", () => {
    const { rules } = find(render(), "ClusterRole", "calico-node");
    const calico = "crd.projectcalico.org";
    assert.ok(allows(rules, "create", calico, "tiers"));
    for (const plural of ["ippools", "felixconfigurations", "bgpconfigurations", "clusterinformations"]) {
      assert.ok(allows(rules, "create", calico, plural), plural);
      assert.ok(allows(rules, "update", calico, plural), plural);
    }
    assert.ok(allows(rules, "update", calico, "caliconodestatuses"));
    assert.ok(allows(rules, "patch", "", "pods/status"));
    assert.ok(allows(rules, "patch", "", "nodes/status"));
    assert.ok(allows(rules, "update", "", "nodes/status"));
    for (const resource of ["nodes", "pods", "namespaces", "serviceaccounts", "endpoints", "services"]) {
      for (const verb of ["get", "list", "watch"])
        assert.ok(allows(rules, verb, "", resource), `${verb} ${resource}`);
    }
    assert.ok(allows(rules, "list", "discovery.k8s.io", "endpointslices"));
    assert.ok(allows(rules, "watch", "discovery.k8s.io", "endpointslices"));
    assert.ok(allows(rules, "watch", "networking.k8s.io", "networkpolicies"));
  });

  it("keeps IPAM kinds read-only and grants no CNI token minting", () => {
    for (const workload of ["calico-node", "calico-typha"]) {
      const { rules } = find(render(), "ClusterRole", workload);
      for (const plural of ["ipamblocks", "blockaffinities", "ipamhandles", "ipamconfigs"]) {
        for (const verb of ["create", "update", "patch", "delete"]) {
          assert.ok(
            !allows(rules, verb, "crd.projectcalico.org", plural),
            `${workload} may ${verb} ${plural}`,
          );
        }
      }
      assert.ok(!rules.some((r) => (r.resources ?? []).includes("serviceaccounts/token")), workload);
    }
  });

  it("lets Typha initialise the datastore and nothing else", () => {
    const { rules } = find(render(), "ClusterRole", "calico-typha");
    const writes = rules.filter((r) => r.verbs.some((v) => !["get", "list", "watch"].includes(v)));
    assert.deepEqual(writes, [
      {
        apiGroups: ["crd.projectcalico.org"],
        resources: ["clusterinformations"],
        verbs: ["create", "update"],
      },
      { apiGroups: ["crd.projectcalico.org"], resources: ["tiers"], verbs: ["create"] },
    ]);
  });

  it("binds each ClusterRole to exactly its subject", () => {
    const objects = render({ namespace: "calico-system" });
    const subjects = (name: string) => find(objects, "ClusterRoleBinding", name).subjects;
    assert.deepEqual(subjects("calico-node"), [
      { kind: "ServiceAccount", name: "calico-node", namespace: "calico-system" },
    ]);
    assert.deepEqual(subjects("calico-typha"), [
      { kind: "ServiceAccount", name: "calico-typha", namespace: "calico-system" },
    ]);
    assert.deepEqual(subjects("calico-tier-getter"), [
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:kube-controller-manager" },
    ]);
    // The VPC CNI always runs as kube-system:aws-node, wherever Calico runs.
    assert.deepEqual(subjects("eks-calico-aws-node-pod-patch"), [
      { kind: "ServiceAccount", name: "aws-node", namespace: "kube-system" },
    ]);
    const roles = new Set(ofKind(objects, "ClusterRole").map((r) => r.metadata.name));
    for (const binding of ofKind(objects, "ClusterRoleBinding")) {
      assert.equal(binding.roleRef.kind, "ClusterRole");
      assert.equal(binding.roleRef.apiGroup, "rbac.authorization.k8s.io");
      assert.ok(roles.has(binding.roleRef.name), binding.roleRef.name);
    }
  });

  it("gives the tier getter `get tiers` and aws-node `patch pods`, nothing more", () => {
    const objects = render();
    assert.deepEqual(find(objects, "ClusterRole", "calico-tier-getter").rules, [
      { apiGroups: ["projectcalico.org"], resources: ["tiers"], verbs: ["get"] },
    ]);
    assert.deepEqual(find(objects, "ClusterRole", "eks-calico-aws-node-pod-patch").rules, [
      { apiGroups: [""], resources: ["pods"], verbs: ["patch"] },
    ]);
  });
});

describe("calico-node DaemonSet", () => {
  it("selects on k8s-app only, never on the version", () => {
    const { daemonSet } = calicoNode();
    assert.equal(daemonSet.apiVersion, "apps/v1");
    assert.deepEqual(daemonSet.spec.selector, { matchLabels: { "k8s-app": "calico-node" } });
    assert.equal(daemonSet.spec.template.metadata?.labels?.["k8s-app"], "calico-node");
    assert.equal(daemonSet.spec.template.metadata?.labels?.["app.kubernetes.io/version"], "v3.31.7");
    assert.deepEqual(daemonSet.spec.updateStrategy, {
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: 1 },
    });
  });

  it("tolerates every taint with a single keyless, effectless toleration", () => {
    assert.deepEqual(calicoNode().pod.tolerations, [{ operator: "Exists" }]);
  });

  it("runs privileged on the host network of every Linux, non-Fargate node as system-node-critical", () => {
    const { pod, container } = calicoNode();
    assert.equal(pod.priorityClassName, "system-node-critical");
    assert.equal(pod.hostNetwork, true);
    assert.equal(pod.serviceAccountName, "calico-node");
    assert.deepEqual(pod.nodeSelector, { "kubernetes.io/os": "linux" });
    assert.deepEqual(pod.affinity, {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: "eks.amazonaws.com/compute-type", operator: "NotIn", values: ["fargate"] },
              ],
            },
          ],
        },
      },
    });
    assert.equal(pod.terminationGracePeriodSeconds, 0);
    assert.equal(pod.containers.length, 1);
    assert.equal(container.name, "calico-node");
    assert.equal(container.securityContext?.privileged, true);
    assert.ok(container.resources?.requests?.cpu, "cpu request");
    assert.ok(container.resources?.requests?.memory, "memory request");
  });

  it("uses the configured registry and version for its image", () => {
    assert.equal(calicoNode().container.image, "quay.io/calico/node:v3.31.7");
    const mirrored = calicoNode(render({ registry: "123456789012.dkr.ecr.eu-west-1.amazonaws.com/calico" }));
    assert.equal(
      mirrored.container.image,
      "123456789012.dkr.ecr.eu-west-1.amazonaws.com/calico/node:v3.31.7",
    );
  });

  it("sets the policy-only environment for the VPC CNI, by name and exact value", () => {
    const env = envOf(calicoNode(render({ namespace: "calico-system" })).container);
    const expected: Record<string, string> = {
      DATASTORE_TYPE: "kubernetes",
      WAIT_FOR_DATASTORE: "true",
      CALICO_NETWORKING_BACKEND: "none",
      NO_DEFAULT_POOLS: "true",
      IP: "",
      CLUSTER_TYPE: "k8s,eks",
      CALICO_MANAGE_CNI: "false",
      FELIX_INTERFACEPREFIX: "eni",
      FELIX_IPTABLESMANGLEALLOWACTION: "Return",
      FELIX_ROUTESOURCE: "WorkloadIPs",
      FELIX_ROUTETABLERANGES: "65-99",
      FELIX_TYPHAK8SSERVICENAME: "calico-typha",
      FELIX_TYPHAK8SNAMESPACE: "calico-system",
      FELIX_DEFAULTENDPOINTTOHOSTACTION: "ACCEPT",
      FELIX_IPV6SUPPORT: "false",
      FELIX_HEALTHENABLED: "true",
      CALICO_DISABLE_FILE_LOGGING: "true",
      FELIX_LOGSEVERITYSCREEN: "info",
    };
    for (const [name, value] of Object.entries(expected)) {
      assert.deepEqual(env.get(name), { name, value }, name);
    }
    assert.deepEqual(env.get("NODENAME"), {
      name: "NODENAME",
      valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } },
    });
    assert.deepEqual([...env.keys()].sort(), [...Object.keys(expected), "NODENAME"].sort());
  });

  it("has no CNI installer, Calico IPAM, host-local pod CIDR or critical-pod annotation", () => {
    const { daemonSet, pod, container } = calicoNode();
    const names = [...envOf(container).keys()];
    for (const forbidden of [
      "USE_POD_CIDR",
      "FELIX_ROUTETABLERANGE",
      "CNI_NETWORK_CONFIG",
      "CNI_CONF_NAME",
    ]) {
      assert.ok(!names.includes(forbidden), forbidden);
    }
    assert.ok(!names.some((n) => n.startsWith("CALICO_IPV4POOL") || n.startsWith("CALICO_IPV6POOL")));
    assert.equal(pod.initContainers, undefined);
    const hostPaths = (pod.volumes ?? []).map((v) => v.hostPath?.path);
    for (const cniPath of ["/opt/cni/bin", "/etc/cni/net.d"])
      assert.ok(!hostPaths.includes(cniPath), cniPath);
    const annotations = {
      ...daemonSet.metadata.annotations,
      ...daemonSet.spec.template.metadata?.annotations,
    };
    assert.ok(!("scheduler.alpha.kubernetes.io/critical-pod" in annotations));
  });

  it("probes Felix liveness and readiness with timeouts of at least 5 s", () => {
    const { container } = calicoNode();
    assert.deepEqual(container.livenessProbe?.exec?.command, ["/bin/calico-node", "-felix-live"]);
    assert.deepEqual(container.readinessProbe?.exec?.command, ["/bin/calico-node", "-felix-ready"]);
    assert.ok((container.livenessProbe?.timeoutSeconds ?? 1) >= 5);
    assert.ok((container.readinessProbe?.timeoutSeconds ?? 1) >= 5);
  });

  it("mounts exactly the host paths Felix needs, /lib/modules read-only", () => {
    const { pod, container } = calicoNode();
    const volumes = Object.fromEntries((pod.volumes ?? []).map((v) => [v.name, v.hostPath]));
    assert.deepEqual(volumes, {
      "lib-modules": { path: "/lib/modules" },
      "xtables-lock": { path: "/run/xtables.lock", type: "FileOrCreate" },
      "var-run-calico": { path: "/var/run/calico", type: "DirectoryOrCreate" },
      "var-lib-calico": { path: "/var/lib/calico", type: "DirectoryOrCreate" },
    });
    const mounts = Object.fromEntries((container.volumeMounts ?? []).map((m) => [m.mountPath, m.readOnly]));
    assert.deepEqual(mounts, {
      "/lib/modules": true,
      "/run/xtables.lock": false,
      "/var/run/calico": false,
      "/var/lib/calico": false,
    });
  });

  it("counts as ready only when every desired pod is ready and there is at least one", () => {
    assert.equal(isDaemonSetReady({ desiredNumberScheduled: 3, numberReady: 3 }), true);
    assert.equal(isDaemonSetReady({ desiredNumberScheduled: 3, numberReady: 2 }), false);
    assert.equal(isDaemonSetReady({ desiredNumberScheduled: 0, numberReady: 0 }), false);
    assert.equal(isDaemonSetReady({}), false);
    assert.equal(isDaemonSetReady(undefined), false);
  });
});

describe("Typha", () => {
  it("sizes replicas with the operator's formula, capped at 20", () => {
    const table: Array<[nodes: number, replicas: number]> = [
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 2],
      [5, 3],
      [10, 3],
      [50, 3],
      [200, 3],
      [400, 4],
      [1000, 7],
      [3600, 20],
      [5000, 20],
    ];
    for (const [nodes, replicas] of table) assert.equal(typhaReplicas(nodes), replicas, `${nodes} nodes`);
    assert.equal(MAX_TYPHA_REPLICAS, 20);
  });

  it("never plans more replicas than nodes, nor fewer than one", () => {
    for (let nodes = 1; nodes <= 300; nodes++) {
      const replicas = typhaReplicas(nodes);
      assert.ok(replicas >= 1 && replicas <= nodes, `${nodes} nodes -> ${replicas}`);
    }
  });

  it("rejects a node count that is not a whole number of at least 1", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => typhaReplicas(bad),
        /expectedNodes must be a whole number of at least 1/,
        String(bad),
      );
    }
  });

  it("runs the planned replicas from the configured image, one per node, spread across zones", () => {
    const { deployment, pod, container } = typha(render({ expectedNodes: 1000 }));
    assert.equal(deployment.spec.replicas, 7);
    assert.deepEqual(deployment.spec.selector, { matchLabels: { "k8s-app": "calico-typha" } });
    assert.equal(container.image, "quay.io/calico/typha:v3.31.7");
    assert.equal(pod.hostNetwork, true);
    assert.equal(pod.serviceAccountName, "calico-typha");
    assert.equal(pod.priorityClassName, "system-cluster-critical");
    assert.deepEqual(pod.nodeSelector, { "kubernetes.io/os": "linux" });
    assert.deepEqual(pod.affinity?.nodeAffinity, calicoNode().pod.affinity?.nodeAffinity);
    const antiAffinity = pod.affinity?.podAntiAffinity;
    assert.deepEqual(antiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, [
      {
        labelSelector: { matchLabels: { "k8s-app": "calico-typha" } },
        topologyKey: "kubernetes.io/hostname",
      },
    ]);
    assert.equal(
      antiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0].podAffinityTerm.topologyKey,
      "topology.kubernetes.io/zone",
    );
    assert.deepEqual(deployment.spec.template.metadata?.annotations, {
      "cluster-autoscaler.kubernetes.io/safe-to-evict": "true",
    });
  });

  it("tolerates tainted node groups but not NoExecute, so a failed node's replica moves", () => {
    const { pod } = typha();
    assert.deepEqual(pod.tolerations, [...TYPHA_TOLERATIONS]);
    assert.deepEqual(pod.tolerations, [
      { key: "CriticalAddonsOnly", operator: "Exists" },
      { operator: "Exists", effect: "NoSchedule" },
    ]);
    for (const toleration of pod.tolerations ?? []) {
      assert.ok(
        toleration.key !== undefined || toleration.effect !== undefined,
        "no tolerate-everything entry",
      );
      assert.notEqual(toleration.effect, "NoExecute");
    }
  });

  it("serves 5473 and reports health on 9098, as a non-root container", () => {
    const { pod, container } = typha(render({ namespace: "calico-system" }));
    assert.deepEqual(container.ports, [{ containerPort: 5473, name: "calico-typha", protocol: "TCP" }]);
    assert.deepEqual(container.livenessProbe?.httpGet, { path: "/liveness", port: 9098, host: "localhost" });
    assert.deepEqual(container.readinessProbe?.httpGet, {
      path: "/readiness",
      port: 9098,
      host: "localhost",
    });
    assert.ok((container.livenessProbe?.timeoutSeconds ?? 1) >= 5);
    assert.ok((container.readinessProbe?.timeoutSeconds ?? 1) >= 5);
    assert.equal(container.securityContext?.runAsNonRoot, true);
    assert.equal(container.securityContext?.allowPrivilegeEscalation, false);
    assert.equal(container.securityContext?.privileged, undefined);
    const env = envOf(container);
    const value = (name: string) => env.get(name)?.value;
    assert.equal(value("TYPHA_DATASTORETYPE"), "kubernetes");
    assert.equal(value("TYPHA_HEALTHENABLED"), "true");
    assert.equal(value("TYPHA_HEALTHPORT"), "9098");
    assert.equal(value("TYPHA_K8SNAMESPACE"), "calico-system");
    assert.equal(value("TYPHA_CONNECTIONREBALANCINGMODE"), "kubernetes");
    assert.equal(value("TYPHA_SHUTDOWNTIMEOUTSECS"), String(pod.terminationGracePeriodSeconds));
    assert.equal(env.has("USE_POD_CIDR"), false);
  });

  it("is reached through the calico-typha Service on TCP 5473", () => {
    const objects = render();
    const service = find(objects, "Service", "calico-typha");
    assert.deepEqual(service.spec.ports, [
      { name: "calico-typha", port: 5473, protocol: "TCP", targetPort: "calico-typha" },
    ]);
    assert.deepEqual(service.spec.selector, typha(objects).deployment.spec.selector.matchLabels);
  });

  it("has a disruption budget that never blocks a drain and keeps one of two or more replicas", () => {
    const objects = render();
    const pdb = find(objects, "PodDisruptionBudget", "calico-typha");
    assert.equal(pdb.apiVersion, "policy/v1");
    assert.deepEqual(pdb.spec, {
      maxUnavailable: 1,
      selector: { matchLabels: { "k8s-app": "calico-typha" } },
    });
    // The disruption controller's arithmetic for a healthy Deployment of `replicas` pods.
    const allowed = (replicas: number, budget: { maxUnavailable?: number; minAvailable?: number }) =>
      budget.maxUnavailable !== undefined
        ? Math.min(replicas, budget.maxUnavailable)
        : Math.max(0, replicas - (budget.minAvailable ?? 0));
    const chosen = { maxUnavailable: Number(pdb.spec.maxUnavailable) };
    for (let replicas = 1; replicas <= MAX_TYPHA_REPLICAS; replicas++) {
      assert.equal(allowed(replicas, chosen), 1, `${replicas} replicas: one eviction at a time`);
      if (replicas >= 2)
        assert.ok(replicas - allowed(replicas, chosen) >= 1, `${replicas} replicas keep one`);
    }
    // The alternative, minAvailable 1, blocks the drain of a lone replica and lets 19 of 20 go at once.
    assert.equal(allowed(1, { minAvailable: 1 }), 0);
    assert.equal(allowed(20, { minAvailable: 1 }), 19);
  });
});

describe("calico object list", () => {
  it("is in apply order: CRDs, RBAC, Typha, then calico-node", () => {
    const ids = render({ version: "v3.32.1" }).map((o) => `${o.kind}/${o.metadata.name}`);
    assert.deepEqual(ids, [
      ...CALICO_CRD_KINDS.map((k) => `CustomResourceDefinition/${crdName(k)}`),
      "CustomResourceDefinition/clusternetworkpolicies.policy.networking.k8s.io",
      "ServiceAccount/calico-node",
      "ClusterRole/calico-node",
      "ClusterRoleBinding/calico-node",
      "ServiceAccount/calico-typha",
      "ClusterRole/calico-typha",
      "ClusterRoleBinding/calico-typha",
      "ClusterRole/calico-tier-getter",
      "ClusterRoleBinding/calico-tier-getter",
      "ClusterRole/eks-calico-aws-node-pod-patch",
      "ClusterRoleBinding/eks-calico-aws-node-pod-patch",
      "Deployment/calico-typha",
      "Service/calico-typha",
      "PodDisruptionBudget/calico-typha",
      "DaemonSet/calico-node",
    ]);
  });

  it("labels every object as part of eks-calico managed by Pulumi", () => {
    for (const version of VERSIONS) {
      for (const object of render({ version })) {
        assert.equal(object.metadata.labels["app.kubernetes.io/part-of"], "eks-calico");
        assert.equal(object.metadata.labels["app.kubernetes.io/managed-by"], "pulumi");
      }
    }
  });

  it("puts every namespaced object, and only those, in the configured namespace", () => {
    for (const namespace of [DEFAULT_CALICO_NAMESPACE, "calico-system"]) {
      for (const object of render({ namespace })) {
        const expected = NAMESPACED_KINDS.has(object.kind) ? namespace : undefined;
        assert.equal(object.metadata.namespace, expected, `${object.kind}/${object.metadata.name}`);
      }
    }
  });

  it("moves only namespaces when the namespace changes", () => {
    const envIndex = (container: Container, name: string) =>
      (container.env ?? []).findIndex((e) => e.name === name);
    const typhaNamespace = envIndex(typha().container, "TYPHA_K8SNAMESPACE");
    const felixNamespace = envIndex(calicoNode().container, "FELIX_TYPHAK8SNAMESPACE");
    assert.ok(typhaNamespace >= 0 && felixNamespace >= 0);
    const moved = render({ namespace: "calico-system" });
    // A namespace that is not built in is created first; the built-in kube-system never is.
    assert.deepEqual(moved[0], {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "calico-system", labels: COMMON_LABELS },
    });
    assert.ok(render().every((o) => o.kind !== "Namespace"));
    const paths = changedPaths(render(), moved.slice(1));
    assert.deepEqual(paths, [
      "ServiceAccount/calico-node: metadata.namespace",
      "ClusterRoleBinding/calico-node: subjects[0].namespace",
      "ServiceAccount/calico-typha: metadata.namespace",
      "ClusterRoleBinding/calico-typha: subjects[0].namespace",
      "Deployment/calico-typha: metadata.namespace",
      `Deployment/calico-typha: spec.template.spec.containers[0].env[${typhaNamespace}].value`,
      "Service/calico-typha: metadata.namespace",
      "PodDisruptionBudget/calico-typha: metadata.namespace",
      "DaemonSet/calico-node: metadata.namespace",
      `DaemonSet/calico-node: spec.template.spec.containers[0].env[${felixNamespace}].value`,
    ]);
  });

  it("names each Pulumi child after the component, uniquely and independently of version and namespace", () => {
    const names = (settings: Partial<CalicoSettings>) =>
      render(settings).map((o) => childResourceName("calico", o));
    const defaults = names({});
    assert.equal(new Set(defaults).size, defaults.length);
    assert.ok(defaults.every((n) => n.startsWith("calico-")));
    assert.ok(defaults.includes("calico-crd-felixconfigurations"));
    assert.ok(defaults.includes("calico-daemonset-calico-node"));
    assert.ok(defaults.includes("calico-deployment-calico-typha"));
    assert.deepEqual(names({ version: "v3.31.6", namespace: "calico-system" }), [
      "calico-namespace-calico-system",
      ...defaults,
    ]);
    assert.ok(render().every((o) => childResourceName("other", o).startsWith("other-")));
  });
});

/** Key of an object that Pulumi and Kubernetes treat as its identity. */
function identity(object: CalicoObject): string {
  return `${object.kind}/${object.metadata.name}`;
}

function pathTo(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const segment = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  return parent === "" ? segment : segment.startsWith("[") ? `${parent}${segment}` : `${parent}.${segment}`;
}

/** Paths at which two JSON values differ. */
function diff(a: unknown, b: unknown, at = ""): string[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    const length = Math.max(a.length, b.length);
    return Array.from({ length }, (_, i) => diff(a[i], b[i], pathTo(at, i))).flat();
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((key) => diff(a[key], b[key], pathTo(at, key)));
  }
  return Object.is(a, b) ? [] : [at];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `Kind/name: path` for every difference between two renders of the same object list. */
function changedPaths(before: CalicoObject[], after: CalicoObject[]): string[] {
  assert.deepEqual(after.map(identity), before.map(identity), "same objects in the same order");
  return before.flatMap((object, i) => diff(object, after[i]).map((p) => `${identity(object)}: ${p}`));
}

describe("calico version bump v3.31.6 -> v3.31.7", () => {
  const paths = changedPaths(render({ version: "v3.31.6" }), render({ version: "v3.31.7" }));

  it("changes exactly the two images and the version labels beside them", () => {
    assert.deepEqual(paths, [
      'Deployment/calico-typha: metadata.labels["app.kubernetes.io/version"]',
      'Deployment/calico-typha: spec.template.metadata.labels["app.kubernetes.io/version"]',
      "Deployment/calico-typha: spec.template.spec.containers[0].image",
      'DaemonSet/calico-node: metadata.labels["app.kubernetes.io/version"]',
      'DaemonSet/calico-node: spec.template.metadata.labels["app.kubernetes.io/version"]',
      "DaemonSet/calico-node: spec.template.spec.containers[0].image",
    ]);
  });

  it("touches no CRD, selector, name or namespace, so Pulumi replaces nothing", () => {
    for (const p of paths) {
      assert.ok(!p.startsWith("CustomResourceDefinition/"), p);
      assert.ok(!p.includes("selector"), p);
      assert.ok(!/: metadata\.(name|namespace)$/.test(p), p);
    }
  });
});

describe("calico objects against the Kubernetes OpenAPI schema", () => {
  for (const version of VERSIONS) {
    for (const namespace of [DEFAULT_CALICO_NAMESPACE, "calico-system"]) {
      it(`${version} in ${namespace}: every object validates`, () => {
        const objects = render({ version, namespace });
        const failures = objects.flatMap((object) => {
          try {
            validate(object);
            return [];
          } catch (error) {
            return [`${identity(object)}: ${error instanceof Error ? error.message : String(error)}`];
          }
        });
        assert.deepEqual(failures, []);
        const created = namespace === DEFAULT_CALICO_NAMESPACE ? 0 : 1;
        assert.equal(objects.length, created + crdKindsFor(version).length + 14, "validated the whole list");
      });
    }
  }

  it("fails on a kind it has no model for", () => {
    assert.throws(
      () => validate({ apiVersion: "v1", kind: "ConfigMap" }),
      /no kubernetes-models class mapped for kind ConfigMap/,
    );
  });

  it("catches an invalid object (a toleration operator that is a number)", () => {
    const broken = structuredClone(calicoNode().daemonSet);
    assert.ok(broken.spec.template.spec);
    Object.assign(broken.spec.template.spec, { tolerations: [{ operator: 42 }] });
    assert.throws(() => validate(broken), /tolerations\/0\/operator must be string/);
  });
});
