/**
 * The offline world: what a plan without credentials needs in place of AWS, one model per file: regions
 * and their AZs, EKS's default add-on versions, the data sources answered from them (aws-calls.ts), the
 * remote @pulumi/eks component's outputs, the stack's deployed node groups and network, an existing
 * cluster, and TLS. A value only AWS would know is a marked placeholder (`<kind:resource-name>`), and a
 * question the world cannot answer is refused. No cluster is simulated: a Kubernetes object's outputs are
 * its inputs without the status only the cluster reports, and what the dynamic steps would find is
 * unknown (offline/engine.ts), as in `pulumi preview`.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  ASSUMED_ZONES_NOTE,
  AWS_CALLS,
  assumedZoneLetters,
  OFFLINE_ENDPOINT_ZONES_NOTE,
  OFFLINE_SSM_NOTE,
  OFFLINE_ZONE_IDS_NOTE,
  availabilityZones,
  ssmParameter,
  vpcEndpointService,
} from "./aws-calls";
import type { EksAddonName } from "./addon-versions";
import { DeployedRouteTables, type RouteTableSimulation } from "./route-tables";
import { DeployedNodeGroups, type NodeGroupSimulation, eksNodeGroupName } from "./node-groups";
import { clusterOutputs } from "./eks";
import { offlineArn, placeholder, shortType } from "./placeholders";
import { SIMULATED_ISSUE_TIME, isTlsResource, revealSecrets, tlsOutputs } from "./tls";
import { READ_STACK_OUTPUTS } from "../../stacks/previous-outputs";
import {
  type ExistingClusterSimulation,
  ExistingClusterWorld,
  isStackCluster,
  stackClusterAnswer,
} from "./existing";
import { REGIONS } from "./regions";

export { UnanswerableCall } from "./aws-calls";
export { OFFLINE_ACCOUNT_ID, placeholder } from "./placeholders";
export { REGIONS } from "./regions";
export { DEFAULT_ADDON_VERSIONS } from "./addon-versions";

/** How the offline world answers for AWS beyond what the stack's last outputs say. */
export interface AwsSimulation {
  /** The EKS cluster an existing-cluster stack names (offline/world/existing.ts); unset: a default one. */
  existingCluster?: ExistingClusterSimulation;
  /** When the tls provider issues certificates (ISO time): a renewal; unset: SIMULATED_ISSUE_TIME (tls.ts). */
  certificatesIssuedAt?: string;
  /** The stack's deployed node groups changed outside Pulumi (offline/world/node-groups.ts). */
  nodeGroups?: NodeGroupSimulation;
  /** AZs AWS does not offer now (state impaired or unavailable): listed only without `state: available`. */
  network?: { unavailableZones?: readonly string[] };
  /**
   * Whether AWS has a full stack's own cluster (offline/world/existing.ts): `true` though the stack
   * has no outputs (a first `up` created it, then failed), `false` though its last outputs name it (it was
   * deleted outside Pulumi); unset, AWS has it exactly when the last outputs name it.
   */
  stackClusterExists?: boolean;
  /** The deployed VPC's route tables (offline/world/route-tables.ts). */
  routeTables?: RouteTableSimulation;
  /** EKS's default add-on versions, where AWS moved them past the recorded table (addon-versions.ts). */
  addonDefaults?: Partial<Record<EksAddonName, string>>;
  /** The Kubernetes version AWS reports for a full stack's own cluster; unset, the last update's. */
  stackClusterVersion?: string;
}

/** What a registration leaves: the resource's id and outputs. */
type Registered =
  | { id: string | undefined; state: Record<string, unknown> }
  | Promise<{ id: string; state: Record<string, unknown> }>;

/** Dynamic resources (pulumi.dynamic.Resource): the steps that read or change the cluster when they run. */
const DYNAMIC = "pulumi-nodejs:dynamic/";

