/**
 * The `calico` output's readiness fields, from literal DaemonSet, Deployment and TigeraStatus statuses as
 * the API server reports them: the offline plan shows these as known after up, so they are proven here
 * on the status fields' meaning (k8s.io/api apps/v1 DaemonSetStatus, DeploymentStatus: a counter the
 * controller has not written, or that is zero, is omitted) and on a real control plane by
 * test/cluster/engine-case.ts (`kubectlAgrees`: the outputs equal what kubectl shows once settled).
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import {
  type DaemonSetCounts,
  allReplicasReady,
  countOutputs,
  isDaemonSetReady,
  readyReplicas,
} from "../components/calico/status";
import { calicoAvailable } from "../components/calico/operator/status";

/** A Deployment's status as the API server reports it. */
type DeploymentStatus = { replicas?: number; readyReplicas?: number };

/** The value an Output resolves to. */
function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((value) => resolve(value)));
}

async function counts(status: DaemonSetCounts | undefined): Promise<Record<string, number>> {
  const outputs = countOutputs(pulumi.output(status));
  const entries = await Promise.all(
    Object.entries(outputs).map(async ([key, output]): Promise<[string, number]> => [
      key,
      await valueOf(output),
    ]),
  );
  return Object.fromEntries(entries);
}

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

  it("is ready when every node that should run calico-node has a ready pod", async () => {
    const settled = { desiredNumberScheduled: 3, numberReady: 3, numberAvailable: 3 };
    assert.equal(isDaemonSetReady(settled), true);
    // Ready but not yet available (minReadySeconds): still ready in kubectl's READY column.
    assert.equal(isDaemonSetReady({ ...settled, numberAvailable: 1 }), true);
    assert.deepEqual(await counts({ desiredNumberScheduled: 3, numberReady: 3 }), {
      desired: 3,
      current: 0,
      updated: 0,
      ready: 3,
      available: 0,
    });
  });

  it("counts 0 for what the controller has not reported, and is not ready without a node to run on", async () => {
    for (const status of [undefined, {}]) {
      assert.deepEqual(await counts(status), { desired: 0, current: 0, updated: 0, ready: 0, available: 0 });
      assert.equal(isDaemonSetReady(status), false);
    }
    // No node selected: nothing runs Felix, which is not ready however many pods are.
    assert.equal(isDaemonSetReady({ desiredNumberScheduled: 0, numberReady: 0 }), false);
  });
});

describe("the calico output from Typha's Deployment status", () => {
  it("shows its ready replicas, 0 while none is ready (the field is then omitted)", async () => {
    const ready = (status: DeploymentStatus | undefined) => valueOf(readyReplicas(pulumi.output(status)));
    assert.equal(await ready({ replicas: 2, readyReplicas: 1 }), 1);
    assert.equal(await ready({ replicas: 2 }), 0);
    assert.equal(await ready(undefined), 0);
  });

  it("is ready when the replicas its spec asks for are ready, and it asks for at least one", () => {
    const ready = (replicas: number, status: DeploymentStatus) => allReplicasReady({ replicas }, status);
    assert.equal(ready(2, { replicas: 2, readyReplicas: 2 }), true);
    // During a rolling update with surge, more pods than asked for may be ready.
    assert.equal(ready(2, { replicas: 3, readyReplicas: 3 }), true);
    assert.equal(ready(3, { replicas: 3, readyReplicas: 2 }), false);
    assert.equal(ready(1, { replicas: 1 }), false);
    // Scaled to zero: nothing serves calico-node.
    assert.equal(ready(0, {}), false);
  });
});

describe("the calico output from the operator's TigeraStatus", () => {
  const tigeraStatus = (available: string, degraded = "False") => ({
    conditions: [
      { type: "Available", status: available },
      { type: "Progressing", status: available === "True" ? "False" : "True" },
      { type: "Degraded", status: degraded },
    ],
  });

  it("is available only when the operator says Available", () => {
    assert.equal(calicoAvailable(tigeraStatus("True")), true);
    assert.equal(calicoAvailable(tigeraStatus("False")), false);
    assert.equal(calicoAvailable(tigeraStatus("False", "True")), false);
    assert.equal(calicoAvailable({ conditions: [] }), false);
    assert.equal(calicoAvailable(undefined), false);
  });
});
