/**
 * The Tigera operator, as the simulated cluster runs it. The operator creates its CRDs when it starts
 * (`-manage-crds=true`), so its kinds exist only once its Deployment runs. It then installs Calico into
 * calico-system for the Installation `default` and reports it: TigeraStatus `calico` is Available, and the
 * Installation's Ready condition and `status.calicoVersion` are written, only when calico-node runs ready
 * on every node and calico-kube-controllers is scheduled (tigera/operator `pkg/controller/installation`,
 * `pkg/controller/status`; ../shared/reference/tigera-operator.md). The release it installs is the one
 * its image pins (components/calico/operator/releases.ts), whatever the Installation asks for.
 */
import { OPERATOR_RELEASES } from "../../components/calico/operator/releases";
import { operatorTyphaReplicas } from "../../components/calico/operator/status";
import { CALICO_SYSTEM_NAMESPACE, OPERATOR_NAME } from "../../components/calico/operator/settings";
import type { AppliedObject } from "./jobs";
import type { SimulatedNode } from "./nodes";
import { CannotSimulate, type PodSpec, whyNot } from "./scheduling";
import { unmetWaits, WAIT_FOR } from "./wait-for";
import { type ClusterSimulation, SimulatedFailure } from "./workloads";

const OPERATOR_GROUP = "kubernetes:operator.tigera.io/v1:";
const SKIP_AWAIT = "pulumi.com/skipAwait";

/** Whether a registration is one of the operator's custom resources. */
export function isOperatorResource(type: string): boolean {
  return type.startsWith(OPERATOR_GROUP);
}

/** calico-node as the operator renders it: Linux nodes, every taint tolerated. */
const OPERATOR_CALICO_NODE: PodSpec = {
  nodeSelector: { "kubernetes.io/os": "linux" },
  tolerations: [{ operator: "Exists" }],
};

/**
 * calico-kube-controllers (and the API server) as the operator renders them: Linux nodes, tolerating only
 * CriticalAddonsOnly and the control-plane taints (tigera/operator `pkg/render/common/meta`
 * TolerateCriticalAddonsAndControlPlane).
 */
