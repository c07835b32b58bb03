/**
 * The clients' shell scripts (agnhost ships a POSIX shell). Each ends by writing one sentence to
 * /dev/termination-log: pulumi-kubernetes' Job await reports a failed pod's termination message
 * (`[Error] <message>`, provider/pkg/await/states/pod.go), so a failed `pulumi up` says what was seen.
 * `agnhost connect` exits 0 when the TCP connection opens and prints TIMEOUT, REFUSED or the error
 * otherwise (kubernetes test/images/agnhost/connect).
 */
import {
  ALLOWED_WITHIN_SECONDS,
  ATTEMPT_INTERVAL_SECONDS,
  CONNECT_TIMEOUT_SECONDS,
  DENIED_ATTEMPTS,
  DENIED_SETTLE_SECONDS,
} from "./timing";

/** What a failed denied client reports: the message `pulumi up` fails with. */
export const NOT_ENFORCING_MESSAGE =
  "a connection the default-deny policy must block got through: Calico is not enforcing policy";
/**
 * How every failure that proves nothing about enforcement begins: the probe could not run. A policy of
 * the cluster's own (a namespace's default-deny egress, a Calico GlobalNetworkPolicy ordered before the
 * probe's) can block the clients' DNS or egress; that is not "not enforced".
 */
export const COULD_NOT_RUN = "the probe could not run";
/** What a failed allowed client reports when it could resolve the server but never connect. */
export const NOT_ALLOWED_MESSAGE = `${COULD_NOT_RUN}: the allowed client could not connect within ${ALLOWED_WITHIN_SECONDS}s: a policy outside the probe blocks its egress (a default-deny egress, a Calico GlobalNetworkPolicy), the allow policy is not in effect, or the probe server is unreachable`;
/** What a client reports when it cannot resolve the server's name (agnhost connect: `DNS: ...`). */
export const DNS_BLOCKED_MESSAGE = `${COULD_NOT_RUN}: the client cannot resolve the probe server's name: a policy outside the probe blocks its DNS (egress to kube-dns on UDP and TCP 53), or the cluster DNS is down`;
/**
 * What a denied client reports when its connection failed neither by a drop (TIMEOUT) nor by a reject
 * (REFUSED): an error of the network, not a verdict of policy.
 */
export const INCONCLUSIVE_MESSAGE = `${COULD_NOT_RUN}: the denied client's connection failed without being dropped or refused: the probe cannot tell whether policy blocked it`;

/**
 * What a failed recheck client reports: the server no longer answered an allowed client after the denied
 * window, so the denied client's blocks prove nothing. kube-proxy rejects a connection to a Service with no
 * endpoints, so a server gone away looks like Felix's Reject (kubernetes pkg/proxy/iptables/proxier.go:
 * `-j REJECT` in the filter table's KUBE-SERVICES chain, commented "<service> has no endpoints"), and one
 * to an endpoint whose pod is gone times out, like Felix's drop.
 */
export const NOT_RECHECKED_MESSAGE = `${COULD_NOT_RUN}: the allowed client could not connect again after the denied client's window (within ${ALLOWED_WITHIN_SECONDS}s, as the first time): the probe server stopped answering, so the denied client's blocks may be kube-proxy's (a Service without endpoints), not the policy's`;

/** A DNS failure stops either client at once: nothing after it can prove anything. */
const ON_DNS_ERROR = `  case "$out" in DNS:*) verdict 3 "${DNS_BLOCKED_MESSAGE} (attempt $attempt: $out)" ;; esac`;

const CONNECT = `/agnhost connect "$TARGET" --timeout=${CONNECT_TIMEOUT_SECONDS}s --protocol=tcp`;

/** Writes the verdict where Kubernetes and the Job await read it, prints it, and exits with `code`. */
const VERDICT = `verdict() { echo "$2" > /dev/termination-log; echo "$2"; exit "$1"; }`;

/**
 * Retries until one connection opens, then reports `connected`; fails with `failed` after
 * ALLOWED_WITHIN_SECONDS, or at once on a DNS error. The allowed client's budget, and the recheck
 * client's: the same server, policy and node, so the same time to connect.
 */
function connectWithinScript(connected: string, failed: string): string {
  return [
    VERDICT,
    `deadline=$(( $(date +%s) + ${ALLOWED_WITHIN_SECONDS} ))`,
    "attempt=0",
    "while :; do",
    "  attempt=$((attempt + 1))",
    `  if out=$(${CONNECT} 2>&1); then verdict 0 "${connected} on attempt $attempt"; fi`,
    ON_DNS_ERROR,
    `  if [ "$(date +%s)" -ge "$deadline" ]; then verdict 1 "${failed} (attempt $attempt: $out)"; fi`,
    `  sleep ${ATTEMPT_INTERVAL_SECONDS}`,
    "done",
  ].join("\n");
}

/** The allowed client: one connection must open, the policies having just been created. */
export function allowedClientScript(): string {
  return connectWithinScript("connected to $TARGET", NOT_ALLOWED_MESSAGE);
}

/**
 * After the denied window: the allowed client once more, with its budget; one connection must open, or
 * the denied client's verdict proves nothing. Whether its success counts for this run's window is the
 * report's to judge from the Jobs' times (window.ts).
 */
export function recheckClientScript(): string {
  return connectWithinScript("connected to $TARGET after the denied window", NOT_RECHECKED_MESSAGE);
}

/**
 * Waits, then requires every one of DENIED_ATTEMPTS connections to be blocked: dropped (TIMEOUT: Felix's
 * default deny action, DROP) or rejected (REFUSED). Felix rejects instead of dropping with
 * `iptablesFilterDenyAction`/`nftablesFilterDenyAction: Reject` (projectcalico/calico v3.31.7
 * felix/config/config_params.go): iptables `--jump REJECT` answers a TCP SYN with ICMP port unreachable,
 * nftables `reject` likewise or with a TCP reset (felix/iptables/actions.go, felix/nftables/actions.go
 * RejectAction), and either makes connect() fail with "connection refused". The denied client starts
 * only once both allowed clients have connected to the same server, and its blocks count only once the
 * recheck clients connect after its window (probe/index.ts): the server answered before and after, so a
 * refusal or a drop is the policy's, not kube-proxy's for a server gone away.
 */
export function deniedClientScript(): string {
  return [
    VERDICT,
    `sleep ${DENIED_SETTLE_SECONDS}`,
    "attempt=0 dropped=0 rejected=0",
    `while [ "$attempt" -lt ${DENIED_ATTEMPTS} ]; do`,
    "  attempt=$((attempt + 1))",
    `  if out=$(${CONNECT} 2>&1); then verdict 1 "${NOT_ENFORCING_MESSAGE} (attempt $attempt of ${DENIED_ATTEMPTS}, to $TARGET)"; fi`,
    ON_DNS_ERROR,
    `  case "$out" in *TIMEOUT*) dropped=$((dropped + 1)) ;; *REFUSED*) rejected=$((rejected + 1)) ;; *) verdict 2 "${INCONCLUSIVE_MESSAGE} (attempt $attempt: $out)" ;; esac`,
    `  sleep ${ATTEMPT_INTERVAL_SECONDS}`,
    "done",
    `verdict 0 "blocked on all ${DENIED_ATTEMPTS} attempts to $TARGET ($dropped dropped, $rejected rejected)"`,
  ].join("\n");
}
