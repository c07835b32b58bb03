/**
 * The `calico` output's readiness fields, from literal DaemonSet, Deployment and TigeraStatus statuses as
 * the API server reports them: the offline plan shows these as known after up, so they are proven here
 * on the status fields' meaning (k8s.io/api apps/v1 DaemonSetStatus, DeploymentStatus: a counter the
 * controller has not written, or that is zero, is omitted), by test/calico-live-status.test.ts on the
 * read, and on a real control plane by test/cluster/engine-case.ts (`kubectlAgrees`: the outputs equal
 * what kubectl shows once settled).
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import {
  type CalicoStatus,
  type DaemonSetCounts,
  type Installer,
  allReplicasReady,
  calicoAvailable,
  isCalicoReady,
  isDaemonSetReady,
  isRolledOut,
  statusOutputs,
} from "../components/calico/readiness";

/** The value an Output resolves to. */
function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((value) => resolve(value)));
}

/** The readiness outputs of `status`, as values. */
async function outputs(status: CalicoStatus, installer: Installer = "manifest") {
  const entries = await Promise.all(
    Object.entries(statusOutputs(installer, pulumi.output(status))).map(
      async ([key, output]): Promise<[string, number | boolean]> => [
        key,
        await valueOf<number | boolean>(output),
      ],
    ),
  );
  return Object.fromEntries(entries);
}

/** calico-node's counts as the outputs name them. */
async function counts(calicoNode: DaemonSetCounts | undefined): Promise<Record<string, unknown>> {
  const { desired, current, updated, ready, available } = await outputs({ calicoNode, typha: undefined });
  return { desired, current, updated, ready, available };
}

const SETTLED: DaemonSetCounts = {
  desiredNumberScheduled: 3,
  currentNumberScheduled: 3,
  updatedNumberScheduled: 3,
  numberReady: 3,
  numberAvailable: 3,
};
const TYPHA_READY = {
  replicas: 2,
  generation: 1,
  observedGeneration: 1,
  statusReplicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
};
const available = (status: string, degraded = "False") => ({
  conditions: [
    { type: "Available", status },
    { type: "Progressing", status: status === "True" ? "False" : "True" },
    { type: "Degraded", status: degraded },
  ],
});

describe("the calico output from calico-node's DaemonSet status", () => {
  it("shows kubectl's columns: DESIRED, CURRENT, UP-TO-DATE, READY, AVAILABLE", async () => {
    // Three nodes should run the pod and do; one runs the new template; two are ready (one restarting).
    const rollingOut = {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      updatedNumberScheduled: 1,
      numberReady: 2,
      numberAvailable: 2,
    };
    assert.deepEqual(await counts(rollingOut), {
      desired: 3,
      current: 3,
      updated: 1,
      ready: 2,
      available: 2,
    });
    assert.equal(isDaemonSetReady(rollingOut), false, "2 of 3 ready");
  });

  it("is ready when every node that should run calico-node has an up-to-date pod, ready", () => {
    assert.equal(isDaemonSetReady(SETTLED), true);
    // Every pod ready, but one still runs the old template (a rollout not finished).
    assert.equal(isDaemonSetReady({ ...SETTLED, updatedNumberScheduled: 2 }), false);
    // Every pod up to date, one not available (crash-looping on a node that joined).
    assert.equal(isDaemonSetReady({ ...SETTLED, numberReady: 2, numberAvailable: 2 }), false);
    // Nodes joined since the pods were counted ready: 5 should run calico-node, 3 do.
    assert.equal(isDaemonSetReady({ ...SETTLED, desiredNumberScheduled: 5 }), false);
  });

  // kubernetes v1.35.4 staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go
  // DaemonSetStatusViewer.Status: observedGeneration >= generation, updated >= desired, available >= desired.
  it("is rolled out as `kubectl rollout status` decides: the controller saw this spec, every pod available", () => {
    const rolledOut = { ...SETTLED, generation: 4, observedGeneration: 4 };
    assert.equal(isDaemonSetReady(rolledOut), true);
    // The same counters, written for the spec before this one: they say nothing of the current template.
    assert.equal(isDaemonSetReady({ ...rolledOut, observedGeneration: 3 }), false);
    assert.equal(isDaemonSetReady({ ...rolledOut, observedGeneration: 5 }), true);
    // Every pod ready, one not yet available (ready for less than minReadySeconds): kubectl still waits.
    assert.equal(isDaemonSetReady({ ...rolledOut, numberAvailable: 2 }), false);
    assert.equal(isRolledOut({ ...rolledOut, numberAvailable: 2 }), false);
    // kubectl reads no READY column: available is what it counts.
    assert.equal(isDaemonSetReady({ ...rolledOut, numberReady: 2 }), true);
    // kubectl calls a DaemonSet on no node rolled out; isReady does not (no node runs Felix).
    const nowhere = { generation: 2, observedGeneration: 2 };
    assert.deepEqual([isRolledOut(nowhere), isDaemonSetReady(nowhere)], [true, false]);
  });

  it("counts 0 for what the API server omits, and is not ready without a node to run on", async () => {
    assert.deepEqual(await counts({ desiredNumberScheduled: 3, numberReady: 3 }), {
      desired: 3,
      current: 0,
      updated: 0,
      ready: 3,
      available: 0,
    });
    // With updatedNumberScheduled omitted no pod is up to date.
    assert.equal(isDaemonSetReady({ desiredNumberScheduled: 3, numberAvailable: 3 }), false);
    // No DaemonSet (undefined), or one the controller has not reported on yet.
    for (const status of [undefined, {}]) {
      assert.deepEqual(await counts(status), { desired: 0, current: 0, updated: 0, ready: 0, available: 0 });
      assert.equal(isDaemonSetReady(status), false);
    }
    // No node selected: nothing runs Felix, which is not ready however many pods are.
    assert.equal(isDaemonSetReady({ desiredNumberScheduled: 0, numberReady: 0 }), false);
  });
});

