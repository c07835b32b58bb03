/**
 * The enforcement probe's recheck clients: a recheck's success vouches for the denied window only when it
 * came after that window's end and in the same run, judged from the Jobs' statuses as the Job controller
 * times them. A recheck that failed is replaced alone on the next `pulumi up` (`pulumi.com/replaceUnready`),
 * the completed denied Jobs staying: its replacement's success must not prove enforcement.
 */
import * as assert from "node:assert/strict";
import { CLIENTS, type Client, PAIRS, type Pair } from "../components/calico/probe/clients";
import { type ProbeReport, policyEnforcedBy, probeReport } from "../components/calico/probe/report";
import { ALLOWED_WITHIN_SECONDS } from "../components/calico/probe/timing";
import { type JobStatus, deniedWindowEnd, recheckNotCounted } from "../components/calico/probe/window";

const T0 = Date.parse("2026-12-02T08:00:00Z");
/** The Job controller's time `seconds` after T0, as the API returns it (RFC 3339, whole seconds). */
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
const job = (start: number, done?: number): JobStatus => ({
  ...(done === undefined ? { failed: 1 } : { succeeded: 1, completionTime: at(done) }),
  startTime: at(start),
});

/** One pair's run: allowed from 0 to 10, denied from 11 to `deniedEnd`, then the recheck as given. */
const run = (recheck: JobStatus, deniedEnd = 40): Record<Client, JobStatus> => ({
  allowed: job(0, 10),
  denied: job(11, deniedEnd),
  recheck,
});

function report(
  statuses: Partial<Record<Pair, Record<Client, JobStatus>>>,
  placed = statuses["other-node"] !== undefined,
): ProbeReport {
  return probeReport({
    namespace: "calico-policy-probe",
    id: "0123abcd",
    allowPolicy: "allow-probe-clients",
    denyPolicy: "default-deny-ingress",
    placement: placed ? { placed: true, node: "n2" } : { placed: false, why: "no node" },
    statuses: Object.fromEntries(
      PAIRS.map((pair) => [pair, statuses[pair] ?? Object.fromEntries(CLIENTS.map((c) => [c, undefined]))]),
    ) as Record<Pair, Record<Client, JobStatus>>,
  });
}

describe("policy probe: a recheck counts only for its own run's denied window", () => {
  it("proves enforcement when each recheck starts just after the denied window and connects", () => {
    const both = report({ "same-node": run(job(42, 44)), "other-node": run(job(42, 45)) });
    assert.equal(policyEnforcedBy(both), true);
    assert.deepEqual(
      [both.sameNode.recheckClient.afterDeniedWindow, "notCounted" in both.sameNode.recheckClient],
      [true, false],
    );
  });

  it("a recheck that succeeds only when run again alone, after one that failed, proves nothing", () => {
    // First up: the server went away in the denied window; kube-proxy refused the denied clients (counted
    // as blocked) and the recheck, which tried for its whole budget and failed: the update failed.
    const first = job(42);
    assert.equal(policyEnforcedBy(report({ "same-node": run(first) })), false);
    // Next up, the server back: only the recheck Job is replaced (the denied Job completed), and connects.
    const retried = job(42 + ALLOWED_WITHIN_SECONDS + 30, 42 + ALLOWED_WITHIN_SECONDS + 31);
    const later = report({ "same-node": run(retried) });
    assert.equal(later.sameNode.recheckClient.succeeded, true, "the Job itself succeeded");
    assert.equal(policyEnforcedBy(later), false);
    assert.equal(later.sameNode.recheckClient.afterDeniedWindow, false);
    assert.match(
      later.sameNode.recheckClient.notCounted ?? "",
      new RegExp(
        `^it started at ${at(132)}, more than ${ALLOWED_WITHIN_SECONDS} s after the denied window ended at ${at(40)}`,
      ),
    );
    // The same on the other-node pair, the same-node one proven.
    const mixed = report({ "same-node": run(job(42, 44)), "other-node": run(retried) });
    assert.equal(policyEnforcedBy(mixed), false);
  });

  it("a recheck that started before a denied client ran again vouches for no later window", () => {
    // The denied Job replaced by hand and run again at 300 to 330; the old recheck (42 to 44) stayed.
    const stale = report({ "same-node": { ...run(job(42, 44)), denied: job(300, 330) } });
    assert.equal(policyEnforcedBy(stale), false);
    assert.match(
      stale.sameNode.recheckClient.notCounted ?? "",
      /before the denied window ended at .*earlier window/,
    );
  });

  it("the window ends with the last denied client of the pairs that ran", () => {
    // The other-node denied client ends at 50: a recheck started at 45 met only part of the window.
    const early = report({ "same-node": run(job(45, 47)), "other-node": run(job(51, 52), 50) });
    assert.equal(policyEnforcedBy(early), false);
    assert.equal(early.otherNode.recheckClient.afterDeniedWindow, true);
    const after = report({ "same-node": run(job(50, 52)), "other-node": run(job(51, 52), 50) });
    assert.equal(policyEnforcedBy(after), true);
    // Without a node for the other-node pair, its suspended Jobs have no times: the same-node window alone.
    assert.equal(
      deniedWindowEnd([run(job(42, 44)).denied]),
      at(40),
      "one pair: its denied client's completion",
    );
    assert.equal(policyEnforcedBy(report({ "same-node": run(job(42, 44)) }, false)), true);
    assert.equal(deniedWindowEnd([job(11, 40), job(11)]), undefined, "a denied Job not completed");
    assert.equal(deniedWindowEnd([]), undefined);
  });

  it("counts a recheck started up to the allowed client's budget after the window's end, and no later", () => {
    const end = 40;
    assert.equal(recheckNotCounted(job(end, end + 1), at(end)), undefined);
    assert.equal(
      recheckNotCounted(job(end + ALLOWED_WITHIN_SECONDS, end + ALLOWED_WITHIN_SECONDS + 2), at(end)),
      undefined,
    );
    assert.match(
      recheckNotCounted(job(end + ALLOWED_WITHIN_SECONDS + 1, end + ALLOWED_WITHIN_SECONDS + 2), at(end)) ??
        "",
      /run again without its denied clients/,
    );
  });

  it("counts no recheck whose times are unknown", () => {
    assert.equal(policyEnforcedBy(report({ "same-node": run({ succeeded: 1 }) })), false);
    assert.match(recheckNotCounted({ succeeded: 1 }, at(40)) ?? "", /start or completion time is unknown/);
    assert.match(recheckNotCounted(job(42, 44), undefined) ?? "", /denied window's end is unknown/);
  });
});
