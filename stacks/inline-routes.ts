/**
 * The move of a deployed stack's default routes out of its route tables' inline `route` sets into
 * aws.ec2.Route resources of their own (components/network/index.ts, routeTable), with no route gone at
 * any moment. The update that moves them adopts each deployed default route by `import`: the table's id is
 * read from AWS by its Name tag, and the route keeps its destination and target. It is never deleted and
 * created again. The `network` output then records `routes: "own"`, and later updates look nothing up.
 *
 * An adopted route must match what the program asks for, or the import fails (pulumi/pulumi
 * pkg/resource/deploy/step.go ImportStep: "inputs to import do not match the existing resource"). So the
 * update that moves the routes cannot also change `network.natGateways`: the routes would keep pointing at
 * NAT gateways this update deletes. That change is refused until the next update.
 */
import * as aws from "@pulumi/aws";
import { DEFAULT_ROUTE, OWN_ROUTES, defaultRouteTables } from "../components/network";
import { NETWORK_NAME } from "./collisions";
import type { ConfigProblem } from "./problems";
import type { PreviousOutputs } from "./previous-outputs";
import { isRecord, isText } from "./schema/records";

/** An id EC2 gives a NAT gateway; anything else is not an answer about which one a route uses. */
const NAT_GATEWAY_ID = /^nat-[0-9a-f]+$/;

export interface InlineRoutes {
  /** Route table id by table name: the default routes this update adopts. */
  readonly adopt: Readonly<Record<string, string>>;
  readonly problems: ConfigProblem[];
  readonly notices: string[];
}

const NONE: InlineRoutes = { adopt: {}, problems: [], notices: [] };

/** The AZs the last `network` output lists: the ones whose tables a successful update made. */
function deployedZones(network: Record<string, unknown>): string[] {
  const zones = Array.isArray(network.zones) ? network.zones : [];
  return zones.flatMap((z) => (isRecord(z) && isText(z.zone) ? [z.zone] : []));
}

/** The table `name` in the VPC and its default route's NAT gateway, or undefined without one. */
async function deployedTable(vpcId: string, name: string) {
  const { ids } = await aws.ec2.getRouteTables({ vpcId, filters: [{ name: "tag:Name", values: [name] }] });
  if (ids.length !== 1) return undefined;
  const table = await aws.ec2.getRouteTable({ routeTableId: ids[0] });
  const route = table.routes.find((r) => r.cidrBlock === DEFAULT_ROUTE);
  return route === undefined ? undefined : { id: ids[0], natGatewayId: route.natGatewayId };
}

/**
 * The default routes to adopt on this update, for a full stack whose last `network` output does not say
 * they are resources of their own already; the problem when `natGateways` changes in the same update.
 */
export async function inlineRoutes(
  previous: PreviousOutputs,
  natGateways: "single" | "perAz" | "none",
): Promise<InlineRoutes> {
  const network = previous.network;
  if (!isText(previous.vpcId) || !isRecord(network) || network.routes === OWN_ROUTES) return NONE;
  const zones = deployedZones(network);
  const adopt: Record<string, string> = {};
  const nats: string[] = [];
  for (const [index, name] of defaultRouteTables(NETWORK_NAME, zones).entries()) {
    const table = await deployedTable(previous.vpcId, name);
    if (table === undefined) continue;
    adopt[name] = table.id;
    if (index > 0 && table.natGatewayId !== "") nats.push(table.natGatewayId);
  }
  const count = Object.keys(adopt).length;
  const notices =
    count === 0
      ? []
      : [
          `network: this update moves the default routes of ${count} route tables into resources of their own (aws.ec2.Route), adopted as they are by import: no route changes, and routes added outside Pulumi are no longer deleted (docs/stacks.md#routes-added-outside-pulumi)`,
        ];
  const distinct = new Set(nats);
  if (zones.length < 2 || nats.length < 2) return { adopt, problems: [], notices };
  if (!nats.every((id) => NAT_GATEWAY_ID.test(id))) {
    const unknown = `network.natGateways: which NAT gateway each deployed route uses is not known here; \`pulumi up\` refuses a change of network.natGateways in the update that moves the routes`;
    return { adopt, problems: [], notices: [...notices, unknown] };
  }
  const deployed = distinct.size > 1 ? "perAz" : "single";
  if (deployed === natGateways) return { adopt, problems: [], notices };
  const problem: ConfigProblem = {
    path: "network.natGateways",
    value: natGateways,
    rule: `changes the deployed ${deployed} NAT gateways in the update that moves the default routes into resources of their own: the adopted routes must stay as they are, and would point at NAT gateways this update deletes`,
    hint: `run this update with network.natGateways: ${deployed}, then change it in the next one`,
  };
  return { adopt, problems: [problem], notices };
}