const OPERATOR_CONTROL_PLANE_POD: PodSpec = {
  nodeSelector: { "kubernetes.io/os": "linux" },
  tolerations: [
    { key: "CriticalAddonsOnly", operator: "Exists" },
    { key: "node-role.kubernetes.io/master", effect: "NoSchedule" },
    { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" },
  ],
};

interface Meta {
  name?: string;
  namespace?: string;
  annotations?: Record<string, string>;
}

const metaOf = (inputs: Record<string, unknown>) => (inputs.metadata ?? {}) as Meta;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The operator Deployment the world has applied, and the Calico release its image installs. */
function runningOperator(objects: readonly AppliedObject[]): { release: string } | undefined {
  const deployment = objects.find(
    (o) => o.type === "kubernetes:apps/v1:Deployment" && metaOf(o.inputs).name === OPERATOR_NAME,
  );
  if (deployment === undefined) return undefined;
  const spec = deployment.inputs.spec as { template?: { spec?: { containers?: { image?: string }[] } } };
  const image = spec.template?.spec?.containers?.[0]?.image ?? "";
  const tag = image.split(":").pop() ?? "";
  const row = OPERATOR_RELEASES.find((r) => r.operator === tag);
  if (row === undefined) {
    throw new CannotSimulate(
      `the operator image ${image} is not in the release table; what it installs is unknown`,
    );
  }
  return { release: row.calico };
}

function conditions(ready: boolean, generation: number) {
  const condition = (type: string, status: boolean) => ({
    type,
    status: status ? "True" : "False",
    observedGeneration: generation,
  });
  return [condition("Ready", ready), condition("Progressing", !ready), condition("Degraded", false)];
}

/** The outcome of `pulumi up`'s wait on an object: nothing, or the failure its timeout ends with. */
function awaitObject(kind: string, inputs: Record<string, unknown>, state: Record<string, unknown>): void {
  const annotations = metaOf(inputs).annotations ?? {};
  if (annotations[SKIP_AWAIT] === "true") return;
  const waitFor = annotations[WAIT_FOR];
  if (waitFor === undefined) return;
  const unmet = unmetWaits(waitFor, state);
  if (unmet.length > 0) {
    throw new SimulatedFailure(
      `${kind} ${metaOf(inputs).name ?? ""}: \`pulumi up\` times out waiting for ${unmet.join("; ")}`,
    );
  }
}

/** What the operator's Calico looks like on the simulated nodes. */
function calicoOnNodes(nodes: readonly SimulatedNode[], simulation: ClusterSimulation) {
  const eligible = nodes.filter((n) => whyNot(OPERATOR_CALICO_NODE, n) === undefined);
  const ready = Math.max(0, eligible.length - (simulation.notReadyNodes ?? 0));
  const controllers = nodes.some((n) => whyNot(OPERATOR_CONTROL_PLANE_POD, n) === undefined);
  const problems = [
    ...(eligible.length === 0 ? ["calico-node has no node to run on"] : []),
    ...(ready < eligible.length
      ? [`calico-node is ready on ${ready} of ${plural(eligible.length, "node")}`]
      : []),
    ...(controllers
      ? []
      : ["calico-kube-controllers cannot be scheduled (every node has a taint it does not tolerate)"]),
  ];
  return { desired: eligible.length, ready, problems };
}

/**
 * Applies an operator custom resource: its state as the cluster would report it after the operator ran,
 * the objects the operator created (calico-system/calico-node, TigeraStatus calico), or the failure of
 * `pulumi up`'s create or wait.
 */
export function applyOperatorResource(
  type: string,
  inputs: Record<string, unknown>,
  objects: readonly AppliedObject[],
  nodes: readonly SimulatedNode[],
  simulation: ClusterSimulation,
  notes: string[],
): { id: string; state: Record<string, unknown>; created: AppliedObject[] } {
  const kind = type.slice(OPERATOR_GROUP.length);
  const name = metaOf(inputs).name ?? "";
  const operator = runningOperator(objects);
  if (operator === undefined) {
    throw new SimulatedFailure(
      `${kind} ${name}: no matches for kind "${kind}" in version "operator.tigera.io/v1": its CRD is created by the Tigera operator, which is not running; the provider's create retries end in this error`,
    );
  }
  const generation = 1;
  const state: Record<string, unknown> = { ...inputs, metadata: { ...metaOf(inputs), generation } };
  const created: AppliedObject[] = [];
  const installation = objects.find((o) => o.type === `${OPERATOR_GROUP}Installation`);

  if (kind === "Installation") {
    const calico = calicoOnNodes(nodes, simulation);
    const available = calico.problems.length === 0;
    state.status = {
      variant: "Calico",
      conditions: conditions(available, generation),
      // Written only once the install is available.
      ...(available ? { calicoVersion: operator.release, computed: inputs.spec } : {}),
    };
    awaitObject(kind, inputs, state);
    if (available) {
      notes.push(
        `Installation ${name}: the operator installed Calico ${operator.release} in ${CALICO_SYSTEM_NAMESPACE}; calico-node ready on ${plural(calico.ready, "node")}`,
      );
      created.push(...operatorCreated(calico.desired, calico.ready, generation));
      notes.push(
        `Installation ${name}: calico-typha runs ${plural(operatorTyphaReplicas(calico.desired), "replica")} (the operator's own ladder for ${plural(calico.desired, "node")})`,
      );
    } else {
      notes.push(`Installation ${name}: not available (${calico.problems.join("; ")}); not awaited`);
    }
  } else if (kind === "APIServer") {
    const installed = installation !== undefined && readyIn(installation);
    const schedulable = nodes.some((n) => whyNot(OPERATOR_CONTROL_PLANE_POD, n) === undefined);
    state.status = {
      state: installed && schedulable ? "Ready" : "",
      conditions: conditions(installed && schedulable, generation),
    };
    awaitObject(kind, inputs, state);
  } else if (kind === "Goldmane" || kind === "Whisker") {
    // They report no status (operator v1.40.15, v1.42.3): a wait on one never ends.
    const annotations = metaOf(inputs).annotations ?? {};
    if (annotations[SKIP_AWAIT] !== "true" && annotations[WAIT_FOR] !== undefined) {
      throw new SimulatedFailure(
        `${kind} ${name}: reports no status, so \`pulumi up\` waits for ${annotations[WAIT_FOR]} until it times out`,
      );
    }
  } else {
    throw new CannotSimulate(`${kind} ${name}: what the operator does with this kind is not simulated`);
  }
  return { id: name, state, created };
}

/** Whether an applied Installation's simulated status is Ready. */
function readyIn(installation: AppliedObject): boolean {
  const status = installation.inputs.status as
    { conditions?: { type: string; status: string }[] } | undefined;
  return status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

/** The objects the operator creates that the program reads back: calico-node and its TigeraStatus. */
function operatorCreated(desired: number, ready: number, generation: number): AppliedObject[] {
  return [
    {
      type: "kubernetes:apps/v1:DaemonSet",
      inputs: {
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: { name: "calico-node", namespace: CALICO_SYSTEM_NAMESPACE, generation },
        spec: { template: { spec: OPERATOR_CALICO_NODE } },
        status: {
          observedGeneration: generation,
          desiredNumberScheduled: desired,
          currentNumberScheduled: desired,
          updatedNumberScheduled: ready,
          numberReady: ready,
          numberAvailable: ready,
        },
      },
    },
    {
      // Typha: the operator's replica ladder, one per node (it tolerates every taint, like calico-node).
      type: "kubernetes:apps/v1:Deployment",
      inputs: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "calico-typha", namespace: CALICO_SYSTEM_NAMESPACE, generation },
        spec: { replicas: operatorTyphaReplicas(desired), template: { spec: OPERATOR_CALICO_NODE } },
        status: {
          observedGeneration: generation,
          replicas: operatorTyphaReplicas(desired),
          readyReplicas: operatorTyphaReplicas(desired),
          availableReplicas: operatorTyphaReplicas(desired),
        },
      },
    },
    {
      type: `${OPERATOR_GROUP}TigeraStatus`,
      inputs: {
        apiVersion: "operator.tigera.io/v1",
        kind: "TigeraStatus",
        metadata: { name: "calico" },
        status: {
          conditions: [
            { type: "Available", status: "True", observedGeneration: generation },
            { type: "Progressing", status: "False", observedGeneration: generation },
            { type: "Degraded", status: "False", observedGeneration: generation },
          ],
        },
      },
    },
  ];
}

/** A read (`Resource.get`) of an object by id: what the cluster has, or the failure of a missing one. */
export function readObject(
  type: string,
  id: string,
  objects: readonly AppliedObject[],
): Record<string, unknown> {
  const found = objects.find((o) => {
    const meta = metaOf(o.inputs);
    return o.type === type && [meta.namespace, meta.name].filter((p) => p !== undefined).join("/") === id;
  });
  if (found === undefined) {
    throw new SimulatedFailure(`reading ${type.replace(/^kubernetes:/, "")} ${id}: not found in the cluster`);
  }
  return found.inputs;
}
