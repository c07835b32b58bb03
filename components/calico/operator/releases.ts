/**
 * The Tigera operator release that installs each Calico release: one row per fact, its source in the row.
 * The operator deploys exactly one Calico release (tigera/operator `pkg/components/calico.go`), so the
 * pairing is fixed; a Calico release without a row is refused by the config schema, naming these.
 */
import type { RolloutOrder } from "../rollout-order";

export interface OperatorRelease {
  /** The Calico release the operator installs, e.g. "v3.31.7". */
  calico: string;
  /** The operator image tag (quay.io/tigera/operator). */
  operator: string;
  /** Where the pairing is pinned upstream. */
  source: string;
  /** Which of Typha and calico-node this operator rolls first on a change of release: ROLLED_TOGETHER. */
  rollout: RolloutOrder;
}

const PINNED_IN = "projectcalico/calico charts/tigera-operator/values.yaml tigeraOperator.version";

/**
 * Why each operator release below rolls Typha first. It applies Typha and calico-node in one reconcile
 * pass: pkg/controller/installation/core_controller.go appends render.Typha before render.Node and
 * applies every component in one loop (at v1.40.13, v1.40.15, v1.42.0 and v1.42.3). Typha's few
 * replicas, with maxSurge 100% (pkg/render/typha.go), are ready long before calico-node has rolled over
 * the nodes. The change that would apply calico-node first, tigera/operator#5110, was closed unmerged:
 * the maintainers call the v3.31 to v3.32 disconnect an intended break, which calico-node heals by
 * restarting out of turn.
 */
export const ROLLED_TOGETHER =
  "tigera/operator pkg/controller/installation/core_controller.go: Typha and calico-node in one pass; tigera/operator#5110 closed unmerged";

export const OPERATOR_RELEASES: readonly OperatorRelease[] = [
  { calico: "v3.31.6", operator: "v1.40.13", source: `${PINNED_IN} at tag v3.31.6`, rollout: "typha-first" },
  { calico: "v3.31.7", operator: "v1.40.15", source: `${PINNED_IN} at tag v3.31.7`, rollout: "typha-first" },
  { calico: "v3.32.0", operator: "v1.42.0", source: `${PINNED_IN} at tag v3.32.0`, rollout: "typha-first" },
  { calico: "v3.32.1", operator: "v1.42.3", source: `${PINNED_IN} at tag v3.32.1`, rollout: "typha-first" },
];

/** Calico releases operator mode can install, in table order. */
export const OPERATOR_CALICO_RELEASES: readonly string[] = OPERATOR_RELEASES.map((row) => row.calico);

/** The operator image tag for a Calico release, or undefined when the table has no row for it. */
export function operatorVersionFor(calicoVersion: string): string | undefined {
  return OPERATOR_RELEASES.find((row) => row.calico === calicoVersion)?.operator;
}

/** The order the operator that installs `calicoVersion` rolls Typha and calico-node in, if it has a row. */
export function operatorRolloutFor(calicoVersion: string): RolloutOrder | undefined {
  return OPERATOR_RELEASES.find((row) => row.calico === calicoVersion)?.rollout;
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