export class OfflineWorld implements pulumi.runtime.Mocks {
  /** What the world answered in AWS's place, for the plan to show as simulated. */
  readonly simulated: string[] = [];
  /** What the world assumed where its tables know nothing: a refusal the plan ends in says so too. */
  readonly assumed: string[] = [];
  /** The desired size of each managed node group registered so far: the nodes AWS runs for it. */
  private readonly groupSizes = new Map<string, number>();
  /** The managed node groups the stack's last update deployed. */
  private readonly deployedGroups: DeployedNodeGroups;
  /** Each registration's ignoreChanges, by `type::name`: the mocks see inputs only. */
  private readonly ignoredChanges = new Map<string, readonly string[]>();

  constructor(
    private readonly region: string | undefined,
    private readonly simulation: AwsSimulation = {},
    private readonly previousOutputs: Record<string, unknown> = {},
    /** The stack's `network` config as written: what a region the tables lack is assumed to have. */
    private readonly network: unknown = undefined,
  ) {
    this.deployedGroups = new DeployedNodeGroups(previousOutputs, simulation.nodeGroups);
    this.routeTables = new DeployedRouteTables(previousOutputs, simulation.routeTables);
  }

  /** The route tables of the stack's deployed VPC. */
  private readonly routeTables: DeployedRouteTables;

  /** The nodes the stack's managed node groups run, or undefined when it registered none. */
  get nodeGroupNodes(): number | undefined {
    if (this.groupSizes.size === 0) return undefined;
    return [...this.groupSizes.values()].reduce((sum, size) => sum + size, 0);
  }

  /** The engine's word of a registration about to reach the world, with its options. */
  noteRegistration(type: string, name: string, ignoreChanges: readonly string[]): void {
    this.ignoredChanges.set(`${type}::${name}`, ignoreChanges);
  }

  call(args: pulumi.runtime.MockCallArgs): pulumi.runtime.MockCallResult {
    try {
      const inputs = args.inputs as Record<string, unknown>;
      // The stack reading its own last outputs (stacks/previous-outputs.ts), as the engine's built-in provider
      // answers: the mock runtime sends the answer through a protobuf Struct, as the engine does.
      if (args.token === READ_STACK_OUTPUTS) {
        return { name: inputs.name, outputs: this.previousOutputs, secretOutputNames: [] };
      }
      if (args.token === "aws:eks/getCluster:getCluster") {
        if (this.existing === undefined && isStackCluster(inputs.name)) {
          const exists =
            this.simulation.stackClusterExists ?? this.previousOutputs.clusterName === inputs.name;
          return stackClusterAnswer(
            String(inputs.name),
            this.region ?? "",
            exists,
            this.stackClusterVersion(),
          );
        }
        return this.existingCluster(inputs.name).getCluster(inputs, this.region ?? "");
      }
      if (args.token === "aws:eks/getAddon:getAddon") {
        return this.existingCluster(inputs.clusterName).getAddon(inputs);
      }
      const movedDefault = this.simulation.addonDefaults?.[inputs.addonName as EksAddonName];
      if (args.token === "aws:eks/getAddonVersion:getAddonVersion" && movedDefault !== undefined) {
        return { ...inputs, id: String(inputs.addonName), version: movedDefault };
      }
      if (args.token === "aws:ec2/getRouteTables:getRouteTables")
        return this.routeTables.getRouteTables(inputs);
      if (args.token === "aws:ec2/getRouteTable:getRouteTable") return this.routeTables.getRouteTable(inputs);
      if (args.token === "aws:eks/getNodeGroup:getNodeGroup") return this.deployedGroups.getNodeGroup(inputs);
      if (args.token === "aws:index/getAvailabilityZones:getAvailabilityZones") {
        return this.availabilityZones(inputs.state, this.region ?? "");
      }
      if (args.token === "aws:ec2/getVpcEndpointService:getVpcEndpointService") {
        if (!this.simulated.includes(OFFLINE_ENDPOINT_ZONES_NOTE))
          this.simulated.push(OFFLINE_ENDPOINT_ZONES_NOTE);
        return vpcEndpointService(inputs, this.region ?? "");
      }
      if (args.token === "aws:ssm/getParameter:getParameter") {
        const parameter = ssmParameter(inputs, this.region ?? "");
        const note = OFFLINE_SSM_NOTE(String(inputs.name));
        if (!this.simulated.includes(note)) this.simulated.push(note);
        return parameter;
      }
      const answer = Object.hasOwn(AWS_CALLS, args.token) ? AWS_CALLS[args.token] : undefined;
      if (answer === undefined) {
        throw new Error(
          `offline engine: unexpected call ${args.token}; add it to offline/world/aws-calls.ts if it is intended`,
        );
      }
      return answer(inputs, this.region ?? "");
    } catch (error) {
      // The SDK reports a failed invoke by its gRPC `details` (runtime/invoke.js), as the CLI sends it.
      throw Object.assign(error as Error, { details: (error as Error).message });
    }
  }

