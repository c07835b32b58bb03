import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { type Job, type ProbeSettings, clientJobName, probeId, renderProbeObjects } from "./objects";

export {
  DEFAULT_PROBE_REGISTRY,
  PROBE_NAMESPACE,
  renderProbeObjects,
  fingerprint,
  type ProbeSettings,
} from "./objects";
export { NOT_ENFORCING_MESSAGE } from "./script";

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

/** What one client Job proved, for the `calico.probe` output. */
export interface ClientResult {
  job: string;
  expected: string;
  succeeded: boolean;
}

export interface ProbeReport {
  namespace: string;
  allowedClient: ClientResult;
  deniedClient: ClientResult;
}

type JobStatus = { succeeded?: number } | undefined;

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
): { policyEnforced: pulumi.Output<boolean>; probe: pulumi.Output<ProbeReport | undefined> } {
  if (args.probe === undefined)
    return { policyEnforced: pulumi.output(false), probe: pulumi.output(undefined) };
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
  return { policyEnforced: probe.policyEnforced, probe: probe.report };
}

/**
 * Proof that Calico enforces NetworkPolicy: a server isolated by a default-deny ingress policy, a client
 * the allow policy admits (must connect) and one it does not (must be blocked on every attempt). Both
 * Jobs are awaited by `pulumi up`, which fails with the client's own verdict if either fails. Create it
 * after calico-node is ready (`dependsOn` the DaemonSet).
 */
export class PolicyProbe extends pulumi.ComponentResource {
  /** True only when both client Jobs succeeded. */
  readonly policyEnforced: pulumi.Output<boolean>;
  readonly report: pulumi.Output<ProbeReport>;

  constructor(name: string, args: PolicyProbeArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:calico:PolicyProbe", name, {}, opts);
    // The Jobs' names come from every enforcement input, some known only once deployed.
    const id = pulumi
      .output(args.settings.enforcementInputs)
      .apply((inputs) => probeId({ ...args.settings, enforcementInputs: inputs }));
    const objects = renderProbeObjects({ ...args.settings, enforcementInputs: {} });
    const named = (job: Job, access: "allowed" | "denied") => ({
      ...job,
      metadata: { ...job.metadata, name: id.apply((i) => clientJobName(access, i)) },
    });
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
    // The allowed client first: once it connected, the server is reachable and the policies exist, so
    // the denied client's failures can only be the policy's doing.
    const allowed = new k8s.batch.v1.Job(`${name}-allowed-client`, named(objects.allowedClient, "allowed"), {
      ...base,
      dependsOn: [namespace, server, service, ...policies],
      customTimeouts: timeouts,
    });
    const denied = new k8s.batch.v1.Job(`${name}-denied-client`, named(objects.deniedClient, "denied"), {
      ...base,
      dependsOn: [allowed],
      customTimeouts: timeouts,
    });

    const succeeded = (status: JobStatus) => (status?.succeeded ?? 0) >= 1;
    const statuses = pulumi.all([
      allowed.status as pulumi.Output<JobStatus>,
      denied.status as pulumi.Output<JobStatus>,
      id,
    ]);
    this.policyEnforced = statuses.apply(([a, d]) => succeeded(a) && succeeded(d));
    this.report = statuses.apply(([a, d, i]) => ({
      namespace: objects.namespace.metadata.name,
      allowedClient: {
        job: clientJobName("allowed", i),
        expected: `connects to the server through ${objects.allowClients.metadata.name}`,
        succeeded: succeeded(a),
      },
      deniedClient: {
        job: clientJobName("denied", i),
        expected: `blocked by ${objects.denyAll.metadata.name} on every attempt`,
        succeeded: succeeded(d),
      },
    }));
    this.registerOutputs({ policyEnforced: this.policyEnforced, report: this.report });
  }
}
