/**
 * A removal that stopped part-way (components/calico/removal-marker.ts): the marker step is deleted before
 * any object of the install and writes kube-system/calico-removal; the install check then refuses an `up`
 * while an object of the state is missing from the cluster, until `pulumi refresh` records the marker.
 */
import * as assert from "node:assert/strict";
import {
  CALICO_NODE_LIST_PATH,
  INSTALL_CHECK_TYPE,
  type InstallCheckInputs,
  installCheckProvider,
} from "../components/calico/install-check";
import {
  MARKER_PATH,
  REMOVAL_MARKER_TYPE,
  type RemovalMarkerInputs,
  removalMarkerProvider,
} from "../components/calico/removal-marker";
import type { ObjectRef } from "../components/calico/takeover/run";
import type { StackEvaluation } from "../offline/engine";
import { FakeApiServer } from "./fake-api-server";
import { UNREACHABLE_KUBECONFIG, dependsOn, evaluated, evaluatedWithOperator, one } from "./helpers";

const NODE: ObjectRef = {
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  name: "calico-node",
  namespace: "kube-system",
};
const ROLE: ObjectRef = {
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "ClusterRole",
  name: "calico-node",
};
const NODE_PATH = "/apis/apps/v1/namespaces/kube-system/daemonsets/calico-node";
const ROLE_PATH = "/apis/rbac.authorization.k8s.io/v1/clusterroles/calico-node";
const discovery = (resources: { name: string; kind: string }[]) => ({ status: 200, body: { resources } });
const MARKER = {
  status: 200,
  body: {
    metadata: { name: "calico-removal", uid: "u-1" },
    data: { namespace: "kube-system", startedAt: "2026-12-02T10:00:00Z" },
  },
};

describe("the install check after a removal that stopped part-way", function () {
  let api: FakeApiServer;
  before(async () => (api = await FakeApiServer.start()));
  after(() => api.stop());
  beforeEach(() => {
    api.reset();
    api.routes = {
      [CALICO_NODE_LIST_PATH]: { status: 200, body: { items: [] } },
      "/apis/apps/v1": discovery([{ name: "daemonsets", kind: "DaemonSet" }]),
      "/apis/rbac.authorization.k8s.io/v1": discovery([{ name: "clusterroles", kind: "ClusterRole" }]),
      [ROLE_PATH]: { status: 200, body: { metadata: { name: "calico-node" } } },
    };
  });
  const inputs = (extra: Partial<InstallCheckInputs> = {}): InstallCheckInputs => ({
    kubeconfig: api.kubeconfig(),
    installer: "manifest",
    namespace: "kube-system",
    adopt: false,
    objects: [NODE, ROLE],
    ...extra,
  });

  it("refuses while the marker is there and an object is missing, naming it, the removal and the way on", async () => {
    api.routes[MARKER_PATH] = MARKER;
    await assert.rejects(installCheckProvider.check!(inputs(), inputs()), (error: Error) => {
      assert.match(
        error.message,
        /a removal of Calico .* began at 2026-12-02T10:00:00Z and stopped part-way/,
      );
      assert.match(error.message, /ConfigMap kube-system\/calico-removal/);
      assert.match(error.message, /\n {2}- DaemonSet kube-system\/calico-node\n/);
      assert.doesNotMatch(error.message, /ClusterRole calico-node/);
      assert.match(error.message, /Nothing was changed/);
      assert.match(error.message, /run `pulumi refresh`.*then `pulumi up`/);
      return true;
    });
    assert.ok(!api.requests.some((r) => !r.startsWith("GET ")), api.requests.join(", "));
  });

  it("counts every object of an API the cluster no longer serves as missing", async () => {
    api.routes[MARKER_PATH] = MARKER;
    delete api.routes["/apis/rbac.authorization.k8s.io/v1"];
    api.routes[NODE_PATH] = { status: 200, body: { metadata: { name: "calico-node" } } };
    await assert.rejects(
      installCheckProvider.check!(inputs(), inputs()),
      /- ClusterRole calico-node\nNothing/,
    );
  });

  it("waits for an object being deleted (a namespace still emptied) and counts it missing once gone", async () => {
    api.routes[MARKER_PATH] = MARKER;
    const deleting = { status: 200, body: { metadata: { name: "calico-node", deletionTimestamp: "now" } } };
    api.firstAnswers[NODE_PATH] = [deleting, deleting];
    await assert.rejects(
      installCheckProvider.check!(inputs(), inputs()),
      /\n {2}- DaemonSet kube-system\/calico-node\nNothing/,
    );
    assert.equal(api.requests.filter((r) => r === `GET ${NODE_PATH}`).length, 3);
  });

  it("passes with no marker (a first install stopped half-way), or with every object there", async () => {
    assert.deepEqual(await installCheckProvider.check!(inputs(), inputs()), { inputs: inputs() });
    assert.ok(!api.requests.includes(`GET ${NODE_PATH}`));
    api.routes[MARKER_PATH] = MARKER;
    api.routes[NODE_PATH] = { status: 200, body: { metadata: { name: "calico-node" } } };
    assert.deepEqual(await installCheckProvider.check!(inputs(), inputs()), { inputs: inputs() });
  });

  it("passes for a new step, which has no object in the state, and after a refresh that recorded the marker", async () => {
    api.routes[MARKER_PATH] = MARKER;
    assert.deepEqual(await installCheckProvider.check!({}, inputs()), { inputs: inputs() });
    assert.ok(!api.requests.includes(`GET ${MARKER_PATH}`));
    const refreshed = inputs({ refreshedRemoval: "u-1" });
    assert.deepEqual(await installCheckProvider.check!(refreshed, inputs()), { inputs: inputs() });
    // A refresh of an earlier removal does not cover a new one.
    await assert.rejects(installCheckProvider.check!(inputs({ refreshedRemoval: "u-0" }), inputs()));
  });

  it("leaves the check to `up` for a preview role that may not read the marker", async () => {
    api.routes[MARKER_PATH] = { status: 403, body: { kind: "Status", code: 403 } };
    assert.deepEqual(await installCheckProvider.check!(inputs(), inputs()), { inputs: inputs() });
  });

  it("records the marker's uid on refresh as input and output, drops an earlier one, and never fails a refresh", async () => {
    api.routes[MARKER_PATH] = MARKER;
    const read = await installCheckProvider.read!("install-check", inputs({ refreshedRemoval: "u-0" }));
    assert.equal((read.props as InstallCheckInputs).refreshedRemoval, "u-1");
    assert.equal((read.inputs as InstallCheckInputs).refreshedRemoval, "u-1");
    delete api.routes[MARKER_PATH];
    const none = await installCheckProvider.read!("install-check", inputs({ refreshedRemoval: "u-1" }));
    assert.deepEqual(none.props, inputs());
    const unreachable = inputs({ kubeconfig: UNREACHABLE_KUBECONFIG, refreshedRemoval: "u-1" });
    assert.deepEqual(
      (await installCheckProvider.read!("install-check", unreachable)).props,
      inputs({ kubeconfig: UNREACHABLE_KUBECONFIG }),
    );
  });

  it("deletes the marker when it is deleted, the last of a removal that finished", async () => {
    await installCheckProvider.delete!("install-check", inputs());
    assert.deepEqual(api.requests, [`DELETE ${MARKER_PATH}`]);
  });
});

