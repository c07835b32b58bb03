/**
 * The enforcement probe's wiring (PolicyProbe, `<name>-probe`): it creates the probe's objects once
 * calico-node is ready, awaits its Jobs, and turns their statuses into `calico.probe` and
 * `calico.policyEnforced`. Both Calico components ask for it through probeOutputs. The objects are plain
 * data: the namespace, server and policies in objects.ts, the client Jobs in clients.ts, the anchor pod in
 * anchor.ts, their scripts in script.ts, their clock in timing.ts; the verdict is report.ts and window.ts.
 * docs/probe.md says what it proves.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { anchorPlacement } from "./anchor";
import { type Client, type Pair, forPlacement } from "./clients";
import {
  type Job,
  type ProbeObject,
  type ProbeSettings,
  probeId,
  renderProbeBase,
  renderProbeRun,
} from "./objects";
import { type JobStatus, type ProbeReport, policyEnforcedBy, probeReport } from "./report";

export {
  DEFAULT_PROBE_REGISTRY,
  PROBE_NAMESPACE,
  renderProbeObjects,
  fingerprint,
  type ProbeSettings,
} from "./objects";
export { NOT_ENFORCING_MESSAGE } from "./script";
export type { ClientResult, PairReport, ProbeReport } from "./report";

export interface PolicyProbeArgs {
  /** Provider of the target cluster. */
  provider: k8s.Provider;
  /** The settings; enforcement inputs may be outputs (the Typha certificates' validity). */
  settings: Omit<ProbeSettings, "enforcementInputs"> & {
    enforcementInputs: pulumi.Input<Record<string, pulumi.Input<unknown>>>;
  };
  /** What must be ready before the probe starts: the calico-node DaemonSet. */
  after: pulumi.Resource[];
}

/** The probe as a Calico component is asked for it: where its image comes from, how long to wait, the nodes. */
export interface CalicoProbeArgs {
  registry: string;
  timeoutMinutes: number;
  /** A description of the node groups: the Jobs run again when it changes. */
  nodes: unknown;
  /** The VPC CNI add-on's configuration values, on stacks that own the add-on: the Jobs run again when they change. */
  vpcCni?: string;
  /**
   * The provider of the probe's objects when Calico's own differs (`calico.adopt`: the probe's objects
   * are this program's alone, so they are never upserted over something that exists).
   */
  provider?: k8s.Provider;
}

/**
 * The objects every run of the probe shares (its namespace, server, Service and policies), or none with the
 * probe off: a removal that stopped part-way may have taken them (../removal-marker.ts).
 */
export function probeBaseObjects(probe: CalicoProbeArgs | undefined): ProbeObject[] {
  if (probe === undefined) return [];
  const { namespace, server, service, denyAll, allowClients } = renderProbeBase(probe);
  return [namespace, server, service, denyAll, allowClients];
}

/**
 * A Calico component's probe (`<name>-probe`, its child), run after `after`, or outputs saying nothing was
 * proven when `probe` is undefined. `calico` is what else decides enforcement: release, registry,
 * installer, and what the component renders or issues (calico-node's pod template, TLS validity, adoption).
 */
export function probeOutputs(
  name: string,
  parent: pulumi.Resource,
  args: {
    provider: k8s.Provider;
    after: pulumi.Resource[];
    probe: CalicoProbeArgs | undefined;
    calico: Record<string, pulumi.Input<unknown>> & {
      calicoVersion: string;
      calicoRegistry: string;
      installer: string;
    };
  },
): {
  policyEnforced: pulumi.Output<boolean>;
  probe: pulumi.Output<ProbeReport | undefined>;
  /** The probe's component, if it runs: the removal marker goes before its objects. */
  resources: pulumi.Resource[];
} {
  if (args.probe === undefined)
    return { policyEnforced: pulumi.output(false), probe: pulumi.output(undefined), resources: [] };
  const probe = new PolicyProbe(
    `${name}-probe`,
    {
      provider: args.probe.provider ?? args.provider,
      after: args.after,
      settings: {
        registry: args.probe.registry,
        timeoutMinutes: args.probe.timeoutMinutes,
        enforcementInputs: {
          ...args.calico,
          nodes: args.probe.nodes,
          ...(args.probe.vpcCni === undefined ? {} : { vpcCni: args.probe.vpcCni }),
        },
      },
    },
    { parent },
  );
  return { policyEnforced: probe.policyEnforced, probe: probe.report, resources: [probe] };
}

/**
 * Proof that Calico enforces NetworkPolicy: a server isolated by a default-deny ingress policy, and two
 * pairs of clients, one on the server's node and one on another node (held by the anchor pod), each an
 * allowed client (must connect), a denied client (must be blocked on every attempt) and a recheck client
 * (must connect after that) on one node. The Jobs that run are awaited by `pulumi up`, which fails with
 * the client's own verdict if one fails. Create it after calico-node is ready (`dependsOn` the DaemonSet).
 */
export class PolicyProbe extends pulumi.ComponentResource {
  /** True only when every pair that ran proved enforcement (the same-node pair always runs). */
  readonly policyEnforced: pulumi.Output<boolean>;
  readonly report: pulumi.Output<ProbeReport>;

