/**
 * The eks-calico CrossGuard policies as plain values: `index.ts` serves them, tests run them directly.
 *
 * What a policy sees (pulumi/pulumi proto/pulumi/analyzer.proto, @pulumi/policy 1.21):
 * - a resource policy gets one resource's inputs before it is created or updated, with its options
 *   (protect, ignoreChanges, deleteBeforeReplace, aliases, customTimeouts, parent);
 * - a stack policy gets every resource after the preview: its outputs (for a component, what the
 *   component registered as outputs, not its inputs), parent, dependencies and per-property dependencies.
 * So settings of the @pulumi/eks components (inputs) are checked by resource policies, and rules that relate
 * resources are stack policies that read only the dependency graph and custom resources' props.
 * Neither kind sees `retainOnDelete`: the options above are all the analyzer protocol carries.
 *
 * Resources are matched by type token, not by SDK class (`validateResourceOfType`), so the pack loads
 * only @pulumi/policy: no @pulumi/aws, @pulumi/eks or @pulumi/kubernetes to load or type-check at every
 * preview.
 */
import type {
  PolicyResource,
  ReportViolation,
  ResourceValidation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";

export const TYPES = {
  eksCluster: "eks:index:Cluster",
  managedNodeGroup: "eks:index:ManagedNodeGroup",
  awsNodeGroup: "aws:eks/nodeGroup:NodeGroup",
  vpcCniAddon: "eks:index:VpcCniAddon",
  eksAddon: "eks:index:Addon",
  awsAddon: "aws:eks/addon:Addon",
  launchTemplate: "aws:ec2/launchTemplate:LaunchTemplate",
  subnet: "aws:ec2/subnet:Subnet",
} as const;

/** The DaemonSet Calico's own manifests and tooling (`kubectl -n kube-system get ds calico-node`) expect. */
export const CALICO_NODE = "calico-node";

type Props = Readonly<Record<string, unknown>>;

/** A value as a message shows it. */
function shown(value: unknown): string {
  return value === undefined ? "unset" : JSON.stringify(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** `true` or `"true"`: EKS add-on configuration values spell booleans as strings. */
function isTrue(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.toLowerCase() === "true");
}

/**
 * `props[key]` read past the preview proxy of @pulumi/policy, which throws on a value still unknown in a
 * preview and so stops the whole policy ("can't run policy during preview"). An unknown value comes back
 * as an opaque string: present, but equal to nothing a policy looks for.
 */
function peek(props: object, key: string): unknown {
  return Object.getOwnPropertyDescriptor(props, key)?.value;
}

/** Whether `key` holds a value; an input wired to a resource not created yet (a KMS key's ARN) does. */
function isSet(props: object, key: string): boolean {
  const value = peek(props, key);
  return (
    value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0)
  );
}

/** `urn:pulumi:stack::project::parent$type::name` -> `type`. */
export function typeOfUrn(urn: string): string {
  return urn.split("::")[2]?.split("$").pop() ?? "";
}

/** A resource validation for the resources of `types` only. */
function forTypes(
  types: readonly string[],
  validate: (props: Props, args: ResourceValidationArgs, report: ReportViolation) => void,
): ResourceValidation {
  return (args, report) => {
    if (types.includes(args.type)) validate(args.props, args, report);
  };
}

/**
 * A validation of @pulumi/eks component inputs. Pulumi records a component's inputs only when the code
 * that constructs it sends them (the Node.js SDK does since 3.202, pulumi/pulumi#20357; the eks provider
 * constructs these components): with no inputs at all the rule cannot be checked, and says so instead of
 * reporting a setting as missing.
 */
function forEksComponent(
  type: string,
  rule: string,
  validate: (props: Props, args: ResourceValidationArgs, report: ReportViolation) => void,
): ResourceValidation {
  return forTypes([type], (props, args, report) => {
    if (Object.keys(props).length === 0) {
      report(
        `${type} ${args.name} reached the policy with no inputs, so ${rule} cannot be checked: ` +
          "its provider did not record the component's inputs (pulumi/pulumi#20357).",
      );
      return;
    }
    validate(props, args, report);
  });
}

// ---------------------------------------------------------------------------------------------- EKS

export const eksSecretsEncryption: ResourceValidationPolicy = {
  name: "eks-secrets-encryption",
  description:
    "EKS clusters envelope-encrypt Kubernetes secrets with a KMS key of this stack: eks:index:Cluster sets " +
    "encryptionConfigKeyArn. EKS can add the key later but never change or remove it.",
  enforcementLevel: "mandatory",
  validateResource: forEksComponent(TYPES.eksCluster, "secrets encryption", (props, args, report) => {
    if (!isSet(props, "encryptionConfigKeyArn")) {
      report(
        `Cluster ${args.name} sets no encryptionConfigKeyArn: Kubernetes secrets are not envelope-encrypted ` +
          "with a KMS key you control. Pass a customer-managed key with rotation enabled.",
      );
    }
  }),
};

/** The control-plane logs an incident needs: every API request, the audit trail, and who authenticated. */
export const REQUIRED_LOG_TYPES = ["api", "audit", "authenticator"] as const;

export const eksControlPlaneLogging: ResourceValidationPolicy = {
  name: "eks-control-plane-logging",
  description:
    "EKS clusters send the api, audit and authenticator control-plane logs to CloudWatch " +
    "(enabledClusterLogTypes); without them there is no record of who did what to the cluster.",
  enforcementLevel: "mandatory",
  validateResource: forEksComponent(TYPES.eksCluster, "control-plane logging", (props, args, report) => {
    const enabled = strings(props.enabledClusterLogTypes);
    const missing = REQUIRED_LOG_TYPES.filter((type) => !enabled.includes(type));
    if (missing.length > 0) {
      report(
        `Cluster ${args.name} does not log ${missing.join(", ")} ` +
          `(enabledClusterLogTypes: ${JSON.stringify(enabled)}); add them to enabledClusterLogTypes.`,
      );
    }
  }),
};

/**
 * Which clusters must keep their public API endpoint closed to 0.0.0.0/0: `protected` ones (the stacks that
 * set `protect`, i.e. production) or `always` every cluster.
 */
export type PublicEndpointRestriction = "protected" | "always";
export const DEFAULT_PUBLIC_ENDPOINT_RESTRICTION: PublicEndpointRestriction = "protected";
export interface EndpointExposureConfig {
  restrictPublicEndpoint?: PublicEndpointRestriction;
}

const WORLD = "0.0.0.0/0";

export const eksEndpointExposure: ResourceValidationPolicy = {
  name: "eks-endpoint-exposure",
  description:
    "EKS clusters keep the private API endpoint on, so nodes reach the API inside the VPC. A public endpoint " +
    "open to 0.0.0.0/0 is refused on protected clusters (opts.protect), or on every cluster when the " +
    "policy's restrictPublicEndpoint config is `always`: a policy has one enforcement level, so the split " +
    "between a dev cluster and production is config, not an advisory twin that warns on every dev preview.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      restrictPublicEndpoint: {
        type: "string",
        enum: ["protected", "always"],
        default: DEFAULT_PUBLIC_ENDPOINT_RESTRICTION,
        description:
          "Clusters whose public endpoint must not be open to 0.0.0.0/0: `protected` ones or `always` all.",
      },
    },
  },
  validateResource: forEksComponent(TYPES.eksCluster, "endpoint exposure", (props, args, report) => {
    if (props.endpointPrivateAccess !== true) {
      report(
        `Cluster ${args.name} has the private endpoint off (endpointPrivateAccess: ` +
          `${shown(props.endpointPrivateAccess)}): nodes and in-VPC clients would reach the API ` +
          "through the internet. Set endpointPrivateAccess: true.",
      );
    }
    const restriction =
      args.getConfig<EndpointExposureConfig>().restrictPublicEndpoint ?? DEFAULT_PUBLIC_ENDPOINT_RESTRICTION;
    // EKS turns the public endpoint on, open to 0.0.0.0/0, unless told otherwise.
    const cidrs = strings(props.publicAccessCidrs);
    const openToWorld = props.endpointPublicAccess !== false && (cidrs.length === 0 || cidrs.includes(WORLD));
    if (openToWorld && (restriction === "always" || args.opts.protect)) {
      const why =
        restriction === "always" ? "restrictPublicEndpoint is `always`" : "the cluster is protected";
      report(
        `Cluster ${args.name} exposes its public API endpoint to ${WORLD} and ${why}. List the CIDRs that ` +
          "may reach it in publicAccessCidrs, or set endpointPublicAccess: false.",
      );
    }
  }),
};