describe("the calico output from Typha's Deployment", () => {
  it("shows its ready replicas, 0 while none is ready (the field is then omitted)", async () => {
    const ready = async (typha: CalicoStatus["typha"]) =>
      (await outputs({ calicoNode: SETTLED, typha })).typhaReadyReplicas;
    assert.equal(await ready({ replicas: 2, readyReplicas: 1 }), 1);
    assert.equal(await ready({ replicas: 2 }), 0);
    assert.equal(await ready(undefined), 0);
  });

  // rollout_status.go DeploymentStatusViewer.Status, kubernetes v1.35.4.
  it("is rolled out as `kubectl rollout status` decides, asking for at least one replica", () => {
    assert.equal(allReplicasReady(TYPHA_READY), true);
    // The same counts, for the spec before this one (the autoscaler just changed spec.replicas).
    assert.equal(allReplicasReady({ ...TYPHA_READY, generation: 2 }), false);
    assert.equal(allReplicasReady({ ...TYPHA_READY, observedGeneration: 2 }), true);
    // An updated replica not yet available, or an old one not yet gone (a rolling update with surge).
    assert.equal(allReplicasReady({ ...TYPHA_READY, availableReplicas: 1 }), false);
    assert.equal(allReplicasReady({ ...TYPHA_READY, statusReplicas: 3 }), false);
    assert.equal(allReplicasReady({ ...TYPHA_READY, updatedReplicas: 1, statusReplicas: 1 }), false);
    // The Deployment controller gave up on the rollout: kubectl fails it.
    assert.equal(allReplicasReady({ ...TYPHA_READY, progressingReason: "ProgressDeadlineExceeded" }), false);
    assert.equal(allReplicasReady({ ...TYPHA_READY, progressingReason: "NewReplicaSetAvailable" }), true);
    // Scaled to zero (spec.replicas 0 is omitted too): nothing serves calico-node.
    assert.equal(allReplicasReady({ ...TYPHA_READY, replicas: undefined }), false);
    assert.equal(allReplicasReady({}), false);
    assert.equal(allReplicasReady(undefined), false);
  });
});

describe("the calico output from the operator's TigeraStatus", () => {
  it("is available only when the operator says Available", () => {
    assert.equal(calicoAvailable(available("True")), true);
    assert.equal(calicoAvailable(available("False")), false);
    assert.equal(calicoAvailable(available("False", "True")), false);
    assert.equal(calicoAvailable({ conditions: [] }), false);
    assert.equal(calicoAvailable(undefined), false);
  });
});

describe("isReady", () => {
  const settled: CalicoStatus = { calicoNode: SETTLED, typha: TYPHA_READY };

  it("manifest: calico-node up to date and ready everywhere, and every Typha replica ready", async () => {
    assert.equal(isCalicoReady("manifest", settled), true);
    assert.equal((await outputs(settled)).isReady, true);
    assert.equal(
      isCalicoReady("manifest", { ...settled, calicoNode: { ...SETTLED, numberAvailable: 2 } }),
      false,
    );
    assert.equal(
      isCalicoReady("manifest", { ...settled, typha: { ...TYPHA_READY, availableReplicas: 1 } }),
      false,
    );
    // A Felix cleanup pod left (Ready, and counted in calico-node's status): that node runs no Felix.
    assert.equal(isCalicoReady("manifest", { ...settled, cleanupPods: 1 }), false);
    assert.equal(isCalicoReady("manifest", { ...settled, cleanupPods: 0 }), true);
    assert.equal(isCalicoReady("manifest", { ...settled, typha: undefined }), false);
    assert.equal(isCalicoReady("manifest", { ...settled, calicoNode: undefined }), false);
    // A TigeraStatus is no part of the manifest install.
    assert.equal(isCalicoReady("manifest", { ...settled, tigeraStatus: available("False") }), true);
  });

  it("operator: the same, and TigeraStatus calico Available", async () => {
    const operator: CalicoStatus = { ...settled, tigeraStatus: available("True") };
    assert.equal(isCalicoReady("operator", operator), true);
    assert.equal((await outputs(operator, "operator")).isReady, true);
    assert.equal(isCalicoReady("operator", { ...operator, tigeraStatus: available("False") }), false);
    assert.equal(isCalicoReady("operator", { ...operator, tigeraStatus: undefined }), false);
    assert.equal(isCalicoReady("operator", settled), false, "no TigeraStatus");
    // The operator's TigeraStatus follows calico-node and calico-kube-controllers, not Typha.
    assert.equal(
      isCalicoReady("operator", { ...operator, typha: { ...TYPHA_READY, availableReplicas: 0 } }),
      false,
    );
    // The operator install's cleanup DaemonSet left behind by an interrupted removal.
    assert.equal(isCalicoReady("operator", { ...operator, cleanupPods: 2 }), false);
    assert.equal(
      isCalicoReady("operator", { ...operator, calicoNode: { ...SETTLED, updatedNumberScheduled: 1 } }),
      false,
    );
  });
});