describe("the removal marker step", function () {
  let api: FakeApiServer;
  before(async () => (api = await FakeApiServer.start()));
  after(() => api.stop());
  beforeEach(() => api.reset());
  const inputs = (): RemovalMarkerInputs => ({ kubeconfig: api.kubeconfig(), namespace: "calico-policy" });

  it("writes a new marker on delete, and deletes it on create", async () => {
    api.routes["/api/v1/namespaces/kube-system/configmaps"] = { status: 201, body: {} };
    await removalMarkerProvider.delete!("removal-marker", inputs());
    assert.deepEqual(api.requests, [
      `DELETE ${MARKER_PATH}`,
      "POST /api/v1/namespaces/kube-system/configmaps",
    ]);
    api.reset();
    await removalMarkerProvider.create(inputs());
    assert.deepEqual(api.requests, [`DELETE ${MARKER_PATH}`]);
  });
});

/** The install's Kubernetes objects as the program registers them, the probe's included. */
function installObjects(evaluation: StackEvaluation, component: string) {
  return evaluation.resources.filter(
    (r) => r.type.startsWith("kubernetes:") && r.urn.includes(`${component}$`),
  );
}

/** The probe's run, named by what it checks: an interrupted run's are made again by the next `up` that changes it. */
const probeRun = (urn: string) =>
  /eks-calico:calico:PolicyProbe\$kubernetes:(batch\/v1:Job|core\/v1:Pod)::/.test(urn);

describe("the removal marker in the program", () => {
  for (const [mode, evaluation, component] of [
    ["manifest", () => evaluated("dev"), "eks-calico:calico:PolicyOnly"],
    ["operator", () => evaluatedWithOperator("dev"), "eks-calico:calico:Operator"],
  ] as const) {
    it(`${mode}: goes before every object of the install and its probe, each of which the install check looks for but the CRDs and the probe's run`, async () => {
      const plan = await evaluation();
      const marker = one(plan, REMOVAL_MARKER_TYPE);
      const check = one(plan, INSTALL_CHECK_TYPE);
      const looked = (check.inputs.objects as ObjectRef[]).map(
        (r) => `${r.kind} ${r.namespace ?? ""}/${r.name}`,
      );
      const objects = installObjects(plan, component);
      assert.ok(objects.length > 5, `${objects.length} objects`);
      const registered: string[] = [];
      for (const object of objects) {
        assert.ok(dependsOn(plan, marker, object), `the marker goes before ${object.urn}`);
        const { kind, metadata } = object.inputs as {
          kind: string;
          metadata: { name: string; namespace?: string };
        };
        if (kind !== "CustomResourceDefinition" && !probeRun(object.urn))
          registered.push(`${kind} ${metadata.namespace ?? ""}/${metadata.name}`);
      }
      // The install check goes last, after every object and step: until then the marker stays.
      for (const later of plan.resources.filter(
        (r) =>
          r.urn.includes(`${component}$`) &&
          /^(kubernetes:|pulumi-nodejs:dynamic)/.test(r.type) &&
          r !== check &&
          !r.type.endsWith(":LineCheck"),
      )) {
        assert.ok(dependsOn(plan, later, check), `${later.urn} goes before the install check`);
      }
      // Exactly those: one it looked for that the program never creates would refuse every later `up`.
      assert.deepEqual([...looked].sort(), registered.sort());
      assert.ok(looked.includes("Namespace /calico-policy-probe"), looked.join(", "));
    });
  }
});
