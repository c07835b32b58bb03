/**
 * The enforcement probe's two pairs of clients: where the scheduler may put each client (the same-node
 * pair beside the server, the other-node pair beside the anchor, on another node), what happens when no
 * node but the server's can take the anchor, and what the report and `policyEnforced` say in each case.
 * The same placements on a real scheduler: test/cluster/probe.test.ts.
 */
import * as assert from "node:assert/strict";
import {
  ANCHOR_WAIT_FOR,
  type AnchorState,
  anchorLabels,
  anchorPlacement,
} from "../components/calico/probe/anchor";
import { NOT_RUN_ANNOTATION, PAIRS, forPlacement } from "../components/calico/probe/clients";
import {
  DEFAULT_PROBE_REGISTRY,
  type ProbeSettings,
  REPLACE_UNREADY_ANNOTATION,
  renderProbeObjects,
} from "../components/calico/probe/objects";
import { type JobStatus, policyEnforcedBy, probeReport } from "../components/calico/probe/report";
import type { ProbeReport } from "../components/calico/probe/report";
import type { StackEvaluation } from "../offline/engine";
import { type AppliedObject, runJob } from "../offline/world/jobs";
import { nodesOfGroup } from "../offline/world/nodes";
import { applyPod } from "../offline/world/pods";
import { type PlacedPod, type PodSpec, whyNot } from "../offline/world/scheduling";
import { unmetWaits } from "../offline/world/wait-for";
import { SimulatedFailure, applyObject } from "../offline/world/workloads";
import { evaluated, evaluatedWith, ofType, stackValue } from "./helpers";

const SETTINGS: ProbeSettings = {
  registry: DEFAULT_PROBE_REGISTRY,
  timeoutMinutes: 5,
  enforcementInputs: { calicoVersion: "v3.31.7", installer: "manifest", nodes: {} },
};
const objects = renderProbeObjects(SETTINGS);
const { "same-node": sameNode, "other-node": otherNode } = objects.clients;
const id = /^probe-anchor-([0-9a-f]{8})$/.exec(objects.anchor.metadata.name)?.[1] ?? "";
const HOSTNAME = "kubernetes.io/hostname";
const specOf = (job: typeof sameNode.allowed) => job.spec.template.spec as PodSpec;
const labelsOfJob = (job: typeof sameNode.allowed) => job.spec.template.metadata?.labels ?? {};

/** A world of `count` untainted nodes with the server bound, and the anchor placed when it can be. */
function world(count: number) {
  const nodes = nodesOfGroup("general", { scalingConfig: { desiredSize: count } });
  const pods: PlacedPod[] = [];
  const notes: string[] = [];
  applyObject("kubernetes:apps/v1:Deployment", objects.server as never, nodes, {}, notes, pods);
  const anchor = applyPod(objects.anchor as never, nodes, pods, notes);
  const server = pods[0].node;
  /** The nodes a client's pod may be bound to now. */
  const fits = (job: typeof sameNode.allowed) =>
    nodes
      .filter(
        (n) =>
          whyNot(specOf(job), n, {
            namespace: "calico-policy-probe",
            labels: labelsOfJob(job),
            placed: pods,
          }) === undefined,
      )
      .map((n) => n.name);
  return { nodes, pods, notes, anchor: anchor.state as AnchorState, server, fits };
}

