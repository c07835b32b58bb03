/**
 * The read behind the `calico` output's readiness fields (components/calico/readiness-read.ts), against an
 * HTTPS server that answers as an API server does: which objects it reads, what a missing object and a
 * failed read give, that it reads only in an update once the resource it follows is known, and that the
 * offline engine, in a preview or an update, never reads at all.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { liveCalicoStatus, readCalicoStatus, type StatusSources } from "../components/calico/readiness-read";
import { isCalicoReady, statusOutputs } from "../components/calico/readiness";
import { KNOWN_AFTER_UP, evaluateStack } from "../offline/engine";
import { type Answer, FakeApiServer } from "./fake-api-server";
import { stackValue } from "./helpers";

const ok = (body: unknown): Answer => ({ status: 200, body });

const MANIFEST: StatusSources = {
  calicoNode: { namespace: "kube-system", name: "calico-node" },
  typha: { namespace: "kube-system", name: "calico-typha" },
  cleanupNamespace: "kube-system",
};
const OPERATOR: StatusSources = {
  calicoNode: { namespace: "calico-system", name: "calico-node" },
  typha: { namespace: "calico-system", name: "calico-typha" },
  tigeraStatus: "calico",
  cleanupNamespace: "kube-system",
};
const DAEMONSET = "/apis/apps/v1/namespaces/kube-system/daemonsets/calico-node";
const TYPHA = "/apis/apps/v1/namespaces/kube-system/deployments/calico-typha";
/** The Felix cleanup's pods (components/calico/felix-cleanup/template.ts CLEANUP_LABEL). */
const CLEANUP_PODS = "/api/v1/namespaces/kube-system/pods?labelSelector=eks-calico.io%2Ffelix-cleanup%3Dtrue";
const NO_PODS = ok({ kind: "PodList", items: [] });

/** Objects as the API server returns them, with more than the read takes. */
const daemonSet = (status: Record<string, number>) => ({
  kind: "DaemonSet",
  metadata: { name: "calico-node", generation: 2 },
  spec: { template: {} },
  status: { observedGeneration: 2, ...status },
});
const deployment = (replicas: number, status: Record<string, unknown>) => ({
  kind: "Deployment",
  metadata: { name: "calico-typha", generation: 3 },
  spec: { replicas },
  status: { observedGeneration: 3, ...status },
});

/** The value an Output resolves to, or rejects with. */
function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return (output as unknown as { promise(): Promise<T> }).promise();
}

/** Whether an Output is known (`isKnown`, internal to the SDK but what a preview prints). */
function isKnown(output: pulumi.Output<unknown>): Promise<boolean> {
  return (output as unknown as { isKnown: Promise<boolean> }).isKnown;
}

