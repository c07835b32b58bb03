/**
 * The Tigera operator release that installs each Calico release: one row per fact, its source in the row.
 * The operator deploys exactly one Calico release (tigera/operator `pkg/components/calico.go`), so the
 * pairing is fixed; a Calico release without a row is refused by the config schema, naming these.
 */

export interface OperatorRelease {
  /** The Calico release the operator installs, e.g. "v3.31.7". */
  calico: string;
  /** The operator image tag (quay.io/tigera/operator). */
  operator: string;
  /** Where the pairing is pinned upstream. */
  source: string;
}

const PINNED_IN = "projectcalico/calico charts/tigera-operator/values.yaml tigeraOperator.version";

export const OPERATOR_RELEASES: readonly OperatorRelease[] = [
  { calico: "v3.31.6", operator: "v1.40.13", source: `${PINNED_IN} at tag v3.31.6` },
  { calico: "v3.31.7", operator: "v1.40.15", source: `${PINNED_IN} at tag v3.31.7` },
  { calico: "v3.32.0", operator: "v1.42.0", source: `${PINNED_IN} at tag v3.32.0` },
  { calico: "v3.32.1", operator: "v1.42.3", source: `${PINNED_IN} at tag v3.32.1` },
];

/** Calico releases operator mode can install, in table order. */
export const OPERATOR_CALICO_RELEASES: readonly string[] = OPERATOR_RELEASES.map((row) => row.calico);

/** The operator image tag for a Calico release, or undefined when the table has no row for it. */
export function operatorVersionFor(calicoVersion: string): string | undefined {
  return OPERATOR_RELEASES.find((row) => row.calico === calicoVersion)?.operator;
}

/** Like {@link operatorVersionFor}, but a release without a row is an error naming the supported ones. */
export function requireOperatorVersion(calicoVersion: string): string {
  const operator = operatorVersionFor(calicoVersion);
  if (operator === undefined) {
    throw new Error(
      `no Tigera operator release is recorded for Calico ${calicoVersion}: the operator installer supports ${OPERATOR_CALICO_RELEASES.join(", ")}`,
    );
  }
  return operator;
}
