/**
 * The VPC component (Network): per AZ a public and a private subnet, the internet gateway, the NAT
 * gateways, route tables whose default routes are resources of their own, and the VPC endpoints
 * (endpoints.ts). Wiring only: the CIDRs and
 * AZs come from the layout (layout.ts, its subnet arithmetic in subnets.ts), which stacks/previous-network.ts
 * decides with the deployed network. CIDR rules the config schema and the policy pack share are in
 * cidr-ranges.ts, the addresses a node's pods take in pod-addresses.ts.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { createEndpoints } from "./endpoints";
import { DEFAULT_ROUTE, type NetworkLayout, defaultRouteImportId, defaultRouteTables } from "./layout";

export {
  DEFAULT_ROUTE,
  type NetworkLayout,
  OWN_ROUTES,
  defaultRouteTables,
  layoutOutput,
  newLayout,
} from "./layout";
export { planSubnets } from "./subnets";
export { ENDPOINT_PARTITIONS, interfaceEndpoints } from "./endpoints";

export interface NetworkArgs {
  /**
   * The VPC's CIDR, each AZ with its public and private subnet (in order), and the AZs whose subnets the
   * EKS cluster gets (stacks/previous-network.ts decides it). A new CIDR replaces the VPC and everything
   * in it; a subnet whose CIDR changes is replaced; an added AZ adds subnets and changes none.
   */
  layout: NetworkLayout;
  /** `single`: one NAT gateway in the first AZ; `perAz`: one in every AZ; `none`: no route out of the VPC. */
  natGateways: "single" | "perAz" | "none";
  /** The region, for the endpoints' service names. */
  region: string;
  /**
   * The S3 gateway endpoint on the private route tables, and the interface endpoints by service
   * (`ecr.api`, ...) in every AZ's private subnet (./endpoints.ts).
   */
  endpoints: { s3: boolean; interface: readonly string[] };
  /** Tags for every resource. */
  tags: Record<string, string>;
  /** Protect the VPC from deletion. @default false */
  protect?: boolean;
  /**
   * Route tables of a stack deployed with inline routes, by table name (defaultRouteTables): the id of
   * each whose default route this update adopts as its own aws.ec2.Route, unchanged (stacks/inline-routes.ts).
   * @default {}
   */
  adoptDefaultRoutes?: Readonly<Record<string, string>>;
  /** More tags for the private subnets (nodes' subnets): Karpenter's discovery tag. @default {} */
  privateSubnetTags?: Readonly<Record<string, string>>;
}

type SubnetKind = "public" | "private";

/** Subnet tags telling the AWS load balancer integrations which subnets to use. */
const LOAD_BALANCER_ROLE: Record<SubnetKind, Record<string, string>> = {
  public: { "kubernetes.io/role/elb": "1" },
  private: { "kubernetes.io/role/internal-elb": "1" },
};

/**
 * A VPC for EKS: per AZ a public subnet (load balancers, NAT) and a private subnet (nodes and, through
 * the VPC CNI, pods), an internet gateway, NAT gateways and route tables.
 */
export class Network extends pulumi.ComponentResource {
  readonly vpcId: pulumi.Output<string>;
  /** Every AZ's public subnet, in AZ order. */
  readonly publicSubnetIds: pulumi.Output<string[]>;
  /** Every AZ's private subnet, in AZ order. */
  readonly privateSubnetIds: pulumi.Output<string[]>;
  /** The public subnets of the AZs the EKS cluster was created in (`layout.clusterZones`). */
  readonly clusterPublicSubnetIds: pulumi.Output<string[]>;
  /** The private subnets of the AZs the EKS cluster was created in (`layout.clusterZones`). */
  readonly clusterPrivateSubnetIds: pulumi.Output<string[]>;
  readonly natGatewayIds: pulumi.Output<string[]>;
  /**
   * The default routes (to a NAT gateway) and subnet associations of the private subnets of the AZs the
   * cluster was created in, where its node groups run, and the VPC endpoints: nodes need this egress to
   * reach ECR, EKS and S3 before they can join.
   */
  readonly privateEgress: pulumi.Resource[];

  private readonly args: NetworkArgs;
  private readonly baseName: string;
  private readonly zones: string[];

