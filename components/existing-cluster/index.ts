/**
 * An EKS cluster made elsewhere, as an existing-cluster stack uses it: a Kubernetes provider built from
 * the cluster's endpoint and CA, and its VPC CNI set up for Calico. A vpc-cni EKS add-on is taken into
 * the stack (imported in place, never replaced, retained on delete, never protected: no destroy deletes
 * it) with Calico's settings merged into its configuration, then aws-node is read to prove they are in
 * force (aws-node-check.ts); a self-managed VPC CNI was checked before (stacks/existing.ts).
 *
 * One enforcer at a time, never none: an add-on whose network-policy agent enforces policy is updated
 * before Calico only when the agent stays on (`networkPolicyAgent: on`, the hand-over's first step).
 * Turning it off waits for Calico: calico-node ready, then the hand-over step (hand-over-step.ts), then
 * the add-on's update and the aws-node check, then the probe (`afterCalico`).
 */
import * as aws from "@pulumi/aws";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ExistingClusterFacts } from "./facts";
import { execKubeconfig } from "./kubeconfig";
import { type ClusterAccess, clusterProvider } from "../cluster/provider";
import type { AfterCalico } from "../kubernetes/after-calico";
import { NetworkPolicyAgentHandOver } from "./hand-over-step";
import { HAND_OVER_TAG } from "./hand-over-tag";
import { AwsNodeCheck } from "./aws-node-check";
import { changedElsewhereWarning, describeChanges } from "./vpc-cni-owner";
import {
  type ManagedVpcCni,
  type NetworkPolicyAgent,
  networkPolicyAgentOn,
  ownedSettings,
  vpcCniChange,
} from "./vpc-cni";

/** What this stack does with the VPC CNI's network-policy agent, as the `vpcCni` output shows it. */
export interface VpcCniOutput {
  readonly managed: boolean;
  readonly changes: string[];
  /** The agent after this update: "off", or "on" while Calico runs beside it. */
  readonly networkPolicyAgent: NetworkPolicyAgent;
  /** What is under way while the agent hands over to Calico; absent otherwise. */
  readonly handOver?: string;
  /**
   * The settings this stack owns in the add-on (`enableNetworkPolicy`, `env.<NAME>`), as aws-node was read
   * running them after the update (aws-node-check.ts); the next update compares the add-on with them.
   * Absent for a self-managed VPC CNI.
   */
  readonly settings?: pulumi.Output<Record<string, string>>;
  /** Owned settings changed outside this stack since its last update, which this one sets back. */
  readonly changedElsewhere?: string[];
}

export interface ExistingClusterArgs {
  readonly facts: ExistingClusterFacts;
  readonly region: string;
  /** Tags added to the add-on's own. */
  readonly tags: Record<string, string>;
  /** `cluster.existing.networkPolicyAgent`; unset only where the agent is off (stacks/existing.ts). */
  readonly networkPolicyAgent?: NetworkPolicyAgent;
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
  /**
   * What Calico starts after (and is removed before): the VPC CNI add-on, when this stack manages it and
   * does not turn its network-policy agent off in this update.
   */
  readonly calicoAfter: pulumi.Resource[];
  /**
   * What must follow Calico (and the probe must wait for): the hand-over step, the add-on's update and the
   * aws-node check, when this update turns the agent off; nothing otherwise.
   */
  readonly afterCalico: AfterCalico;
  /** The agent stays on beside Calico: the probe cannot tell Calico's enforcement from the agent's. */
  readonly agentKeptOn: boolean;
  /** How the VPC CNI is installed, what this stack changes in its configuration, and the agent's state. */
  readonly vpcCni: VpcCniOutput;
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

