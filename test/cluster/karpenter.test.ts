/**
 * Real Karpenter (sigs.k8s.io/karpenter with its kwok cloud provider, built by tools/karpenter) on a local
 * control plane, with the program's default NodePool (components/karpenter/node-pools.ts), which carries
 * the Calico startup taint in `startupTaints`. A pending pod makes
 * Karpenter launch a node; the node registers with the taint; the pod binds there only once calico-node
 * is Ready on it and the remover (its own script, run as the cluster runs it) has taken the taint off;
 * Karpenter launches no second node for it, and marks its NodeClaim initialized once the taint is gone.
 * The remover of the new node may not touch another node, nor add a taint.
 *
 * Karpenter's CRDs are the program's (components/karpenter/crds, the AWS provider's release), with the kwok
 * provider's KWOKNodeClass from the module cache the tools build fills. Karpenter runs as the program's
 * service account with the program's roles (components/karpenter/controller.ts), and only what the kwok
 * provider adds.
 */
import * as assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalCluster } from "../../local-cluster/deploy";
import { freePort } from "../../local-cluster/control-plane";
import { cacheRoot } from "../../scripts/tools";
import { TOOL_BUILDS, toolVersion } from "../../tools/catalog";
import { STARTUP_TAINT } from "../../components/startup-taint/objects";
import { renderNodePool } from "../../components/karpenter/node-pools";
import { karpenterCrds } from "../../components/karpenter/crds";
import { renderController } from "../../components/karpenter/controller";
import { KARPENTER_SERVICE_ACCOUNT } from "../../components/karpenter/names";
import { DEFAULT_NODE_POOL } from "../../components/karpenter/defaults";
import { nodePoolSchema } from "../../stacks/schema/karpenter";
import { NAMESPACE, type Pod, TAINT, TaintHarness, conditionSince } from "./startup-taint-harness";

/** When kwok makes a scheduled pod Ready: calico-node's start on a new node, stood in for. */
const POD_START_SECONDS = 8;
const POOL = DEFAULT_NODE_POOL;
const POOL_LABEL = "karpenter.sh/nodepool";

/** The kwok provider's node class, from the pinned core module. */
const KWOK_NODE_CLASS_CRD = "kwok/apis/crds/karpenter.kwok.sh_kwoknodeclasses.yaml";

/** The pinned Karpenter module's directory in the tools' module cache. */
function karpenterModule(): string {
  const build = TOOL_BUILDS.find((b) => b.module === "karpenter");
  assert.ok(build, "tools/catalog.ts builds karpenter");
  const dir = path.join(cacheRoot(), "go", "mod", "sigs.k8s.io", `karpenter@${toolVersion(build)}`);
  assert.ok(fs.existsSync(dir), `${dir}: run \`npm run tools\` first`);
  return dir;
}

/**
 * The program's default pool, on kwok's cloud provider: its class is a KWOKNodeClass, and the AWS
 * provider's instance labels become kwok's (karpenter.kwok.sh instance-family and instance-cpu; kwok's
 * instance types have no generation). The startup taint, limits and disruption are the program's own.
 */
const NODE_CLASS = {
  apiVersion: "karpenter.kwok.sh/v1alpha1",
  kind: "KWOKNodeClass",
  metadata: { name: "default" },
};
const KWOK_LABELS: Record<string, string | undefined> = {
  "karpenter.k8s.aws/instance-category": "karpenter.kwok.sh/instance-family",
  "karpenter.k8s.aws/instance-cpu": "karpenter.kwok.sh/instance-cpu",
  "karpenter.k8s.aws/instance-generation": undefined,
};
function kwokNodePool() {
  const pool = renderNodePool(POOL, nodePoolSchema.parse({}), {
    group: "karpenter.kwok.sh",
    kind: "KWOKNodeClass",
    name: "default",
  });
  const template = pool.spec.template as { spec: { requirements: { key: string }[] } };
  template.spec.requirements = template.spec.requirements.flatMap((requirement) => {
    if (!(requirement.key in KWOK_LABELS)) return [requirement];
    const key = KWOK_LABELS[requirement.key];
    return key === undefined ? [] : [{ ...requirement, key }];
  });
  return pool;
}

/** calico-node's stand-in: a DaemonSet on every node, as calico-node runs, Ready after the pod-start delay. */
const CALICO_NODE = {
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: { name: "calico-node", namespace: NAMESPACE },
  spec: {
    selector: { matchLabels: { "k8s-app": "calico-node" } },
    template: {
      metadata: { labels: { "k8s-app": "calico-node" } },
      spec: {
        tolerations: [{ operator: "Exists" }],
        containers: [{ name: "calico-node", image: "calico/node:stand-in" }],
      },
    },
  },
};