  constructor(name: string, args: NetworkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:network:Network", name, {}, opts);
    this.args = args;
    this.baseName = name;
    const { cidr, zones, clusterZones } = args.layout;
    this.zones = zones.map((z) => z.zone);

    // DNS support and hostnames are required for EKS private endpoint access and node registration.
    const vpc = new aws.ec2.Vpc(
      `${name}-vpc`,
      {
        cidrBlock: cidr,
        enableDnsSupport: true,
        enableDnsHostnames: true,
        tags: this.tags(`${name}-vpc`),
      },
      { parent: this, protect: args.protect ?? false },
    );
    const igw = new aws.ec2.InternetGateway(
      `${name}-igw`,
      { vpcId: vpc.id, tags: this.tags(`${name}-igw`) },
      { parent: this },
    );
    const publicSubnets = this.createSubnets(
      vpc,
      "public",
      zones.map((z) => z.public),
    );
    const privateSubnets = this.createSubnets(
      vpc,
      "private",
      zones.map((z) => z.private),
    );
    this.routePublicSubnets(vpc, igw, publicSubnets);
    const natGateways = this.createNatGateways(igw, publicSubnets);
    const { tables, egress } = this.routePrivateSubnets(vpc, privateSubnets, natGateways);
    const endpoints = createEndpoints(
      name,
      {
        vpcId: vpc.id,
        vpcCidr: cidr,
        region: args.region,
        ...(args.endpoints.s3
          ? { s3RouteTables: tables.map((t, i) => ({ zone: this.zones[i], id: t.id })) }
          : {}),
        services: args.endpoints.interface,
        subnets: privateSubnets.map((subnet, i) => ({ zone: this.zones[i], id: subnet.id })),
        tags: (resourceName) => this.tags(resourceName),
      },
      this,
    );
    const inCluster = (zone: string | undefined) => zone === undefined || clusterZones.includes(zone);
    this.privateEgress = [
      ...egress.filter((_, i) => inCluster(this.zones[i])).flat(),
      ...endpoints.filter((e) => inCluster(e.zone)).map((e) => e.resource),
    ];

    this.vpcId = vpc.id;
    this.publicSubnetIds = pulumi.output(publicSubnets.map((s) => s.id));
    this.privateSubnetIds = pulumi.output(privateSubnets.map((s) => s.id));
    this.natGatewayIds = pulumi.output(natGateways.map((n) => n.id));
    const clusterSubnets = (subnets: aws.ec2.Subnet[]) =>
      pulumi.output(subnets.filter((_, i) => clusterZones.includes(this.zones[i])).map((s) => s.id));
    this.clusterPublicSubnetIds = clusterSubnets(publicSubnets);
    this.clusterPrivateSubnetIds = clusterSubnets(privateSubnets);
    this.registerOutputs({
      vpcId: this.vpcId,
      publicSubnetIds: this.publicSubnetIds,
      privateSubnetIds: this.privateSubnetIds,
      clusterPublicSubnetIds: this.clusterPublicSubnetIds,
      clusterPrivateSubnetIds: this.clusterPrivateSubnetIds,
      natGatewayIds: this.natGatewayIds,
    });
  }

  /** The stack's tags plus a Name (and any role tags) for one resource. */
  private tags(resourceName: string, extra: Record<string, string> = {}): Record<string, string> {
    return { ...this.args.tags, Name: resourceName, ...extra };
  }

  /** One subnet of `kind` per AZ, with the CIDRs of the layout. */
  private createSubnets(vpc: aws.ec2.Vpc, kind: SubnetKind, cidrs: string[]): aws.ec2.Subnet[] {
    return this.zones.map((zone, i) => {
      const subnetName = `${this.baseName}-${kind}-${zone}`;
      return new aws.ec2.Subnet(
        subnetName,
        {
          vpcId: vpc.id,
          availabilityZone: zone,
          cidrBlock: cidrs[i],
          // Nothing launched here needs a public address: NAT gateways bring their Elastic IPs and
          // load balancers their own.
          mapPublicIpOnLaunch: false,
          tags: this.tags(subnetName, {
            ...LOAD_BALANCER_ROLE[kind],
            ...(kind === "private" ? this.args.privateSubnetTags : {}),
          }),
        },
        { parent: this },
      );
    });
  }

