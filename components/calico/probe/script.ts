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
/** What a failed allowed client reports. */
export const NOT_ALLOWED_MESSAGE = `the allowed client could not connect within ${ALLOWED_WITHIN_SECONDS}s: the allow policy is not in effect or the probe server is unreachable`;
/** What a denied client reports when its connection failed for a reason other than a drop. */
export const INCONCLUSIVE_MESSAGE =
  "the denied client's connection failed without timing out (refused, or a DNS error): the probe cannot tell whether policy blocked it";

const CONNECT = `/agnhost connect "$TARGET" --timeout=${CONNECT_TIMEOUT_SECONDS}s --protocol=tcp`;

/** Writes the verdict where Kubernetes and the Job await read it, prints it, and exits with `code`. */
const VERDICT = `verdict() { echo "$2" > /dev/termination-log; echo "$2"; exit "$1"; }`;

/** Retries until one connection opens; fails after ALLOWED_WITHIN_SECONDS. */
export function allowedClientScript(): string {
  return [
    VERDICT,
    `deadline=$(( $(date +%s) + ${ALLOWED_WITHIN_SECONDS} ))`,
    "attempt=0",
    "while :; do",
    "  attempt=$((attempt + 1))",
    `  if out=$(${CONNECT} 2>&1); then verdict 0 "connected to $TARGET on attempt $attempt"; fi`,
    `  if [ "$(date +%s)" -ge "$deadline" ]; then verdict 1 "${NOT_ALLOWED_MESSAGE} (attempt $attempt: $out)"; fi`,
    `  sleep ${ATTEMPT_INTERVAL_SECONDS}`,
    "done",
  ].join("\n");
}

/** Waits, then requires every one of DENIED_ATTEMPTS connections to time out. */
export function deniedClientScript(): string {
  return [
    VERDICT,
    `sleep ${DENIED_SETTLE_SECONDS}`,
    "attempt=0",
    `while [ "$attempt" -lt ${DENIED_ATTEMPTS} ]; do`,
    "  attempt=$((attempt + 1))",
    `  if out=$(${CONNECT} 2>&1); then verdict 1 "${NOT_ENFORCING_MESSAGE} (attempt $attempt of ${DENIED_ATTEMPTS}, to $TARGET)"; fi`,
    `  case "$out" in *TIMEOUT*) ;; *) verdict 2 "${INCONCLUSIVE_MESSAGE} (attempt $attempt: $out)" ;; esac`,
    `  sleep ${ATTEMPT_INTERVAL_SECONDS}`,
    "done",
    `verdict 0 "blocked on all ${DENIED_ATTEMPTS} attempts to $TARGET"`,
  ].join("\n");
}