function describeMode(mode: unknown): string {
  return mode === undefined ? "unset (the EKS default keeps the aws-auth ConfigMap)" : shown(mode);
}

export const eksAccessEntries: ResourceValidationPolicy = {
  name: "eks-access-entries-only",
  description:
    "EKS clusters authenticate with access entries only (authenticationMode API) and map no IAM roles or " +
    "users through the aws-auth ConfigMap (roleMappings, userMappings), which anyone able to edit " +
    "kube-system can change.",
  enforcementLevel: "mandatory",
  validateResource: forEksComponent(TYPES.eksCluster, "the authentication mode", (props, args, report) => {
    if (props.authenticationMode !== "API") {
      report(
        `Cluster ${args.name} has authenticationMode ${describeMode(props.authenticationMode)}; set API. ` +
          "EKS changes it one way only: CONFIG_MAP to API_AND_CONFIG_MAP to API.",
      );
    }
    for (const key of ["roleMappings", "userMappings"]) {
      if (isSet(props, key)) {
        report(
          `Cluster ${args.name} sets ${key} (aws-auth ConfigMap entries); grant access with accessEntries.`,
        );
      }
    }
  }),
};

// -------------------------------------------------------------------------------------------- nodes

/** Node groups of the stack: @pulumi/eks ones, and aws.eks.NodeGroup made directly (not inside one). */
function nodeGroupsOf(resources: PolicyResource[]): PolicyResource[] {
  return resources.filter(
    (r) =>
      r.type === TYPES.managedNodeGroup ||
      (r.type === TYPES.awsNodeGroup && r.parent?.type !== TYPES.managedNodeGroup),
  );
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
    forEksComponent(TYPES.managedNodeGroup, "the launch template", requireLaunchTemplate),
    forTypes([TYPES.awsNodeGroup], (props, args, report) => {
      // The aws.eks.NodeGroup inside a @pulumi/eks node group gets that group's launch template.
      if (typeOfUrn(args.opts.parent ?? "") !== TYPES.managedNodeGroup) {
        requireLaunchTemplate(props, args, report);
      }
    }),
  ],
};

