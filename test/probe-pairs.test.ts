/**
 * The enforcement probe's two pairs of clients: where each client may go (the same-node pair beside the
 * server, the other-node pair beside the anchor, on another node), what the program does when no node but
 * the server's can take the anchor, and what the report and `policyEnforced` say in each case, from literal
 * pod and Job statuses. Where the scheduler puts them is known after up: the real engine runs them on a
 * real scheduler (test/cluster/probe.test.ts).
 */
import * as assert from "node:assert/strict";
import { ANCHOR_WAIT_FOR, anchorLabels, anchorPlacement } from "../components/calico/probe/anchor";
import { NOT_RUN_ANNOTATION, PAIRS, forPlacement } from "../components/calico/probe/clients";
import {
  DEFAULT_PROBE_REGISTRY,
  type ProbeSettings,
  REPLACE_UNREADY_ANNOTATION,
  renderProbeObjects,
} from "../components/calico/probe/objects";
import { type JobStatus, policyEnforcedBy, probeReport } from "../components/calico/probe/report";
import type { ProbeReport } from "../components/calico/probe/report";
import { KNOWN_AFTER_UP } from "../offline/engine";
import { evaluated, ofType } from "./helpers";

const SETTINGS: ProbeSettings = {
  registry: DEFAULT_PROBE_REGISTRY,
  timeoutMinutes: 5,
  enforcementInputs: { calicoVersion: "v3.31.7", installer: "manifest", nodes: {} },
};
const objects = renderProbeObjects(SETTINGS);
const { "same-node": sameNode, "other-node": otherNode } = objects.clients;
const id = /^probe-anchor-([0-9a-f]{8})$/.exec(objects.anchor.metadata.name)?.[1] ?? "";
const HOSTNAME = "kubernetes.io/hostname";
type ClientSpec = NonNullable<(typeof sameNode.allowed)["spec"]["template"]["spec"]>;
const specOf = (job: typeof sameNode.allowed): ClientSpec => job.spec.template.spec ?? ({} as ClientSpec);
const labelsOfJob = (job: typeof sameNode.allowed) => job.spec.template.metadata?.labels ?? {};
/** The scheduler's first sentence for one node the anchor's anti-affinity rules out (its FitError). */
const UNSCHEDULABLE = "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.";
const SAID = `no node other than the server's could take the anchor: ${UNSCHEDULABLE}`;

describe("policy probe pairs: the objects", () => {
  it("ties the same-node pair to the server's pods and the other-node pair to the run's anchor, by hostname", () => {
    for (const job of Object.values(sameNode)) {
      assert.deepEqual(specOf(job).affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution, [
        { labelSelector: objects.server.spec.selector, topologyKey: HOSTNAME },
      ]);
      assert.equal(labelsOfJob(job)["eks-calico.io/probe-pair"], "same-node");
    }
    for (const job of Object.values(otherNode)) {
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
    // pulumi-kubernetes' `pulumi.com/waitFor` (4.18+): `jsonpath={...}` without a value holds once the
    // path exists: the PodScheduled condition's status, True or False, whichever the scheduler writes.
    // Both ends on a real scheduler: test/cluster/probe.test.ts.
    assert.equal(ANCHOR_WAIT_FOR, 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].status}');
    assert.ok(!ANCHOR_WAIT_FOR.includes("}="), "no value: either status ends it");
  });
});

describe("policy probe pairs: the anchor's placement, from its status", () => {
  it("is the node the scheduler bound it to", () => {
    const bound = {
      spec: { nodeName: "node-2" },
      status: { conditions: [{ type: "PodScheduled", status: "True" }] },
    };
    assert.deepEqual(anchorPlacement(bound), { placed: true, node: "node-2" });
  });

  it("says why with the scheduler's own message when it is Unschedulable", () => {
    const unschedulable = {
      spec: {},
      status: {
        conditions: [
          { type: "PodScheduled", status: "False", reason: "Unschedulable", message: UNSCHEDULABLE },
        ],
      },
    };
    assert.deepEqual(anchorPlacement(unschedulable), { placed: false, why: SAID });
    const reasonOnly = {
      status: { conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] },
    };
    assert.deepEqual(anchorPlacement(reasonOnly), {
      placed: false,
      why: "no node other than the server's could take the anchor: Unschedulable",
    });
  });

  it("creates the other-node Jobs suspended, not awaited and never replaced, saying why", () => {
    const placement = anchorPlacement({
      status: { conditions: [{ type: "PodScheduled", status: "False", message: UNSCHEDULABLE }] },
    });
    for (const job of Object.values(otherNode)) {
      const suspended = forPlacement(job, placement);
      assert.equal(suspended.spec.suspend, true);
      assert.ok(!Object.keys(suspended.metadata.annotations ?? {}).includes(REPLACE_UNREADY_ANNOTATION));
      assert.ok(Object.keys(job.metadata.annotations ?? {}).includes(REPLACE_UNREADY_ANNOTATION));
      assert.deepEqual(suspended.metadata.annotations, {
        "pulumi.com/skipAwait": "true",
        [NOT_RUN_ANNOTATION]: SAID,
      });
      // The same Job otherwise: name, pod template, deadline.
      assert.deepEqual({ ...suspended.spec, suspend: undefined }, { ...job.spec, suspend: undefined });
      assert.equal(suspended.metadata.name, job.metadata.name);
      // With a node for the anchor, the Job is left as rendered.
      assert.equal(forPlacement(job, { placed: true, node: "n" }), job);
    }
  });
});

