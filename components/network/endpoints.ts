/**
 * The VPC endpoints through which the private subnets reach AWS without a NAT gateway: the S3 gateway
 * endpoint on their route tables (ECR serves image layers from S3), and interface endpoints in every AZ's
 * private subnet behind a security group that admits the VPC's CIDR on 443 only.
 *
 * Which services, from the EKS User Guide's private-cluster requirements (awsdocs/amazon-eks-user-guide
 * latest/ug/clusters/private-clusters.adoc, commit 101184ec, "Pod requirements" and its table of
 * endpoints) and, with Karpenter, from Karpenter's (aws/karpenter-provider-aws
 * website/content/en/docs/getting-started/getting-started-with-karpenter/_index.md, commit 1d927085,
 * "Private Clusters"). Names are `com.amazonaws.<region>.<service>`, as both pages give them and as
 * terraform-provider-aws builds them from a service (internal/service/ec2/vpc_endpoint_service_data_source.go);
 * AWS China and the ISO partitions name some services otherwise (aws-cdk aws-ec2/lib/vpc-endpoint.ts,
 * getDefaultEndpointPrefix), so endpoints are made in ENDPOINT_PARTITIONS only.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import type { Partition } from "../cluster/partitions";

/** The partitions whose endpoint services are all named `com.amazonaws.<region>.<service>`. */
export const ENDPOINT_PARTITIONS: readonly Partition[] = ["aws", "aws-us-gov"];

/** The interface endpoints every stack's nodes use, and why (the EKS User Guide's table). */
export const NODE_ENDPOINTS: Readonly<Record<string, string>> = {
  ec2: "the VPC CNI attaches ENIs and assigns pod addresses through EC2; the EKS AMI names its node from it",
  "ecr.api": "image pulls from ECR: its API (the layers come from S3, through the gateway endpoint)",
  "ecr.dkr": "image pulls from ECR: the registry",
  sts: "IAM roles for service accounts: the VPC CNI's credentials",
  eks: "the Amazon EKS API",
  logs: "CloudWatch Logs, for node and pod logs sent there",
};

/**
 * More where a role is handed out through EKS Pod Identity (`cluster.podIdentity`, Karpenter's controller):
 * the agent on each node asks EKS Auth for it (EKS User Guide, pod-id-agent-setup.html, "Agent
 * prerequisites": private subnets need its endpoint).
 */
export const POD_IDENTITY_ENDPOINTS: Readonly<Record<string, string>> = {
  "eks-auth": "EKS Pod Identity: the roles the agent hands to pods (the VPC CNI's, Karpenter's controller's)",
};

/** More with Karpenter on (Karpenter's list). */
export const KARPENTER_ENDPOINTS: Readonly<Record<string, string>> = {
  sqs: "Karpenter's interruption queue",
  ssm: "Karpenter resolves its pools' AMI aliases from SSM parameters",
};

/** The interface endpoints a stack needs, by service, in a stable order. */
export function interfaceEndpoints(options: { karpenter: boolean; podIdentity: boolean }): string[] {
  return [
    ...Object.keys(NODE_ENDPOINTS),
    ...(options.karpenter || options.podIdentity ? Object.keys(POD_IDENTITY_ENDPOINTS) : []),
    ...(options.karpenter ? Object.keys(KARPENTER_ENDPOINTS) : []),
  ];
}

/** An endpoint service's name in `region`. */
export function endpointServiceName(region: string, service: string): string {
  return `com.amazonaws.${region}.${service}`;
}

export interface EndpointsArgs {
  vpcId: pulumi.Input<string>;
  vpcCidr: string;
  region: string;
  /** Each AZ's private route table, for the S3 gateway endpoint; undefined makes no gateway endpoint. */
  s3RouteTables?: readonly { zone: string; id: pulumi.Input<string> }[];
  /** Interface endpoints by service (`ecr.api`, ...), in the private subnets. */
  services: readonly string[];
  /** Every AZ's private subnet, with its AZ. */
  subnets: readonly { zone: string; id: pulumi.Input<string> }[];
  tags: (name: string) => Record<string, string>;
}

/**
 * The endpoints, children of `parent`, each with its AZ where it serves one (an S3 route table's
 * association). An interface endpoint gets the subnets of the AZs EC2 offers its service in
 * (DescribeVpcEndpointServices, at `up`): an AZ without it would fail the create.
 */
export function createEndpoints(
  name: string,
  args: EndpointsArgs,
  parent: pulumi.Resource,
): { resource: pulumi.Resource; zone?: string }[] {
  const opts = { parent };
  const made: { resource: pulumi.Resource; zone?: string }[] = [];
  if (args.s3RouteTables !== undefined) {
    const s3 = new aws.ec2.VpcEndpoint(
      `${name}-s3`,
      {
        vpcId: args.vpcId,
        serviceName: endpointServiceName(args.region, "s3"),
        vpcEndpointType: "Gateway",
        tags: args.tags(`${name}-s3`),
      },
      opts,
    );
    made.push({ resource: s3 });
    // One association per table: an AZ added or removed adds or deletes its own, and changes no other.
    for (const table of args.s3RouteTables) {
      const resource = new aws.ec2.VpcEndpointRouteTableAssociation(
        `${name}-s3-${table.zone}`,
        { vpcEndpointId: s3.id, routeTableId: table.id },
        opts,
      );
      made.push({ resource, zone: table.zone });
    }
  }
  if (args.services.length === 0) return made;
  const group = new aws.ec2.SecurityGroup(
    `${name}-endpoints`,
    {
      vpcId: args.vpcId,
      description: "VPC interface endpoints: HTTPS from the VPC only",
      tags: args.tags(`${name}-endpoints`),
    },
    opts,
  );
  const https = new aws.vpc.SecurityGroupIngressRule(
    `${name}-endpoints-https`,
    {
      securityGroupId: group.id,
      description: "HTTPS from the VPC",
      ipProtocol: "tcp",
      fromPort: 443,
      toPort: 443,
      cidrIpv4: args.vpcCidr,
      tags: args.tags(`${name}-endpoints-https`),
    },
    opts,
  );
  for (const service of args.services) {
    const serviceName = endpointServiceName(args.region, service);
    const offered = aws.ec2.getVpcEndpointServiceOutput({ serviceName, serviceType: "Interface" }, opts);
    const endpointName = `${name}-${service.replace(/\./g, "-")}`;
    made.push({
      resource: new aws.ec2.VpcEndpoint(
        endpointName,
        {
          vpcId: args.vpcId,
          serviceName,
          vpcEndpointType: "Interface",
          privateDnsEnabled: true,
          securityGroupIds: [group.id],
          subnetIds: pulumi
            .all([offered.availabilityZones, pulumi.all(args.subnets.map((s) => s.id))])
            .apply(([zones, ids]) => ids.filter((_, i) => zones.includes(args.subnets[i].zone))),
          tags: args.tags(endpointName),
        },
        { parent, dependsOn: [https] },
      ),
    });
  }
  return made;
}
