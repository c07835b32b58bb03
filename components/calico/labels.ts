/**
 * Labels. Selectors use only `k8s-app` (what Calico's manifests and docs select on); they never carry
 * the version, because a Deployment's or DaemonSet's selector is immutable and changing it forces
 * Pulumi to replace the workload.
 */

/** On every object: which system it belongs to and what manages it. Never depends on the version. */
export const COMMON_LABELS: Readonly<Record<string, string>> = {
  "app.kubernetes.io/part-of": "eks-calico",
  "app.kubernetes.io/managed-by": "pulumi",
};

/** The recommended version label; only on workloads and their pod templates, never in a selector. */
export const VERSION_LABEL = "app.kubernetes.io/version";

/** The selector of a workload (`k8s-app: calico-node`). */
export function selectorLabels(app: string): Record<string, string> {
  return { "k8s-app": app };
}

/** Labels of a workload, its pod template and its Service: selector labels plus the common ones. */
export function appLabels(app: string): Record<string, string> {
  return { ...COMMON_LABELS, ...selectorLabels(app) };
}

/** Workload and pod-template labels: the app labels plus the Calico release they run. */
export function workloadLabels(app: string, version: string): Record<string, string> {
  return { ...appLabels(app), [VERSION_LABEL]: version };
}
