/**
 * The EKS clusters aws.eks.getCluster finds: a full stack's own (`<project>-<stack>`, which
 * stacks/creator.ts asks about before the program registers it) when the last outputs name it, unless
 * the simulation says otherwise (`stackClusterExists`); and the cluster an existing-cluster stack
 * (`cluster.existing`) names, which the world cannot see: it answers for the one the evaluation
 * describes, or DEFAULT_EXISTING_CLUSTER, and says so in the plan. Any other name is refused as AWS
 * would, and the vpc-cni add-on can be read or imported only if that cluster has it.
 */
import * as pulumi from "@pulumi/pulumi";
import { clusterNameFor } from "../../stacks/collisions";
import { DEFAULT_ADDON_VERSIONS } from "./addon-versions";
import { offlineArn, placeholder } from "./placeholders";

/** EKS's answer for a cluster it does not have. */
const notFound = (name: unknown) =>
  new Error(`ResourceNotFoundException: No cluster found for name: ${String(name)}.`);

/**
 * aws.eks.getCluster for a cluster AWS has, as the Terraform data source answers it: every field the
 * program reads is there for every cluster (DescribeCluster always returns them), `facts` over the
 * defaults of a cluster the world was told nothing about.
 */
function describeCluster(name: string, region: string, facts: Partial<ClusterFacts> = {}) {
  const { version, status, ipFamily, autoMode } = { ...DEFAULT_EXISTING_CLUSTER, ...facts };
  return {
    id: name,
    name,
    arn: offlineArn(region, "eks", `cluster/${name}`, true),
    endpoint: placeholder("cluster-endpoint", name),
    certificateAuthorities: [{ data: placeholder("cluster-ca", name) }],
    kubernetesNetworkConfigs: [{ ipFamily }],
    // DescribeCluster's computeConfig, which Auto Mode turns on with its built-in node pools.
    computeConfigs: autoMode
      ? [
          {
            enabled: true,
            nodePools: ["general-purpose", "system"],
            nodeRoleArn: offlineArn(region, "iam", "role/AmazonEKSAutoNodeRole", false),
          },
        ]
      : [],
    version,
    status,
  };
}

type ClusterFacts = Pick<ExistingClusterSimulation, "version" | "status" | "ipFamily" | "autoMode">;

/** Whether `name` is the cluster this stack creates (stacks/index.ts names it `<project>-<stack>`). */
export function isStackCluster(name: unknown): boolean {
  return name === clusterNameFor(pulumi.getProject(), pulumi.getStack());
}

/**
 * aws.eks.getCluster for the stack's own cluster, which AWS has or not (`exists`), at `version`: the one
 * the last update recorded, or a placeholder where it recorded none (the world cannot know it).
 */
export function stackClusterAnswer(
  name: string,
  region: string,
  exists: boolean,
  version: string | undefined,
): Record<string, unknown> {
  if (!exists) throw notFound(name);
  return describeCluster(name, region, { version: version ?? placeholder("kubernetes-version", name) });
}

export interface ExistingClusterSimulation {
  /** The cluster's name; the world has no other existing cluster. Unset: the one the stack names. */
  readonly name?: string;
  /** Kubernetes minor version of the control plane. */
  readonly version?: string;
  readonly status?: string;
  /** `kubernetesNetworkConfig.ipFamily`: `ipv4` or `ipv6`. */
  readonly ipFamily?: string;
  /** EKS Auto Mode (`computeConfig.enabled`). */
  readonly autoMode?: boolean;
  /** The VPC CNI: the EKS add-on with these configuration values, or self-managed (no add-on). */
  readonly vpcCni?:
    { readonly managed: true; readonly configurationValues?: string } | { readonly managed: false };
  /** kube-proxy: the EKS add-on with these configuration values, or self-managed (no add-on). */
  readonly kubeProxy?:
    { readonly managed: true; readonly configurationValues?: string } | { readonly managed: false };
}

