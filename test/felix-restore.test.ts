/**
 * The Felix restore step (components/calico/felix-cleanup/restore.ts): which fields it hands back, whom to,
 * when its diff finds work and what its update waits for (against an HTTPS server answering as an API
 * server does), and where each install places it. The restore itself runs on the real engine: test/cluster/felix-cleanup.test.ts.
 */
import * as assert from "node:assert/strict";
import {
  FELIX_RESTORE_TYPE,
  type FelixRestoreInputs,
  applyManager,
  felixRestoreProvider,
  isCleanupEntry,
  restoreProgress,
} from "../components/calico/felix-cleanup/restore";
import {
  CLEANUP_FIELD_MANAGER,
  CLEANUP_LABEL,
  type LiveDaemonSet,
  cleanupPatch,
} from "../components/calico/felix-cleanup/template";
import { renderCalicoNode } from "../components/calico/daemonset";
import { type Answer, FakeApiServer } from "./fake-api-server";
import { dependsOn, evaluated, evaluatedWithOperator, input, one } from "./helpers";

const NODE = renderCalicoNode("kube-system", "quay.io/calico", "v3.31.7", "10%") as unknown as LiveDaemonSet;
const PATH = "/apis/apps/v1/namespaces/kube-system/daemonsets/calico-node";
/** The list of the cleanup's pods in kube-system, as the step asks for it. */
const PODS = `/api/v1/namespaces/kube-system/pods?labelSelector=${encodeURIComponent(`${CLEANUP_LABEL}=true`)}`;
const ok = (body: unknown): Answer => ({ status: 200, body });
/** A pod list as the API server answers it. */
const pods = (...items: unknown[]): Answer => ok({ kind: "PodList", items });
/** A cleanup pod on `node`, terminating: its DaemonSet's template is Felix's again, or the DaemonSet gone. */
const leaving = (node: string) => ({
  metadata: {
    name: `calico-node-${node}`,
    labels: { [CLEANUP_LABEL]: "true" },
    deletionTimestamp: "2026-12-02T08:00:00Z",
  },
  spec: { nodeName: node },
});
/** calico-node running Felix, rolled out at generation 3 on two nodes. */
const ROLLED: LiveDaemonSet = {
  ...NODE,
  metadata: { ...NODE.metadata, generation: 3 },
  status: { observedGeneration: 3, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2 },
};

/** calico-node as the API server returns it after the cleanup's patch. */
function patched(): LiveDaemonSet {
  const [template] = cleanupPatch(NODE, "calico-node");
  return { ...NODE, spec: { ...NODE.spec, template: template.value as LiveDaemonSet["spec"]["template"] } };
}

const SELECTOR_OWNER = {
  manager: "pulumi-kubernetes-1a2b3c",
  operation: "Apply",
  fieldsV1: { "f:spec": { "f:selector": {}, "f:template": {} } },
};

