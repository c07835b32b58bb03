/**
 * When Typha's mutual TLS stops working unless `pulumi up` runs: the earliest end of validity of the CA
 * and the two leaf certificates (certificates.ts). Felix checks Typha's server certificate and Typha
 * checks Felix's client certificate, both against the CA, on every connection (Calico's Typha TLS,
 * https://docs.tigera.io/calico/latest/reference/typha/overview): once one has expired, a Felix that
 * reconnects (its pod restarted, Typha rolled or scaled) is refused, and its node keeps the rules it had
 * programmed but gets no new pod, policy or endpoint. The leaves are renewed by the first `up` in their
 * last 90 days (typha-tls.ts CERTIFICATE_VALIDITY); the CA only when replaced. Pure functions.
 */

/** How long before the earliest expiry `pulumi up` and the offline plan warn. */
export const EXPIRY_WARNING_DAYS = 30;

const DAY_MS = 86_400_000;

/** The earliest of RFC 3339 times (the tls provider's `validityEndTime`), in the same form. */
export function earliestExpiry(validUntil: readonly string[]): string {
  const times = validUntil.map((time) => ({ time, at: Date.parse(time) }));
  const bad = times.find((t) => Number.isNaN(t.at));
  if (bad !== undefined || times.length === 0) {
    throw new Error(`not a certificate expiry: ${JSON.stringify(bad?.time ?? validUntil)}`);
  }
  return times.reduce((first, t) => (t.at < first.at ? t : first)).time;
}

/** The warning for an expiry under EXPIRY_WARNING_DAYS after `now`, or undefined. */
export function expiryWarning(expiry: string, now: Date): string | undefined {
  const left = Date.parse(expiry) - now.getTime();
  if (left >= EXPIRY_WARNING_DAYS * DAY_MS) return undefined;
  const when = left <= 0 ? "expired at" : `expire in ${Math.max(1, Math.floor(left / DAY_MS))} day(s), at`;
  return (
    `calico: Typha's TLS certificates ${when} ${expiry}: after that a Felix that reconnects to Typha is ` +
    "refused, and its node keeps its rules but gets no new pod or policy. `pulumi up` renews a leaf " +
    "certificate in its last 90 days; the CA is renewed only by replacing it " +
    "(`pulumi up --replace` on its calico-typha-ca certificate, docs/operating-calico.md)"
  );
}
