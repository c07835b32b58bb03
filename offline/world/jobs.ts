/**
 * What the simulated cluster does with a Job. Only the enforcement probe's clients are simulated (their
 * pods say what they expect with the `eks-calico.io/probe-expect` label); any other Job's outcome is
 * something the world cannot know, so it refuses (CannotSimulate) rather than report a success.
 *
 * A client's pod is placed as the scheduler would place it (scheduling.ts): on the first node that fits,
 * its required pod affinity judged against the pods already bound (the server's, the anchor's); a
 * completed Job's pod is never among them, as the scheduler ignores terminated pods. It connects to its
 * target Service's pods when the NetworkPolicies the world has seen admit it
 * (offline/world/network-policy.ts), or when nothing enforces policy: calico-node not ready on the
 * client's node or the server's, or a simulation in which Felix runs but does not enforce. A suspended
 * Job creates no pod; unless it is not awaited, `pulumi up` waits for it to start until it times out.
 */
import {
  DNS_BLOCKED_MESSAGE,
  NOT_ALLOWED_MESSAGE,
  NOT_ENFORCING_MESSAGE,
} from "../../components/calico/probe/script";
import { type NamespaceRef, type NetworkPolicyObject, ingressAllowed } from "./network-policy";
import type { SimulatedNode } from "./nodes";
import { CannotSimulate, type PlacedPod, type PodSpec, unschedulableMessage, whyNot } from "./scheduling";
import { type ClusterSimulation, SimulatedFailure } from "./workloads";

/** A Kubernetes object the world has applied. */
export interface AppliedObject {
  type: string;
  inputs: Record<string, unknown>;
}

const EXPECT_LABEL = "eks-calico.io/probe-expect";
const SKIP_AWAIT = "pulumi.com/skipAwait";

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
  annotations?: Record<string, string>;
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
 * `pulumi up` would end with (the client's own verdict). `pods` are the pods bound so far.
 */
export function runJob(
  inputs: Record<string, unknown>,
  objects: readonly AppliedObject[],
  nodes: readonly SimulatedNode[],
  options: ClusterSimulation,
  notes: string[],
  pods: readonly PlacedPod[] = [],
): { id: string; state: Record<string, unknown> } {
  const meta = (inputs.metadata ?? {}) as Meta;
  const name = meta.name ?? "(unnamed)";
  const namespace = meta.namespace ?? "default";
  const jobSpec = (inputs.spec ?? {}) as { template?: PodTemplate; suspend?: boolean };
  const template = jobSpec.template ?? {};
  const labels = template.metadata?.labels ?? {};
  const expect = labels[EXPECT_LABEL];
  if (expect !== "connect" && expect !== "blocked") {
    throw new CannotSimulate(
      `${name}: what a Job's pod does is not simulated (only the policy probe's clients)`,
    );
  }
  if (jobSpec.suspend === true) {
    if (meta.annotations?.[SKIP_AWAIT] !== "true") {
      throw new SimulatedFailure(`${name}: suspended, it never starts; the Job await times out`);
    }
    notes.push(`${name}: suspended, not run`);
    return {
      id: `${namespace}/${name}`,
      state: { ...inputs, status: { conditions: [{ type: "Suspended", status: "True" }] } },
    };
  }
  const pod = template.spec ?? {};
  const context = { namespace, labels, placed: pods };
  const clientNode = nodes.find((n) => whyNot(pod, n, context) === undefined);
  if (clientNode === undefined) {
    throw new SimulatedFailure(
      `${name}: its pod cannot be scheduled (${unschedulableMessage(pod, nodes, context)}); the Job never completes`,
    );
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
  const servers = pods.filter(
    (p) =>
      p.namespace === serviceNamespace &&
      Object.entries(serviceSpec.selector ?? {}).every(([k, v]) => p.labels[k] === v),
  );
  if (port === undefined || servers.length === 0) {
    throw new SimulatedFailure(`${name}: ${target} has no port or no pods behind it; no connection can open`);
  }

  // Enforced only if Felix runs, ready, on the client's node and the server's.
  const ready = calicoNodes(objects, nodes);
  const unguarded = [...servers.map((p) => p.node), clientNode].find((n) => !ready.has(n.name));
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
    server: { namespace: serviceNamespace, labels: servers[0].labels },
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
  const where = servers.some((p) => p.node === clientNode) ? "the server's node" : "not the server's node";
  notes.push(
    `${name}: from ${clientNode.name} (${where}): ${expect === "connect" ? "connected" : "blocked on every attempt"} (${why})`,
  );
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