describe("reading Calico's status from the cluster", () => {
  let api: FakeApiServer;
  before(async () => (api = await FakeApiServer.start()));
  after(() => api.stop());
  beforeEach(() => {
    api.requests.length = 0;
    api.routes = {};
  });

  it("reads calico-node's generation and status, Typha's replicas and rollout, and the cleanup's pods", async () => {
    api.routes = {
      [DAEMONSET]: ok(
        daemonSet({
          desiredNumberScheduled: 5,
          currentNumberScheduled: 5,
          updatedNumberScheduled: 5,
          numberReady: 4,
          numberAvailable: 4,
          numberUnavailable: 1,
        }),
      ),
      [TYPHA]: ok(
        deployment(2, {
          replicas: 2,
          readyReplicas: 2,
          updatedReplicas: 2,
          availableReplicas: 2,
          conditions: [{ type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" }],
        }),
      ),
      [CLEANUP_PODS]: NO_PODS,
    };
    const status = await readCalicoStatus(api.credentials, MANIFEST);
    assert.deepEqual(status, {
      calicoNode: {
        generation: 2,
        observedGeneration: 2,
        desiredNumberScheduled: 5,
        currentNumberScheduled: 5,
        updatedNumberScheduled: 5,
        numberReady: 4,
        numberAvailable: 4,
        numberUnavailable: 1,
      },
      typha: {
        replicas: 2,
        generation: 3,
        observedGeneration: 3,
        statusReplicas: 2,
        updatedReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
        progressingReason: "NewReplicaSetAvailable",
      },
      cleanupPods: 0,
    });
    assert.equal(isCalicoReady("manifest", status), false, "4 of 5 available");
    assert.deepEqual(
      [...api.requests].sort(),
      [`GET ${CLEANUP_PODS}`, `GET ${DAEMONSET}`, `GET ${TYPHA}`].sort(),
    );
  });

  it("counts the Felix cleanup's pods: a Ready cleanup on every node is no Felix anywhere", async () => {
    const everywhere = { desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2 };
    api.routes = {
      [DAEMONSET]: ok(daemonSet(everywhere)),
      [TYPHA]: ok(deployment(1, { replicas: 1, updatedReplicas: 1, availableReplicas: 1 })),
      [CLEANUP_PODS]: ok({
        kind: "PodList",
        items: [{ metadata: { name: "a" } }, { metadata: { name: "b" } }],
      }),
    };
    const status = await readCalicoStatus(api.credentials, MANIFEST);
    assert.equal(status.cleanupPods, 2);
    assert.equal(isCalicoReady("manifest", status), false);
    api.routes[CLEANUP_PODS] = NO_PODS;
    assert.equal(isCalicoReady("manifest", await readCalicoStatus(api.credentials, MANIFEST)), true);
  });

  it("reads the operator's objects in calico-system, and TigeraStatus calico", async () => {
    const tigera = { conditions: [{ type: "Available", status: "True" }] };
    api.routes = {
      "/apis/apps/v1/namespaces/calico-system/daemonsets/calico-node": ok(
        daemonSet({ desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2 }),
      ),
      "/apis/apps/v1/namespaces/calico-system/deployments/calico-typha": ok(
        deployment(1, { replicas: 1, updatedReplicas: 1, availableReplicas: 1 }),
      ),
      "/apis/operator.tigera.io/v1/tigerastatuses/calico": ok({ kind: "TigeraStatus", status: tigera }),
      // The operator install's cleanup DaemonSet runs in kube-system.
      [CLEANUP_PODS]: NO_PODS,
    };
    const status = await readCalicoStatus(api.credentials, OPERATOR);
    assert.deepEqual(status.tigeraStatus, tigera);
    assert.equal(isCalicoReady("operator", status), true);
    assert.equal(api.requests.length, 4);
  });

  it("counts 0 for counters the API server omits, and for objects it does not have", async () => {
    // A DaemonSet on no node: every counter is zero, so omitted; Typha has no ready replica.
    api.routes = { [DAEMONSET]: ok(daemonSet({})), [TYPHA]: ok(deployment(1, {})), [CLEANUP_PODS]: NO_PODS };
    const empty = await readCalicoStatus(api.credentials, MANIFEST);
    assert.deepEqual(empty.typha, {
      replicas: 1,
      generation: 3,
      observedGeneration: 3,
      statusReplicas: undefined,
      updatedReplicas: undefined,
      readyReplicas: undefined,
      availableReplicas: undefined,
      progressingReason: undefined,
    });
    const outputs = statusOutputs("manifest", pulumi.output(empty));
    assert.deepEqual(
      await Promise.all([outputs.desired, outputs.ready, outputs.typhaReadyReplicas].map(valueOf)),
      [0, 0, 0],
    );
    assert.equal(await valueOf(outputs.isReady), false);
    // Neither exists (the API server answers 404, and /version as an API server): nothing runs.
    api.routes = { [CLEANUP_PODS]: NO_PODS };
    assert.deepEqual(await readCalicoStatus(api.credentials, OPERATOR), {
      calicoNode: undefined,
      typha: undefined,
      tigeraStatus: undefined,
      cleanupPods: 0,
    });
  });

  it("fails, naming the object, when a read is refused or the server cannot be reached", async () => {
    api.routes = {
      [DAEMONSET]: ok(daemonSet({ desiredNumberScheduled: 1 })),
      [TYPHA]: { status: 403, body: { kind: "Status", reason: "Forbidden" } },
    };
    await assert.rejects(
      readCalicoStatus(api.credentials, MANIFEST),
      /could not read Typha's Deployment kube-system\/calico-typha \(GET \/apis\/apps\/v1\/namespaces\/kube-system\/deployments\/calico-typha\): .*HTTP 403/,
    );
    const closed = await FakeApiServer.start();
    const gone = closed.credentials;
    await closed.stop();
    await assert.rejects(
      readCalicoStatus(gone, MANIFEST),
      /could not read the calico-node DaemonSet kube-system\/calico-node .*ECONNREFUSED/,
    );
  });
});

describe("when the program reads Calico's status", () => {
  let api: FakeApiServer;
  before(async () => (api = await FakeApiServer.start()));
  after(() => api.stop());
  beforeEach(() => {
    api.requests.length = 0;
    api.routes = {
      [DAEMONSET]: ok(
        daemonSet({ desiredNumberScheduled: 1, updatedNumberScheduled: 1, numberAvailable: 1 }),
      ),
      [TYPHA]: ok(deployment(1, { replicas: 1, updatedReplicas: 1, availableReplicas: 1 })),
      [CLEANUP_PODS]: NO_PODS,
    };
  });
  /** Pulumi's runtime as `pulumi preview` (true) or `pulumi up` (false) runs the program. */
  const running = (preview: boolean) =>
    pulumi.runtime.setMocks(
      {
        newResource: () => {
          throw new Error("no resource expected");
        },
        call: () => {
          throw new Error("no call expected");
        },
      },
      "project",
      "stack",
      preview,
    );
  const access = () => ({ kubeconfig: pulumi.secret(api.kubeconfig()), clusterIdentifier: api.url });

  it("in an update, once the resource it follows is applied: the counts, not secret", async () => {
    await running(false);
    const live = liveCalicoStatus(access(), pulumi.output({ numberReady: 0 }), MANIFEST);
    assert.equal(await valueOf(live.apply((s) => isCalicoReady("manifest", s))), true);
    assert.equal(await pulumi.isSecret(live), false, "the kubeconfig is secret, the counts are not");
    assert.equal(api.requests.length, 3);
  });

  it("never in a preview, nor while what it follows is unknown: the outputs are unknown", async () => {
    await running(true);
    const preview = liveCalicoStatus(access(), pulumi.output({}), MANIFEST);
    assert.equal(await isKnown(preview), false);
    await running(false);
    const pending = liveCalicoStatus(access(), pulumi.output(pulumi.unknown), MANIFEST);
    assert.equal(await isKnown(pending), false);
    assert.deepEqual(api.requests, []);
  });

  it("fails the update, saying what could not be read and what to do", async () => {
    await running(false);
    api.routes = {};
    api.routes[TYPHA] = { status: 500, body: { kind: "Status", reason: "InternalError" } };
    await assert.rejects(
      valueOf(liveCalicoStatus(access(), pulumi.output({}), MANIFEST)),
      /the calico output's readiness fields are read from the cluster, and could not read Typha's Deployment kube-system\/calico-typha .*HTTP 500.*; run pulumi up again once the cluster answers/,
    );
    const broken = { ...access(), kubeconfig: pulumi.output(api.kubeconfig()), context: "missing" };
    await assert.rejects(
      valueOf(liveCalicoStatus(broken, pulumi.output({}), MANIFEST)),
      /could not take credentials from the kubeconfig: has no context "missing"/,
    );
  });
});

describe("the offline engine and the cluster", () => {
  let api: FakeApiServer;
  let dir: string;
  before(async () => {
    api = await FakeApiServer.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-live-status-"));
  });
  after(async () => {
    await api.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const installer of ["manifest", "operator"]) {
    it(`never reads it, in a preview or an update (${installer}): the readiness fields are known after up`, async () => {
      const file = path.join(dir, "kubeconfig.yaml");
      fs.writeFileSync(file, api.kubeconfig());
      const config = {
        "eks-calico:cluster": { kubeconfig: { path: file, context: undefined } },
        "eks-calico:calico": { ...stackValue<object>("kubeconfig.example", "calico"), installer },
      };
      for (const preview of [true, false]) {
        const evaluation = await evaluateStack("kubeconfig.example", { config, preview });
        const calico = evaluation.outputs.calico as Record<string, unknown>;
        const fields = [
          "desired",
          "current",
          "updated",
          "ready",
          "available",
          "isReady",
          "typhaReadyReplicas",
        ];
        assert.deepEqual(
          fields.map((f) => calico[f]),
          fields.map(() => KNOWN_AFTER_UP),
          `preview: ${preview}`,
        );
        assert.deepEqual(evaluation.secretOutputs, []);
      }
      assert.deepEqual(api.requests, [], "no request reached the cluster");
    });
  }
});
