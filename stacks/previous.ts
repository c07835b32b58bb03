/**
 * The Calico install the stack's last update left (its `calico` output, stacks/previous-outputs.ts), and
 * what this update may do from it: switching `calico.installer` on a live cluster.
 */
import { expiryWarning } from "../components/calico/certificate-expiry";
import { calicoMinorOf, supportedMinorOf } from "../components/calico/defaults";
import { TWO_INSTALLS } from "../components/calico/install-check";
import { lineChangeNotice } from "../components/calico/line-policies";
import { migrationBlockers } from "../components/calico/operator/migration";
import { INSTALLERS, type Installer } from "../components/calico/operator/settings";
import type { PreviousOutputs } from "./previous-outputs";
import type { ConfigProblem } from "./problems";
import type { CalicoConfig } from "./schema";

/** The Calico install the stack's last update left, from its `calico` output. */
export interface PreviousCalico {
  /** "none" after the first step of a reinstall. */
  installer: Installer | "none";
  version?: string;
  namespace?: string;
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

/**
 * The warning when the deployed Typha certificates (the last `calico.typhaCertificatesExpire`) expire
 * within 30 days of `now`: said by every preview, drift check, offline plan and `up` until renewed.
 */
export function certificateNotice(outputs: PreviousOutputs, now: Date): string | undefined {
  const expiry = (outputs.calico as Record<string, unknown> | undefined)?.typhaCertificatesExpire;
  return typeof expiry === "string" && !Number.isNaN(Date.parse(expiry))
    ? expiryWarning(expiry, now)
    : undefined;
}

/** The notice for an update that moves the deployed Calico to another line (line-policies.ts). */
export function lineNotice(previous: PreviousCalico | undefined, calico: CalicoConfig): string | undefined {
  const from = previous?.installer === "none" ? undefined : previous?.version;
  const fromLine = from === undefined ? undefined : calicoMinorOf(from);
  if (from === undefined || fromLine === undefined) return undefined;
  return lineChangeNotice(from, fromLine, calico.version, supportedMinorOf(calico.version), calico.installer);
}

/**
 * A manifest install keeps its namespace on a deployed stack, except through a reinstall. Moving it in one
 * update would run two installs at once: pulumi-kubernetes deletes a replaced object first only when its
 * replacement keeps both name and namespace (provider/pkg/provider/provider.go Diff, v4.25.0), so the new
 * namespace's calico-node and Typha are created, and awaited, while the old ones run. Typha uses the host
 * network: the new one cannot bind the port the old one holds on the same node, and on a cluster with no
 * node to spare its await fails every time; where it starts, two privileged Felixes program the same
 * chains on every node, a new pod's readiness check on port 9099 is answered by the old Felix, and the
 * ClusterRoleBindings move to the new service accounts while the old pods still run.
 */
function namespaceStep(
  previous: PreviousCalico,
  calico: CalicoConfig,
): { step: CalicoStep } | { problems: ConfigProblem[] } {
  if (previous.installer !== "manifest" || previous.namespace === undefined) return { step: "install" };
  if (previous.namespace === calico.namespace) return { step: "install" };
  if (calico.reinstall) return { step: "remove-for-reinstall" };
  return {
    problems: [
      {
        path: "calico.namespace",
        value: calico.namespace,
        rule: `cannot move the deployed Calico from ${previous.namespace} to ${calico.namespace} in one update: the new calico-node and Typha would be created while the old ones run, and two installs cannot share the nodes`,
        details: [...TWO_INSTALLS],
        hint: `set it back to ${previous.namespace}, or move it in two updates with calico.reinstall: true (docs/install-modes.md, "Moving Calico to another namespace")`,
        steps: [
          `\`pulumi up\` with calico.namespace ${calico.namespace} and calico.reinstall: true removes the install from ${previous.namespace} (the CRDs and every policy stay; pods created until the next step get no policy)`,
          `\`pulumi up\` again installs Calico in ${calico.namespace}; then remove calico.reinstall`,
        ],
      },
    ],
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
  if (previous === undefined || previous.installer === "none") return { step: "install" };
  if (previous.installer === calico.installer) return namespaceStep(previous, calico);
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
