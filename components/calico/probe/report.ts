/**
 * What the probe proved, for the `calico.probe` output and `calico.policyEnforced`: per pair of clients,
 * whether it ran, whether each of its Jobs succeeded, and whether the recheck's success vouches for this
 * run's denied window (window.ts). Pure functions of the Jobs' statuses and the anchor's placement.
 */
import type { AnchorPlacement } from "./anchor";
import { type Client, PAIRS, type Pair, clientJobName } from "./clients";
import { ALLOWED_WITHIN_SECONDS } from "./timing";
import { type JobStatus, deniedWindowEnd, jobSucceeded, recheckNotCounted } from "./window";

export type { JobStatus } from "./window";

/** What one client Job proved. */
export interface ClientResult {
  job: string;
  expected: string;
  succeeded: boolean;
}

/** The recheck client: its Job's result, and whether that success counts for this run's denied window. */
export interface RecheckResult extends ClientResult {
  /** True only when it succeeded after this run's denied window ended, and in this run. */
  afterDeniedWindow: boolean;
  /** Why it does not count, when it does not. */
  notCounted?: string;
}

/** One pair: an allowed, a denied and a recheck client on one node. */
export interface PairReport {
  /** Where the pair's clients run, relative to the server. */
  node: string;
  /** False only for the other-node pair when no node but the server's could take it. */
  ran: boolean;
  /** Why the pair did not run, when it did not. */
  notRun?: string;
  allowedClient: ClientResult;
  deniedClient: ClientResult;
  /** The allowed client once more, after the denied window: the server still answered. */
  recheckClient: RecheckResult;
}

export interface ProbeReport {
  namespace: string;
  sameNode: PairReport;
  otherNode: PairReport;
}

export const PAIR_NODES: Record<Pair, string> = {
  "same-node": "the server's node",
  "other-node": "a node other than the server's",
};

export function probeReport(args: {
  namespace: string;
  id: string;
  /** The policies' names, for what each client proves. */
  allowPolicy: string;
  denyPolicy: string;
  placement: AnchorPlacement;
  statuses: Record<Pair, Record<Client, JobStatus>>;
}): ProbeReport {
  const notRunWhy = (which: Pair): string | undefined =>
    which === "other-node" && !args.placement.placed ? args.placement.why : undefined;
  const ran = (which: Pair) => notRunWhy(which) === undefined;
  // The run's denied window: both pairs' denied clients, or the same-node one's alone.
  const windowEnd = deniedWindowEnd(PAIRS.filter(ran).map((which) => args.statuses[which].denied));
  const pair = (which: Pair): PairReport => {
    const notRun = notRunWhy(which);
    const recheck = args.statuses[which].recheck;
    const notCounted = recheckNotCounted(recheck, windowEnd);
    return {
      node: PAIR_NODES[which],
      ran: notRun === undefined,
      ...(notRun === undefined ? {} : { notRun }),
      allowedClient: {
        job: clientJobName("allowed", args.id, which),
        expected: `connects to the server through ${args.allowPolicy}`,
        succeeded: jobSucceeded(args.statuses[which].allowed),
      },
      deniedClient: {
        job: clientJobName("denied", args.id, which),
        expected: `blocked by ${args.denyPolicy} on every attempt`,
        succeeded: jobSucceeded(args.statuses[which].denied),
      },
      recheckClient: {
        job: clientJobName("recheck", args.id, which),
        expected: `connects again through ${args.allowPolicy} after the denied clients' attempts, starting within ${ALLOWED_WITHIN_SECONDS} s of their end, so they met a server that answered`,
        succeeded: jobSucceeded(recheck),
        afterDeniedWindow: notCounted === undefined,
        ...(notCounted === undefined || !jobSucceeded(recheck) ? {} : { notCounted }),
      },
    };
  };
  return { namespace: args.namespace, sameNode: pair("same-node"), otherNode: pair("other-node") };
}

/**
 * Enforcement is proven when every pair that ran proved it: its allowed client connected, its denied
 * client was blocked on every attempt, and its recheck client connected after that, in the same run (a
 * server gone away meanwhile is refused by kube-proxy, which a denied client would count as blocked; a
 * recheck run again alone in a later `up` says nothing of the window). The same-node pair always runs.
 */
export function policyEnforcedBy(report: ProbeReport): boolean {
  return [report.sameNode, report.otherNode]
    .filter((pair) => pair.ran)
    .every(
      (pair) =>
        pair.allowedClient.succeeded &&
        pair.deniedClient.succeeded &&
        pair.recheckClient.succeeded &&
        pair.recheckClient.afterDeniedWindow,
    );
}
