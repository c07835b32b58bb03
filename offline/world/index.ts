/**
 * The simulated AWS account and cluster the offline engine answers from, one model per file:
 * - regions.ts: AWS regions and their availability zones;
 * - addon-versions.ts: EKS's default add-on version per Kubernetes version;
 * - aws-calls.ts: the data sources the program reads, answered from those tables;
 * - eks.ts: outputs of the remote @pulumi/eks components;
 * - nodes.ts: the nodes each node group starts with;
 * - node-groups.ts: the node groups the stack deployed before, at the desired size they run at;
 * - vpcs.ts: the VPC and subnets the stack has on AWS, and the AZs AWS offers now;
 * - scheduling.ts: where a pod can run;
 * - workloads.ts: what the cluster reports for each Kubernetes object, or how its apply fails;
 * - pods.ts: bare Pods (the policy probe's anchor), bound to a node or reported unschedulable;
 * - jobs.ts: the policy probe's client Jobs, run against the NetworkPolicies applied (network-policy.ts);
 * - operator.ts: the Tigera operator installing Calico for an Installation, judged by `pulumi.com/waitFor`
 *   (wait-for.ts), and reads of the objects it creates;
 * - tls.ts: the tls provider, with real keys and certificates;
 * - existing.ts: the EKS cluster an existing-cluster stack names, simulated since it cannot be seen;
 * - stack-cluster.ts: whether a full stack's own cluster exists before the program registers it;
 * - kubeconfig.ts: the cluster behind a kubeconfig stack's file, simulated since it cannot be reached;
 * - adoption.ts: objects already in the cluster, the takeover step, and what creating one of the same name
 *   does.
 * Every value only AWS or the cluster would know is a visibly marked placeholder (`<kind:resource-name>`);
 * nothing here pretends to be a real id, and a question the world cannot answer is refused.
 */
import type * as pulumi from "@pulumi/pulumi";
import { AWS_CALLS } from "./aws-calls";
import { type SimulatedNode, nodesOfGroup } from "./nodes";
import { DeployedNodeGroups } from "./node-groups";
import { DeployedNetworkWorld, NETWORK_CALLS } from "./vpcs";
import { type ClusterSimulation, applyObject } from "./workloads";
import { clusterOutputs, managedNodeGroupOutputs } from "./eks";
import { offlineArn, placeholder, shortType } from "./placeholders";
import { SIMULATED_ISSUE_TIME, TLS_RESOURCES } from "./tls";
import { revealSecrets } from "./wire";
import { type AppliedObject, runJob } from "./jobs";
import { applyPod } from "./pods";
import type { PlacedPod } from "./scheduling";
import { applyOperatorResource, isOperatorResource, readObject } from "./operator";
import { ExistingClusterWorld } from "./existing";
import { isStackCluster, stackClusterAnswer } from "./stack-cluster";
import { KUBECONFIG_CLUSTER_TYPE, KubeconfigClusterWorld } from "./kubeconfig";
import { ExistingObjects } from "./adoption";
import { TAKEOVER_TYPE } from "../../components/calico/takeover";
import { TYPHA_RETIREMENT_TYPE } from "../../components/calico/takeover/typha-retirement";
import { HAND_OVER_TYPE } from "../../components/existing-cluster/hand-over-step";
import { AWS_NODE_CHECK_TYPE } from "../../components/existing-cluster/aws-node-check";
import type { OpenSchema } from "../../components/calico/takeover/schemas";
import type { ObjectRef } from "../../components/calico/takeover/run";

export { UnanswerableCall } from "./aws-calls";
export { type ClusterSimulation, SimulatedFailure } from "./workloads";
export { CannotSimulate } from "./scheduling";
export { OFFLINE_ACCOUNT_ID, placeholder } from "./placeholders";
export { REGIONS } from "./regions";
export { DEFAULT_ADDON_VERSIONS } from "./addon-versions";

export class OfflineWorld implements pulumi.runtime.Mocks {
  /** The nodes of every managed node group registered so far, by group. */
  private readonly groups = new Map<string, SimulatedNode[]>();
  /** The Kubernetes objects applied so far, in order: what the cluster's API would list. */
  private readonly objects: AppliedObject[] = [];
  /** The pods bound to nodes so far (Deployments' and bare Pods'), for inter-pod affinity. */
  private readonly pods: PlacedPod[] = [];
  /** What the world decided that AWS or the cluster would decide, for the plan to show as simulated. */
  readonly simulated: string[] = [];
  /** Kubernetes providers by id: whether each upserts existing objects. */
  private readonly upserting = new Map<string, boolean>();
  /** What the cluster had before this stack (kubectl-applied objects). */
  private readonly before: ExistingObjects;
  /** The managed node groups the stack's last update deployed. */
  private readonly deployedGroups: DeployedNodeGroups;
  /** The AZs AWS offers now. */
  private readonly deployedNetwork: DeployedNetworkWorld;

  constructor(
    private readonly region: string | undefined,
    private readonly simulation: ClusterSimulation = {},
    private readonly previousOutputs: Record<string, unknown> = {},
  ) {
    this.before = new ExistingObjects(simulation.existingObjects);
    this.deployedGroups = new DeployedNodeGroups(previousOutputs, simulation.nodeGroups);
    this.deployedNetwork = new DeployedNetworkWorld(simulation.network, this.simulated);
  }

