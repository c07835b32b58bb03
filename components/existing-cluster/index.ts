/**
 * An EKS cluster made elsewhere, as an existing-cluster stack uses it: a Kubernetes provider built from
 * the cluster's endpoint and CA, and its VPC CNI set up for Calico. A vpc-cni EKS add-on is taken into
 * the stack (imported in place, never replaced, retained on delete) with Calico's settings merged into its
 * configuration; a self-managed VPC CNI was checked before (stacks/existing.ts).
 */
import * as aws from "@pulumi/aws";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ExistingClusterFacts } from "./facts";
import { execKubeconfig } from "./kubeconfig";
import { type ClusterAccess, clusterProvider } from "../cluster/provider";
import { vpcCniChange } from "./vpc-cni";

export interface ExistingClusterArgs {
  readonly facts: ExistingClusterFacts;
  readonly region: string;
  /** Tags added to the add-on's own. */
  readonly tags: Record<string, string>;
  /** Protects the imported add-on from deletion by Pulumi. */
  readonly protect: boolean;
}

export class ExistingCluster extends pulumi.ComponentResource {
  readonly clusterName: string;
  readonly clusterEndpoint: string;
  readonly kubeconfig: pulumi.Output<string>;
  readonly provider: k8s.Provider;
  /** The cluster's ARN: the Kubernetes providers' cluster identifier. */
  readonly clusterArn: string;
  /** What every Kubernetes provider for this cluster is given: the kubeconfig and the ARN. */
  readonly access: ClusterAccess;
  /** What Calico starts after (and is removed before): the VPC CNI add-on, when this stack manages it. */
  readonly calicoAfter: pulumi.Resource[];
  /** How the VPC CNI is installed, and what this stack changes in its configuration. */
  readonly vpcCni: { managed: boolean; changes: string[] };
  /** The configuration values this stack gives the vpc-cni add-on; undefined when it does not own one. */
  readonly vpcCniConfiguration?: string;

  constructor(name: string, args: ExistingClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:cluster:Existing", name, {}, opts);
    const { facts } = args;
    this.clusterName = facts.name;
    this.clusterEndpoint = facts.endpoint;
    // The token comes from the deployer's AWS CLI at each run; the kubeconfig holds no credential, but is
    // secret like the full stack's (it names the endpoint and CA).
    this.kubeconfig = pulumi.secret(
      execKubeconfig({
        clusterName: facts.name,
        region: args.region,
        endpoint: facts.endpoint,
        certificateAuthority: facts.certificateAuthority,
      }),
    );
    this.clusterArn = facts.arn;
    this.access = { kubeconfig: this.kubeconfig, clusterIdentifier: facts.arn };
    this.provider = clusterProvider(name, this.access, { parent: this });

    if (!facts.vpcCni.managed) {
      this.calicoAfter = [];
      this.vpcCni = { managed: false, changes: [] };
    } else {
      const current = facts.vpcCni;
      const change = vpcCniChange(current.configurationValues);
      // Imported with its id `<cluster>:vpc-cni`; since pulumi/pulumi#19339 an import whose inputs differ
      // succeeds and then updates the add-on in place. Everything but the configuration is what EKS
      // reports now, so the update changes nothing else (version, IAM role, pod identity, tags).
      const addon = new aws.eks.Addon(
        `${name}-vpc-cni`,
        {
          clusterName: facts.name,
          addonName: "vpc-cni",
          addonVersion: current.addonVersion,
          configurationValues: change.configurationValues,
          ...(current.serviceAccountRoleArn === ""
            ? {}
            : { serviceAccountRoleArn: current.serviceAccountRoleArn }),
          ...(current.podIdentityAssociations.length === 0
            ? {}
            : { podIdentityAssociations: [...current.podIdentityAssociations] }),
          // Edits made to aws-node outside the add-on are kept, as EKS keeps them on an update with PRESERVE.
          resolveConflictsOnUpdate: "PRESERVE",
          preserve: true,
          tags: { ...current.tags, ...args.tags },
        },
        {
          parent: this,
          import: `${facts.name}:vpc-cni`,
          // The cluster's networking is not this stack's to delete.
          retainOnDelete: true,
          protect: args.protect,
        },
      );
      this.calicoAfter = [addon];
      this.vpcCni = { managed: true, changes: change.changes };
      this.vpcCniConfiguration = change.configurationValues;
    }
    this.registerOutputs({ clusterName: this.clusterName, vpcCni: this.vpcCni });
  }
}