    this.afterCalico = () => [];
    this.agentKeptOn = false;
    if (!facts.vpcCni.managed) {
      this.calicoAfter = [];
      this.vpcCni = { managed: false, changes: [], networkPolicyAgent: "off" };
    } else {
      const current = facts.vpcCni;
      const agentOn = networkPolicyAgentOn(current.configurationValues);
      const wanted = args.networkPolicyAgent ?? "off";
      const change = vpcCniChange(current.configurationValues, wanted);
      this.agentKeptOn = agentOn && wanted === "on";
      this.vpcCniConfiguration = change.configurationValues;
      const owned = ownedSettings(wanted);
      // The add-on's update, then aws-node read to prove what it set is in force.
      const checked = (dependsOn: pulumi.Resource[]) =>
        new AwsNodeCheck(
          `${name}-aws-node`,
          { kubeconfig: this.kubeconfig, cluster: facts.name, settings: owned },
          {
            parent: this,
            dependsOn: [this.vpcCniAddon(name, args, current, change.configurationValues, dependsOn)],
          },
        );
      const elsewhere = facts.vpcCniChangedElsewhere;
      if (elsewhere.length > 0) void pulumi.log.warn(changedElsewhereWarning(facts.name, elsewhere), this);
      const reported = (settings: pulumi.Output<Record<string, string>>) => ({
        settings,
        ...(elsewhere.length === 0 ? {} : { changedElsewhere: describeChanges(elsewhere) }),
      });
      if (agentOn && wanted === "off") {
        // Calico first, then the check that it enforces and that nothing is left, then the agent off.
        this.calicoAfter = [];
        // The check is made with Calico (its constructor calls afterCalico), after this constructor: its
        // result reaches `settings` through a promise. This branch always has Calico: the first update of
        // a reinstall, which has none, keeps the agent on (index.ts).
        let settle: (verified: pulumi.Output<Record<string, string>>) => void = () => undefined;
        const verified = new Promise<pulumi.Output<Record<string, string>>>((resolve) => (settle = resolve));
        this.afterCalico = (calico) => {
          const step = new NetworkPolicyAgentHandOver(
            `${name}-network-policy-agent`,
            { kubeconfig: this.kubeconfig, cluster: facts.name, calicoNode: calico.calicoNode },
            { parent: this, dependsOn: calico.resources },
          );
          const check = checked([step]);
          settle(check.verified);
          return [check];
        };
        this.vpcCni = {
          managed: true,
          changes: change.changes,
          networkPolicyAgent: "off",
          handOver:
            "the agent is turned off once calico-node is ready and no network policy is left for it (the hand-over step), then the probe proves Calico enforces",
          ...reported(pulumi.output(verified)),
        };
      } else {
        const check = checked([]);
        this.calicoAfter = [check];
        this.vpcCni = {
          managed: true,
          changes: change.changes,
          networkPolicyAgent: agentOn ? "on" : "off",
          ...reported(check.verified),
          ...(this.agentKeptOn
            ? {
                handOver:
                  "Calico runs beside the agent, and the probe waits until the agent is off: copy the cluster's policies to Calico, delete them, then set cluster.existing.networkPolicyAgent: off",
              }
            : {}),
        };
      }
    }
    this.registerOutputs({ clusterName: this.clusterName, vpcCni: this.vpcCni });
  }

  /**
   * The vpc-cni add-on, imported with its id `<cluster>:vpc-cni`; since pulumi/pulumi#19339 an import whose
   * inputs differ succeeds and then updates the add-on in place. Everything but the configuration (and
   * the hand-over tag) is what EKS reports now, so the update changes nothing else (version, IAM role, pod
   * identity, tags).
   */
  private vpcCniAddon(
    name: string,
    args: ExistingClusterArgs,
    current: ManagedVpcCni,
    configurationValues: string,
    dependsOn: pulumi.Resource[],
  ): aws.eks.Addon {
    return new aws.eks.Addon(
      `${name}-vpc-cni`,
      {
        clusterName: args.facts.name,
        addonName: "vpc-cni",
        addonVersion: current.addonVersion,
        configurationValues,
        ...(current.serviceAccountRoleArn === ""
          ? {}
          : { serviceAccountRoleArn: current.serviceAccountRoleArn }),
        ...(current.podIdentityAssociations.length === 0
          ? {}
          : { podIdentityAssociations: [...current.podIdentityAssociations] }),
        // Edits made to aws-node outside the add-on are kept, as EKS keeps them on an update with PRESERVE.
        resolveConflictsOnUpdate: "PRESERVE",
        preserve: true,
        tags: {
          ...current.tags,
          ...args.tags,
          ...(this.agentKeptOn ? { [HAND_OVER_TAG.key]: HAND_OVER_TAG.value } : {}),
        },
      },
      {
        parent: this,
        import: `${args.facts.name}:vpc-cni`,
        // The cluster's networking is not this stack's to delete: `pulumi destroy` only forgets it. Never
        // protected, since that would refuse the destroy (a delete of a protected resource is refused
        // before retainOnDelete is looked at: pulumi/pulumi pkg/resource/deploy/step.go DeleteStep.Apply).
        retainOnDelete: true,
        dependsOn,
      },
    );
  }
}