// ------------------------------------------------------------------------------------------- Calico

function isCalicoNode(type: string, props: Props): boolean {
  return (
    /^kubernetes:(apps|extensions)\/[^:]+:DaemonSet$/.test(type) &&
    isRecord(props.metadata) &&
    props.metadata.name === CALICO_NODE
  );
}

/** A toleration of every taint: operator Exists with no key and no effect. */
function toleratesEverything(toleration: unknown): boolean {
  return (
    isRecord(toleration) &&
    toleration.operator === "Exists" &&
    (toleration.key ?? "") === "" &&
    (toleration.effect ?? "") === ""
  );
}

export const calicoNodeEverywhere: ResourceValidationPolicy = {
  name: "calico-node-on-every-node",
  description:
    "The calico-node DaemonSet tolerates every taint (one toleration: operator Exists, no key, no effect) " +
    "and runs at priority system-node-critical: a node without Felix runs its pods with no network policy.",
  enforcementLevel: "mandatory",
  validateResource: (args, report) => {
    const props: Props = args.props;
    if (!isCalicoNode(args.type, props)) return;
    const pod = isRecord(props.spec) && isRecord(props.spec.template) ? props.spec.template.spec : undefined;
    const spec = isRecord(pod) ? pod : {};
    const tolerations: unknown[] = Array.isArray(spec.tolerations) ? spec.tolerations : [];
    if (!tolerations.some(toleratesEverything)) {
      report(
        `calico-node (${args.name}) does not tolerate every taint (tolerations: ${JSON.stringify(tolerations)}): ` +
          'nodes with a taint it lacks get no Felix. Add { operator: "Exists" } with no key and no effect.',
      );
    }
    if (spec.priorityClassName !== "system-node-critical") {
      report(
        `calico-node (${args.name}) has priorityClassName ${shown(spec.priorityClassName)}: ` +
          "under pressure it can be preempted or evicted before the pods it polices. Set system-node-critical.",
      );
    }
  },
};

