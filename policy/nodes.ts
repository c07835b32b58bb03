/**
 * Node policies, for managed node groups (their launch templates) and Karpenter's EC2NodeClasses alike:
 * private subnets, IMDSv2 with hop limit 1, encrypted volumes. A node class whose spec a preview does not
 * know yet (it is made from the cluster's and the node role's names) is checked at `up`, when it is known.
 */
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

/** A Karpenter EC2NodeClass's spec, where the preview knows it. */
function nodeClassSpec(props: Props): Props | undefined {
  const spec = peek(props, "spec");
  return isRecord(spec) ? spec : undefined;
}

/** The tags of a subnet as it was given them. */
function subnetTags(subnet: PolicyResource): Record<string, unknown> {
  const tags = peek(subnet.props, "tags");
  return isRecord(tags) ? tags : {};
}

/**
 * Why an EC2NodeClass's subnetSelectorTerms may pick a subnet that is not private: a term by id or name
 * (which names nothing this stack can check), a term no subnet of the stack carries, or a public one.
 */
function nodeClassSubnetProblems(spec: Props, subnets: PolicyResource[]): string[] {
  const terms = Array.isArray(spec.subnetSelectorTerms) ? spec.subnetSelectorTerms : [];
  if (terms.length === 0) return ["it sets no subnetSelectorTerms"];
  return terms.flatMap((term: unknown, index) => {
    const tags = isRecord(term) && isRecord(term.tags) ? term.tags : undefined;
    if (tags === undefined || Object.keys(term as object).length !== 1) {
      return [`subnetSelectorTerms[${index}] selects by something other than tags alone`];
    }
    const picked = subnets.filter((subnet) => {
      const carried = subnetTags(subnet);
      return Object.entries(tags).every(([key, value]) =>
        value === "*" ? key in carried : carried[key] === value,
      );
    });
    if (picked.length === 0) return [`subnetSelectorTerms[${index}] matches no subnet of this stack`];
    return picked
      .map((subnet) => ({ subnet, signs: publicSigns(subnet) }))
      .filter(({ signs }) => signs.length > 0)
      .map(({ subnet, signs }) => `subnetSelectorTerms[${index}] picks ${subnet.name} (${signs.join(", ")})`);
  });
}

export const nodesInPrivateSubnets: StackValidationPolicy = {
  name: "nodes-private-subnets",
  description:
    "Managed node groups and Karpenter's nodes run only in private subnets: every subnet a node group's " +
    "subnetIds come from, and every subnet an EC2NodeClass's subnetSelectorTerms (by tag) pick, is an " +
    "aws:ec2/subnet:Subnet of this stack with mapPublicIpOnLaunch false and the " +
    `${PRIVATE_SUBNET_TAG} tag. Nodes with public addresses are one security-group mistake from the internet.`,
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    const subnets = args.resources.filter((r) => r.type === TYPES.subnet);
    for (const nodeClass of args.resources.filter((r) => r.type === TYPES.nodeClass)) {
      const spec = nodeClassSpec(nodeClass.props);
      const problems = spec === undefined ? [] : nodeClassSubnetProblems(spec, subnets);
      if (problems.length > 0) {
        report(`EC2NodeClass ${nodeClass.name}: ${problems.join("; ")}.`, nodeClass.urn);
      }
    }
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

/** What is wrong with metadata options (a launch template's, an EC2NodeClass's: the same fields). */
function metadataProblems(metadataOptions: unknown): string[] {
  const options = isRecord(metadataOptions) ? metadataOptions : {};
  return [
    ...(options.httpTokens === "required"
      ? []
      : [`httpTokens is ${shown(options.httpTokens)}, not "required" (IMDSv1 stays open)`]),
    ...(options.httpPutResponseHopLimit === 1
      ? []
      : [`httpPutResponseHopLimit is ${shown(options.httpPutResponseHopLimit)}, not 1 (pods reach IMDS)`]),
  ];
}

export const nodesImdsv2: ResourceValidationPolicy = {
  name: "nodes-imdsv2",
  description:
    "Nodes require IMDSv2 with a hop limit of 1, so pods cannot read the node role's credentials from the " +
    "instance metadata service: every launch template and EC2NodeClass sets metadataOptions httpTokens " +
    "`required` and httpPutResponseHopLimit 1, and every managed node group starts from a launch template.",
  enforcementLevel: "mandatory",
  validateResource: [
    forTypes([TYPES.launchTemplate], (props, args, report) => {
      const problems = metadataProblems(props.metadataOptions);
      if (problems.length > 0) report(`Launch template ${args.name}: ${problems.join("; ")}.`);
    }),
    forTypes([TYPES.nodeClass], (props, args, report) => {
      const spec = nodeClassSpec(props);
      const problems = spec === undefined ? [] : metadataProblems(spec.metadataOptions);
      if (problems.length > 0) report(`EC2NodeClass ${args.name}: ${problems.join("; ")}.`);
    }),
    forTypes([TYPES.awsNodeGroup], requireLaunchTemplate),
  ],
};

/** The devices of `mappings` whose EBS volume is not encrypted (`true`, or `"true"` as EC2 spells it). */
function unencrypted(mappings: unknown): string[] {
  return (Array.isArray(mappings) ? mappings : []).flatMap((mapping: unknown) => {
    const ebs = isRecord(mapping) && isRecord(mapping.ebs) ? mapping.ebs : {};
    const device = isRecord(mapping) ? shown(mapping.deviceName) : "a device";
    return ebs.encrypted === true || ebs.encrypted === "true" ? [] : [device];
  });
}

export const nodesEncryptedVolumes: ResourceValidationPolicy = {
  name: "nodes-encrypted-volumes",
  description:
    "Node volumes are encrypted: every launch template and EC2NodeClass lists its block devices, each " +
    "with ebs.encrypted true. A device left out keeps the AMI's mapping, encrypted only where the account " +
    "turned EBS encryption by default on.",
  enforcementLevel: "mandatory",
  validateResource: [
    forTypes([TYPES.launchTemplate, TYPES.nodeClass], (props, args, report) => {
      const source = args.type === TYPES.nodeClass ? nodeClassSpec(props) : props;
      if (source === undefined) return;
      const mappings = source.blockDeviceMappings;
      const kind = args.type === TYPES.nodeClass ? "EC2NodeClass" : "Launch template";
      if (!Array.isArray(mappings) || mappings.length === 0) {
        report(`${kind} ${args.name} lists no blockDeviceMappings: its root volume is the AMI's.`);
        return;
      }
      const open = unencrypted(mappings);
      if (open.length > 0) report(`${kind} ${args.name}: ${open.join(", ")} not encrypted (ebs.encrypted).`);
    }),
  ],
};
