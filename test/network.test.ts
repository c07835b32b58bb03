import * as assert from "node:assert/strict";
import { parseCidr, planSubnets } from "../components/network/subnets";
import { loadStackConfig } from "../offline/engine";
import { REGIONS } from "../offline/world";
import { STACKS, evaluated, input, ofType, one, stackValue } from "./helpers";

const SUBNET = "aws:ec2/subnet:Subnet";
const NAT = "aws:ec2/natGateway:NatGateway";
const ROUTE_TABLE = "aws:ec2/routeTable:RouteTable";
const ROUTE = "aws:ec2/route:Route";
const ASSOCIATION = "aws:ec2/routeTableAssociation:RouteTableAssociation";

function networkConfig(stack: string) {
  return stackValue<{ cidr: string; availabilityZones: number; natGateways: string }>(stack, "network");
}

function range(cidr: string): [number, number] {
  const { network, prefix } = parseCidr(cidr);
  return [network, network + 2 ** (32 - prefix) - 1];
}

describe("subnet layout", () => {
  it("gives each AZ an eighth of a /16 for its private subnet and a /22 for its public one", () => {
    assert.deepEqual(planSubnets("10.0.0.0/16", 2), {
      private: ["10.0.0.0/19", "10.0.32.0/19"],
      public: ["10.0.192.0/22", "10.0.196.0/22"],
    });
    assert.deepEqual(planSubnets("10.20.0.0/16", 6), {
      private: [
        "10.20.0.0/19",
        "10.20.32.0/19",
        "10.20.64.0/19",
        "10.20.96.0/19",
        "10.20.128.0/19",
        "10.20.160.0/19",
      ],
      public: [
        "10.20.192.0/22",
        "10.20.196.0/22",
        "10.20.200.0/22",
        "10.20.204.0/22",
        "10.20.208.0/22",
        "10.20.212.0/22",
      ],
    });
  });

  it("never overlaps and stays inside the VPC, for every prefix and AZ count", () => {
    for (let prefix = 16; prefix <= 22; prefix++) {
      for (let zones = 2; zones <= 6; zones++) {
        const vpc = `172.16.0.0/${prefix}`;
        const plan = planSubnets(vpc, zones);
        const ranges = [...plan.private, ...plan.public].map(range).sort((a, b) => a[0] - b[0]);
        const [first, last] = range(vpc);
        assert.equal(ranges.length, 2 * zones);
        assert.ok(
          ranges[0][0] >= first && ranges[ranges.length - 1][1] <= last,
          `${vpc} x${zones} leaves the VPC`,
        );
        ranges.slice(1).forEach((r, i) => assert.ok(r[0] > ranges[i][1], `${vpc} x${zones} overlaps`));
      }
    }
  });

  it("refuses a CIDR with host bits set", () => {
    assert.throws(
      () => planSubnets("10.0.0.1/16", 2),
      /host bits set; the network address is 10\.0\.0\.0\/16/,
    );
  });
});

