/**
 * The hand-over step: during the `pulumi up` that turns the VPC CNI's network-policy agent off, after
 * calico-node is ready and before the vpc-cni add-on's update, it reads the cluster (agent-hand-over.ts)
 * and stops the update, naming what is left, unless Calico enforces and nothing is left for the agent.
 * A dynamic resource: it runs in the Node.js program with the stack's kubeconfig. It changes nothing in
 * the cluster. It exists only while the hand-over is pending (the update after the agent is off no longer
 * has it), and it checks again on every update until then (components/kubernetes/checking-step.ts: always pending), since
 * policies can be created between two runs.
 */
import * as pulumi from "@pulumi/pulumi";
import { credentialsOf } from "../kubernetes/client";
import { checkingStep } from "../kubernetes/checking-step";
import {
  type CalicoNodeRef,
  type HandOverFindings,
  handOverFindings,
  handOverRefusal,
} from "./agent-hand-over";

/** The dynamic resource's type token, `pulumi-nodejs:dynamic/<module>:<type>` (@pulumi/pulumi dynamic). */
export const HAND_OVER_TYPE = "pulumi-nodejs:dynamic/vpc-cni:NetworkPolicyAgentHandOver";

export interface HandOverInputs {
  readonly kubeconfig: string;
  readonly context?: string;
  /** The EKS cluster's name, for the message. */
  readonly cluster: string;
  readonly calicoNode: CalicoNodeRef;
}

/** Named apart from any global (mocha defines `run`): a global is not captured when Pulumi serializes. */
async function checkHandOver(inputs: HandOverInputs): Promise<HandOverFindings> {
  const findings = await handOverFindings(
    credentialsOf(inputs.kubeconfig, inputs.context),
    inputs.calicoNode,
  );
  const refusal = handOverRefusal(inputs.cluster, findings);
  if (refusal !== undefined) throw new Error(refusal);
  return findings;
}

/** Loaded from its serialized text by Pulumi's dynamic provider host: it calls only imported functions. */
export const handOverProvider = checkingStep("network-policy-agent-hand-over", checkHandOver, () =>
  Promise.resolve(true),
);

export interface HandOverStepArgs {
  readonly kubeconfig: pulumi.Input<string>;
  readonly context?: pulumi.Input<string>;
  readonly cluster: string;
  readonly calicoNode: CalicoNodeRef;
}

export class NetworkPolicyAgentHandOver extends pulumi.dynamic.Resource {
  /** What the step found: nothing left, once it succeeded. */
  declare readonly remaining: pulumi.Output<string[]>;

  constructor(name: string, args: HandOverStepArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      handOverProvider,
      name,
      {
        kubeconfig: pulumi.secret(args.kubeconfig),
        context: args.context,
        cluster: args.cluster,
        calicoNode: args.calicoNode,
        remaining: undefined,
      },
      opts,
      "vpc-cni",
      "NetworkPolicyAgentHandOver",
    );
  }
}
