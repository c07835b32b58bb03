/**
 * What the stack last deployed, for the changes that depend on it (switching `calico.installer` on a live
 * cluster, the network and node-group changes AWS can make). Read from the stack's own last outputs
 * through a StackReference to itself (a supported pattern, pulumi/pulumi#3722): a new stack has none;
 * every update sees the outputs of the last one.
 */
import * as pulumi from "@pulumi/pulumi";
import { migrationBlockers } from "../components/calico/operator/migration";
import { INSTALLERS, type Installer } from "../components/calico/operator/settings";
import type { ConfigProblem } from "./problems";
import type { CalicoConfig } from "./schema";

/** The Calico install the stack's last update left, from its `calico` output. */
export interface PreviousCalico {
  /** "none" after the first step of a reinstall. */
  installer: Installer | "none";
  version?: string;
  namespace?: string;
}

/**
 * The stack outputs later updates depend on. Each is read through the same StackReference: a stack
 * reference is one resource, registered once per update.
 */
export const PREVIOUS_OUTPUT_NAMES = [
  "calico",
  "network",
  // With no `network`: a stack 0.1.0 last updated (stacks/previous-network.ts).
  "vpcId",
  "nodeGroupScaling",
  "clusterCreator",
  "vpcCni",
  // The cluster a full stack made, and where: a rename or a region change would replace it
  // (stacks/deployed-cluster.ts).
  "clusterName",
  "region",
] as const;
export type PreviousOutputName = (typeof PREVIOUS_OUTPUT_NAMES)[number];

/** The last update's outputs by name; a name the last update did not export (or a new stack) is absent. */
export type PreviousOutputs = Readonly<Partial<Record<PreviousOutputName, unknown>>>;

/** The outputs of the stack's last update that later updates depend on; empty for a stack never deployed. */
export async function readPreviousOutputs(): Promise<PreviousOutputs> {
  const self = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
  const reference = new pulumi.StackReference("previous-deployment", { name: self });
  const outputs: Partial<Record<PreviousOutputName, unknown>> = {};
  for (const name of PREVIOUS_OUTPUT_NAMES) {
    const details = await reference.getOutputDetails(name);
    const value: unknown = details.value ?? details.secretValue;
    if (value !== undefined && value !== null) outputs[name] = value;
  }
  return outputs;
}

/** The `calico` output of the stack's last update, or undefined for a stack never deployed. */
export function previousCalico(outputs: PreviousOutputs): PreviousCalico | undefined {
  const calico = outputs.calico as Record<string, unknown> | undefined;
  if (calico === undefined || typeof calico !== "object") return undefined;
  const installer = calico.installer;
  return {
    installer:
      installer === "none" || (INSTALLERS as readonly unknown[]).includes(installer)
        ? (installer as PreviousCalico["installer"])
        : "manifest",
    version: typeof calico.version === "string" ? calico.version : undefined,
    namespace: typeof calico.namespace === "string" ? calico.namespace : undefined,
  };
}

/** What this update does with Calico: install (or keep) the configured mode, or remove it to reinstall. */
export type CalicoStep = "install" | "remove-for-reinstall";

/**
 * The step to take from `previous` to `calico`, or the problems that refuse it. Manifest to operator is
 * the operator's own migration when it can convert the manifest install (same release, kube-system, and
 * a calico-node its converter accepts); otherwise it is refused, or with `calico.reinstall` a reinstall:
 * this update removes the manifest install (CRDs stay), the next installs the operator.
 */
export function calicoStep(
  previous: PreviousCalico | undefined,
  calico: CalicoConfig,
): { step: CalicoStep } | { problems: ConfigProblem[] } {
  if (previous === undefined || previous.installer === "none" || previous.installer === calico.installer) {
    return { step: "install" };
  }
  const problem = (rule: string, hint: string, details?: string[]): { problems: ConfigProblem[] } => ({
    problems: [
      {
        path: "calico.installer",
        value: calico.installer,
        rule,
        hint,
        ...(details !== undefined ? { details } : {}),
      },
    ],
  });
  if (previous.installer === "operator") {
    return problem(
      'cannot go back from "operator" to "manifest" on a deployed stack: the operator created Calico\'s CRDs, which the manifest install would have to create again (it fails with AlreadyExists)',
      'keep "operator", or follow "Switching install mode" in docs/install-modes.md',
    );
  }
  const blockers = migrationBlockers(previous, calico.version);
  if (blockers.length === 0) return { step: "install" };
  if (calico.reinstall) return { step: "remove-for-reinstall" };
  return problem(
    `cannot switch this deployed stack from "manifest" to "operator" in place: the operator cannot convert its manifest install, for ${blockers.length === 1 ? "this reason" : `these ${blockers.length} reasons`}`,
    "set calico.reinstall: true to reinstall instead: this update removes the manifest install (its CRDs and your policies stay), the next installs the operator; pods created in between get no policy until then",
    blockers,
  );
}
