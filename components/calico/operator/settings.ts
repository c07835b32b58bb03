/**
 * The operator install's own settings and defaults, and how Calico's image registry setting maps onto the
 * Installation's `registry` and `imagePath`.
 */

/** How Calico is installed: this program's own manifests (policy-only), or the Tigera operator. */
export const INSTALLERS = ["manifest", "operator"] as const;
export type Installer = (typeof INSTALLERS)[number];

/** Registry holding the operator image (`quay.io/tigera/operator`, as Calico's manifests pin it). */
export const DEFAULT_OPERATOR_REGISTRY = "quay.io/tigera";
export const OPERATOR_IMAGE = "operator";

/** The namespace of the operator itself (fixed by the operator: it watches it for its own Secrets). */
export const OPERATOR_NAMESPACE = "tigera-operator";

/** The namespace the operator installs Calico into (fixed by the operator). */
export const CALICO_SYSTEM_NAMESPACE = "calico-system";

/**
 * The Installation's `registry` (host with a trailing "/") and `imagePath` for a registry prefix such as
 * "quay.io/calico" or "mirror.example.com:5000/team/calico", or undefined for a bare host: the operator
 * puts its default path ("calico") after a registry with no imagePath, so a bare host cannot name the
 * images where the manifest install finds them.
 */
export function installationRegistry(prefix: string): { registry: string; imagePath: string } | undefined {
  const slash = prefix.indexOf("/");
  if (slash === -1) return undefined;
  return { registry: `${prefix.slice(0, slash)}/`, imagePath: prefix.slice(slash + 1) };
}

/** The operator's Deployment, ServiceAccount and ClusterRole name (what Calico's manifests call it). */
export const OPERATOR_NAME = "tigera-operator";
