/**
 * The aws-node check: during `pulumi up`, after the vpc-cni add-on's update, it reads the aws-node
 * DaemonSet through the Kubernetes API and stops the update, naming each setting this stack owns that
 * aws-node does not run as the add-on sets it (aws-node.ts), so neither Calico nor the `vpcCni` output
 * goes ahead on a setting that is not in force. A dynamic resource, as the hand-over step
 * (hand-over-step.ts): it runs in the Node.js program with the stack's kubeconfig and changes nothing in
 * the cluster. Every preview and update reads aws-node again (components/kubernetes/checking-step.ts), since aws-node can be
 * edited between two runs and an add-on whose configuration did not change is not updated at all
 * (terraform-provider-aws internal/service/eks/addon.go calls UpdateAddon only when the version, role,
 * configuration values or pod identity associations change): a setting that differs makes the step run,
 * and refuse; none leaves it unchanged.
 */
import * as pulumi from "@pulumi/pulumi";
import { credentialsOf, kubeGetOrMissing } from "../kubernetes/client";
import { checkingStep } from "../kubernetes/checking-step";
import { AWS_NODE, type AwsNodeDaemonSet, awsNodeRefusal } from "./aws-node";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const AWS_NODE_CHECK_TYPE = "pulumi-nodejs:dynamic/vpc-cni:AwsNodeCheck";

/**
 * How long a refusal is re-read before it stops the update. The provider waits for the add-on's update to
 * report Successful (addon.go waitAddonUpdateSuccessful); EKS does not document that the DaemonSet is
 * written by then, so a difference is read again for this long before it counts.
 */
export const AWS_NODE_SETTLE_SECONDS = 30;
const POLL_SECONDS = 5;
const AWS_NODE_PATH = `/apis/apps/v1/namespaces/${AWS_NODE.namespace}/daemonsets/${AWS_NODE.name}`;

export interface AwsNodeCheckInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** The EKS cluster's name, for the message. */
  readonly cluster: string;
  /** The owned settings (`enableNetworkPolicy`, `env.<NAME>`) with the values the add-on sets. */
  readonly settings: Readonly<Record<string, string>>;
  readonly settleSeconds: number;
}

/** Named apart from any global (mocha defines `run`): a global is not captured when Pulumi serializes. */
async function checkAwsNodeSettings(
  inputs: AwsNodeCheckInputs,
): Promise<{ verified: Record<string, string> }> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const deadline = Date.now() + inputs.settleSeconds * 1000;
  for (;;) {
    const daemonSet = await kubeGetOrMissing<AwsNodeDaemonSet>(credentials, AWS_NODE_PATH);
    const refusal = awsNodeRefusal(inputs.cluster, daemonSet, inputs.settings);
    if (refusal === undefined) return { verified: { ...inputs.settings } };
    if (Date.now() >= deadline) throw new Error(refusal);
    await new Promise((resolve) => setTimeout(resolve, POLL_SECONDS * 1000));
  }
}

/** Whether aws-node runs a setting otherwise than the add-on sets it, read once. */
async function awsNodeDiffers(inputs: AwsNodeCheckInputs): Promise<boolean> {
  const credentials = credentialsOf(inputs.kubeconfig, inputs.context);
  const daemonSet = await kubeGetOrMissing<AwsNodeDaemonSet>(credentials, AWS_NODE_PATH);
  return awsNodeRefusal(inputs.cluster, daemonSet, inputs.settings) !== undefined;
}

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const awsNodeCheckProvider = checkingStep(
  "vpc-cni-aws-node-check",
  checkAwsNodeSettings,
  awsNodeDiffers,
);

export interface AwsNodeCheckArgs {
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  readonly cluster: string;
  readonly settings: Readonly<Record<string, string>>;
}

export class AwsNodeCheck extends pulumi.dynamic.Resource {
  /** The settings aws-node was read running, once the check passed: what the `vpcCni` output reports. */
  declare readonly verified: pulumi.Output<Record<string, string>>;

  constructor(name: string, args: AwsNodeCheckArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      awsNodeCheckProvider,
      name,
      {
        kubeconfig: pulumi.secret(args.kubeconfig),
        context: args.context,
        cluster: args.cluster,
        settings: args.settings,
        settleSeconds: AWS_NODE_SETTLE_SECONDS,
        verified: undefined,
      },
      opts,
      "vpc-cni",
      "AwsNodeCheck",
    );
  }
}