for (const stack of STACKS) {
  describe(`network of ${stack}`, () => {
    const config = networkConfig(stack);

    it("builds one VPC with the configured CIDR and DNS support and hostnames on", async () => {
      const vpc = one(await evaluated(stack), "aws:ec2/vpc:Vpc", "network-vpc");
      assert.equal(vpc.inputs.cidrBlock, config.cidr);
      assert.equal(vpc.inputs.enableDnsSupport, true);
      assert.equal(vpc.inputs.enableDnsHostnames, true);
    });

    it("puts one public and one private subnet in each of the first N distinct AZs", async () => {
      const evaluation = await evaluated(stack);
      const subnets = ofType(evaluation, SUBNET);
      assert.equal(subnets.length, 2 * config.availabilityZones);
      // The first N AZs of the stack's own region, as the offline world lists them (offline/world/regions.ts).
      const region = loadStackConfig(stack).values["aws:region"];
      const zones = REGIONS[region].zones.slice(0, config.availabilityZones).map((l) => `${region}${l}`);
      const plan = planSubnets(config.cidr, config.availabilityZones);
      for (const [kind, cidrs, role] of [
        ["public", plan.public, "kubernetes.io/role/elb"],
        ["private", plan.private, "kubernetes.io/role/internal-elb"],
      ] as const) {
        const ofKind = subnets.filter((s) => s.name.startsWith(`network-${kind}-`));
        assert.deepEqual(
          ofKind.map((s) => s.inputs.availabilityZone),
          zones,
        );
        assert.deepEqual(
          ofKind.map((s) => s.inputs.cidrBlock),
          cidrs,
        );
        ofKind.forEach((s) =>
          assert.equal(input<Record<string, string>>(s, "tags")[role], "1", `${s.name} lacks ${role}`),
        );
        // Nothing here needs a public address on launch, public subnets included.
        ofKind.forEach((s) => assert.equal(s.inputs.mapPublicIpOnLaunch, false, s.name));
      }
    });

    it(`creates NAT gateways per '${config.natGateways}', each in a public subnet with its own EIP`, async () => {
      const evaluation = await evaluated(stack);
      const nats = ofType(evaluation, NAT);
      const expected = config.natGateways === "perAz" ? config.availabilityZones : 1;
      assert.equal(nats.length, expected);
      assert.equal(ofType(evaluation, "aws:ec2/eip:Eip").length, expected);
      const publicIds = ofType(evaluation, SUBNET)
        .filter((s) => s.name.startsWith("network-public-"))
        .map((s) => `<subnet-id:${s.name}>`);
      assert.deepEqual(
        nats.map((n) => n.inputs.subnetId),
        publicIds.slice(0, expected),
      );
      nats.forEach((n) => assert.equal(n.inputs.allocationId, `<eip-id:${n.name}>`));
    });

    it("routes private subnets through their NAT and public subnets through the internet gateway", async () => {
      const evaluation = await evaluated(stack);
      // No inline routes (a table's inline set is its whole set), and one default route resource each.
      for (const table of ofType(evaluation, ROUTE_TABLE)) assert.equal(table.inputs.routes, undefined);
      const routeOf = (table: string) => one(evaluation, ROUTE, `${table}-default`).inputs;
      assert.deepEqual(routeOf("network-public"), {
        routeTableId: "<routeTable-id:network-public>",
        destinationCidrBlock: "0.0.0.0/0",
        gatewayId: "<internetGateway-id:network-igw>",
      });
      const nats = ofType(evaluation, NAT).map((n) => `<natGateway-id:${n.name}>`);
      const privateTables = ofType(evaluation, ROUTE_TABLE).filter((t) =>
        t.name.startsWith("network-private-"),
      );
      assert.equal(privateTables.length, config.availabilityZones);
      assert.equal(ofType(evaluation, ROUTE).length, config.availabilityZones + 1);
      privateTables.forEach((table, i) => {
        const nat = config.natGateways === "perAz" ? nats[i] : nats[0];
        assert.deepEqual(routeOf(table.name), {
          routeTableId: `<routeTable-id:${table.name}>`,
          destinationCidrBlock: "0.0.0.0/0",
          natGatewayId: nat,
        });
      });
      // Every subnet is associated with exactly one route table of its own kind.
      const associations = ofType(evaluation, ASSOCIATION);
      assert.equal(associations.length, 2 * config.availabilityZones);
      for (const association of associations) {
        const subnetName = String(association.inputs.subnetId).slice("<subnet-id:".length, -1);
        const expectedTable = subnetName.startsWith("network-public-") ? "network-public" : subnetName;
        assert.equal(association.inputs.routeTableId, `<routeTable-id:${expectedTable}>`);
      }
    });

    it("tags every AWS resource with the config tags plus project and stack", async () => {
      const evaluation = await evaluated(stack);
      const tags = stackValue<Record<string, string>>(stack, "tags");
      const taggable = evaluation.resources.filter(
        (r) =>
          r.type.startsWith("aws:") &&
          !r.type.startsWith("aws:iam/rolePolicyAttachment") &&
          // Associations take no tags (aws_route_table_association, aws_vpc_endpoint_route_table_association).
          !/routeTableAssociation/i.test(r.type) &&
          // A route has no tags (aws_route, vpc_route.go).
          r.type !== ROUTE,
      );
      assert.ok(taggable.length > 10);
      const expected = { ...tags, "pulumi:project": "eks-calico", "pulumi:stack": stack };
      for (const resource of taggable) {
        const actual = input<Record<string, string>>(resource, "tags");
        for (const [key, value] of Object.entries(expected)) {
          assert.equal(actual[key], value, `${resource.type} ${resource.name}: tag ${key}`);
        }
      }
    });
  });
}
