/**
 * What the simulated cluster does with a Job. Only the enforcement probe's clients are simulated (their
 * pods say what they expect with the `eks-calico.io/probe-expect` label); any other Job's outcome is
 * something the world cannot know, so it refuses (CannotSimulate) rather than report a success.
 *
 * A probe client connects to its target Service's pods when the NetworkPolicies the world has seen admit
 * it (offline/world/network-policy.ts), or when nothing enforces policy: calico-node not ready on a node
 * the client or the server may land on, or a simulation in which Felix runs but does not enforce.
 */
import {
  DNS_BLOCKED_MESSAGE,
  NOT_ALLOWED_MESSAGE,
  NOT_ENFORCING_MESSAGE,
} from "../../components/calico/probe/script";
import { type NamespaceRef, type NetworkPolicyObject, ingressAllowed } from "./network-policy";
import type { SimulatedNode } from "./nodes";
import { CannotSimulate, type PodSpec, whyNot } from "./scheduling";
import { type ClusterSimulation, SimulatedFailure } from "./workloads";

/** A Kubernetes object the world has applied. */
export interface AppliedObject {
  type: string;
  inputs: Record<string, unknown>;
}

const EXPECT_LABEL = "eks-calico.io/probe-expect";

interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec?: PodSpec & {
    containers?: { env?: { name: string; value?: string }[]; ports?: { containerPort: number }[] }[];
  };
}

interface Meta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
}

const metaOf = (o: AppliedObject) => (o.inputs.metadata ?? {}) as Meta;

function nodesFor(pod: PodSpec, nodes: readonly SimulatedNode[]): SimulatedNode[] {
  return nodes.filter((node) => whyNot(pod, node) === undefined);
}

/** Nodes with a ready calico-node pod: the nodes the calico-node DaemonSet was placed on and became ready. */
function calicoNodes(objects: readonly AppliedObject[], nodes: readonly SimulatedNode[]): Set<string> {
  const daemonSets = objects.filter(
    (o) => o.type === "kubernetes:apps/v1:DaemonSet" && metaOf(o).name === "calico-node",
  );
  const template = (o: AppliedObject) => (o.inputs.spec as { template?: PodTemplate }).template?.spec ?? {};
  return new Set(daemonSets.flatMap((o) => nodesFor(template(o), nodes).map((n) => n.name)));
}

/**
 * The outcome of a probe client Job: its state with `status.succeeded`, or the SimulatedFailure
 * `pulumi up` would end with (the client's own verdict).
 */
export function runJob(
  inputs: Record<string, unknown>,
  objects: readonly AppliedObject[],
  nodes: readonly SimulatedNode[],
  options: ClusterSimulation,
  notes: string[],
): { id: string; state: Record<string, unknown> } {
  const meta = (inputs.metadata ?? {}) as Meta;
  const name = meta.name ?? "(unnamed)";
  const namespace = meta.namespace ?? "default";
  const template = ((inputs.spec ?? {}) as { template?: PodTemplate }).template ?? {};
  const labels = template.metadata?.labels ?? {};
  const expect = labels[EXPECT_LABEL];
  if (expect !== "connect" && expect !== "blocked") {
    throw new CannotSimulate(
      `${name}: what a Job's pod does is not simulated (only the policy probe's clients)`,
    );
  }
  const pod = template.spec ?? {};
  const clientNodes = nodesFor(pod, nodes);
  if (clientNodes.length === 0) {
    throw new SimulatedFailure(`${name}: its pod cannot be scheduled on any node; the Job never completes`);
  }

  // The target: host:port of a Service in the world, its selector, and the pods behind it.
  const target = pod.containers?.[0]?.env?.find((e) => e.name === "TARGET")?.value ?? "";
  const [host, portText] = target.split(":");
  const [serviceName, serviceNamespace = namespace] = host.split(".");
  const service = objects.find(
    (o) =>
      o.type === "kubernetes:core/v1:Service" &&
      metaOf(o).name === serviceName &&
      (metaOf(o).namespace ?? "default") === serviceNamespace,
  );
  if (service === undefined) {
    throw new CannotSimulate(`${name}: its target ${target} is not a Service the world has seen`);
  }
  const serviceSpec = service.inputs.spec as {
    selector?: Record<string, string>;
    ports?: { port: number; targetPort?: number }[];
  };
  const port = serviceSpec.ports?.find((p) => p.port === Number(portText));
  const server = objects.find((o) => {
    if (
      o.type !== "kubernetes:apps/v1:Deployment" ||
      (metaOf(o).namespace ?? "default") !== serviceNamespace
    ) {
      return false;
    }
    const podLabels = (o.inputs.spec as { template?: PodTemplate }).template?.metadata?.labels ?? {};
    return Object.entries(serviceSpec.selector ?? {}).every(([k, v]) => podLabels[k] === v);
  });
  if (port === undefined || server === undefined) {
    throw new SimulatedFailure(`${name}: ${target} has no port or no pods behind it; no connection can open`);
  }
  const serverTemplate = (server.inputs.spec as { template?: PodTemplate }).template ?? {};
  const serverNodes = nodesFor(serverTemplate.spec ?? {}, nodes);

  // Enforced only if Felix runs, ready, wherever the server and the client may land.
  const ready = calicoNodes(objects, nodes);
  const unguarded = [...serverNodes, ...clientNodes].find((n) => !ready.has(n.name));
  const enforced = options.policyNotEnforced !== true && unguarded === undefined;
  const namespaces: NamespaceRef[] = objects
    .filter((o) => o.type === "kubernetes:core/v1:Namespace")
    .map((o) => ({ name: metaOf(o).name ?? "", labels: metaOf(o).labels ?? {} }));
  const policies = objects
    .filter((o) => o.type === "kubernetes:networking.k8s.io/v1:NetworkPolicy")
    .map((o) => o.inputs as unknown as NetworkPolicyObject);
  const verdict = ingressAllowed({
    policies,
    namespaces,
    server: { namespace: serviceNamespace, labels: serverTemplate.metadata?.labels ?? {} },
    client: { namespace, labels },
    port: port.targetPort ?? port.port,
  });
  const connected = !enforced || verdict.allowed;
  const why = enforced
    ? verdict.reason
    : options.policyNotEnforced === true
      ? "Felix is running but not enforcing policy (simulated)"
      : `calico-node is not ready on ${unguarded?.name ?? "a node"}, so nothing enforces policy there`;

  // A policy outside the probe that blocks the clients: they report that the probe could not run.
  const blocked = options.probeBlocked;
  if (blocked !== undefined && blocked.dns)
    throw new SimulatedFailure(`${name}: ${DNS_BLOCKED_MESSAGE} (simulated: ${blocked.by} blocks it)`);
  if (blocked !== undefined && expect === "connect")
    throw new SimulatedFailure(
      `${name}: ${NOT_ALLOWED_MESSAGE} (simulated: ${blocked.by} blocks its egress)`,
    );
  if (expect === "connect" && !connected)
    throw new SimulatedFailure(`${name}: ${NOT_ALLOWED_MESSAGE} (${why})`);
  if (expect === "blocked" && connected)
    throw new SimulatedFailure(`${name}: ${NOT_ENFORCING_MESSAGE} (${why})`);
  notes.push(`${name}: ${expect === "connect" ? "connected" : "blocked on every attempt"} (${why})`);
  return {
    id: `${namespace}/${name}`,
    state: {
      ...inputs,
      status: {
        succeeded: 1,
        conditions: [{ type: "Complete", status: "True" }],
      },
    },
  };
}
