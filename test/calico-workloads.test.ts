/** calico-node and Typha as rendered: scheduling, environment, probes, sizing and disruption budgets. */
import * as assert from "node:assert/strict";
import { MAX_TYPHA_REPLICAS, typhaReplicas } from "../components/calico/typha";
import { calicoNode, envOf, find, render, typha } from "./calico-fixtures";

describe("calico-node DaemonSet", () => {
  it("selects on k8s-app only, never on the version", () => {
    const { daemonSet } = calicoNode();
    assert.equal(daemonSet.apiVersion, "apps/v1");
    assert.deepEqual(daemonSet.spec.selector, { matchLabels: { "k8s-app": "calico-node" } });
    assert.equal(daemonSet.spec.template.metadata?.labels?.["k8s-app"], "calico-node");
    assert.equal(daemonSet.spec.template.metadata?.labels?.["app.kubernetes.io/version"], "v3.31.7");
    assert.deepEqual(daemonSet.spec.updateStrategy, {
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: "10%" },
    });
  });

  it("rolls as many nodes at once as calico.maxUnavailable says, a count or a percentage", () => {
    for (const maxUnavailable of [1, 25, "5%", "100%"] as const) {
      const { daemonSet } = calicoNode(render({ maxUnavailable }));
      assert.deepEqual(daemonSet.spec.updateStrategy?.rollingUpdate, { maxUnavailable });
    }
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
      // Mutual TLS to Typha: its CA, Felix's client certificate, and the name Typha's must carry.
      FELIX_TYPHACAFILE: "/etc/calico/typha-ca/ca.crt",
      FELIX_TYPHACERTFILE: "/etc/calico/felix-typha-tls/tls.crt",
      FELIX_TYPHAKEYFILE: "/etc/calico/felix-typha-tls/tls.key",
      FELIX_TYPHACN: "calico-typha",
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

  it("mounts exactly the host paths Felix needs, /lib/modules read-only, and its Typha TLS files", () => {
    const { pod, container } = calicoNode();
    const hostPaths = (pod.volumes ?? []).filter((v) => v.hostPath !== undefined);
    const volumes = Object.fromEntries(hostPaths.map((v) => [v.name, v.hostPath]));
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
      "/etc/calico/typha-ca": true,
      "/etc/calico/felix-typha-tls": true,
    });
    assert.deepEqual(
      (pod.volumes ?? []).filter((v) => v.hostPath === undefined),
      [
        { name: "typha-ca", configMap: { name: "calico-typha-ca" } },
        { name: "typha-tls", secret: { secretName: "calico-felix-typha-tls", defaultMode: 0o440 } },
      ],
    );
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
        /the node count must be a whole number of at least 1/,
        String(bad),
      );
    }
  });

  it("starts with the replicas for the nodes at creation, from the configured image, one per node", () => {
    const { deployment, pod, container } = typha(render({ initialNodes: 1000 }));
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

  it("tolerates every taint, as calico-node does, so it runs wherever Felix needs it", () => {
    assert.deepEqual(typha().pod.tolerations, [{ operator: "Exists" }]);
    assert.deepEqual(typha().pod.tolerations, calicoNode().pod.tolerations);
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
