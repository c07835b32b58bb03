/**
 * Default routes as resources of their own (components/network/index.ts), and the move of a deployed
 * stack's inline routes into them (stacks/inline-routes.ts): the update that moves them imports each
 * deployed default route as it is, so no route is deleted or created, and a route table keeps every route
 * added outside Pulumi (its `routes` unset). Each case is a later update of a deployed stack; a stack
 * deployed with inline routes is one whose `network` output does not record `routes: "own"`.
 */
import * as assert from "node:assert/strict";
import { diffDocuments } from "../offline/diff";
import { type StackEvaluation, evaluateStack, evaluateStackExpectingError } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { ConfigError } from "../stacks";
import { stackValue, withWarnings } from "./helpers";
import { storedOutputs } from "./deployed-stack";

const ROUTE = "aws:ec2/route:Route";

/** The last outputs of a stack deployed before its routes were resources: no `routes` in `network`. */
function inlineOutputs(outputs: Record<string, unknown>): Record<string, unknown> {
  const network = Object.entries(outputs.network as Record<string, unknown>);
  return { ...outputs, network: Object.fromEntries(network.filter(([key]) => key !== "routes")) };
}

/** Each route resource's name and the id it imports, if any. */
const imports = (evaluation: StackEvaluation) =>
  evaluation.resources.filter((r) => r.type === ROUTE).map((r) => [r.name, r.options.importId]);

describe("default routes are resources of their own, moved with no route gone", function () {
  this.timeout(180_000);
  let staging: StackEvaluation;
  let deployed: Record<string, unknown>;
  before(async () => {
    staging = await evaluateStack("staging", { preview: false });
    deployed = storedOutputs(staging);
  });

  it("a new stack creates them, records routes: own, and a later update imports nothing", async () => {
    assert.equal((deployed.network as { routes?: unknown }).routes, "own");
    assert.ok(imports(staging).every(([, id]) => id === undefined));
    const later = await evaluateStack("staging", { previousOutputs: deployed });
    assert.ok(imports(later).every(([, id]) => id === undefined));
  });

  it("the update that moves them imports every deployed default route, and the plan says so", async () => {
    const { result, warnings } = await withWarnings(() =>
      evaluateStack("staging", { previousOutputs: inlineOutputs(deployed) }),
    );
    const zones = (deployed.network as { zones: { zone: string }[] }).zones.map((z) => z.zone);
    const tables = ["network-public", ...zones.map((zone) => `network-private-${zone}`)];
    assert.deepEqual(
      imports(result),
      tables.map((table) => [`${table}-default`, `<route-table-id:${table}>_0.0.0.0/0`]),
    );
    assert.ok(
      warnings.some((w) => /moves the default routes of 4 route tables/.test(w)),
      warnings.join("\n"),
    );
  });

  it("the diff from inline routes deletes no route: the tables take no step, the routes are imported", async () => {
    const old = resourcesDocument(staging);
    // The stack as deployed before: every table with its default route inline, and no route resources.
    const inline = {
      ...old,
      resources: old.resources
        .filter((r) => r.type !== ROUTE)
        .map((r) => {
          if (r.type !== "aws:ec2/routeTable:RouteTable") return r;
          const route = staging.resources.find((x) => x.type === ROUTE && x.name === `${r.name}-default`);
          const { destinationCidrBlock, natGatewayId, gatewayId } = route?.inputs ?? {};
          const inline = { cidrBlock: destinationCidrBlock, natGatewayId, gatewayId };
          const routes = [Object.fromEntries(Object.entries(inline).filter(([, v]) => v !== undefined))];
          return { ...r, inputs: { ...r.inputs, routes } };
        }),
    };
    const moved = await evaluateStack("staging", {
      preview: false,
      previousOutputs: inlineOutputs(deployed),
    });
    const diff = diffDocuments(inline, resourcesDocument(moved));
    assert.deepEqual(diff.removed, []);
    assert.deepEqual(
      diff.changed.filter((r) => r.op !== "same").map((r) => r.heading),
      [],
    );
    assert.equal(diff.added.length, 4);
    assert.ok(diff.added.every((r) => r.heading.startsWith(`${ROUTE} `)));
  });

  it("a change of network.natGateways in the same update: refused before any resource, with the order", async () => {
    const { error, resources } = await evaluateStackExpectingError("staging", {
      preview: false,
      previousOutputs: inlineOutputs(deployed),
      simulate: { routeTables: { natGateways: "single" } },
      config: {
        "eks-calico:network": JSON.stringify({
          ...stackValue<object>("staging", "network"),
          natGateways: "perAz",
        }),
      },
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [["network.natGateways", "perAz"]],
    );
    assert.match(
      error.problems[0].hint ?? "",
      /network\.natGateways: single, then change it in the next one/,
    );
    assert.deepEqual(
      resources.filter((r) => r.custom),
      [],
    );
  });

  it("the same NAT gateways as deployed: planned; unknown ones: planned, saying `up` checks", async () => {
    await evaluateStack("staging", {
      preview: false,
      previousOutputs: inlineOutputs(deployed),
      simulate: { routeTables: { natGateways: "single" } },
    });
    const { warnings } = await withWarnings(() =>
      evaluateStack("staging", { previousOutputs: inlineOutputs(deployed) }),
    );
    assert.ok(warnings.some((w) => /which NAT gateway each deployed route uses is not known here/.test(w)));
  });
});
