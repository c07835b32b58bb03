/**
 * A change of the deployed Calico release: the release calico-node and Typha run now, which decides
 * which of them rolls first (components/calico/rollout-order.ts), and the refusal of a change that no
 * order can make with every Felix connected, naming the releases to go through.
 */
import { calicoMinorOf } from "../components/calico/defaults";
import { CALICO_RELEASES } from "../components/calico/releases";
import {
  ROLLOUT_ORDERS,
  type RolloutOrder,
  keepsFelixConnected,
  releasesThrough,
  rolloutOrder,
} from "../components/calico/rollout-order";
import {
  OPERATOR_CALICO_RELEASES,
  ROLLED_TOGETHER,
  operatorRolloutFor,
  operatorVersionFor,
} from "../components/calico/operator/releases";
import type { PreviousCalico } from "./previous";
import type { ConfigProblem } from "./problems";
import type { CalicoConfig } from "./schema";

/**
 * The release the deployed install of the configured mode runs (the last `calico.version` output), or
 * undefined when this update installs Calico anew: a stack never deployed, the second update of a
 * reinstall, or another install mode.
 */
export function deployedCalicoVersion(
  previous: PreviousCalico | undefined,
  calico: CalicoConfig,
): string | undefined {
  return previous?.installer === calico.installer ? previous.version : undefined;
}

/** The orders an install of `release` can roll in: either with the manifests, the operator's own with it. */
function ordersOf(calico: CalicoConfig): (release: string) => readonly RolloutOrder[] {
  if (calico.installer !== "operator") return () => ROLLOUT_ORDERS;
  return (release) => {
    const order = operatorRolloutFor(release);
    return order === undefined ? [] : [order];
  };
}

const line = (release: string) => `v${calicoMinorOf(release) ?? release}`;

/** What each order would do from `from` to `to`, as the refusal explains it. */
function orderDetails(from: string, to: string, orders: readonly RolloutOrder[]): string[] {
  return orders.map((order) =>
    order === "typha-first"
      ? `Typha first: each ${line(from)} Felix meets a ${line(to)} Typha, which disconnects it`
      : `calico-node first: each ${line(to)} Felix meets a ${line(from)} Typha, which disconnects it`,
  );
}

/**
 * The refusal of a change of release from the deployed install to `calico.version` when no order the
 * install mode allows keeps every Felix connected (a Felix that loses Typha exits and its calico-node
 * goes NotReady; the DaemonSet controller then replaces every such pod at once, outside maxUnavailable:
 * components/calico/typha-felix.ts). Empty when the change is safe or installs anew.
 */
export function rolloutProblems(previous: PreviousCalico | undefined, calico: CalicoConfig): ConfigProblem[] {
  const from = deployedCalicoVersion(previous, calico);
  const to = calico.version;
  if (from === undefined || from === to) return [];
  const ordersTo = ordersOf(calico);
  const orders = ordersTo(to);
  if (rolloutOrder(from, to, orders) !== undefined) return [];
  const problem = { path: "calico.version", value: to };
  if (orders.some((order) => keepsFelixConnected(order, from, to) === undefined)) {
    return [
      {
        ...problem,
        rule: `cannot tell whether Typha and calico-node can move from the deployed ${from} to ${to} with every Felix connected: components/calico/typha-felix.ts has no row for ${line(from)} and ${line(to)}`,
        hint: `keep calico.version at ${from}, or record which Typha keeps which Felix for those lines, from projectcalico/calico's typha/pkg/syncserver and syncclient`,
      },
    ];
  }
  const operator = calico.installer === "operator";
  const releases = operator ? OPERATOR_CALICO_RELEASES : Object.values(CALICO_RELEASES).flat();
  const through = releasesThrough(from, to, releases, ordersTo);
  const how = operator
    ? `the Tigera operator ${operatorVersionFor(to) ?? `of ${to}`} rolls Typha and calico-node together, Typha first (${ROLLED_TOGETHER})`
    : "no order of Typha and calico-node";
  return [
    {
      ...problem,
      rule: `cannot move the deployed Calico from ${from} to ${to} with every Felix connected: ${how}. A Felix that loses Typha exits, and the DaemonSet controller replaces every calico-node pod that goes NotReady at once, whatever calico.maxUnavailable says`,
      details: [
        ...orderDetails(from, to, orders),
        "which Typha keeps which Felix, with its upstream source: components/calico/typha-felix.ts",
      ],
      ...(through === undefined
        ? {
            hint: `keep calico.version at ${from}: no sequence of the releases ${operator ? "the operator install mode installs" : "this program knows"} reaches ${to} with every Felix connected`,
          }
        : {
            hint: `go through ${through.join(", then ")}: each step keeps every Felix connected`,
            steps: [...through, to].map((release) => `\`pulumi up\` with calico.version ${release}`),
          }),
    },
  ];
}
