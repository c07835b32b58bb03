/**
 * VPC endpoints and a stack without NAT (components/network/endpoints.ts, stacks/private-network.ts): the
 * S3 gateway endpoint on the private route tables by default; the interface endpoints of the EKS User
 * Guide's private-cluster list (and Karpenter's) in every private subnet behind a security group that
 * admits the VPC only; `natGateways: none` refused, every problem at once, unless the endpoints are on and
 * every registry is ECR in the region; and on a deployed stack each change plans only its own resources,
 * the node groups waiting for the endpoints.
 */
import * as assert from "node:assert/strict";
import { diffDocuments } from "../offline/diff";
import { type StackEvaluation, evaluateStackExpectingError } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { ConfigError } from "../stacks";
import { inRegionEcr } from "../stacks/private-network";
import { quotaUse } from "../stacks/region-quotas";
import { dependsOn, evaluated, evaluatedWith, input, ofType, one, stackValue, withWarnings } from "./helpers";

const ENDPOINT = "aws:ec2/vpcEndpoint:VpcEndpoint";
const ECR = "111122223333.dkr.ecr.us-west-2.amazonaws.com";
/** dev's Calico with every image from ECR in us-west-2. */
const ECR_CALICO = {
  ...stackValue<object>("dev", "calico"),
  registry: `${ECR}/calico`,
  autoscalerRegistry: `${ECR}/cpa`,
  startupTaintRegistry: `${ECR}/k8s`,
  probe: { registry: `${ECR}/e2e-test-images` },
};
const devNetwork = (change: Record<string, unknown>) => ({
  "eks-calico:network": { ...stackValue<object>("dev", "network"), ...change },
});

/** The interface endpoints' services, from their service names. */
const services = (plan: StackEvaluation) =>
  ofType(plan, ENDPOINT)
    .filter((e) => input(e, "vpcEndpointType") === "Interface")
    .map((e) => String(input(e, "serviceName")).replace("com.amazonaws.us-west-2.", ""))
    .sort();