  /**
   * The version the stack's own cluster runs: the simulated one (EKS upgraded it), else the last update's
   * `kubernetesVersion` output, noted in the plan, since EKS may have upgraded it since.
   */
  private stackClusterVersion(): string | undefined {
    const recorded = this.previousOutputs.kubernetesVersion;
    const version =
      this.simulation.stackClusterVersion ?? (typeof recorded === "string" ? recorded : undefined);
    const note =
      this.simulation.stackClusterVersion === undefined
        ? `the cluster runs Kubernetes ${version}, as the last update recorded it (kubernetesVersion); EKS may have upgraded it since, and \`pulumi up\` reads it from EKS`
        : `the cluster runs Kubernetes ${version} (simulated)`;
    if (version !== undefined && !this.simulated.includes(note)) this.simulated.push(note);
    return version;
  }

  /** aws.getAvailabilityZones, noting the zone IDs it gave and the AZs not offered now. */
  private availabilityZones(state: unknown, region: string): Record<string, unknown> {
    const unavailable = state === "available" ? (this.simulation.network?.unavailableZones ?? []) : [];
    const letters = assumedZoneLetters(region, this.network);
    const notes = [OFFLINE_ZONE_IDS_NOTE(region, availabilityZones(region, [], letters))];
    if (!Object.hasOwn(REGIONS, region)) {
      notes.unshift(ASSUMED_ZONES_NOTE(region, letters));
      if (!this.assumed.includes(notes[0])) this.assumed.push(notes[0]);
    }
    if (unavailable.length > 0) notes.push(`AZs not offered now: ${unavailable.join(", ")}`);
    for (const note of notes) if (!this.simulated.includes(note)) this.simulated.push(note);
    return availabilityZones(region, unavailable, letters);
  }

  /** The cluster made elsewhere, described in the plan on first use. */
  private existing: ExistingClusterWorld | undefined;
  private existingCluster(requested: unknown): ExistingClusterWorld {
    if (this.existing === undefined) {
      const world = new ExistingClusterWorld(String(requested), this.simulation.existingCluster);
      // An unknown name is refused before the cluster is described.
      world.getCluster({ name: requested }, this.region ?? "");
      this.existing = world;
      this.simulated.push(world.describe());
    }
    return this.existing;
  }

  /** Set by the first registration refused: the update ends there, as the engine ends `pulumi up`. */
  private halted = false;

  newResource(args: pulumi.runtime.MockResourceArgs): Registered {
    // After a refusal nothing else is applied: later registrations never complete (the engine forgets
    // them) instead of failing after this evaluation has ended, where they would reach the next one.
    if (this.halted) return new Promise(() => undefined);
    try {
      return this.register(args);
    } catch (error) {
      this.halted = true;
      // The SDK reports a failed registration by its gRPC `details`, as the CLI sends it.
      throw Object.assign(error as Error, { details: (error as Error).message });
    }
  }