  /** The simulated cluster's nodes: every node group at its desired size. */
  get nodes(): SimulatedNode[] {
    return [...this.groups.values()].flat();
  }

  call(args: pulumi.runtime.MockCallArgs): pulumi.runtime.MockCallResult {
    try {
      const inputs = args.inputs as Record<string, unknown>;
      if (args.token === "aws:eks/getCluster:getCluster") {
        if (this.existing === undefined && isStackCluster(inputs.name)) {
          const exists = this.simulation.stackClusterExists;
          return stackClusterAnswer(String(inputs.name), this.region ?? "", exists, this.previousOutputs);
        }
        return this.existingCluster(inputs.name).getCluster(inputs, this.region ?? "");
      }
      if (args.token === "aws:eks/getAddon:getAddon") {
        return this.existingCluster(inputs.clusterName).getAddon(inputs);
      }
      if (args.token === "aws:eks/getNodeGroup:getNodeGroup") return this.deployedGroups.getNodeGroup(inputs);
      if ((NETWORK_CALLS as readonly string[]).includes(args.token)) {
        return this.deployedNetwork.availabilityZones(inputs, this.region ?? "");
      }
      const answer = Object.hasOwn(AWS_CALLS, args.token) ? AWS_CALLS[args.token] : undefined;
      if (answer === undefined) {
        throw new Error(
          `offline engine: unexpected call ${args.token}; add it to offline/world/aws-calls.ts if it is intended`,
        );
      }
      return answer(args.inputs as Record<string, unknown>, this.region ?? "");
    } catch (error) {
      // The SDK reports a failed invoke by its gRPC `details` (runtime/invoke.js), as the CLI sends it.
      throw Object.assign(error as Error, { details: (error as Error).message });
    }
  }

  /** The cluster made elsewhere, simulated on first use: its nodes join the world. */
  private existing: ExistingClusterWorld | undefined;
  private existingCluster(requested: unknown): ExistingClusterWorld {
    if (this.existing === undefined) {
      const world = new ExistingClusterWorld(String(requested), this.simulation.existingCluster);
      // Only a cluster that exists has nodes: an unknown name is refused before any is added.
      world.getCluster({ name: requested }, this.region ?? "");
      this.existing = world;
      this.groups.set("existing-cluster", world.nodes());
      this.simulated.push(world.describe());
    }
    return this.existing;
  }

  /** The cluster behind a kubeconfig, simulated once its component is registered. */
  private behindKubeconfig: KubeconfigClusterWorld | undefined;

  /** Set by the first registration refused: the update ends there, as the engine ends `pulumi up`. */
  private halted = false;

  newResource(
    args: pulumi.runtime.MockResourceArgs,
  ):
    | { id: string | undefined; state: Record<string, unknown> }
    | Promise<{ id: string; state: Record<string, unknown> }> {
    // After a refusal nothing else is applied: later registrations never complete (the engine forgets
    // them) instead of failing after this evaluation has ended, where they would reach the next one.
    if (this.halted) return new Promise(() => undefined);
    try {
      return this.register(args);
    } catch (error) {
      this.halted = true;
      throw error;
    }
  }