/**
 * What the world assumes of a cluster it was told nothing about: what `eksctl create cluster` makes by
 * default (the vpc-cni and kube-proxy EKS add-ons with no configuration values, IPv4), on Kubernetes 1.35.
 */
export const DEFAULT_EXISTING_CLUSTER = {
  version: "1.35",
  status: "ACTIVE",
  ipFamily: "ipv4",
  autoMode: false,
  vpcCni: { managed: true, configurationValues: "" },
  kubeProxy: { managed: true, configurationValues: "" },
} as const;

/** The existing cluster's answers to AWS data sources. */
export class ExistingClusterWorld {
  private readonly facts: Required<Omit<ExistingClusterSimulation, "name">> & { name: string };

  constructor(requested: string, simulation: ExistingClusterSimulation | undefined) {
    this.facts = { ...DEFAULT_EXISTING_CLUSTER, ...simulation, name: simulation?.name ?? requested };
  }

  /** How the plan describes what it assumed. */
  describe(): string {
    const f = this.facts;
    const cni = f.vpcCni.managed
      ? `the vpc-cni EKS add-on with ${f.vpcCni.configurationValues ? `configuration values ${f.vpcCni.configurationValues}` : "no configuration values"}`
      : "a self-managed VPC CNI (no add-on)";
    const proxy = f.kubeProxy.managed
      ? `the kube-proxy EKS add-on with ${f.kubeProxy.configurationValues ? `configuration values ${f.kubeProxy.configurationValues}` : "no configuration values"}`
      : "a self-managed kube-proxy";
    return `existing cluster ${f.name}: not visible offline, simulated as Kubernetes ${f.version}, ${f.status}, ${f.ipFamily}, ${f.autoMode ? "in Auto Mode" : "not in Auto Mode"}, ${cni}, ${proxy}`;
  }

  private requireCluster(name: unknown): void {
    if (name !== this.facts.name) throw notFound(name);
  }

  /** aws.eks.getCluster, as the Terraform data source answers it. */
  getCluster(args: Record<string, unknown>, region: string): Record<string, unknown> {
    this.requireCluster(args.name);
    const { name, version, status, ipFamily, autoMode } = this.facts;
    return describeCluster(name, region, { version, status, ipFamily, autoMode });
  }

  /** aws.eks.getAddon: the vpc-cni or kube-proxy add-on if the cluster has it, else the provider's not-found. */
  getAddon(args: Record<string, unknown>): Record<string, unknown> {
    this.requireCluster(args.clusterName);
    const proxy = this.facts.kubeProxy;
    if (args.addonName === "kube-proxy" && proxy.managed) {
      return {
        id: `${this.facts.name}:kube-proxy`,
        clusterName: this.facts.name,
        addonName: "kube-proxy",
        configurationValues: proxy.configurationValues ?? "",
        tags: {},
      };
    }
    const cni = this.facts.vpcCni;
    if (args.addonName !== "vpc-cni" || !cni.managed) {
      throw new Error(
        `reading EKS Add-On (${this.facts.name}:${String(args.addonName)}): couldn't find resource`,
      );
    }
    const versions = Object.hasOwn(DEFAULT_ADDON_VERSIONS, this.facts.version)
      ? DEFAULT_ADDON_VERSIONS[this.facts.version]
      : undefined;
    if (versions === undefined)
      throw new Error(`no vpc-cni version known for Kubernetes ${this.facts.version}`);
    return {
      id: `${this.facts.name}:vpc-cni`,
      clusterName: this.facts.name,
      addonName: "vpc-cni",
      addonVersion: versions["vpc-cni"],
      configurationValues: cni.configurationValues ?? "",
      serviceAccountRoleArn: "",
      podIdentityAssociations: [],
      tags: {},
    };
  }

  /** An import of `<cluster>:<add-on>`: only an add-on the cluster has can be imported. */
  importAddon(id: string): void {
    if (id !== `${this.facts.name}:vpc-cni` || !this.facts.vpcCni.managed) {
      throw new Error(`import of aws:eks/addon:Addon ${id}: the resource does not exist`);
    }
  }
}