  private register(args: pulumi.runtime.MockResourceArgs): Registered {
    const inputs = revealSecrets(args.inputs) as Record<string, unknown>;
    if (isTlsResource(args.type)) {
      const issued = this.simulation.certificatesIssuedAt;
      const at = issued === undefined ? SIMULATED_ISSUE_TIME : new Date(issued);
      return tlsOutputs(args.type, inputs, at).then((state) => ({
        id: placeholder(`${shortType(args.type)}-id`, args.name),
        state,
      }));
    }
    if (args.custom !== true)
      return { id: undefined, state: this.componentOutputs(args.type, args.name, inputs) };
    if (args.type.startsWith("kubernetes:")) {
      // An object as applied: what the cluster reports of it (its status) is not known.
      const metadata = (inputs.metadata ?? {}) as { name?: unknown; namespace?: unknown };
      const id = [metadata.namespace, metadata.name].filter((p) => typeof p === "string").join("/");
      const state = { ...inputs };
      delete state.status;
      return { id: id || placeholder(`${shortType(args.type)}-id`, args.name), state };
    }
    // A step that reads or changes the cluster when it runs: nothing of what it finds is known.
    if (args.type.startsWith(DYNAMIC)) return { id: placeholder("step", args.name), state: inputs };
    // `import`: the existing resource must be there (the existing cluster's add-on, a deployed route).
    const route = args.type === "aws:ec2/route:Route" && this.routeTables.hasRoute(args.id ?? "");
    if (args.id !== undefined && args.id !== "" && !route) {
      if (args.type !== "aws:eks/addon:Addon" || this.existing === undefined) {
        throw new Error(
          `offline engine: cannot import ${args.type} ${args.id}: the world has no such resource`,
        );
      }
      this.existing.importAddon(args.id);
    }
    const id = args.id || placeholder(`${shortType(args.type)}-id`, args.name);
    const state: Record<string, unknown> = { ...inputs };
    if (args.type.startsWith("aws:")) {
      const service = args.type.split(":")[1].split("/")[0];
      state.arn = offlineArn(this.region ?? "", service, placeholder(shortType(args.type), args.name), false);
    }
    if (args.type === "aws:iam/role:Role") state.name = placeholder("role-name", args.name);
    // A new launch template's first version is 1.
    if (args.type === "aws:ec2/launchTemplate:LaunchTemplate") state.latestVersion = 1;
    if (args.type === "aws:eks/nodeGroup:NodeGroup")
      Object.assign(state, this.nodeGroupState(args.name, inputs));
    return { id, state };
  }

  /**
   * A managed node group as AWS leaves it: auto-named, a new group at its desiredSize, a deployed one at
   * the desired size it keeps or gets.
   */
  private nodeGroupState(name: string, inputs: Record<string, unknown>): Record<string, unknown> {
    const ignored = this.ignoredChanges.get(`aws:eks/nodeGroup:NodeGroup::${name}`) ?? [];
    const applied = this.deployedGroups.apply(name, inputs, ignored.includes("scalingConfig.desiredSize"));
    this.groupSizes.set(name, applied.desiredSize);
    const count = `${applied.desiredSize} node${applied.desiredSize === 1 ? "" : "s"}`;
    this.simulated.push(`${name}: ${count} (${applied.note})`);
    return {
      nodeGroupName: eksNodeGroupName(name),
      scalingConfig: { ...(inputs.scalingConfig as object), desiredSize: applied.desiredSize },
    };
  }

  /** Outputs of the remote @pulumi/eks component the program reads; local components have none. */
  private componentOutputs(
    type: string,
    name: string,
    inputs: Record<string, unknown>,
  ): Record<string, unknown> {
    if (type === "eks:index:Cluster") return clusterOutputs(name, inputs, this.region ?? "");
    if (type.startsWith("eks:")) throw new Error(`offline engine: unexpected remote component ${type}`);
    return {};
  }
}
