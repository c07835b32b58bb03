/**
 * What the simulated cluster does with a bare Pod (the probe's anchor): the scheduler binds it to the
 * first node that fits, its inter-pod affinity and anti-affinity judged against the pods already bound
 * (scheduling.ts), or reports it unschedulable with its summary. The binding sets `spec.nodeName` and a
 * True `PodScheduled` condition in one write; a pod that fits nowhere gets a False one, reason
 * Unschedulable, with the scheduler's message. pulumi-kubernetes then awaits the pod as its annotations
 * say: not at all (`pulumi.com/skipAwait`), until its `pulumi.com/waitFor` expressions hold (wait-for.ts),
 * or until it is Ready.
 */
import type { SimulatedNode } from "./nodes";
import { type PlacedPod, type PodSpec, unschedulableMessage, whyNot } from "./scheduling";
import { unmetWaits, WAIT_FOR } from "./wait-for";
import { SimulatedFailure } from "./workloads";

const SKIP_AWAIT = "pulumi.com/skipAwait";

interface PodObject {
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: PodSpec;
}

/** The Pod's id and state as the provider returns them once its await ends, or a SimulatedFailure. */
export function applyPod(
  inputs: Record<string, unknown>,
  nodes: readonly SimulatedNode[],
  pods: PlacedPod[],
  notes: string[],
): { id: string; state: Record<string, unknown> } {
  const pod = inputs as PodObject;
  const name = pod.metadata?.name ?? "(unnamed)";
  const namespace = pod.metadata?.namespace ?? "default";
  const labels = pod.metadata?.labels ?? {};
  const spec = pod.spec ?? {};
  const context = { namespace, labels, placed: pods };
  const node = nodes.find((n) => whyNot(spec, n, context) === undefined);
  const message = node === undefined ? unschedulableMessage(spec, nodes, context) : undefined;
  const state: Record<string, unknown> = {
    ...inputs,
    spec: node === undefined ? spec : { ...spec, nodeName: node.name },
    status: {
      phase: "Pending",
      conditions: [
        node === undefined
          ? { type: "PodScheduled", status: "False", reason: "Unschedulable", message }
          : { type: "PodScheduled", status: "True" },
      ],
    },
  };

  const annotations = pod.metadata?.annotations ?? {};
  const waitFor = annotations[WAIT_FOR];
  if (annotations[SKIP_AWAIT] !== "true" && waitFor !== undefined) {
    const unmet = unmetWaits(waitFor, state);
    if (unmet.length > 0) {
      throw new SimulatedFailure(`${name}: ${unmet.join("; ")}; the await times out`);
    }
  } else if (annotations[SKIP_AWAIT] !== "true") {
    if (node === undefined) {
      throw new SimulatedFailure(`${name}: never scheduled (${message}); the readiness await times out`);
    }
    state.status = {
      phase: "Running",
      conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({
        type,
        status: "True",
      })),
    };
  }

  if (node !== undefined) {
    pods.push({
      name,
      namespace,
      labels,
      node,
      antiAffinity: spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [],
    });
  }
  notes.push(
    node === undefined ? `${name}: not scheduled: ${message}` : `${name}: scheduled on ${node.name}`,
  );
  return { id: `${namespace}/${name}`, state };
}