interface NodeClaim {
  metadata: { name: string };
  status?: { nodeName?: string; conditions?: { type: string; status: string }[] };
}

describe("Karpenter launches nodes with the Calico startup taint, on a real control plane", function () {
  this.timeout(10 * 60_000);

  let cluster: LocalCluster;
  let h: TaintHarness;
  let karpenter: ChildProcess | undefined;
  let log = "";

  before(async function () {
    const dir = path.join(os.tmpdir(), `eks-calico-karpenter-${process.pid}`);
    cluster = await LocalCluster.start("dev", { dir, podStartSeconds: POD_START_SECONDS });
    h = new TaintHarness(cluster);
    h.applyRemover();
    // The program's CRDs (the AWS provider's release), and the kwok provider's node class.
    h.kubectl(
      ["apply", "--server-side", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items: karpenterCrds() }),
    );
    h.kubectl(["apply", "--server-side", "-f", path.join(karpenterModule(), KWOK_NODE_CLASS_CRD)]);
    h.kubectl(["wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"]);
    // Karpenter runs as the program's service account, with the program's roles, plus what only the kwok
    // provider needs (sigs.k8s.io/karpenter kwok/charts/templates: its node class, and creating the Node
    // objects a kubelet would register on AWS).
    const controller = renderController({
      clusterName: "local",
      queueName: "",
      replicas: 1,
      region: "us-west-2",
    });
    const kwokRole = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "karpenter-kwok-provider" },
      rules: [
        { apiGroups: ["karpenter.kwok.sh"], resources: ["kwoknodeclasses"], verbs: ["get", "list", "watch"] },
        {
          apiGroups: ["karpenter.kwok.sh"],
          resources: ["kwoknodeclasses", "kwoknodeclasses/status"],
          verbs: ["patch", "update"],
        },
        { apiGroups: [""], resources: ["nodes"], verbs: ["create"] },
        { apiGroups: [""], resources: ["services"], verbs: ["get", "list", "watch"] },
      ],
    };
    const kwokBinding = {
      ...controller.clusterRoleBindings[0],
      metadata: { name: "karpenter-kwok-provider" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "karpenter-kwok-provider",
      },
    };
    const items = [
      controller.serviceAccount,
      ...controller.clusterRoles,
      ...controller.clusterRoleBindings,
      ...controller.roles,
      ...controller.roleBindings,
      kwokRole,
      kwokBinding,
    ];
    h.kubectl(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items }));
    const { namespace, name } = KARPENTER_SERVICE_ACCOUNT;
    const token = h.kubectl(["create", "token", name, "-n", namespace, "--duration=1h"]).trim();
    log = path.join(dir, "logs", "karpenter.log");
    const out = fs.openSync(log, "a");
    karpenter = spawn(path.join(cluster.bin, "karpenter-kwok"), [], {
      env: {
        PATH: process.env.PATH ?? "",
        KUBECONFIG: h.kubeconfigWith(token, name),
        SYSTEM_NAMESPACE: namespace,
        DISABLE_LEADER_ELECTION: "true",
        METRICS_PORT: String(await freePort()),
        HEALTH_PROBE_PORT: String(await freePort()),
      },
      stdio: ["ignore", out, out],
    });
    h.kubectl(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items: [CALICO_NODE] }));
    h.kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ apiVersion: "v1", kind: "List", items: [NODE_CLASS, kwokNodePool()] }),
    );
  });
  after(async () => {
    karpenter?.kill();
    await h?.stop();
    await cluster?.stop();
  });

  it("holds a pending pod until calico-node is Ready on the node Karpenter launched for it, and launches one node", async function () {
    // Every NodeClaim ever seen: Karpenter must make one for the pod, not a second while the taint is on.
    const claims = new Set<string>();
    const claimList = () => h.getJson<{ items: NodeClaim[] }>(["get", "nodeclaims"]).items;
    const sampled =
      <T>(probe: () => T | undefined) =>
      () => {
        for (const claim of claimList()) claims.add(claim.metadata.name);
        return probe();
      };
    assert.ok(karpenter?.exitCode === null, `karpenter-kwok exited: see ${log}`);

    const workload = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "workload", namespace: "default" },
      spec: {
        nodeSelector: { [POOL_LABEL]: POOL },
        containers: [
          {
            name: "app",
            image: "registry.k8s.io/pause:3.10",
            resources: { requests: { cpu: "1", memory: "1Gi" } },
          },
        ],
      },
    };
    h.kubectl(["create", "-f", "-"], JSON.stringify(workload));

    const node = await h.until(
      "a node Karpenter launched",
      sampled(() => {
        const [launched] = h.getJson<{ items: { metadata: { name: string; creationTimestamp: string } }[] }>([
          "get",
          "nodes",
          "-l",
          `${POOL_LABEL}=${POOL}`,
        ]).items;
        return launched?.metadata;
      }),
    );
    const created = Date.parse(node.creationTimestamp);
    h.startRemover(node.name, await h.removerKubeconfig(node.name));
    await h.until(
      "the startup taint on the launched node",
      sampled(() => (h.taintsOf(node.name).some((t) => t.key === STARTUP_TAINT.key) ? true : undefined)),
    );
    assert.equal(
      h.pod("default", "workload").spec.nodeName,
      undefined,
      "the workload waits while the taint is on",
    );

    const calicoNode = () =>
      h
        .getJson<{ items: Pod[] }>(["get", "pods", "-n", NAMESPACE, "-l", "k8s-app=calico-node"])
        .items.find((pod) => pod.spec.nodeName === node.name);
    const ready = await h.until(
      "calico-node Ready on the launched node",
      sampled(() => {
        const pod = calicoNode();
        return pod === undefined ? undefined : conditionSince(pod, "Ready");
      }),
    );
    await h.until(
      "the taint gone",
      sampled(() => (h.taintsOf(node.name).some((t) => t.key === STARTUP_TAINT.key) ? undefined : true)),
    );
    const scheduled = await h.until(
      "the workload scheduled",
      sampled(() => conditionSince(h.pod("default", "workload"), "PodScheduled")),
    );
    assert.equal(h.pod("default", "workload").spec.nodeName, node.name);
    // Timestamps have a resolution of one second.
    assert.ok(scheduled >= ready - 1000, `scheduled ${scheduled - ready} ms after calico-node was Ready`);

    // Karpenter counts the node initialized once its startup taints are gone, and made no other.
    await h.until(
      "the NodeClaim initialized",
      sampled(() =>
        claimList()
          .find((claim) => claim.status?.nodeName === node.name)
          ?.status?.conditions?.some((c) => c.type === "Initialized" && c.status === "True")
          ? true
          : undefined,
      ),
    );
    await h.until(
      "the workload Ready",
      sampled(() => conditionSince(h.pod("default", "workload"), "Ready")),
    );
    // Past Karpenter's batch window (BATCH_MAX_DURATION, 10 s) after the pod bound: no late launch.
    const settled = Date.now() + 15_000;
    await h.until(
      "15 s more",
      sampled(() => (Date.now() > settled ? true : undefined)),
    );
    assert.equal(claims.size, 1, `NodeClaims: ${[...claims].join(", ")}`);
    console.log(
      `      Karpenter node created → workload scheduled ${((scheduled - created) / 1000).toFixed(1)} s, ` +
        `${((scheduled - ready) / 1000).toFixed(1)} s after calico-node was Ready`,
    );
  });

  it("refuses the launched node's remover another node's taint, and any taint it would add", async function () {
    const [launched] = h.getJson<{ items: { metadata: { name: string } }[] }>([
      "get",
      "nodes",
      "-l",
      `${POOL_LABEL}=${POOL}`,
    ]).items;
    assert.ok(launched, "the first case launched a node");
    const own = await h.removerKubeconfig(launched.metadata.name);
    const [managed] = h.getJson<{ items: { metadata: { name: string } }[] }>([
      "get",
      "nodes",
      "-l",
      "eks.amazonaws.com/nodegroup",
    ]).items;
    const managedNode = managed.metadata.name;
    h.kubectl(["taint", "node", managedNode, TAINT]);
    const other = h.as(own, ["taint", "node", managedNode, `${STARTUP_TAINT.key}:NoSchedule-`]);
    assert.ok(!other.ok && /may change only the node its pod runs on/.test(other.output), other.output);
    const added = h.as(own, ["taint", "node", launched.metadata.name, "example.com/other=x:NoSchedule"]);
    assert.ok(!added.ok && /may add or change no taint/.test(added.output), added.output);
    assert.ok(h.taintsOf(managedNode).some((t) => t.key === STARTUP_TAINT.key));
  });
});
