/**
 * The Felix cleanup step (components/calico/felix-cleanup/): the pod template it puts on calico-node, how
 * it reads the rollout, and where each install places it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  CLEANUP_LABEL,
  type LiveDaemonSet,
  type LivePod,
  cleanupDaemonSet,
  cleanupPatch,
  cleanupProgress,
  cleanupTemplate,
} from "../components/calico/felix-cleanup/template";
import {
  CLEANUP_TIMEOUT_MINUTES,
  FELIX_CLEANUP_TYPE,
  felixCleanupProvider,
} from "../components/calico/felix-cleanup";
import { renderCalicoNode } from "../components/calico/daemonset";
import { DEFAULT_CALICO_VERSION } from "../components/calico/defaults";
import { dependsOn, evaluated, evaluatedWithOperator, input, one } from "./helpers";

const NODE = renderCalicoNode("kube-system", "quay.io/calico", "v3.31.7", "10%") as unknown as LiveDaemonSet;

function daemonSet(status: LiveDaemonSet["status"]): LiveDaemonSet {
  return { ...NODE, metadata: { ...NODE.metadata, generation: 3 }, status };
}

function pod(name: string, node: string, cleanup: boolean, ready: boolean): LivePod {
  return {
    metadata: { name, labels: cleanup ? { [CLEANUP_LABEL]: "true" } : {} },
    spec: { nodeName: node },
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

describe("Felix cleanup: calico-node's template and rollout", () => {
  it("runs the script in calico-node's image, privileged in the host network, on the nodes Felix ran on", () => {
    const template = cleanupTemplate(NODE, "calico-node");
    const live = NODE.spec.template.spec;
    assert.equal(template.metadata.labels[CLEANUP_LABEL], "true");
    assert.equal(template.metadata.labels["k8s-app"], "calico-node", "still selected by the DaemonSet");
    assert.equal(template.spec.hostNetwork, true);
    assert.deepEqual(template.spec.tolerations, live.tolerations);
    assert.deepEqual(template.spec.nodeSelector, live.nodeSelector);
    assert.deepEqual(template.spec.affinity, live.affinity);
    // calico-node's service account is kept, its token is not mounted: the script calls no API.
    assert.equal(template.spec.serviceAccountName, live.serviceAccountName);
    assert.equal(template.spec.automountServiceAccountToken, false);
    const [container] = template.spec.containers;
    assert.equal(container.image, "quay.io/calico/node:v3.31.7");
    assert.equal(container.securityContext.privileged, true);
    assert.match(container.command[2], /clean_iptables iptables-nft/);
    assert.deepEqual(container.readinessProbe.exec.command, [
      "/bin/sh",
      "-c",
      "test -f /felix-cleanup/cleaned",
    ]);
    assert.deepEqual(
      container.volumeMounts.map((m) => m.mountPath),
      ["/lib/modules", "/run/xtables.lock", "/felix-cleanup"],
    );
    assert.deepEqual(
      template.spec.volumes.find((v) => v.name === "xtables-lock"),
      { name: "xtables-lock", hostPath: { path: "/run/xtables.lock", type: "FileOrCreate" } },
    );
    const patch = cleanupPatch(NODE, "calico-node");
    assert.deepEqual(patch[1], {
      op: "replace",
      path: "/spec/updateStrategy",
      value: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "100%" } },
    });
  });

  it("is done only when the controller has seen the patch and every node has a ready cleanup pod", () => {
    const all = {
      observedGeneration: 3,
      desiredNumberScheduled: 2,
      updatedNumberScheduled: 2,
      numberReady: 2,
      numberAvailable: 2,
    };
    const ready = [pod("a", "node-1", true, true), pod("b", "node-2", true, true)];
    assert.deepEqual(cleanupProgress(daemonSet(all), ready, 3), { done: true, waiting: [] });

    const unseen = cleanupProgress(daemonSet({ ...all, observedGeneration: 2 }), ready, 3);
    assert.equal(unseen.done, false);
    assert.deepEqual(unseen.waiting, ["the DaemonSet controller has not seen the cleanup template yet"]);

    const rolling = cleanupProgress(
      daemonSet({ ...all, updatedNumberScheduled: 1, numberReady: 1, numberAvailable: 1 }),
      [pod("a", "node-1", true, true), pod("old", "node-2", false, true), pod("c", "node-3", true, false)],
      3,
    );
    assert.deepEqual(rolling.waiting, [
      "1 of 2 nodes available, 1 updated",
      "pod old on node-2 still runs Felix",
      "pod c on node-3 has not cleaned its node yet",
    ]);
    assert.deepEqual(
      cleanupProgress(daemonSet({ observedGeneration: 3, desiredNumberScheduled: 0 }), [], 3),
      { done: true, waiting: [] },
      "no node: nothing to clean",
    );
  });

  it("docs/destroy.md gives the timeout of a node's cleanup", () => {
    const page = fs
      .readFileSync(path.join(__dirname, "..", "docs", "destroy.md"), "utf8")
      .replace(/\s+/g, " ");
    assert.match(page, new RegExp(`stops the destroy after ${CLEANUP_TIMEOUT_MINUTES} minutes`));
  });

  it("changes nothing on a second up: the same inputs in another order are no change", async () => {
    const olds = { context: "local", namespace: "kube-system", calicoNode: "calico-node", kubeconfig: "k" };
    const news = { kubeconfig: "k", namespace: "kube-system", calicoNode: "calico-node", context: "local" };
    assert.deepEqual(await felixCleanupProvider.diff!("felix-cleanup", olds, news), { changes: false });
    assert.deepEqual(
      await felixCleanupProvider.diff!("felix-cleanup", olds, { ...news, namespace: "calico-system" }),
      { changes: true },
    );
  });
});

describe("Felix cleanup: in the stack", () => {
  it("manifest: the step names calico-node and depends on it, so Pulumi deletes it first", async () => {
    const plan = await evaluated("dev");
    const step = one(plan, FELIX_CLEANUP_TYPE, "calico-felix-cleanup");
    const node = one(plan, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
    // And on the cluster, whose kubeconfig it takes.
    assert.ok(step.dependencies.includes(node.urn), step.dependencies.join(", "));
    assert.equal(input(step, "calicoNode"), "calico-node");
    assert.equal(input(step, "namespace"), "kube-system");
    assert.equal(input(step, "image"), undefined);
  });

  it("operator: the Installation depends on the step, so Pulumi deletes it once calico-node is gone", async () => {
    const plan = await evaluatedWithOperator("dev");
    const step = one(plan, FELIX_CLEANUP_TYPE, "calico-felix-cleanup");
    const installation = one(plan, "kubernetes:operator.tigera.io/v1:Installation");
    assert.ok(dependsOn(plan, installation.urn, step.urn), "the Installation depends on the cleanup step");
    assert.equal(input(step, "calicoNode"), undefined, "the operator's calico-node is not patched");
    assert.equal(input(step, "image"), `quay.io/calico/node:${DEFAULT_CALICO_VERSION}`);
    assert.equal(input(step, "operatorCalicoNode"), "calico-system/calico-node");
    assert.equal(input(step, "namespace"), "kube-system");
  });

  it("operator: its own DaemonSet runs the script on every Linux EC2 node, with no API access", () => {
    const daemonSet = cleanupDaemonSet("kube-system", "quay.io/calico/node:v3.31.7");
    assert.equal(daemonSet.metadata.name, "calico-felix-cleanup");
    assert.deepEqual(daemonSet.spec.selector.matchLabels, { "k8s-app": "calico-felix-cleanup" });
    const spec = daemonSet.spec.template.spec;
    assert.equal(daemonSet.spec.template.metadata.labels[CLEANUP_LABEL], "true");
    assert.equal(daemonSet.spec.template.metadata.labels["k8s-app"], "calico-felix-cleanup");
    assert.deepEqual(spec.tolerations, [{ operator: "Exists" }]);
    assert.deepEqual(spec.nodeSelector, { "kubernetes.io/os": "linux" });
    assert.equal(spec.automountServiceAccountToken, false);
    assert.equal(spec.hostNetwork, true);
    assert.equal(spec.containers[0].image, "quay.io/calico/node:v3.31.7");
    assert.equal(spec.containers[0].securityContext.privileged, true);
    assert.deepEqual(daemonSet.spec.updateStrategy.rollingUpdate, { maxUnavailable: "100%" });
  });
});