const RBAC_ROLE = /^kubernetes:rbac\.authorization\.k8s\.io\/[^:]+:(ClusterRole|Role)(Patch)?$/;
const RULE_FIELDS = ["verbs", "resources", "apiGroups", "nonResourceURLs"] as const;

export const noWildcardRbac: ResourceValidationPolicy = {
  name: "k8s-no-wildcard-rbac",
  description:
    "No ClusterRole or Role grants a wildcard: no `*` in any rule's verbs, resources, apiGroups or " +
    "nonResourceURLs. A wildcard also grants whatever a future API version or CRD adds.",
  enforcementLevel: "mandatory",
  validateResource: (args, report) => {
    if (!RBAC_ROLE.test(args.type)) return;
    const props: Props = args.props;
    const rules: unknown[] = Array.isArray(props.rules) ? props.rules : [];
    const wildcards = rules.flatMap((rule, index) =>
      RULE_FIELDS.flatMap((field) => {
        const found = strings(isRecord(rule) ? rule[field] : undefined).filter((entry) =>
          entry.includes("*"),
        );
        return found.length > 0 ? [`rules[${index}].${field} ${JSON.stringify(found)}`] : [];
      }),
    );
    if (wildcards.length > 0) {
      const kind = args.type.split(":")[2];
      report(`${kind} ${args.name} grants wildcards: ${wildcards.join(", ")}. Name each one.`);
    }
  },
};

/** An API version Kubernetes no longer serves, for all kinds or only `kinds`. */
export interface RemovedApi {
  apiVersion: string;
  /** The kinds this row covers; none means every other kind of the API version. */
  kinds?: readonly string[];
  /** The Kubernetes minor release that stopped serving it. */
  removedIn: string;
  /** What to use instead. */
  use: string;
}

/**
 * Removed API versions, from the Kubernetes deprecated API migration guide
 * (https://kubernetes.io/docs/reference/using-api/deprecation-guide/, "Removed APIs by release").
 * Rows with `kinds` come before the API version's catch-all row.
 */