describe("policy probe pairs: the report", () => {
  // One run as the Job controller times it: the denied window ends at 08:00:40, the recheck starts 2 s later.
  const at = (second: number) => `2026-12-02T08:00:${String(second).padStart(2, "0")}Z`;
  const done: JobStatus[] = [
    { succeeded: 1, startTime: at(1), completionTime: at(12) },
    { succeeded: 1, startTime: at(12), completionTime: at(40) },
    { succeeded: 1, startTime: at(42), completionTime: at(45) },
  ];
  const failed: JobStatus = {};
  const report = (placed: boolean, statuses: JobStatus[]): ProbeReport =>
    probeReport({
      namespace: "calico-policy-probe",
      id,
      allowPolicy: "allow-probe-clients",
      denyPolicy: "default-deny-ingress",
      placement: placed ? { placed: true, node: "n2" } : { placed: false, why: "no node" },
      statuses: {
        "same-node": { allowed: statuses[0], denied: statuses[1], recheck: statuses[2] },
        "other-node": { allowed: statuses[3], denied: statuses[4], recheck: statuses[5] },
      },
    });
  const all = (statuses: JobStatus[]): JobStatus[] => [...statuses, ...statuses];

  it("proves enforcement only when every pair that ran proved it", () => {
    assert.equal(policyEnforcedBy(report(true, all(done))), true);
    // Any client of a pair that ran, on either node, that did not succeed: the recheck client too, as a
    // denied client's refusals may be kube-proxy's for a server gone away.
    for (let i = 0; i < 6; i++) {
      const statuses = all(done);
      statuses[i] = failed;
      assert.equal(policyEnforcedBy(report(true, statuses)), false, `client ${i}`);
    }
    // The same-node pair always counts.
    assert.equal(
      policyEnforcedBy(report(false, [...done.slice(0, 2), failed, failed, failed, failed])),
      false,
    );
  });

  it("names each pair's recheck client and what it proves", () => {
    const { sameNode: pair } = report(true, all(done));
    assert.deepEqual(pair.recheckClient, {
      job: `recheck-client-${id}`,
      expected:
        "connects again through allow-probe-clients after the denied clients' attempts, starting within 60 s of their end, so they met a server that answered",
      succeeded: true,
      afterDeniedWindow: true,
    });
  });

  it("says the other-node pair did not run, and why, and counts the same-node pair alone", () => {
    const alone = report(false, [...done, undefined, undefined, undefined]);
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
  it("plans both pairs, the other-node Jobs after the anchor, whose placement is known after up", async () => {
    const evaluation = await evaluated("dev");
    const calico = evaluation.outputs.calico as Record<string, unknown>;
    assert.deepEqual([calico.policyEnforced, calico.probe], [KNOWN_AFTER_UP, KNOWN_AFTER_UP]);
    const [anchor] = ofType(evaluation, "kubernetes:core/v1:Pod");
    assert.equal(anchor.name, "calico-probe-anchor");
    assert.deepEqual(anchor.options.customTimeouts, { create: "5m", update: "5m" });
    const server = evaluation.resources.find((r) => r.name === "calico-probe-server");
    assert.ok(anchor.propertyDependencies.spec.includes(server?.urn ?? "?"), "the anchor follows the server");
    const jobs = ofType(evaluation, "kubernetes:batch/v1:Job");
    for (const name of [
      "calico-probe-other-node-probe-allowed-client",
      "calico-probe-other-node-probe-denied-client",
      "calico-probe-other-node-probe-recheck-client",
    ]) {
      const job = jobs.find((j) => j.name === name);
      assert.ok(
        job?.propertyDependencies.spec.includes(anchor.urn),
        `${name} follows the anchor's placement`,
      );
      // Run, or suspended where the anchor found no node: only the scheduler's decision says which.
      assert.equal(job?.inputs.spec, KNOWN_AFTER_UP);
    }
  });
});
