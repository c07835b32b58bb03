/**
 * The simulated AWS account and cluster the offline engine answers from. Every value only AWS or the
 * cluster would know is a visibly marked placeholder (`<kind:resource-name>`); nothing here pretends to
 * be a real id.
 */
import type * as pulumi from "@pulumi/pulumi";

export const OFFLINE_ACCOUNT_ID = "000000000000";

/** Availability zones (needing no opt-in) the offline world offers per region. */
export const REGION_ZONES: Readonly<Record<string, readonly string[]>> = {
  "us-east-1": ["a", "b", "c", "d", "e", "f"],
  "us-east-2": ["a", "b", "c"],
  "us-west-1": ["a", "c"],
  "us-west-2": ["a", "b", "c", "d"],
  "eu-west-1": ["a", "b", "c"],
  "eu-central-1": ["a", "b", "c"],
  "ap-southeast-2": ["a", "b", "c"],
};

/** How the simulated cluster behaves. */
export interface ClusterSimulation {
  /** Nodes whose calico-node pod is not ready (a rollout in progress or a crash loop). @default 0 */
  notReadyNodes?: number;
}

/** A value only AWS or the cluster knows, shown as a marked placeholder. */
export function placeholder(kind: string, resourceName: string): string {
  return `<${kind}:${resourceName}>`;
}

/** `aws:ec2/natGateway:NatGateway` becomes `natGateway`. */
function shortType(type: string): string {
  return type.split(":")[1]?.split("/").pop() ?? type;
}

export class OfflineWorld implements pulumi.runtime.Mocks {
  /** Desired size of every managed node group registered so far: the simulated nodes. */
  private readonly nodeGroupSizes = new Map<string, number>();

  constructor(
    private readonly region: string | undefined,
    private readonly simulation: ClusterSimulation = {},
  ) {}

  /** Nodes the simulated cluster runs: every node group at its desired size. */
  get nodeCount(): number {
    return [...this.nodeGroupSizes.values()].reduce((a, b) => a + b, 0);
  }

  call(args: pulumi.runtime.MockCallArgs): pulumi.runtime.MockCallResult {
    if (args.token === "aws:index/getAvailabilityZones:getAvailabilityZones") {
      const region = this.region ?? "";
      const zones = REGION_ZONES[region];
      if (zones === undefined) {
        throw new Error(`offline engine: no availability zones known for region "${region}"`);
      }
      const names = zones.map((letter) => `${region}${letter}`);
      return { id: region, names, zoneIds: names.map((n) => placeholder("zone-id", n)), state: "available" };
    }
    throw new Error(
      `offline engine: unexpected call ${args.token}; add it to offline/world.ts if it is intended`,
    );
  }

  newResource(args: pulumi.runtime.MockResourceArgs): {
    id: string | undefined;
    state: Record<string, unknown>;
  } {
    const inputs = args.inputs as Record<string, unknown>;
    if (args.custom !== true)
      return { id: undefined, state: this.componentOutputs(args.type, args.name, inputs) };
    if (args.type.startsWith("kubernetes:")) return this.kubernetesObject(args.type, inputs);
    const id = placeholder(`${shortType(args.type)}-id`, args.name);
    const state: Record<string, unknown> = { ...inputs };
    if (args.type.startsWith("aws:")) {
      state.arn = `arn:aws:${args.type.split(":")[1].split("/")[0]}::${OFFLINE_ACCOUNT_ID}:${placeholder(shortType(args.type), args.name)}`;
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
      case "eks:index:Cluster": {
        const clusterName = typeof inputs.name === "string" ? inputs.name : placeholder("cluster-name", name);
        const endpoint = `https://${placeholder("endpoint", clusterName)}`;
        const kubeconfig = {
          apiVersion: "v1",
          kind: "Config",
          clusters: [
            {
              name: clusterName,
              cluster: { server: endpoint, "certificate-authority-data": placeholder("ca", clusterName) },
            },
          ],
          contexts: [{ name: "aws", context: { cluster: clusterName, user: "aws" } }],
          "current-context": "aws",
          users: [
            {
              name: "aws",
              user: {
                exec: {
                  apiVersion: "client.authentication.k8s.io/v1beta1",
                  command: "aws",
                  args: ["eks", "get-token", "--cluster-name", clusterName, "--output", "json"],
                },
              },
            },
          ],
        };
        return {
          eksCluster: {
            name: clusterName,
            endpoint,
            arn: `arn:aws:eks::${OFFLINE_ACCOUNT_ID}:cluster/${clusterName}`,
          },
          kubeconfig,
          kubeconfigJson: JSON.stringify(kubeconfig),
          oidcProviderArn: placeholder("oidc-provider-arn", clusterName),
          oidcIssuer: placeholder("oidc-issuer", clusterName),
          clusterSecurityGroupId: placeholder("security-group-id", `${name}-cluster`),
          nodeSecurityGroupId: placeholder("security-group-id", `${name}-node`),
        };
      }
      case "eks:index:ManagedNodeGroup": {
        const scaling = inputs.scalingConfig as { desiredSize?: number } | undefined;
        this.nodeGroupSizes.set(name, scaling?.desiredSize ?? 0);
        return { nodeGroup: { nodeGroupName: placeholder("node-group-name", name), ...inputs } };
      }
      case "eks:index:VpcCniAddon":
        return {};
      default:
        if (type.startsWith("eks:")) throw new Error(`offline engine: unexpected remote component ${type}`);
        return {};
    }
  }

  /** Kubernetes objects echo their spec, with the status a converged cluster would report. */
  private kubernetesObject(
    type: string,
    inputs: Record<string, unknown>,
  ): { id: string; state: Record<string, unknown> } {
    const metadata = (inputs.metadata ?? {}) as { name?: string; namespace?: string };
    const id = [metadata.namespace, metadata.name].filter((p) => p !== undefined).join("/");
    const state: Record<string, unknown> = { ...inputs };
    if (type === "kubernetes:apps/v1:DaemonSet") {
      // calico-node tolerates every taint, so every node runs one pod.
      const desired = this.nodeCount;
      const ready = Math.max(0, desired - (this.simulation.notReadyNodes ?? 0));
      state.status = {
        observedGeneration: 1,
        desiredNumberScheduled: desired,
        currentNumberScheduled: desired,
        updatedNumberScheduled: ready,
        numberReady: ready,
        numberAvailable: ready,
        numberUnavailable: desired - ready,
        numberMisscheduled: 0,
      };
    }
    if (type === "kubernetes:apps/v1:Deployment") {
      const replicas = (inputs.spec as { replicas?: number } | undefined)?.replicas ?? 1;
      state.status = {
        observedGeneration: 1,
        replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        updatedReplicas: replicas,
      };
    }
    return { id, state };
  }
}