describe("Felix restore: whose fields go back to whom", () => {
  it("hands back the cleanup's patch, named or written before it had a name, and nothing else", () => {
    assert.equal(isCleanupEntry({ manager: CLEANUP_FIELD_MANAGER, operation: "Update" }), true);
    // apiserver v0.35.4 managerOrUserAgent: no fieldManager and no User-Agent record an empty manager.
    assert.equal(isCleanupEntry({ manager: "", operation: "Update" }), true);
    assert.equal(isCleanupEntry({ operation: "Update" }), true);
    assert.equal(isCleanupEntry({ manager: "kubectl-edit", operation: "Update" }), false);
    assert.equal(
      isCleanupEntry({ manager: "kube-controller-manager", operation: "Update", subresource: "status" }),
      false,
    );
    assert.equal(isCleanupEntry({ manager: CLEANUP_FIELD_MANAGER, operation: "Apply" }), false);
  });

  it("restores as the server-side apply manager that owns the selector, only when there is one", () => {
    const cleanup = { manager: CLEANUP_FIELD_MANAGER, operation: "Update", fieldsV1: { "f:spec": {} } };
    assert.equal(applyManager([SELECTOR_OWNER, cleanup]), "pulumi-kubernetes-1a2b3c");
    const adopted = { ...SELECTOR_OWNER, manager: "eks-calico" };
    assert.equal(applyManager([adopted, cleanup]), "eks-calico");
    // Another tool's apply of the selector too: which is this program's is not known.
    assert.equal(
      applyManager([SELECTOR_OWNER, { ...SELECTOR_OWNER, manager: "argocd-controller" }]),
      undefined,
    );
    // An apply that owns no selector (a label added by another tool) does not count.
    const labels = { manager: "other", operation: "Apply", fieldsV1: { "f:metadata": { "f:labels": {} } } };
    assert.equal(applyManager([SELECTOR_OWNER, labels]), "pulumi-kubernetes-1a2b3c");
    assert.equal(applyManager([cleanup]), undefined);
  });

  it("is done when calico-node is rolled out as kubectl decides and no cleanup pod is left", () => {
    const live = (status: LiveDaemonSet["status"]) => ({ ...NODE, status });
    const rolled = {
      observedGeneration: 5,
      desiredNumberScheduled: 2,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
    };
    const felix = (name: string) => ({ metadata: { name, labels: {} }, spec: { nodeName: name } });
    const cleanup = (name: string) => ({
      metadata: { name, labels: { [CLEANUP_LABEL]: "true" } },
      spec: { nodeName: name },
    });
    assert.deepEqual(restoreProgress(live(rolled), [felix("a"), felix("b")], 5), { done: true, waiting: [] });
    assert.equal(restoreProgress(live({ ...rolled, observedGeneration: 4 }), [], 5).done, false);
    assert.equal(restoreProgress(live({ ...rolled, numberAvailable: 1 }), [], 5).done, false);
    assert.deepEqual(restoreProgress(live(rolled), [felix("a"), cleanup("b")], 5).waiting, [
      "pod b on b still runs the cleanup",
    ]);
  });
});