  private register(
    args: pulumi.runtime.MockResourceArgs,
  ):
    | { id: string | undefined; state: Record<string, unknown> }
    | Promise<{ id: string; state: Record<string, unknown> }> {
    const inputs = revealSecrets(args.inputs) as Record<string, unknown>;
    const tls = Object.hasOwn(TLS_RESOURCES, args.type) ? TLS_RESOURCES[args.type] : undefined;
    if (tls !== undefined) {
      const issued = this.simulation.certificatesIssuedAt;
      return tls(inputs, issued === undefined ? SIMULATED_ISSUE_TIME : new Date(issued)).then((state) => ({
        id: placeholder(`${shortType(args.type)}-id`, args.name),
        state,
      }));
    }
    if (args.custom !== true)
      return { id: undefined, state: this.componentOutputs(args.type, args.name, inputs) };
    // The stack reading its own last outputs (stacks/previous.ts).
    if (args.type === "pulumi:pulumi:StackReference") {
      return { id: String(inputs.name), state: { name: inputs.name, outputs: this.previousOutputs } };
    }
    if (args.type.startsWith("kubernetes:")) {
      try {
        // A read (`Resource.get`) names an object by id; it is answered from what the cluster has.
        if (args.id !== undefined && args.id !== "") {
          return { id: args.id, state: readObject(args.type, args.id, this.objects) };
        }
        // An object that exists already: refused, or taken over by an upserting provider.
        const provider = this.upserting.get(args.provider?.split("::").pop() ?? "") ?? false;
        this.before.create(args.type, inputs, provider, this.simulated);
        if (isOperatorResource(args.type)) {
          const { id, state, created } = applyOperatorResource(
            args.type,
            inputs,
            this.objects,
            this.nodes,
            this.simulation,
            this.simulated,
          );
          this.objects.push({ type: args.type, inputs: state }, ...created);
          return { id, state };
        }
        if (args.type === "kubernetes:batch/v1:Job" || args.type === "kubernetes:core/v1:Pod") {
          const ran =
            args.type === "kubernetes:batch/v1:Job"
              ? runJob(inputs, this.objects, this.nodes, this.simulation, this.simulated, this.pods)
              : applyPod(inputs, this.nodes, this.pods, this.simulated);
          this.objects.push({ type: args.type, inputs });
          return ran;
        }
        const applied = applyObject(
          args.type,
          inputs,
          this.nodes,
          this.simulation,
          this.simulated,
          this.pods,
        );
        // Kept with the status it reports, for a later read of it (`Resource.get`).
        this.objects.push({ type: args.type, inputs: applied.state });
        return applied;
      } catch (error) {
        // The SDK reports a failed registration by its gRPC `details`, as the CLI sends it.
        throw Object.assign(error as Error, { details: (error as Error).message });
      }
    }
    if (args.type === TAKEOVER_TYPE) {
      const results = this.before.takeOver(
        inputs.objects as ObjectRef[],
        inputs.adopt === true,
        this.simulated,
      );
      const schemas = this.before.stricterSchemas(
        (inputs.openSchemas ?? []) as OpenSchema[],
        String(inputs.calicoLine),
      );
      return { id: "takeover", state: { ...inputs, results, schemas } };
    }
    if (args.type === TYPHA_RETIREMENT_TYPE) {
      const deleted = this.before.retireTypha(
        String(inputs.namespace),
        String(inputs.retired),
        this.simulated,
      );
      return { id: "typha-retirement", state: { ...inputs, deleted } };
    }
    if (args.type === HAND_OVER_TYPE) {
      if (this.existing === undefined)
        throw new Error("offline engine: a hand-over step without an existing cluster");
      return {
        id: "network-policy-agent-hand-over",
        state: { ...inputs, ...this.existing.handOver(this.simulated) },
      };
    }
    if (args.type === AWS_NODE_CHECK_TYPE) {
      if (this.existing === undefined)
        throw new Error("offline engine: an aws-node check without an existing cluster");
      const settings = inputs.settings as Record<string, string>;
      return {
        id: "vpc-cni-aws-node-check",
        state: { ...inputs, ...this.existing.checkAwsNode(settings, this.simulated) },
      };
    }
    // `import`: the existing resource must be there (only the existing cluster's add-on can be).
    if (args.id !== undefined && args.id !== "") {
      if (args.type !== "aws:eks/addon:Addon" || this.existing === undefined) {
        throw new Error(
          `offline engine: cannot import ${args.type} ${args.id}: the world has no such resource`,
        );
      }
      this.existing.importAddon(args.id);
    }
    const id = args.id || placeholder(`${shortType(args.type)}-id`, args.name);
    const state: Record<string, unknown> = { ...inputs };
    if (args.type === "pulumi:providers:kubernetes") {
      this.upserting.set(
        id,
        inputs.upsertExistingObjects === true || inputs.upsertExistingObjects === "true",
      );
      const note = this.behindKubeconfig?.describeOnce(inputs);
      if (note !== undefined) this.simulated.push(note);
    }
    if (args.type.startsWith("aws:")) {
      const service = args.type.split(":")[1].split("/")[0];
      state.arn = offlineArn(this.region ?? "", service, placeholder(shortType(args.type), args.name), false);
    }
    if (args.type === "aws:iam/role:Role") state.name = placeholder("role-name", args.name);
    // A new launch template's first version is 1.
    if (args.type === "aws:ec2/launchTemplate:LaunchTemplate") state.latestVersion = 1;
    return { id, state };
  }

  /** Outputs of the remote @pulumi/eks components the program reads; local components have none. */
  private componentOutputs(
    type: string,
    name: string,
    inputs: Record<string, unknown>,
  ): Record<string, unknown> {
    switch (type) {
      case "eks:index:Cluster":
        return clusterOutputs(name, inputs, this.region ?? "");
      case KUBECONFIG_CLUSTER_TYPE:
        // Its nodes exist before anything is applied through its provider.
        this.behindKubeconfig = new KubeconfigClusterWorld(this.simulation.kubeconfigCluster);
        this.groups.set("kubeconfig-cluster", this.behindKubeconfig.nodes());
        return {};
      case "eks:index:ManagedNodeGroup": {
        // What AWS runs: a new group at its desiredSize, a deployed one at the desired size it keeps or gets.
        const applied = this.deployedGroups.apply(name, inputs);
        const scalingConfig = { ...(inputs.scalingConfig as object), desiredSize: applied.desiredSize };
        const nodes = nodesOfGroup(name, { ...inputs, scalingConfig });
        this.groups.set(name, nodes);
        this.simulated.push(
          `${name}: ${nodes.length} node${nodes.length === 1 ? "" : "s"} (${applied.note})`,
        );
        return managedNodeGroupOutputs(name, { ...inputs, scalingConfig });
      }
      default:
        if (type.startsWith("eks:")) throw new Error(`offline engine: unexpected remote component ${type}`);
        return {};
    }
  }
}