describe("policy probe pairs: the objects", () => {
  it("ties the same-node pair to the server's pods and the other-node pair to the run's anchor, by hostname", () => {
    for (const job of [sameNode.allowed, sameNode.denied]) {
      assert.deepEqual(specOf(job).affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, [
        { labelSelector: objects.server.spec.selector, topologyKey: HOSTNAME },
      ]);
      assert.equal(labelsOfJob(job)["eks-calico.io/probe-pair"], "same-node");
    }
    for (const job of [otherNode.allowed, otherNode.denied]) {
      assert.deepEqual(specOf(job).affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, [
        { labelSelector: { matchLabels: anchorLabels(id) }, topologyKey: HOSTNAME },
      ]);
      assert.equal(labelsOfJob(job)["eks-calico.io/probe-pair"], "other-node");
    }
    // Never on Fargate, wherever the pair goes.
    for (const pair of PAIRS) {
      const spec = specOf(objects.clients[pair].allowed);
      assert.ok(spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution);
    }
  });

  it("keeps the anchor off the server's node, pauses in it, and awaits only the scheduler's decision", () => {
    const anchor = objects.anchor;
    assert.equal(anchor.kind, "Pod");
    assert.equal(anchor.metadata.name, `probe-anchor-${id}`);
    assert.deepEqual(anchor.metadata.labels, { ...anchor.metadata.labels, ...anchorLabels(id) });
    assert.deepEqual(anchor.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution, [
      { labelSelector: objects.server.spec.selector, topologyKey: HOSTNAME },
    ]);
    assert.equal(anchor.spec.affinity?.podAffinity, undefined);
    assert.deepEqual(anchor.spec.containers[0].args, ["pause"]);
    assert.deepEqual(anchor.metadata.annotations, {
      "pulumi.com/waitFor": 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}',
    });
    assert.equal(ANCHOR_WAIT_FOR, anchor.metadata.annotations?.["pulumi.com/waitFor"]);
  });

  it("ends the anchor's await on either decision of the scheduler, never before one", () => {
    const condition = (status: string) => ({ status: { conditions: [{ type: "PodScheduled", status }] } });
    assert.deepEqual(unmetWaits(ANCHOR_WAIT_FOR, condition("True")), []);
    assert.deepEqual(unmetWaits(ANCHOR_WAIT_FOR, condition("False")), []);
    assert.equal(unmetWaits(ANCHOR_WAIT_FOR, { status: { conditions: [] } }).length, 1);
    assert.equal(
      unmetWaits(ANCHOR_WAIT_FOR, { status: { conditions: [{ type: "Ready", status: "False" }] } }).length,
      1,
    );
  });
});

describe("policy probe pairs: where the scheduler may put each client", () => {
  it("binds the anchor to a node other than the server's", () => {
    const w = world(3);
    const placement = anchorPlacement(w.anchor);
    assert.ok(placement.placed);
    assert.notEqual(placement.node, w.server.name);
    assert.ok(w.nodes.some((n) => n.name === placement.node));
  });

  it("lets the same-node clients run only on the server's node, the other-node clients only on the anchor's", () => {
    const w = world(3);
    const placement = anchorPlacement(w.anchor);
    assert.ok(placement.placed);
    for (const job of [sameNode.allowed, sameNode.denied]) assert.deepEqual(w.fits(job), [w.server.name]);
    for (const job of [otherNode.allowed, otherNode.denied]) assert.deepEqual(w.fits(job), [placement.node]);
  });

  it("places the denied client where the allowed one ran, after it has completed", () => {
    const w = world(2);
    const calicoNode: AppliedObject = {
      type: "kubernetes:apps/v1:DaemonSet",
      inputs: { metadata: { name: "calico-node" }, spec: { template: { spec: {} } } },
    };
    const applied: AppliedObject[] = [
      calicoNode,
      { type: "kubernetes:core/v1:Namespace", inputs: objects.namespace as never },
      { type: "kubernetes:core/v1:Service", inputs: objects.service as never },
      { type: "kubernetes:networking.k8s.io/v1:NetworkPolicy", inputs: objects.denyAll as never },
      { type: "kubernetes:networking.k8s.io/v1:NetworkPolicy", inputs: objects.allowClients as never },
    ];
    const notes: string[] = [];
    for (const job of [otherNode.allowed, otherNode.denied])
      runJob(job as never, applied, w.nodes, {}, notes, w.pods);
    const anchorNode = (anchorPlacement(w.anchor) as { node: string }).node;
    assert.deepEqual(
      notes.map((n) => n.split(": ").slice(0, 2).join(": ")),
      [
        `other-node-allowed-client-${id}: from ${anchorNode} (not the server's node)`,
        `other-node-denied-client-${id}: from ${anchorNode} (not the server's node)`,
      ],
    );
    // A completed client's pod is not one the scheduler places others beside: only the server and anchor are bound.
    assert.deepEqual(
      w.pods.map((p) => p.name),
      ["probe-server-1", `probe-anchor-${id}`],
    );
  });

  it("keeps a rescheduled server pod off the anchor's node while the anchor runs", () => {
    const w = world(2);
    const anchorNode = (anchorPlacement(w.anchor) as { node: string }).node;
    const context = {
      namespace: "calico-policy-probe",
      labels: objects.server.spec.template.metadata?.labels ?? {},
      placed: w.pods.filter((p) => p.name !== "probe-server-1"),
    };
    const spec = objects.server.spec.template.spec as PodSpec;
    assert.deepEqual(
      w.nodes.filter((n) => whyNot(spec, n, context) === undefined).map((n) => n.name),
      w.nodes.map((n) => n.name).filter((n) => n !== anchorNode),
    );
  });
});

