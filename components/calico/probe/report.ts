/**
 * What the probe proved, for the `calico.probe` output and `calico.policyEnforced`: per pair of clients,
 * whether it ran, and whether each of its Jobs succeeded. Pure functions of the Jobs' statuses and the
 * anchor's placement.
 */
import type { AnchorPlacement } from "./anchor";
import { type Client, type Pair, clientJobName } from "./clients";

/** What one client Job proved. */
export interface ClientResult {
  job: string;
  expected: string;
  succeeded: boolean;
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
  recheckClient: ClientResult;
}

export interface ProbeReport {
  namespace: string;
  sameNode: PairReport;
  otherNode: PairReport;
}

/** A Job's status as the provider returns it; `succeeded` counts completed pods. */
export type JobStatus = { succeeded?: number } | undefined;

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
  const succeeded = (status: JobStatus) => (status?.succeeded ?? 0) >= 1;
  const pair = (which: Pair): PairReport => {
    const notRun = which === "other-node" && !args.placement.placed ? args.placement.why : undefined;
    return {
      node: PAIR_NODES[which],
      ran: notRun === undefined,
      ...(notRun === undefined ? {} : { notRun }),
      allowedClient: {
        job: clientJobName("allowed", args.id, which),
        expected: `connects to the server through ${args.allowPolicy}`,
        succeeded: succeeded(args.statuses[which].allowed),
      },
      deniedClient: {
        job: clientJobName("denied", args.id, which),
        expected: `blocked by ${args.denyPolicy} on every attempt`,
        succeeded: succeeded(args.statuses[which].denied),
      },
      recheckClient: {
        job: clientJobName("recheck", args.id, which),
        expected: `connects again through ${args.allowPolicy} after the denied client's attempts, so they met a server that answered`,
        succeeded: succeeded(args.statuses[which].recheck),
      },
    };
  };
  return { namespace: args.namespace, sameNode: pair("same-node"), otherNode: pair("other-node") };
}

/**
 * Enforcement is proven when every pair that ran proved it: its allowed client connected, its denied
 * client was blocked on every attempt, and its recheck client connected after that (a server gone away
 * meanwhile is refused by kube-proxy, which a denied client would count as blocked). The same-node pair
 * always runs.
 */
export function policyEnforcedBy(report: ProbeReport): boolean {
  return [report.sameNode, report.otherNode]
    .filter((pair) => pair.ran)
    .every(
      (pair) => pair.allowedClient.succeeded && pair.deniedClient.succeeded && pair.recheckClient.succeeded,
    );
}
