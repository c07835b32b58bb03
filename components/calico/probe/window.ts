/**
 * The run's denied window, and whether a recheck client's success vouches for it: the rule
 * `policyEnforced` follows (report.ts). Judged from the Jobs' statuses alone, as the provider returns them:
 * the Job controller sets `startTime` when it first syncs a Job and `completionTime` when the Job completes,
 * both from its own clock (kubernetes pkg/controller/job/job_controller.go), so one run's times compare.
 *
 * A recheck's success proves the server answered after the denied window only when it ran in the same
 * run. A recheck that failed is replaced on the next `pulumi up` (`pulumi.com/replaceUnready`) while the
 * completed denied Jobs are not: the replacement's success, however late, would otherwise vouch for a
 * window it never followed. And a recheck that started before a denied Job completed (a denied Job run
 * again by hand) followed an older window.
 */
import { ALLOWED_WITHIN_SECONDS } from "./timing";

/**
 * A Job's status as the provider returns it: `succeeded` and `failed` count pods; `startTime` and
 * `completionTime` are RFC 3339 times of the Job controller.
 */
export type JobStatus =
  { succeeded?: number; failed?: number; startTime?: string; completionTime?: string } | undefined;

export function jobSucceeded(status: JobStatus): boolean {
  return (status?.succeeded ?? 0) >= 1;
}

/**
 * When the run's denied window ended: the last completion among `denied`, the denied Jobs of the pairs
 * that ran (the recheck clients start once all of them completed). Undefined while one has not completed.
 */
export function deniedWindowEnd(denied: readonly JobStatus[]): string | undefined {
  const ends = denied.map((status) => status?.completionTime);
  if (ends.length === 0 || ends.some((end) => end === undefined || Number.isNaN(Date.parse(end))))
    return undefined;
  return (ends as string[]).reduce((last, end) => (Date.parse(end) > Date.parse(last) ? end : last));
}

/**
 * Why a recheck Job's success does not vouch for the denied window that ended at `windowEnd`, or
 * undefined when it does. It vouches when it succeeded after the window ended, started no earlier than
 * that end, and started within ALLOWED_WITHIN_SECONDS of it: the same `up` creates it as soon as the
 * denied Jobs complete, and a recheck that failed (by trying for that long, its budget being the allowed
 * client's) is replaced only by a later `up`, so its replacement starts later than that.
 */
export function recheckNotCounted(recheck: JobStatus, windowEnd: string | undefined): string | undefined {
  if (!jobSucceeded(recheck)) return "it did not connect";
  if (windowEnd === undefined) return "the denied window's end is unknown: a denied Job has not completed";
  const { startTime: start, completionTime: done } = recheck ?? {};
  if (start === undefined || done === undefined || Number.isNaN(Date.parse(start) + Date.parse(done)))
    return "its start or completion time is unknown";
  const end = Date.parse(windowEnd);
  if (Date.parse(start) < end || Date.parse(done) < end)
    return `it started at ${start}, before the denied window ended at ${windowEnd}: it followed an earlier window`;
  if (Date.parse(start) > end + ALLOWED_WITHIN_SECONDS * 1000)
    return `it started at ${start}, more than ${ALLOWED_WITHIN_SECONDS} s after the denied window ended at ${windowEnd}: a recheck run again without its denied clients, so not this window's (run the window again: \`pulumi up --replace\` with the URN of each denied and recheck client Job)`;
  return undefined;
}
