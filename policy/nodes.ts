/** Node policies: node groups in private subnets, IMDSv2 on their launch templates. */
import type {
  PolicyResource,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import { TYPES, type Props, forTypes, isRecord, isSet, peek, shown } from "./common";

/** The stack's managed node groups. */
function nodeGroupsOf(resources: PolicyResource[]): PolicyResource[] {
  return resources.filter((r) => r.type === TYPES.awsNodeGroup);
}

/**
 * The subnets a node group's `subnetIds` come from: its per-property dependencies, or else every subnet it
 * depends on (which can only add subnets, so the check errs on the strict side).
 */
function subnetsOf(group: PolicyResource): PolicyResource[] {
  const traced = (group.propertyDependencies.subnetIds ?? []).filter((r) => r.type === TYPES.subnet);
  return traced.length > 0 ? traced : group.dependencies.filter((r) => r.type === TYPES.subnet);
}

/** Internal load balancers go to subnets with this tag; EKS's own subnet convention marks private ones. */
export const PRIVATE_SUBNET_TAG = "kubernetes.io/role/internal-elb";

/** Why a subnet does not count as private; none when it does. */
function publicSigns(subnet: PolicyResource): string[] {
  const props: Props = subnet.props;
  // tagsAll adds the provider's default tags and may still be unknown in a preview; tags is what was set.
  const tagsAll = peek(props, "tagsAll");
  const tags = { ...(isRecord(tagsAll) ? tagsAll : {}), ...(isRecord(props.tags) ? props.tags : {}) };
  return [
    ...(props.mapPublicIpOnLaunch === true ? ["mapPublicIpOnLaunch is true"] : []),
    ...(PRIVATE_SUBNET_TAG in tags ? [] : [`no ${PRIVATE_SUBNET_TAG} tag`]),
  ];
}

export const nodesInPrivateSubnets: StackValidationPolicy = {
  name: "nodes-private-subnets",
  description:
    "Managed node groups run only in private subnets: every subnet a node group's subnetIds come from is an " +
    "aws:ec2/subnet:Subnet of this stack with mapPublicIpOnLaunch false and the " +
    `${PRIVATE_SUBNET_TAG} tag. Nodes with public addresses are one security-group mistake from the internet.`,
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    for (const group of nodeGroupsOf(args.resources)) {
      const subnets = subnetsOf(group);
      if (subnets.length === 0) {
        report(
          `Node group ${group.name}: its subnetIds do not come from any aws:ec2/subnet:Subnet of this stack, ` +
            "so they cannot be shown to be private. Pass the ids of this stack's private subnets.",
          group.urn,
        );
        continue;
      }
      const offending = subnets
        .map((subnet) => ({ subnet, signs: publicSigns(subnet) }))
        .filter(({ signs }) => signs.length > 0);
      if (offending.length > 0) {
        const list = offending.map(({ subnet, signs }) => `${subnet.name} (${signs.join(", ")})`).join("; ");
        report(`Node group ${group.name} runs in subnets that are not private: ${list}.`, group.urn);
      }
    }
  },
};

function requireLaunchTemplate(props: Props, args: ResourceValidationArgs, report: ReportViolation): void {
  const template = props.launchTemplate;
  if (!isRecord(template) || !(isSet(template, "id") || isSet(template, "name"))) {
    report(
      `Node group ${args.name} sets no launchTemplate (id or name), so its nodes start with the AMI's ` +
        "metadata defaults. Give it a launch template that requires IMDSv2 with hop limit 1.",
    );
  }
}

export const nodesImdsv2: ResourceValidationPolicy = {
  name: "nodes-imdsv2",
  description:
    "Nodes require IMDSv2 with a hop limit of 1, so pods cannot read the node role's credentials from the " +
    "instance metadata service: every launch template sets metadataOptions httpTokens `required` and " +
    "httpPutResponseHopLimit 1, and every managed node group starts from a launch template.",
  enforcementLevel: "mandatory",
  validateResource: [
    forTypes([TYPES.launchTemplate], (props, args, report) => {
      const options = isRecord(props.metadataOptions) ? props.metadataOptions : {};
      const problems = [
        ...(options.httpTokens === "required"
          ? []
          : [`httpTokens is ${shown(options.httpTokens)}, not "required" (IMDSv1 stays open)`]),
        ...(options.httpPutResponseHopLimit === 1
          ? []
          : [
              `httpPutResponseHopLimit is ${shown(options.httpPutResponseHopLimit)}, not 1 (pods reach IMDS)`,
            ]),
      ];
      if (problems.length > 0) report(`Launch template ${args.name}: ${problems.join("; ")}.`);
    }),
    forTypes([TYPES.awsNodeGroup], requireLaunchTemplate),
  ],
};
