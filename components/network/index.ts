import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { planSubnets } from "./subnets";

export { planSubnets } from "./subnets";

export interface NetworkArgs {
  /** IPv4 CIDR of the VPC. Changing it replaces the VPC and everything in it. */
  cidr: string;
  /** AZ names to place one public and one private subnet in, in order. Changing them replaces subnets. */
  availabilityZones: string[];
  /** `single`: one NAT gateway in the first AZ; `perAz`: one in every AZ. */
  natGateways: "single" | "perAz";
  /** Tags for every resource. */
  tags: Record<string, string>;
  /** Protect the VPC from deletion. @default false */
  protect?: boolean;
}

/**
 * A VPC for EKS: per AZ a public subnet (load balancers, NAT) and a private subnet (nodes and, through
 * the VPC CNI, pods), an internet gateway, NAT gateways and route tables.
 */
export class Network extends pulumi.ComponentResource {
  readonly vpcId: pulumi.Output<string>;
  readonly publicSubnetIds: pulumi.Output<string[]>;
  readonly privateSubnetIds: pulumi.Output<string[]>;
  readonly natGatewayIds: pulumi.Output<string[]>;

  constructor(name: string, args: NetworkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("eks-calico:network:Network", name, {}, opts);
    const plan = planSubnets(args.cidr, args.availabilityZones.length);
    const tagged = (resourceName: string, extra: Record<string, string> = {}) => ({
      ...args.tags,
      Name: resourceName,
      ...extra,
    });

    // DNS support and hostnames are required for EKS private endpoint access and node registration.
    const vpc = new aws.ec2.Vpc(
      `${name}-vpc`,
      {
        cidrBlock: args.cidr,
        enableDnsSupport: true,
        enableDnsHostnames: true,
        tags: tagged(`${name}-vpc`),
      },
      { parent: this, protect: args.protect ?? false },
    );
    const igw = new aws.ec2.InternetGateway(
      `${name}-igw`,
      { vpcId: vpc.id, tags: tagged(`${name}-igw`) },
      { parent: this },
    );

    // Public subnets: tagged for internet-facing load balancers.
    const publicSubnets = args.availabilityZones.map(
      (zone, i) =>
        new aws.ec2.Subnet(
          `${name}-public-${zone}`,
          {
            vpcId: vpc.id,
            availabilityZone: zone,
            cidrBlock: plan.public[i],
            mapPublicIpOnLaunch: true,
            tags: tagged(`${name}-public-${zone}`, { "kubernetes.io/role/elb": "1" }),
          },
          { parent: this },
        ),
    );
    // Private subnets: nodes and pods; tagged for internal load balancers.
    const privateSubnets = args.availabilityZones.map(
      (zone, i) =>
        new aws.ec2.Subnet(
          `${name}-private-${zone}`,
          {
            vpcId: vpc.id,
            availabilityZone: zone,
            cidrBlock: plan.private[i],
            mapPublicIpOnLaunch: false,
            tags: tagged(`${name}-private-${zone}`, { "kubernetes.io/role/internal-elb": "1" }),
          },
          { parent: this },
        ),
    );

    // Public route table: default route to the internet gateway, shared by every public subnet.
    const publicRoutes = new aws.ec2.RouteTable(
      `${name}-public`,
      {
        vpcId: vpc.id,
        routes: [{ cidrBlock: "0.0.0.0/0", gatewayId: igw.id }],
        tags: tagged(`${name}-public`),
      },
      { parent: this },
    );
    publicSubnets.forEach(
      (subnet, i) =>
        new aws.ec2.RouteTableAssociation(
          `${name}-public-${args.availabilityZones[i]}`,
          { subnetId: subnet.id, routeTableId: publicRoutes.id },
          { parent: this },
        ),
    );

    // NAT gateways live in public subnets: one in the first AZ, or one per AZ.
    const natZones =
      args.natGateways === "perAz" ? args.availabilityZones : args.availabilityZones.slice(0, 1);
    const natGateways = natZones.map((zone, i) => {
      const eip = new aws.ec2.Eip(
        `${name}-nat-${zone}`,
        { domain: "vpc", tags: tagged(`${name}-nat-${zone}`) },
        {
          parent: this,
        },
      );
      return new aws.ec2.NatGateway(
        `${name}-nat-${zone}`,
        { allocationId: eip.id, subnetId: publicSubnets[i].id, tags: tagged(`${name}-nat-${zone}`) },
        { parent: this, dependsOn: [igw] },
      );
    });

    // One private route table per AZ, so switching `natGateways` only changes routes, never subnets.
    privateSubnets.forEach((subnet, i) => {
      const zone = args.availabilityZones[i];
      const nat = natGateways[args.natGateways === "perAz" ? i : 0];
      const table = new aws.ec2.RouteTable(
        `${name}-private-${zone}`,
        {
          vpcId: vpc.id,
          routes: [{ cidrBlock: "0.0.0.0/0", natGatewayId: nat.id }],
          tags: tagged(`${name}-private-${zone}`),
        },
        { parent: this },
      );
      new aws.ec2.RouteTableAssociation(
        `${name}-private-${zone}`,
        { subnetId: subnet.id, routeTableId: table.id },
        { parent: this },
      );
    });

    this.vpcId = vpc.id;
    this.publicSubnetIds = pulumi.output(publicSubnets.map((s) => s.id));
    this.privateSubnetIds = pulumi.output(privateSubnets.map((s) => s.id));
    this.natGatewayIds = pulumi.output(natGateways.map((n) => n.id));
    this.registerOutputs({
      vpcId: this.vpcId,
      publicSubnetIds: this.publicSubnetIds,
      privateSubnetIds: this.privateSubnetIds,
      natGatewayIds: this.natGatewayIds,
    });
  }
}