  /**
   * A route table with no inline routes, and its default route as a resource of its own. Inline routes
   * would be the table's whole set: terraform-provider-aws deletes every route not in config once `route`
   * is set (internal/service/ec2/vpc_route_table.go, resourceRouteTableUpdate), so a peering, VPN or
   * transit gateway route added outside Pulumi would be drift, and `pulumi up --refresh` would delete it.
   * Unset, `route` is Optional and Computed: the table keeps what it has. A deployed table's inline route is
   * adopted by `import` (ROUTETABLEID_DESTINATION, vpc_route.go resourceRouteImport), never deleted and
   * created again: CreateRoute refuses a destination the table has (RouteAlreadyExists).
   */
  private routeTable(
    vpc: aws.ec2.Vpc,
    tableName: string,
    target: { gatewayId: pulumi.Input<string> } | { natGatewayId: pulumi.Input<string> } | undefined,
  ): [aws.ec2.RouteTable, aws.ec2.Route | undefined] {
    const table = new aws.ec2.RouteTable(
      tableName,
      { vpcId: vpc.id, tags: this.tags(tableName) },
      { parent: this },
    );
    if (target === undefined) return [table, undefined];
    const adopted = this.args.adoptDefaultRoutes?.[tableName];
    const route = new aws.ec2.Route(
      `${tableName}-default`,
      { routeTableId: table.id, destinationCidrBlock: DEFAULT_ROUTE, ...target },
      { parent: this, ...(adopted === undefined ? {} : { import: defaultRouteImportId(adopted) }) },
    );
    return [table, route];
  }

  /** One route table for all public subnets: default route to the internet gateway. */
  private routePublicSubnets(
    vpc: aws.ec2.Vpc,
    igw: aws.ec2.InternetGateway,
    subnets: aws.ec2.Subnet[],
  ): void {
    const [publicTable] = defaultRouteTables(this.baseName, this.zones);
    const [table] = this.routeTable(vpc, publicTable, { gatewayId: igw.id });
    subnets.forEach(
      (subnet, i) =>
        new aws.ec2.RouteTableAssociation(
          `${this.baseName}-public-${this.zones[i]}`,
          { subnetId: subnet.id, routeTableId: table.id },
          { parent: this },
        ),
    );
  }

  /** NAT gateways in public subnets: one in the first AZ, one per AZ, or none. */
  private createNatGateways(
    igw: aws.ec2.InternetGateway,
    publicSubnets: aws.ec2.Subnet[],
  ): aws.ec2.NatGateway[] {
    const count = { single: 1, perAz: this.zones.length, none: 0 }[this.args.natGateways];
    const zones = this.zones.slice(0, count);
    return zones.map((zone, i) => {
      const natName = `${this.baseName}-nat-${zone}`;
      const eip = new aws.ec2.Eip(natName, { domain: "vpc", tags: this.tags(natName) }, { parent: this });
      return new aws.ec2.NatGateway(
        natName,
        { allocationId: eip.id, subnetId: publicSubnets[i].id, tags: this.tags(natName) },
        { parent: this, dependsOn: [igw] },
      );
    });
  }

  /**
   * Per AZ, a route table for its private subnet and the association: default route to the AZ's NAT
   * gateway (or the single one; none without NAT), so switching `natGateways` only changes routes, never
   * subnets.
   */
  private routePrivateSubnets(
    vpc: aws.ec2.Vpc,
    subnets: aws.ec2.Subnet[],
    natGateways: aws.ec2.NatGateway[],
  ): { tables: aws.ec2.RouteTable[]; egress: pulumi.Resource[][] } {
    const routed = subnets.map((subnet, i) => {
      const tableName = defaultRouteTables(this.baseName, this.zones)[i + 1];
      const nat = natGateways.length === 0 ? undefined : natGateways[Math.min(i, natGateways.length - 1)];
      const [table, route] = this.routeTable(vpc, tableName, nat && { natGatewayId: nat.id });
      const association = new aws.ec2.RouteTableAssociation(
        tableName,
        { subnetId: subnet.id, routeTableId: table.id },
        { parent: this },
      );
      // The table comes first through both.
      return { table, egress: route === undefined ? [association] : [route, association] };
    });
    return { tables: routed.map((r) => r.table), egress: routed.map((r) => r.egress) };
  }
}
