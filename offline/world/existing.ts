/**
 * An EKS cluster made elsewhere, as an existing-cluster stack (`cluster.existing`) finds it. The offline
 * world cannot see a real cluster: it answers for the one the evaluation describes, or else a plain one
 * (see DEFAULT_EXISTING_CLUSTER), and says so in the plan. It answers `aws.eks.getCluster` and
 * `aws.eks.getAddon` for that cluster only, refuses any other name as AWS would, and lets the vpc-cni
 * add-on be imported only if the cluster has it.
 */
import { DEFAULT_ADDON_VERSIONS } from "./addon-versions";
import { offlineArn, placeholder } from "./placeholders";

export interface ExistingClusterSimulation {
  /** The cluster's name; the world has no other existing cluster. Unset: the one the stack names. */
  readonly name?: string;
  /** Kubernetes minor version of the control plane. */
  readonly version?: string;
  readonly status?: string;
  /** The VPC CNI: the EKS add-on with these configuration values, or self-managed (no add-on). */
  readonly vpcCni?:
    { readonly managed: true; readonly configurationValues?: string } | { readonly managed: false };
}

/**
 * What the world assumes of a cluster it was told nothing about: what `eksctl create cluster` makes by
 * default (the vpc-cni EKS add-on with no configuration values), on Kubernetes 1.35.
 */
export const DEFAULT_EXISTING_CLUSTER = {
  version: "1.35",
  status: "ACTIVE",
  vpcCni: { managed: true, configurationValues: "" },
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
    return `existing cluster ${f.name}: not visible offline, simulated as Kubernetes ${f.version}, ${f.status}, ${cni}`;
  }

  private requireCluster(name: unknown): void {
    if (name !== this.facts.name) {
      throw new Error(`ResourceNotFoundException: No cluster found for name: ${String(name)}.`);
    }
  }

  /** aws.eks.getCluster, as the Terraform data source answers it. */
  getCluster(args: Record<string, unknown>, region: string): Record<string, unknown> {
    this.requireCluster(args.name);
    const name = this.facts.name;
    return {
      id: name,
      name,
      arn: offlineArn(region, "eks", `cluster/${name}`, true),
      endpoint: placeholder("cluster-endpoint", name),
      certificateAuthorities: [{ data: placeholder("cluster-ca", name) }],
      version: this.facts.version,
      status: this.facts.status,
    };
  }

  /** aws.eks.getAddon: the vpc-cni add-on if the cluster has it, else the Terraform provider's not-found. */
  getAddon(args: Record<string, unknown>): Record<string, unknown> {
    this.requireCluster(args.clusterName);
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
