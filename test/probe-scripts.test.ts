/**
 * The enforcement probe's client scripts, run with a stand-in for `agnhost connect`: what each client
 * concludes from what its connections do, and the sentence it leaves for `pulumi up` to report.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CLIENTS, type Client, PAIRS } from "../components/calico/probe/clients";
import { type JobStatus, policyEnforcedBy, probeReport } from "../components/calico/probe/report";
import {
  COULD_NOT_RUN,
  DNS_BLOCKED_MESSAGE,
  NOT_ALLOWED_MESSAGE,
  NOT_ENFORCING_MESSAGE,
  NOT_RECHECKED_MESSAGE,
  allowedClientScript,
  deniedClientScript,
  recheckClientScript,
} from "../components/calico/probe/script";
import {
  ALLOWED_WITHIN_SECONDS,
  ATTEMPT_INTERVAL_SECONDS,
  CONNECT_TIMEOUT_SECONDS,
} from "../components/calico/probe/timing";

/** What one failed attempt takes on a real clock: its timeout, then the pause after it. */
const ATTEMPT_SECONDS = CONNECT_TIMEOUT_SECONDS + ATTEMPT_INTERVAL_SECONDS;

/**
 * Runs a client script with a stand-in for `agnhost connect`, no pauses, a local termination log, and a
 * clock (`date +%s`) that moves on by one attempt's seconds each time it is read.
 */
