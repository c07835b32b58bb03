/**
 * Which of Typha and calico-node rolls first when Calico changes release, from which Typha keeps which
 * Felix connected (typha-felix.ts). `pulumi up` applies one, awaits its rollout, then applies the other
 * (the dependsOn of components/calico/index.ts). While the first rolls, every Felix of one release meets
 * the Typhas of the other:
 * - Typha first: each old Felix meets the new Typha;
 * - calico-node first: each new Felix meets the old Typha.
 * An order keeps every Felix connected when that Typha keeps that Felix. So an upgrade and its rollback
 * need opposite orders whenever only one order works. A first install has no old Felix: Typha goes
 * first, since a Felix is ready only once it reaches a Typha. When both orders work, Typha goes first.
 */
import { typhaKeepsFelix } from "./typha-felix";

export type RolloutOrder = "typha-first" | "calico-node-first";

/** Which Typha release keeps which Felix release connected: typha-felix.ts unless a test brings its own. */
export type Keeps = (typha: string, felix: string) => boolean | undefined;

/** Both orders, the preferred first. */
export const ROLLOUT_ORDERS: readonly RolloutOrder[] = ["typha-first", "calico-node-first"];

/**
 * Whether `order` keeps every Felix connected from release `from` to release `to`; undefined when the
 * pair it needs has no row.
 */
export function keepsFelixConnected(
  order: RolloutOrder,
  from: string,
  to: string,
  keeps: Keeps = typhaKeepsFelix,
): boolean | undefined {
  return order === "typha-first" ? keeps(to, from) : keeps(from, to);
}

/**
 * The first of `orders` that keeps every Felix connected from the deployed release `from` (undefined: a
 * first install) to `to`, or undefined when none does or the data cannot tell.
 */
export function rolloutOrder(
  from: string | undefined,
  to: string,
  orders: readonly RolloutOrder[] = ROLLOUT_ORDERS,
  keeps: Keeps = typhaKeepsFelix,
): RolloutOrder | undefined {
  if (from === undefined) return "typha-first";
  return orders.find((order) => keepsFelixConnected(order, from, to, keeps) === true);
}

/**
 * The fewest releases of `releases` to go through from `from` to `to` so that each step has an order
 * `ordersTo` allows for its target that keeps every Felix connected: [] when the step is direct,
 * undefined when no sequence does.
 */
export function releasesThrough(
  from: string,
  to: string,
  releases: readonly string[],
  ordersTo: (release: string) => readonly RolloutOrder[] = () => ROLLOUT_ORDERS,
  keeps: Keeps = typhaKeepsFelix,
): string[] | undefined {
  const step = (a: string, b: string) => rolloutOrder(a, b, ordersTo(b), keeps) !== undefined;
  // Breadth first: the first path found to a release is a shortest one.
  const cameFrom = new Map<string, string>([[from, from]]);
  const queue = [from];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    if (step(at, to)) {
      const path: string[] = [];
      for (let back = at; back !== from; back = cameFrom.get(back) as string) path.unshift(back);
      return path;
    }
    for (const next of releases) {
      if (!cameFrom.has(next) && next !== to && step(at, next)) {
        cameFrom.set(next, at);
        queue.push(next);
      }
    }
  }
  return undefined;
}