describe("policy probe pairs: one eligible node", () => {
  it("reports the anchor unschedulable with the scheduler's summary, and ends its await", () => {
    const w = world(1);
    const placement = anchorPlacement(w.anchor);
    assert.deepEqual(placement, {
      placed: false,
      why: "no node other than the server's could take the anchor: 0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.",
    });
    assert.equal(
      w.notes.at(-1),
      `probe-anchor-${id}: not scheduled: 0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.`,
    );
    // Without the waitFor annotation, the Pod's readiness await would wait for it until it timed out.
    const awaited = { ...objects.anchor, metadata: { ...objects.anchor.metadata, annotations: {} } };
    assert.throws(() => applyPod(awaited, w.nodes, w.pods, []), SimulatedFailure);
  });

  it("creates the other-node Jobs suspended, not awaited and never replaced, saying why", () => {
    const placement = anchorPlacement(world(1).anchor);
    for (const job of [otherNode.allowed, otherNode.denied]) {
      const suspended = forPlacement(job, placement);
      assert.equal(suspended.spec.suspend, true);
      assert.ok(!Object.keys(suspended.metadata.annotations ?? {}).includes(REPLACE_UNREADY_ANNOTATION));
      assert.ok(Object.keys(job.metadata.annotations ?? {}).includes(REPLACE_UNREADY_ANNOTATION));
      assert.deepEqual(suspended.metadata.annotations, {
        "pulumi.com/skipAwait": "true",
        [NOT_RUN_ANNOTATION]:
          "no node other than the server's could take the anchor: 0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.",
      });
      // The same Job otherwise: name, pod template, deadline.
      assert.deepEqual({ ...suspended.spec, suspend: undefined }, { ...job.spec, suspend: undefined });
      assert.equal(suspended.metadata.name, job.metadata.name);
      // With a node for the anchor, the Job is left as rendered.
      assert.equal(forPlacement(job, { placed: true, node: "n" }), job);
    }
  });

  it("runs no pod for a suspended Job, and fails an awaited one as its await would", () => {
    const w = world(1);
    const suspended = forPlacement(otherNode.allowed, anchorPlacement(w.anchor));
    const notes: string[] = [];
    const { state } = runJob(suspended as never, [], w.nodes, {}, notes, w.pods);
    assert.deepEqual(state.status, { conditions: [{ type: "Suspended", status: "True" }] });
    assert.deepEqual(notes, [`other-node-allowed-client-${id}: suspended, not run`]);
    const awaited = { ...suspended, metadata: { ...suspended.metadata, annotations: {} } };
    assert.throws(() => runJob(awaited, [], w.nodes, {}, [], w.pods), /suspended, it never starts/);
  });
});

describe("policy probe pairs: the report", () => {
  const done: JobStatus = { succeeded: 1 };
  const failed: JobStatus = {};
  const report = (placed: boolean, statuses: JobStatus[]): ProbeReport =>
    probeReport({
      namespace: "calico-policy-probe",
      id,
      allowPolicy: "allow-probe-clients",
      denyPolicy: "default-deny-ingress",
      placement: placed ? { placed: true, node: "n2" } : { placed: false, why: "no node" },
      statuses: {
        "same-node": { allowed: statuses[0], denied: statuses[1] },
        "other-node": { allowed: statuses[2], denied: statuses[3] },
      },
    });

  it("proves enforcement only when every pair that ran proved it", () => {
    assert.equal(policyEnforcedBy(report(true, [done, done, done, done])), true);
    // Any client of a pair that ran, on either node, that did not succeed.
    for (let i = 0; i < 4; i++) {
      const statuses: JobStatus[] = [done, done, done, done];
      statuses[i] = failed;
      assert.equal(policyEnforcedBy(report(true, statuses)), false, `client ${i}`);
    }
    // The same-node pair always counts.
    assert.equal(policyEnforcedBy(report(false, [done, failed, failed, failed])), false);
  });

  it("says the other-node pair did not run, and why, and counts the same-node pair alone", () => {
    const alone = report(false, [done, done, undefined, undefined]);
    assert.equal(policyEnforcedBy(alone), true);
    assert.deepEqual(
      { ran: alone.otherNode.ran, notRun: alone.otherNode.notRun },
      { ran: false, notRun: "no node" },
    );
    assert.deepEqual(
      [alone.sameNode.ran, "notRun" in alone.sameNode, "notRun" in report(true, []).otherNode],
      [true, false, false],
    );
  });
});