describe("Felix restore: its diff reads the cluster", () => {
  let api: FakeApiServer;
  before(async () => (api = await FakeApiServer.start()));
  after(() => api.stop());
  const inputs = (): FelixRestoreInputs => ({
    kubeconfig: api.kubeconfig(),
    namespace: "kube-system",
    daemonSet: { apiVersion: "apps/v1", kind: "DaemonSet", metadata: NODE.metadata, spec: NODE.spec },
    timeoutMinutes: 5,
  });
  const diff = (olds: FelixRestoreInputs, news: FelixRestoreInputs) =>
    felixRestoreProvider.diff!("felix-restore", olds, news);

  it("updates where calico-node runs the cleanup, and nowhere else", async () => {
    api.routes = { [PATH]: ok(patched()), [PODS]: pods() };
    assert.deepEqual(await diff(inputs(), inputs()), { changes: true });
    api.routes = { [PATH]: ok(NODE), [PODS]: pods() };
    assert.deepEqual(await diff(inputs(), inputs()), { changes: false });
    // No calico-node yet (a first deployment): nothing to restore.
    api.routes = { [PODS]: pods() };
    assert.deepEqual(await diff(inputs(), inputs()), { changes: false });
    // A cluster that cannot be read: the update reads again and says why.
    api.routes = { [PATH]: { status: 500, body: { kind: "Status", reason: "InternalError" } } };
    assert.deepEqual(await diff(inputs(), inputs()), { changes: true });
    // Credentials that may not read it (a read-only preview role): `up`'s diff decides, with the deploy role.
    for (const status of [401, 403]) {
      api.routes = { [PATH]: { status, body: { kind: "Status", code: status } } };
      assert.deepEqual(await diff(inputs(), inputs()), { changes: false }, String(status));
    }
  });

  it("updates while a cleanup pod is left beside calico-node running Felix again (an up stopped in the restore)", async () => {
    api.routes = { [PATH]: ok(NODE), [PODS]: pods(leaving("a")) };
    assert.deepEqual(await diff(inputs(), inputs()), { changes: true });
    // calico-node gone, its cleanup pods not yet.
    api.routes = { [PODS]: pods(leaving("a")) };
    assert.deepEqual(await diff(inputs(), inputs()), { changes: true });
  });

  it("its update then waits for the cleanup pods to go, applying nothing", async () => {
    api.reset();
    api.routes = { [PATH]: ok(ROLLED), [PODS]: pods() };
    api.firstAnswers = { [PODS]: [pods(leaving("a")), pods(leaving("a"))] };
    const result = await felixRestoreProvider.update!("felix-restore", inputs(), inputs());
    const { found } = result.outs as { found: string };
    assert.equal(found, "no Felix cleanup pod left beside calico-node kube-system/calico-node");
    assert.equal(api.requests.filter((r) => r === `GET ${PODS}`).length, 3, "listed until no pod was left");
    assert.deepEqual(
      api.requests.filter((r) => !r.startsWith("GET ")),
      [],
      "nothing written: the template is Felix's already",
    );
  });

  it("takes no step for a new rendered DaemonSet or timeout alone: they say how it runs", async () => {
    api.routes = { [PATH]: ok(NODE), [PODS]: pods() };
    const other = renderCalicoNode("kube-system", "quay.io/calico", "v3.31.6", "10%");
    const news = { ...inputs(), daemonSet: { ...inputs().daemonSet!, spec: other.spec } };
    assert.deepEqual(await diff(inputs(), news), { changes: false });
    assert.deepEqual(await diff(inputs(), { ...news, timeoutMinutes: 9 }), { changes: false });
    assert.deepEqual(await diff(inputs(), { ...news, namespace: "calico-system" }), { changes: true });
  });

  it("operator: updates while the cleanup DaemonSet or a pod of it is left", async () => {
    const operator = {
      kubeconfig: api.kubeconfig(),
      namespace: "kube-system",
      cleanupDaemonSet: "calico-felix-cleanup",
      timeoutMinutes: 5,
    };
    api.routes = {
      "/apis/apps/v1/namespaces/kube-system/daemonsets/calico-felix-cleanup": ok({ kind: "DaemonSet" }),
      [PODS]: pods(),
    };
    assert.deepEqual(await diff(operator, operator), { changes: true });
    // The DaemonSet deleted, a pod of it still terminating.
    api.routes = { [PODS]: pods(leaving("a")) };
    assert.deepEqual(await diff(operator, operator), { changes: true });
    api.routes = { [PODS]: pods() };
    assert.deepEqual(await diff(operator, operator), { changes: false });
  });
});

describe("Felix restore: in the stack", () => {
  it("manifest: before calico-node, with the DaemonSet as rendered", async () => {
    const plan = await evaluated("dev");
    const step = one(plan, FELIX_RESTORE_TYPE, "calico-felix-restore");
    const node = one(plan, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
    assert.ok(dependsOn(plan, node.urn, step.urn), "calico-node depends on the restore");
    assert.deepEqual(input(step, "daemonSet"), node.inputs);
    assert.equal(input(step, "namespace"), "kube-system");
  });

  it("operator: before the Installation, naming the cleanup DaemonSet", async () => {
    const plan = await evaluatedWithOperator("dev");
    const step = one(plan, FELIX_RESTORE_TYPE, "calico-felix-restore");
    const installation = one(plan, "kubernetes:operator.tigera.io/v1:Installation");
    assert.ok(dependsOn(plan, installation.urn, step.urn), "the Installation depends on the restore");
    assert.equal(input(step, "cleanupDaemonSet"), "calico-felix-cleanup");
    assert.equal(input(step, "daemonSet"), undefined);
  });
});