function runScript(script: string, connect: string): { status: number | null; message: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "probe-"));
  try {
    const stub = path.join(dir, "agnhost");
    fs.writeFileSync(stub, `#!/bin/sh\n${connect}\n`, { mode: 0o755 });
    const clock = `f="$(dirname "$0")/clock"; t=$(cat "$f" 2>/dev/null || echo 1000); echo $((t + ${ATTEMPT_SECONDS})) > "$f"; echo "$t"`;
    fs.writeFileSync(path.join(dir, "date"), `#!/bin/sh\n${clock}\n`, { mode: 0o755 });
    const log = path.join(dir, "termination-log");
    const local = script
      .replaceAll("/agnhost", stub)
      .replaceAll("/dev/termination-log", log)
      .replace(/sleep \d+/g, "true");
    const result = spawnSync("/bin/sh", ["-c", local], {
      env: { TARGET: "server:80", PATH: `${dir}:${process.env.PATH ?? ""}` },
    });
    return { status: result.status, message: fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim() : "" };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("policy probe: the client scripts", () => {
  it("the denied client fails with the message `pulumi up` shows when a connection gets through", () => {
    const run = runScript(deniedClientScript(), "exit 0");
    assert.equal(run.status, 1);
    assert.ok(run.message.startsWith(NOT_ENFORCING_MESSAGE), run.message);
  });

  it("the denied client succeeds when every attempt is dropped (times out)", () => {
    const run = runScript(deniedClientScript(), 'echo "TIMEOUT"; exit 1');
    assert.equal(run.status, 0);
    assert.match(run.message, /blocked on all 5 attempts to server:80 \(5 dropped, 0 rejected\)/);
  });

  it("the denied client counts a refused connection as blocked: Felix's deny action Reject", () => {
    // iptablesFilterDenyAction / nftablesFilterDenyAction: Reject answers with ICMP port unreachable or a
    // TCP reset, and agnhost connect prints REFUSED; the allowed clients connected to the same server first.
    const run = runScript(deniedClientScript(), 'echo "REFUSED"; exit 1');
    assert.equal(run.status, 0, run.message);
    assert.match(run.message, /blocked on all 5 attempts to server:80 \(0 dropped, 5 rejected\)/);
    const mixed = runScript(
      deniedClientScript(),
      'n=$(cat "$0.n" 2>/dev/null || echo 0); echo $((n + 1)) > "$0.n"; [ $((n % 2)) -eq 0 ] && echo TIMEOUT || echo REFUSED; exit 1',
    );
    assert.equal(mixed.status, 0, mixed.message);
    assert.match(mixed.message, /\(3 dropped, 2 rejected\)/);
  });

  it("the denied client says the probe could not run when a connection fails another way", () => {
    const run = runScript(deniedClientScript(), 'echo "OTHER: connect: network is unreachable"; exit 1');
    assert.equal(run.status, 2);
    assert.ok(run.message.startsWith(`${COULD_NOT_RUN}: `), run.message);
    assert.match(
      run.message,
      /cannot tell whether policy blocked it \(attempt 1: OTHER: connect: network is unreachable\)/,
    );
  });

  it("either client blocked from DNS says the probe could not run and why, never 'not enforcing'", () => {
    // agnhost connect prints `DNS: <error>` when the name does not resolve (test/images/agnhost/connect).
    const dns = 'echo "DNS: lookup server on 10.96.0.10:53: read udp: i/o timeout"; exit 1';
    for (const script of [allowedClientScript(), deniedClientScript(), recheckClientScript()]) {
      const run = runScript(script, dns);
      assert.equal(run.status, 3, run.message);
      assert.ok(run.message.startsWith(DNS_BLOCKED_MESSAGE), run.message);
      assert.ok(!run.message.includes(NOT_ENFORCING_MESSAGE));
    }
  });

  it("an allowed client that never connects says the probe could not run, naming a blocking policy as a cause", () => {
    const run = runScript(
      allowedClientScript().replace(/deadline=.*/, "deadline=0"),
      'echo "TIMEOUT"; exit 1',
    );
    assert.equal(run.status, 1, run.message);
    assert.ok(run.message.startsWith(NOT_ALLOWED_MESSAGE), run.message);
    assert.match(run.message, /^the probe could not run: .*GlobalNetworkPolicy/);
  });

  it("the allowed client retries until it connects", () => {
    // Fails twice, then connects: a counter file beside the stub.
    const run = runScript(
      allowedClientScript(),
      'f="$(dirname "$0")/n"; n=$(cat "$f" 2>/dev/null || echo 0); echo $((n + 1)) > "$f"; [ "$n" -ge 2 ] || { echo TIMEOUT; exit 1; }',
    );
    assert.equal(run.status, 0, run.message);
    assert.match(run.message, /connected to server:80 on attempt 3/);
  });

  it("the recheck client connects after the denied window, retrying a few times", () => {
    const run = runScript(
      recheckClientScript(),
      'f="$(dirname "$0")/n"; n=$(cat "$f" 2>/dev/null || echo 0); echo $((n + 1)) > "$f"; [ "$n" -ge 1 ] || { echo TIMEOUT; exit 1; }',
    );
    assert.equal(run.status, 0, run.message);
    assert.match(run.message, /connected to server:80 after the denied window on attempt 2/);
  });

  it("the recheck client has the allowed client's budget: it tries for as long before it fails", () => {
    const attempts = (script: string) => {
      const run = runScript(script, 'echo "TIMEOUT"; exit 1');
      assert.equal(run.status, 1, run.message);
      return Number(/\(attempt (\d+): TIMEOUT\)$/.exec(run.message)?.[1]);
    };
    const allowed = attempts(allowedClientScript());
    assert.equal(
      allowed,
      ALLOWED_WITHIN_SECONDS / ATTEMPT_SECONDS,
      "the allowed client's attempts in its budget",
    );
    assert.equal(attempts(recheckClientScript()), allowed);
  });

  it("the recheck client says the probe could not run when the server no longer answers", () => {
    // kube-proxy refuses a connection to a Service without endpoints: the server went away.
    for (const answer of ["REFUSED", "TIMEOUT"]) {
      const run = runScript(recheckClientScript(), `echo "${answer}"; exit 1`);
      assert.equal(run.status, 1, run.message);
      const attempts = ALLOWED_WITHIN_SECONDS / ATTEMPT_SECONDS;
      assert.ok(
        run.message.startsWith(`${NOT_RECHECKED_MESSAGE} (attempt ${attempts}: ${answer})`),
        run.message,
      );
      assert.ok(run.message.startsWith(`${COULD_NOT_RUN}: `));
    }
  });

  it("a server gone inside the denied window never reports policy enforced", () => {
    // Up for the allowed clients, then kube-proxy's REJECT for a Service without endpoints, which the
    // denied client counts as blocked: only the recheck client's failure tells the two apart.
    const script: Record<Client, () => string> = {
      allowed: allowedClientScript,
      denied: deniedClientScript,
      recheck: recheckClientScript,
    };
    // The Job controller's times of one run: each client after the one before it.
    const times: Record<Client, { startTime: string; completionTime: string }> = {
      allowed: { startTime: "2026-12-02T08:00:00Z", completionTime: "2026-12-02T08:00:10Z" },
      denied: { startTime: "2026-12-02T08:00:11Z", completionTime: "2026-12-02T08:00:40Z" },
      recheck: { startTime: "2026-12-02T08:00:42Z", completionTime: "2026-12-02T08:00:44Z" },
    };
    const enforced = (recheck: string) => {
      const answer: Record<Client, string> = { allowed: "exit 0", denied: 'echo "REFUSED"; exit 1', recheck };
      const statuses = Object.fromEntries(
        CLIENTS.map((client): [Client, JobStatus] => {
          const { status } = runScript(script[client](), answer[client]);
          return [client, status === 0 ? { succeeded: 1, ...times[client] } : { failed: 1 }];
        }),
      ) as Record<Client, JobStatus>;
      const report = probeReport({
        namespace: "calico-policy-probe",
        id: "0123abcd",
        allowPolicy: "allow-probe-clients",
        denyPolicy: "default-deny-ingress",
        placement: { placed: true, node: "n2" },
        statuses: Object.fromEntries(PAIRS.map((pair) => [pair, statuses])) as Parameters<
          typeof probeReport
        >[0]["statuses"],
      });
      return policyEnforcedBy(report);
    };
    assert.equal(enforced('echo "REFUSED"; exit 1'), false, "the server gone: the recheck is refused too");
    assert.equal(enforced("exit 0"), true, "Felix's Reject: the recheck connects");
  });
});
