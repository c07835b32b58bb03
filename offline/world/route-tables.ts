/**
 * The route tables of a deployed stack's VPC, as aws.ec2.getRouteTables and aws.ec2.getRouteTable answer
 * for them (stacks/inline-routes.ts reads them once, on the update that moves the default routes into
 * resources of their own). The world has the tables the last `network` output lists, each with its default
 * route. Which NAT gateway a private table's route uses the world knows only when told (`natGateways`):
 * otherwise the ids are placeholders, and the plan says it cannot tell.
 */
import { NETWORK_NAME } from "../../stacks/collisions";
import { DEFAULT_ROUTE, defaultRouteImportId, defaultRouteTables } from "../../components/network/layout";
import { placeholder } from "./placeholders";

export interface RouteTableSimulation {
  /** The NAT gateways the deployed private tables route to: one for all, or one per AZ. */
  readonly natGateways?: "single" | "perAz";
}

/** A NAT gateway id as EC2 gives them, for the AZ at `index`. */
const natId = (index: number) => `nat-${(index + 1).toString(16).padStart(17, "0")}`;

export class DeployedRouteTables {
  /** Table id by table name; empty for a stack with no VPC or whose routes are resources already. */
  private readonly tables = new Map<string, { id: string; natGatewayId: string; gatewayId: string }>();

  constructor(previousOutputs: Record<string, unknown>, simulation: RouteTableSimulation = {}) {
    const network = previousOutputs.network as { zones?: { zone?: unknown }[] } | undefined;
    if (typeof previousOutputs.vpcId !== "string" || !Array.isArray(network?.zones)) return;
    const zones = network.zones.map((z) => String(z.zone));
    for (const [index, name] of defaultRouteTables(NETWORK_NAME, zones).entries()) {
      const nat =
        simulation.natGateways === undefined
          ? placeholder("nat-gateway-id", name)
          : natId(simulation.natGateways === "perAz" ? index - 1 : 0);
      this.tables.set(name, {
        id: placeholder("route-table-id", name),
        natGatewayId: index === 0 ? "" : nat,
        gatewayId: index === 0 ? placeholder("internet-gateway-id", NETWORK_NAME) : "",
      });
    }
  }

  /** aws.ec2.getRouteTables, filtered by the Name tag as the program filters. */
  getRouteTables(args: Record<string, unknown>): Record<string, unknown> {
    const filters = (args.filters ?? []) as { name: string; values: string[] }[];
    const names = filters.find((f) => f.name === "tag:Name")?.values ?? [];
    const ids = names.flatMap((name) => {
      const table = this.tables.get(name);
      return table === undefined ? [] : [table.id];
    });
    return { id: String(args.vpcId), vpcId: args.vpcId, ids };
  }

  /** aws.ec2.getRouteTable by id: its default route. */
  getRouteTable(args: Record<string, unknown>): Record<string, unknown> {
    const found = [...this.tables.values()].find((t) => t.id === args.routeTableId);
    if (found === undefined) throw new Error(`InvalidRouteTableID.NotFound: ${String(args.routeTableId)}`);
    const route = { cidrBlock: DEFAULT_ROUTE, natGatewayId: found.natGatewayId, gatewayId: found.gatewayId };
    return { id: found.id, routeTableId: found.id, routes: [route] };
  }

  /** Whether `importId` (ROUTETABLEID_DESTINATION) names a default route the world has. */
  hasRoute(importId: string): boolean {
    return [...this.tables.values()].some((t) => importId === defaultRouteImportId(t.id));
  }
}
