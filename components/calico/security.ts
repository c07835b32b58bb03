/**
 * Security contexts of the pods that need no privilege (Typha's autoscaler, the policy probe): what the
 * Pod Security `restricted` profile asks for, plus a read-only root filesystem. Functions, so each pod
 * gets its own mutable copy, as the Kubernetes input types want it.
 * https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
 */

/** Pod level: a non-root user (nobody) and the container runtime's default seccomp profile. */
export function nonRootPodSecurity() {
  return {
    runAsNonRoot: true,
    runAsUser: 65534,
    runAsGroup: 65534,
    seccompProfile: { type: "RuntimeDefault" },
  };
}

/** Container level: no privilege escalation, no capabilities, nothing written outside volumes. */
export function restrictedContainerSecurity() {
  return { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } };
}
