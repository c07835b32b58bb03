/**
 * How long a calico-node rollout takes, and so how long `pulumi up` must wait for it. Plain functions,
 * shared by the config schema (which derives the default timeout and refuses one the rollout cannot meet),
 * the component and the benchmark.
 *
 * The model: the DaemonSet controller replaces `maxUnavailable` pods at a time (a percentage rounds up,
 * https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/daemon-set-v1/), and a wave takes
 * as long as its slowest node: image pull, Felix start and readiness. 20 to 40 s per node is what Calico
 * upgrades show on EKS; the model takes the slow end. Typha rolls first, within the fixed base.
 */

/** calico-node replaced at once: a count, or a percentage of the nodes. */
export type MaxUnavailable = number | `${number}%`;

/**
 * 10%: a rollout takes about ten waves at any size (3 nodes or 5,000), so it fits a fixed timeout, while
 * at most a tenth of the nodes run without Felix at a time. A restarting calico-node leaves the rules it
 * programmed in place; only pods started on those nodes during the restart wait for policy.
 */
export const DEFAULT_MAX_UNAVAILABLE: MaxUnavailable = "10%";

/** Seconds one wave of calico-node pods takes to be replaced and ready (the slow end of 20-40 s). */
export const SECONDS_PER_WAVE = 40;

/** Seconds before the first wave: Typha's own rollout, scheduling and the first image pulls. */
export const BASE_SECONDS = 120;

/** Headroom of the derived timeout over the estimate. */
const TIMEOUT_HEADROOM = 1.5;

/** The smallest timeout the program derives: the provider's own default. */
export const MIN_DERIVED_TIMEOUT_MINUTES = 10;

/** The longest wait the program accepts, derived or configured. */
export const MAX_TIMEOUT_MINUTES = 24 * 60;

/** Pods the DaemonSet replaces at once on `nodes` nodes: a percentage rounds up, never below 1. */
export function unavailableAtOnce(nodes: number, maxUnavailable: MaxUnavailable): number {
  if (typeof maxUnavailable === "number") return Math.max(1, Math.min(maxUnavailable, nodes));
  const percent = Number(maxUnavailable.slice(0, -1));
  return Math.max(1, Math.ceil((nodes * percent) / 100));
}

export interface RolloutEstimate {
  nodes: number;
  atOnce: number;
  waves: number;
  seconds: number;
}

/** The estimated time to roll calico-node over `nodes` nodes. */
export function estimateRollout(nodes: number, maxUnavailable: MaxUnavailable): RolloutEstimate {
  const atOnce = unavailableAtOnce(nodes, maxUnavailable);
  const waves = Math.ceil(Math.max(nodes, 1) / atOnce);
  return { nodes, atOnce, waves, seconds: BASE_SECONDS + waves * SECONDS_PER_WAVE };
}

/** Whole minutes, rounded up. */
export function minutesOf(seconds: number): number {
  return Math.ceil(seconds / 60);
}

/** The readiness timeout the program uses unless one is configured: the estimate plus headroom. */
export function derivedTimeoutMinutes(estimate: RolloutEstimate): number {
  return Math.max(MIN_DERIVED_TIMEOUT_MINUTES, Math.ceil((estimate.seconds * TIMEOUT_HEADROOM) / 60));
}

/** "300 nodes, 30 at a time: 10 waves x 40 s + 120 s = 9 min" */
export function describeEstimate(estimate: RolloutEstimate, maxUnavailable: MaxUnavailable): string {
  return (
    `${estimate.nodes} nodes at maxUnavailable ${String(maxUnavailable)} (${estimate.atOnce} at a time): ` +
    `${estimate.waves} waves x ${SECONDS_PER_WAVE} s + ${BASE_SECONDS} s = ${minutesOf(estimate.seconds)} min`
  );
}