describe("VPC endpoints", () => {
  let dev: StackEvaluation;
  let withEndpoints: StackEvaluation;
  before(async () => {
    dev = await evaluated("dev");
    withEndpoints = await evaluatedWith("dev", {
      config: { "eks-calico:network.endpoints.interface": true },
    });
  });

  it("puts the S3 gateway endpoint on every private route table by default, and no interface endpoint", () => {
    const s3 = one(dev, ENDPOINT);
    assert.equal(input(s3, "serviceName"), "com.amazonaws.us-west-2.s3");
    assert.equal(input(s3, "vpcEndpointType"), "Gateway");
    const privateTables = ofType(dev, "aws:ec2/routeTable:RouteTable")
      .filter((t) => t.name.startsWith("network-private-"))
      .map((t) => `<routeTable-id:${t.name}>`);
    assert.equal(privateTables.length, 2);
    const associations = ofType(
      dev,
      "aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation",
    );
    assert.deepEqual(associations.map((a) => input(a, "routeTableId")).sort(), privateTables.sort());
    for (const a of associations) assert.equal(input(a, "vpcEndpointId"), `<vpcEndpoint-id:${s3.name}>`);
  });

  it("adds the EKS User Guide's interface endpoints, each in every private subnet, behind a group that admits the VPC only", () => {
    assert.deepEqual(services(withEndpoints), ["ec2", "ecr.api", "ecr.dkr", "eks", "logs", "sts"]);
    const privateSubnets = ofType(withEndpoints, "aws:ec2/subnet:Subnet")
      .filter((s) => s.name.startsWith("network-private-"))
      .map((s) => `<subnet-id:${s.name}>`);
    const group = one(withEndpoints, "aws:ec2/securityGroup:SecurityGroup", "network-endpoints");
    for (const endpoint of ofType(withEndpoints, ENDPOINT).filter((e) => e.name !== "network-s3")) {
      assert.equal(input(endpoint, "privateDnsEnabled"), true, endpoint.name);
      assert.deepEqual(input(endpoint, "subnetIds"), privateSubnets, endpoint.name);
      assert.deepEqual(input(endpoint, "securityGroupIds"), [`<securityGroup-id:${group.name}>`]);
    }
    const rules = ofType(withEndpoints, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule").filter(
      (r) => input(r, "securityGroupId") === `<securityGroup-id:${group.name}>`,
    );
    assert.deepEqual(
      rules.map((r) => [
        input(r, "ipProtocol"),
        input(r, "fromPort"),
        input(r, "toPort"),
        input(r, "cidrIpv4"),
      ]),
      [["tcp", 443, 443, stackValue<{ cidr: string }>("dev", "network").cidr]],
    );
    assert.equal(input(group, "egress"), undefined);
    assert.equal(input(group, "ingress"), undefined);
  });

  it("adds Karpenter's: EKS Auth for Pod Identity, SQS for its queue, SSM for its AMI aliases", async () => {
    const plan = await evaluatedWith("dev", {
      config: { "eks-calico:network.endpoints.interface": true, "eks-calico:karpenter.enabled": true },
    });
    assert.deepEqual(services(plan), [
      "ec2",
      "ecr.api",
      "ecr.dkr",
      "eks",
      "eks-auth",
      "logs",
      "sqs",
      "ssm",
      "sts",
    ]);
  });

  it("makes every node group wait for every endpoint", () => {
    const groups = ofType(withEndpoints, "aws:eks/nodeGroup:NodeGroup");
    assert.ok(groups.length > 0);
    for (const group of groups)
      for (const endpoint of ofType(withEndpoints, ENDPOINT))
        assert.ok(dependsOn(withEndpoints, group, endpoint), `${group.name} waits for ${endpoint.name}`);
  });

  it("turned on in a deployed stack, creates the endpoints and their group alone", () => {
    const diff = diffDocuments(resourcesDocument(dev), resourcesDocument(withEndpoints));
    assert.deepEqual(diff.removed, []);
    // A node group whose dependencies change takes no step (`same`): listed, and unchanged.
    assert.deepEqual(
      diff.changed.filter((r) => r.op !== "same").map((r) => `${r.op} ${r.heading}`),
      [],
    );
    assert.deepEqual([...new Set(diff.added.map((r) => r.heading.split(" ")[0]))].sort(), [
      "aws:ec2/securityGroup:SecurityGroup",
      "aws:ec2/vpcEndpoint:VpcEndpoint",
      "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    ]);
  });
});

describe("a stack without NAT (network.natGateways: none)", () => {
  it("is refused, every problem at once by key path, while an endpoint is off, a registry is not ECR in the region, or Karpenter is on", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: {
        ...devNetwork({ natGateways: "none", endpoints: { s3: false } }),
        "eks-calico:karpenter.enabled": true,
        "eks-calico:calico": {
          ...ECR_CALICO,
          registry: "111122223333.dkr.ecr.us-east-1.amazonaws.com/calico",
          probe: { registry: "public.ecr.aws/e2e" },
        },
      },
    });
    assert.deepEqual(
      resources.map((r) => r.type),
      ["pulumi:pulumi:Stack"],
    );
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(error.problems.map((p) => p.path).sort(), [
      "calico.probe.registry",
      "calico.registry",
      "karpenter.enabled",
      "network.endpoints.interface",
      "network.endpoints.s3",
    ]);
    assert.match(error.message, /must be an ECR registry in us-west-2/);
  });

  it("plans with the endpoints on and every image in ECR: no NAT gateway, Elastic IP or private default route, and says what a pod gets", async () => {
    const { result: plan, warnings } = await withWarnings(() =>
      evaluatedWith("dev", {
        config: {
          ...devNetwork({ natGateways: "none", endpoints: { interface: true } }),
          "eks-calico:calico": ECR_CALICO,
        },
      }),
    );
    assert.deepEqual(ofType(plan, "aws:ec2/natGateway:NatGateway"), []);
    assert.deepEqual(ofType(plan, "aws:ec2/eip:Eip"), []);
    assert.deepEqual(
      ofType(plan, "aws:ec2/route:Route").map((r) => r.name),
      ["network-public-default"],
    );
    assert.match(warnings.join("\n"), /natGateways is none: .*times out/);
    assert.equal(quotaUse("dev", { natGateways: "none", availabilityZones: 3 }, {}).elasticIps, 0);
  });

  it("turned on in a deployed stack with endpoints, deletes the NAT gateway, its Elastic IP and the private default routes alone, after the endpoints the node groups wait for", async () => {
    const config = (natGateways: string) => ({
      config: {
        ...devNetwork({ natGateways, endpoints: { interface: true } }),
        "eks-calico:calico": ECR_CALICO,
      },
    });
    const before = await evaluatedWith("dev", config("single"));
    const after = await evaluatedWith("dev", config("none"));
    const diff = diffDocuments(resourcesDocument(before), resourcesDocument(after));
    assert.deepEqual(diff.added, []);
    assert.deepEqual(
      diff.changed.filter((r) => r.op !== "same").map((r) => `${r.op} ${r.heading}`),
      [],
    );
    assert.deepEqual(diff.removed.map((r) => r.heading).sort(), [
      "aws:ec2/eip:Eip network-nat-us-west-2a",
      "aws:ec2/natGateway:NatGateway network-nat-us-west-2a",
      "aws:ec2/route:Route network-private-us-west-2a-default",
      "aws:ec2/route:Route network-private-us-west-2b-default",
    ]);
    // Pulumi deletes what the program no longer registers only after every registration's step is done
    // (pulumi/pulumi pkg/resource/deploy/deployment_executor.go, Execute: the source's last event, then
    // performDeletes), so the endpoints every node group waits for exist before the routes go.
    for (const group of ofType(after, "aws:eks/nodeGroup:NodeGroup"))
      for (const endpoint of ofType(after, ENDPOINT)) assert.ok(dependsOn(after, group, endpoint));
  });

  it("takes ECR of the stack's region only, FIPS too", () => {
    for (const good of [`${ECR}/calico`, ECR, "111122223333.dkr.ecr-fips.us-west-2.amazonaws.com/x"])
      assert.ok(inRegionEcr(good, "us-west-2"), good);
    for (const bad of [
      "111122223333.dkr.ecr.us-east-1.amazonaws.com/calico",
      "public.ecr.aws/karpenter",
      "quay.io/calico",
      "11112222333.dkr.ecr.us-west-2.amazonaws.com/calico",
      `${ECR}.evil.example/calico`,
    ])
      assert.ok(!inRegionEcr(bad, "us-west-2"), bad);
  });

  it("refuses interface endpoints where endpoint services are named otherwise (AWS China), and plans them in GovCloud", async () => {
    const china = await evaluateStackExpectingError("dev", {
      config: { "aws:region": "cn-north-1", "eks-calico:network.endpoints.interface": true },
    });
    assert.ok(ConfigError.isConfigError(china.error), String(china.error));
    assert.ok(china.error.problems.some((p) => p.path === "network.endpoints.interface"));
    const gov = await evaluatedWith("dev", {
      config: { "aws:region": "us-gov-west-1", "eks-calico:network.endpoints.interface": true },
    });
    assert.ok(
      ofType(gov, ENDPOINT).every((e) =>
        String(input(e, "serviceName")).startsWith("com.amazonaws.us-gov-west-1."),
      ),
    );
  });
});