export const REMOVED_APIS: readonly RemovedApi[] = [
  {
    apiVersion: "extensions/v1beta1",
    kinds: ["DaemonSet", "Deployment", "ReplicaSet"],
    removedIn: "1.16",
    use: "apps/v1",
  },
  {
    apiVersion: "extensions/v1beta1",
    kinds: ["NetworkPolicy"],
    removedIn: "1.16",
    use: "networking.k8s.io/v1",
  },
  {
    apiVersion: "extensions/v1beta1",
    kinds: ["PodSecurityPolicy"],
    removedIn: "1.16",
    use: "Pod Security Admission (PodSecurityPolicy is gone since 1.25)",
  },
  { apiVersion: "extensions/v1beta1", removedIn: "1.22", use: "networking.k8s.io/v1 (Ingress)" },
  { apiVersion: "apps/v1beta1", removedIn: "1.16", use: "apps/v1" },
  { apiVersion: "apps/v1beta2", removedIn: "1.16", use: "apps/v1" },
  {
    apiVersion: "admissionregistration.k8s.io/v1beta1",
    removedIn: "1.22",
    use: "admissionregistration.k8s.io/v1",
  },
  { apiVersion: "apiextensions.k8s.io/v1beta1", removedIn: "1.22", use: "apiextensions.k8s.io/v1" },
  { apiVersion: "apiregistration.k8s.io/v1beta1", removedIn: "1.22", use: "apiregistration.k8s.io/v1" },
  { apiVersion: "authentication.k8s.io/v1beta1", removedIn: "1.22", use: "authentication.k8s.io/v1" },
  { apiVersion: "authorization.k8s.io/v1beta1", removedIn: "1.22", use: "authorization.k8s.io/v1" },
  { apiVersion: "certificates.k8s.io/v1beta1", removedIn: "1.22", use: "certificates.k8s.io/v1" },
  { apiVersion: "coordination.k8s.io/v1beta1", removedIn: "1.22", use: "coordination.k8s.io/v1" },
  { apiVersion: "networking.k8s.io/v1beta1", removedIn: "1.22", use: "networking.k8s.io/v1" },
  { apiVersion: "rbac.authorization.k8s.io/v1beta1", removedIn: "1.22", use: "rbac.authorization.k8s.io/v1" },
  { apiVersion: "scheduling.k8s.io/v1beta1", removedIn: "1.22", use: "scheduling.k8s.io/v1" },
  {
    apiVersion: "storage.k8s.io/v1beta1",
    kinds: ["CSIStorageCapacity"],
    removedIn: "1.27",
    use: "storage.k8s.io/v1",
  },
  { apiVersion: "storage.k8s.io/v1beta1", removedIn: "1.22", use: "storage.k8s.io/v1" },
  { apiVersion: "batch/v1beta1", removedIn: "1.25", use: "batch/v1" },
  { apiVersion: "discovery.k8s.io/v1beta1", removedIn: "1.25", use: "discovery.k8s.io/v1" },
  { apiVersion: "events.k8s.io/v1beta1", removedIn: "1.25", use: "events.k8s.io/v1" },
  { apiVersion: "autoscaling/v2beta1", removedIn: "1.25", use: "autoscaling/v2" },
  { apiVersion: "node.k8s.io/v1beta1", removedIn: "1.25", use: "node.k8s.io/v1" },
  {
    apiVersion: "policy/v1beta1",
    kinds: ["PodSecurityPolicy"],
    removedIn: "1.25",
    use: "Pod Security Admission (PodSecurityPolicy has no successor)",
  },
  { apiVersion: "policy/v1beta1", removedIn: "1.25", use: "policy/v1" },
  { apiVersion: "autoscaling/v2beta2", removedIn: "1.26", use: "autoscaling/v2" },
  {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1",
    removedIn: "1.26",
    use: "flowcontrol.apiserver.k8s.io/v1",
  },
  {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta2",
    removedIn: "1.29",
    use: "flowcontrol.apiserver.k8s.io/v1",
  },
  {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta3",
    removedIn: "1.32",
    use: "flowcontrol.apiserver.k8s.io/v1",
  },
];

/** The removal row for an object's apiVersion and kind, if Kubernetes no longer serves it. */
export function removedApi(apiVersion: string, kind: string): RemovedApi | undefined {
  const rows = REMOVED_APIS.filter((row) => row.apiVersion === apiVersion);
  return rows.find((row) => row.kinds?.includes(kind)) ?? rows.find((row) => row.kinds === undefined);
}

/**
 * `kubernetes:apps/v1:Deployment` -> apps/v1 Deployment; core objects are `kubernetes:core/v1:Pod`. Patch
 * and List resources (`DeploymentPatch`) are the same API. Undefined for non-object types (providers,
 * Helm charts, YAML groups).
 */
function kubernetesApiOf(type: string): { apiVersion: string; kind: string } | undefined {
  const match = /^kubernetes:([^:]+\/[^:]+):([A-Za-z0-9]+)$/.exec(type);
  if (match === null) return undefined;
  const apiVersion = match[1].startsWith("core/") ? match[1].slice("core/".length) : match[1];
  return { apiVersion, kind: match[2].replace(/(Patch|List)$/, "") };
}