describe("policy probe pairs: in the stacks", () => {
  const probeOf = (evaluation: StackEvaluation) =>
    evaluation.outputs.calico as { policyEnforced: boolean; probe: ProbeReport };
  const jobs = (evaluation: StackEvaluation) => ofType(evaluation, "kubernetes:batch/v1:Job");

  it("runs both pairs on a cluster with two nodes, the other-node Jobs after the anchor", async () => {
    const evaluation = await evaluated("dev");
    const { probe, policyEnforced } = probeOf(evaluation);
    assert.equal(policyEnforced, true);
    assert.deepEqual([probe.sameNode.ran, probe.otherNode.ran], [true, true]);
    const [anchor] = ofType(evaluation, "kubernetes:core/v1:Pod");
    assert.equal(anchor.name, "calico-probe-anchor");
    assert.deepEqual(anchor.options.customTimeouts, { create: "5m", update: "5m" });
    const server = evaluation.resources.find((r) => r.name === "calico-probe-server");
    assert.ok(anchor.propertyDependencies.spec.includes(server?.urn ?? "?"), "the anchor follows the server");
    for (const name of [
      "calico-probe-other-node-probe-allowed-client",
      "calico-probe-other-node-probe-denied-client",
    ]) {
      const job = jobs(evaluation).find((j) => j.name === name);
      assert.ok(
        job?.propertyDependencies.spec.includes(anchor.urn),
        `${name} follows the anchor's placement`,
      );
      assert.equal((job?.inputs.spec as { suspend?: boolean }).suspend, undefined);
    }
  });

  const oneNode = [{ name: "general", minSize: 1, desiredSize: 1, maxSize: 10 }];
  const SAID =
    "no node other than the server's could take the anchor: 0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.";

  it("runs only the same-node pair on a cluster with one node, says so, and counts it alone", async () => {
    const evaluation = await evaluatedWith("dev", { config: { "eks-calico:nodeGroups": oneNode } });
    const { probe, policyEnforced } = probeOf(evaluation);
    assert.equal(policyEnforced, true);
    assert.equal(probe.sameNode.ran, true);
    assert.deepEqual(
      [probe.sameNode.allowedClient.succeeded, probe.sameNode.deniedClient.succeeded],
      [true, true],
    );
    assert.deepEqual(
      [probe.otherNode.ran, probe.otherNode.notRun, probe.otherNode.allowedClient.succeeded],
      [false, SAID, false],
    );
    for (const job of jobs(evaluation).filter((j) => j.name.includes("-other-node-"))) {
      const { suspend } = job.inputs.spec as { suspend?: boolean };
      const { annotations } = job.inputs.metadata as { annotations: Record<string, string> };
      assert.deepEqual(
        [suspend, annotations["pulumi.com/skipAwait"], annotations[NOT_RUN_ANNOTATION]],
        [true, "true", SAID],
      );
    }
  });

  it("counts only the nodes the probe's pods may use: one untainted node beside tainted ones is one node", async () => {
    const groups = stackValue<Record<string, unknown>[]>("staging", "nodeGroups");
    const evaluation = await evaluatedWith("staging", {
      config: { "eks-calico:nodeGroups": [{ ...groups[0], minSize: 1, desiredSize: 1 }, ...groups.slice(1)] },
    });
    const { probe, policyEnforced } = probeOf(evaluation);
    assert.equal(policyEnforced, true);
    assert.equal(
      probe.otherNode.notRun,
      "no node other than the server's could take the anchor: 0/3 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 node(s) had untolerated taint(s).",
    );
  });

  it("runs only the same-node pair behind a kubeconfig whose cluster has one node", async () => {
    const evaluation = await evaluatedWith("kubeconfig.example", {
      simulate: { kubeconfigCluster: { nodes: 1 } },
    });
    const { probe, policyEnforced } = probeOf(evaluation);
    assert.deepEqual([policyEnforced, probe.sameNode.ran, probe.otherNode.ran], [true, true, false]);
    assert.equal(probe.otherNode.notRun, SAID);
  });

  it("runs both pairs behind a kubeconfig whose cluster has two nodes", async () => {
    const evaluation = await evaluatedWith("kubeconfig.example", {
      simulate: { kubeconfigCluster: { nodes: 2 } },
    });
    assert.deepEqual(
      [probeOf(evaluation).probe.sameNode.ran, probeOf(evaluation).probe.otherNode.ran],
      [true, true],
    );
  });
});
