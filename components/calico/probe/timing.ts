/**
 * The probe's clock: how long each client tries, and why. Plain numbers, shared by the Job scripts, the
 * offline world and the benchmark.
 *
 * Felix programs a new policy, and a new pod's endpoint, within seconds of seeing them; Calico's own
 * end-to-end network-policy checks allow 10 seconds for a policy to take effect. The VPC CNI's
 * ANNOTATE_POD_IP (components/cluster/addons.ts) removes the window in which a new pod's address is
 * unknown to Felix.
 */

/** Seconds each connection attempt may take before it counts as blocked (a dropped SYN never answers). */
export const CONNECT_TIMEOUT_SECONDS = 2;
/** Seconds between attempts. */
export const ATTEMPT_INTERVAL_SECONDS = 1;

/**
 * The allowed client retries for up to this long: six times the 10 seconds Calico's checks allow, so a
 * slow API server or a busy Felix does not fail a working cluster, while a broken one fails in a minute.
 * The recheck client, the allowed client once more after the denied window, has the same budget, and a
 * recheck counts only when it started within this long of the window's end (window.ts).
 */
export const ALLOWED_WITHIN_SECONDS = 60;

/**
 * The denied client starts only after the allowed one connected (so the server is reachable and the
 * policies exist), then waits this long more before its first attempt: Calico's 10 seconds for a policy
 * to take effect, counted from a moment already after the policy was created.
 */
export const DENIED_SETTLE_SECONDS = 10;
/** Attempts of the denied client; every one must be blocked. */
export const DENIED_ATTEMPTS = 5;

/** The denied client's window: settle, then each attempt timing out and the pause after it. */
export const DENIED_WINDOW_SECONDS =
  DENIED_SETTLE_SECONDS + DENIED_ATTEMPTS * (CONNECT_TIMEOUT_SECONDS + ATTEMPT_INTERVAL_SECONDS);

/**
 * Seconds a probe pod takes from creation to running its command: scheduling, pulling the small agnhost
 * image (about 50 MB) on a node that lacks it, and starting. A planning figure for the benchmark, from
 * EKS nodes pulling from registry.k8s.io in-region.
 */
export const POD_START_SECONDS = 15;

/**
 * Seconds a probe pod takes to start on a node that already has the image: the denied and recheck
 * clients run where their pair's allowed client pulled it. Kubernetes' pod startup SLO, excluding image
 * pulls: 99th percentile <= 5 s (kubernetes/community sig-scalability/slos/pod_startup_latency.md).
 */
export const CACHED_POD_START_SECONDS = 5;

/**
 * Seconds from creating the anchor pod to the scheduler's decision on it (its PodScheduled condition):
 * one scheduling cycle, no image pull, as the anchor is awaited only until it is placed or refused.
 */
export const SCHEDULING_SECONDS = 1;

/**
 * The probe's share of a first `pulumi up`, its steps in sequence: the server, the anchor, then each
 * kind of client (the two pairs' allowed clients run side by side, then their denied clients, then their
 * recheck clients).
 */
export function probeCriticalPathSeconds(): { steps: { step: string; seconds: number }[]; total: number } {
  const steps = [
    { step: "server Deployment ready", seconds: POD_START_SECONDS },
    { step: "anchor placed on another node, or refused", seconds: SCHEDULING_SECONDS },
    { step: "allowed clients connect (first attempt)", seconds: POD_START_SECONDS + CONNECT_TIMEOUT_SECONDS },
    {
      step: "denied clients blocked on every attempt",
      seconds: CACHED_POD_START_SECONDS + DENIED_WINDOW_SECONDS,
    },
    {
      step: "recheck clients connect (first attempt)",
      seconds: CACHED_POD_START_SECONDS + CONNECT_TIMEOUT_SECONDS,
    },
  ];
  return { steps, total: steps.reduce((sum, s) => sum + s.seconds, 0) };
}