export const noRemovedApis: ResourceValidationPolicy = {
  name: "k8s-no-removed-apis",
  description:
    "No Kubernetes object uses an API version Kubernetes has stopped serving (extensions/v1beta1, " +
    "apps/v1beta1, apps/v1beta2, policy/v1beta1, rbac.authorization.k8s.io/v1beta1, " +
    "apiextensions.k8s.io/v1beta1, networking.k8s.io/v1beta1, batch/v1beta1, ...; the table cites the " +
    "deprecated API migration guide): the API server rejects it, after the rest of the update has run.",
  enforcementLevel: "mandatory",
  validateResource: (args, report) => {
    const api = kubernetesApiOf(args.type);
    if (api === undefined) return;
    const removed = removedApi(api.apiVersion, api.kind);
    if (removed !== undefined) {
      report(
        `${api.kind} ${args.name} uses ${api.apiVersion}, which Kubernetes ${removed.removedIn} stopped serving; ` +
          `use ${removed.use}.`,
      );
    }
  },
};

// ------------------------------------------------------------------------------- VPC CNI and Calico

/** An add-on's configurationValues: a JSON string (aws.eks.Addon) or an object (@pulumi/eks). */
function configurationValues(value: unknown): Record<string, unknown> | "unreadable" | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (isRecord(value)) return value;
  if (typeof value !== "string") return "unreadable";
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : "unreadable";
  } catch {
    return "unreadable";
  }
}

/** Where a resource turns the VPC CNI's network-policy agent on; empty when it does not. */
function networkPolicyEnablers(resource: PolicyResource): string[] {
  const props: Props = resource.props;
  const fromValues = (value: unknown, path: string): string[] => {
    const values = configurationValues(value);
    if (values === "unreadable") return [`${path} is not a JSON object, so the agent may be on`];
    return values !== undefined && isTrue(values.enableNetworkPolicy) ? [`${path}.enableNetworkPolicy`] : [];
  };
  switch (resource.type) {
    case TYPES.vpcCniAddon:
      return [
        ...(isTrue(props.enableNetworkPolicy) ? ["enableNetworkPolicy"] : []),
        ...fromValues(props.configurationValues, "configurationValues"),
      ];
    case TYPES.eksCluster: {
      const options = isRecord(props.vpcCniOptions) ? props.vpcCniOptions : {};
      return [
        ...(isTrue(options.enableNetworkPolicy) ? ["vpcCniOptions.enableNetworkPolicy"] : []),
        ...fromValues(options.configurationValues, "vpcCniOptions.configurationValues"),
      ];
    }
    case TYPES.awsAddon:
    case TYPES.eksAddon:
      return props.addonName === "vpc-cni"
        ? fromValues(props.configurationValues, "configurationValues")
        : [];
    default:
      return [];
  }
}

export const vpcCniNetworkPolicyOff: StackValidationPolicy = {
  name: "vpc-cni-network-policy-off-with-calico",
  description:
    "With a calico-node DaemonSet in the stack, nothing turns on the VPC CNI's own network-policy agent " +
    '(enableNetworkPolicy true or "true" on eks:index:VpcCniAddon, eks:index:Cluster vpcCniOptions, or the ' +
    "configurationValues of a vpc-cni aws:eks/addon:Addon): two enforcers program conflicting rules. In a " +
    "real preview a component's props are its outputs, so the vpc-cni aws:eks/addon:Addon that " +
    "@pulumi/eks creates is what this policy reads there.",
  enforcementLevel: "mandatory",
  validateStack: (args, report) => {
    if (!args.resources.some((r) => isCalicoNode(r.type, r.props))) {
      args.notApplicable(`no ${CALICO_NODE} DaemonSet in this stack`);
    }
    for (const resource of args.resources) {
      const enablers = networkPolicyEnablers(resource);
      if (enablers.length > 0) {
        report(
          `${resource.type} ${resource.name} turns on the VPC CNI network-policy agent (${enablers.join(", ")}) ` +
            `while Calico enforces policy (${CALICO_NODE}). Set enableNetworkPolicy to false.`,
          resource.urn,
        );
      }
    }
  },
};

/** Every policy of the pack. */
export const policies: (ResourceValidationPolicy | StackValidationPolicy)[] = [
  eksSecretsEncryption,
  eksControlPlaneLogging,
  eksEndpointExposure,
  eksAccessEntries,
  nodesInPrivateSubnets,
  nodesImdsv2,
  calicoNodeEverywhere,
  noWildcardRbac,
  noRemovedApis,
  vpcCniNetworkPolicyOff,
];