  constructor(name: string, args: PolicyProbeArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:calico:PolicyProbe", name, {}, opts);
    // The run's names come from every enforcement input, some known only once deployed.
    const id = pulumi
      .output(args.settings.enforcementInputs)
      .apply((inputs) => probeId({ ...args.settings, enforcementInputs: inputs }));
    const objects = renderProbeBase(args.settings);
    const timeouts = {
      create: `${args.settings.timeoutMinutes}m`,
      update: `${args.settings.timeoutMinutes}m`,
    };
    const base: pulumi.CustomResourceOptions = { parent: this, provider: args.provider };

    const namespace = new k8s.core.v1.Namespace(`${name}-namespace`, objects.namespace, {
      ...base,
      dependsOn: args.after,
    });
    const inNamespace = { ...base, dependsOn: [namespace] };
    const server = new k8s.apps.v1.Deployment(`${name}-server`, objects.server, {
      ...inNamespace,
      customTimeouts: timeouts,
    });
    // The Service's await waits for the server's endpoints.
    const service = new k8s.core.v1.Service(`${name}-service`, objects.service, {
      ...inNamespace,
      customTimeouts: timeouts,
    });
    const policies = [
      new k8s.networking.v1.NetworkPolicy(`${name}-default-deny`, objects.denyAll, inNamespace),
      new k8s.networking.v1.NetworkPolicy(`${name}-allow-clients`, objects.allowClients, inNamespace),
    ];
    // The run follows the server Deployment's own selector, read once the server is ready: pod
    // (anti-)affinity is judged against pods already on nodes.
    const run = pulumi
      .all([id, server.spec])
      .apply(([i, spec]) => renderProbeRun({ ...args.settings, enforcementInputs: {} }, i, spec.selector));

    // Awaited until the scheduler has placed it on a node other than the server's, or said why not.
    const anchor = new k8s.core.v1.Pod(
      `${name}-anchor`,
      { metadata: run.apply((r) => r.anchor.metadata), spec: run.apply((r) => r.anchor.spec) },
      { ...inNamespace, customTimeouts: timeouts },
    );
    const placement = pulumi
      .all([anchor.spec, anchor.status])
      .apply(([spec, status]) => anchorPlacement({ spec, status }));

    const rendered = (pair: Pair, client: Client): pulumi.Output<Job> =>
      pair === "same-node"
        ? run.apply((r) => r.clients[pair][client])
        : pulumi.all([run, placement]).apply(([r, p]) => forPlacement(r.clients[pair][client], p));
    const job = (pair: Pair, client: Client, dependsOn: pulumi.Resource[]) => {
      const object = rendered(pair, client);
      // `<...>-probe-allowed-client`, `<...>-probe-denied-client` and `<...>-probe-recheck-client`: the Pulumi
      // names the ordering rows of the clients select (test/ordering.ts), for both pairs.
      const prefix = pair === "same-node" ? name : `${name}-other-node-probe`;
      return new k8s.batch.v1.Job(
        `${prefix}-${client}-client`,
        { metadata: object.apply((o) => o.metadata), spec: object.apply((o) => o.spec) },
        // A Job's deadline counts from its start: a new run (new Jobs) gets the configured one, and a Job
        // that has run is not updated for it. Such an update changes nothing the Job does, and
        // pulumi-kubernetes records it with the Job as it last read it before the update took (seen with
        // v4.25.0 on a real API server: the next preview showed the old deadline again).
        { ...base, dependsOn, customTimeouts: timeouts, ignoreChanges: ["spec.activeDeadlineSeconds"] },
      );
    };
    // The allowed clients first: once they connected, the server is reachable from both nodes and the
    // policies exist, so the denied clients' failures can only be the policy's doing.
    const allowed = {
      "same-node": job("same-node", "allowed", [namespace, server, service, ...policies]),
      "other-node": job("other-node", "allowed", [namespace, server, service, ...policies]),
    };
    const denied = {
      "same-node": job("same-node", "denied", Object.values(allowed)),
      "other-node": job("other-node", "denied", Object.values(allowed)),
    };
    // Then the allowed clients once more: the server still answers after the denied window, so a refusal
    // was the policy's, not kube-proxy's for a Service whose server went away. Their success counts only
    // for the window they followed, judged from the Jobs' times (window.ts): a recheck that failed is
    // replaced alone on the next update, the completed denied Jobs staying.
    const recheck = {
      "same-node": job("same-node", "recheck", Object.values(denied)),
      "other-node": job("other-node", "recheck", Object.values(denied)),
    };

    const status = (j: k8s.batch.v1.Job) => j.status as pulumi.Output<JobStatus>;
    this.report = pulumi
      .all([
        id,
        placement,
        status(allowed["same-node"]),
        status(denied["same-node"]),
        status(recheck["same-node"]),
        status(allowed["other-node"]),
        status(denied["other-node"]),
        status(recheck["other-node"]),
      ])
      .apply(([i, p, sameAllowed, sameDenied, sameRecheck, otherAllowed, otherDenied, otherRecheck]) =>
        probeReport({
          namespace: objects.namespace.metadata.name,
          id: i,
          allowPolicy: objects.allowClients.metadata.name,
          denyPolicy: objects.denyAll.metadata.name,
          placement: p,
          statuses: {
            "same-node": { allowed: sameAllowed, denied: sameDenied, recheck: sameRecheck },
            "other-node": { allowed: otherAllowed, denied: otherDenied, recheck: otherRecheck },
          },
        }),
      );
    this.policyEnforced = this.report.apply(policyEnforcedBy);
    this.registerOutputs({ policyEnforced: this.policyEnforced, report: this.report });
  }
}
