/**
 * The stack configuration contract: every `eks-calico:*` key a stack file may set, its rules and its
 * default. This file is the single home of every default; README's config reference is tested against it.
 */
import { z } from "zod";
import {
  DEFAULT_CALICO_NAMESPACE,
  DEFAULT_CALICO_REGISTRY,
  DEFAULT_CALICO_VERSION,
  DEFAULT_READINESS_TIMEOUT_MINUTES,
  SUPPORTED_CALICO_MINORS,
  isSupportedCalicoVersion,
} from "../components/calico/defaults";
import { parseCidr, subnetPrefixFor } from "../components/network/subnets";

/**
 * Kubernetes minor versions Amazon EKS offers as of November 2026 (standard or extended support;
 * 1.31 leaves extended support on 26 Nov 2026). https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html
 */
export const SUPPORTED_KUBERNETES_VERSIONS = ["1.32", "1.33", "1.34", "1.35", "1.36"] as const;

/** In standard support until March 2027; older versions bill extended support per cluster hour. */
const DEFAULT_KUBERNETES_VERSION = "1.35";

/** Control-plane log types EKS can ship to CloudWatch. */
export const CONTROL_PLANE_LOG_TYPES = [
  "api",
  "audit",
  "authenticator",
  "controllerManager",
  "scheduler",
] as const;

/** Retention periods CloudWatch Logs accepts, in days. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** Taint effects in Kubernetes spelling (the EKS API spells them NO_SCHEDULE, ...). */
export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/** AWS accepts VPC CIDR blocks between /16 and /28. */
const VPC_PREFIX_RANGE = { min: 16, max: 28 } as const;
/** The smallest subnet AWS accepts. */
export const MIN_SUBNET_PREFIX = 28;

// RFC 1123 label: what Kubernetes accepts as a namespace name.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// EKS node-group names: letters, digits, '-' and '_', starting with a letter or digit, at most 63.
const NODE_GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;
// Kubernetes label keys: optional DNS-subdomain prefix, then a name of at most 63 characters.
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
// EC2 instance types look like family.size: t3.large, m7g.2xlarge, c6in.metal.
const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;
// What AWS accepts in tag keys and values.
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
// An image registry prefix: host[:port][/path], no scheme and no trailing slash.
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9._-]+)*$/;

const networkSchema = z
  .strictObject({
    /** IPv4 CIDR of the VPC; split into one public and one private subnet per AZ. */
    cidr: z.cidrv4({ error: "must be an IPv4 CIDR block such as 10.0.0.0/16" }).default("10.0.0.0/16"),
    /** How many availability zones to spread subnets and nodes over. */
    availabilityZones: z
      .number({ error: "must be a whole number from 2 to 6" })
      .int({ error: "must be a whole number from 2 to 6" })
      .min(2, { error: "must be at least 2 (EKS needs subnets in two AZs)" })
      .max(6, { error: "must be at most 6" })
      .default(2),
    /** `single`: one NAT gateway for the VPC; `perAz`: one per AZ, so an AZ outage keeps egress. */
    natGateways: z.enum(["single", "perAz"], { error: "must be single or perAz" }).default("single"),
  })
  .superRefine(
    (network, ctx) => {
      if (typeof network.cidr !== "string" || !z.cidrv4().safeParse(network.cidr).success) return;
      let vpcPrefix: number;
      try {
        vpcPrefix = parseCidr(network.cidr).prefix;
      } catch (error) {
        ctx.addIssue({
          code: "custom",
          path: ["cidr"],
          input: network.cidr,
          message: (error as Error).message,
        });
        return;
      }
      const zones = network.availabilityZones;
      if (vpcPrefix < VPC_PREFIX_RANGE.min || vpcPrefix > VPC_PREFIX_RANGE.max) {
        ctx.addIssue({
          code: "custom",
          path: ["cidr"],
          input: network.cidr,
          message: `prefix must be /${VPC_PREFIX_RANGE.min} to /${VPC_PREFIX_RANGE.max} (AWS VPC limits)`,
        });
      } else if (typeof zones === "number" && Number.isInteger(zones) && zones >= 1) {
        const prefix = subnetPrefixFor(vpcPrefix, zones);
        if (prefix > MIN_SUBNET_PREFIX) {
          ctx.addIssue({
            code: "custom",
            path: ["cidr"],
            input: network.cidr,
            message: `too small for ${2 * zones} subnets (a public and a private per AZ): each would be /${prefix}, AWS needs /${MIN_SUBNET_PREFIX} or larger`,
          });
        }
      }
    },
    { when: () => true },
  );

const clusterSchema = z.strictObject({
  /** Kubernetes minor version of the control plane and nodes. */
  version: z
    .enum(SUPPORTED_KUBERNETES_VERSIONS, {
      error: `must be a Kubernetes version EKS supports, quoted: ${SUPPORTED_KUBERNETES_VERSIONS.join(", ")}`,
    })
    .default(DEFAULT_KUBERNETES_VERSION),
  /** CIDRs allowed to reach the public API endpoint; [] means the endpoint is private only. */
  publicAccessCidrs: z
    .array(z.cidrv4({ error: "must be an IPv4 CIDR block such as 203.0.113.0/24" }), {
      error: "must be a list of IPv4 CIDR blocks",
    })
    .default(["0.0.0.0/0"]),
  /** Control-plane log types sent to CloudWatch. */
  logTypes: z
    .array(
      z.enum(CONTROL_PLANE_LOG_TYPES, { error: `must be one of ${CONTROL_PLANE_LOG_TYPES.join(", ")}` }),
      {
        error: "must be a list of log types",
      },
    )
    .default(["api", "audit", "authenticator"]),
  /** Days CloudWatch keeps control-plane logs. */
  logRetentionDays: z
    .number()
    .refine((days) => (LOG_RETENTION_DAYS as readonly number[]).includes(days), {
      error: `must be a retention CloudWatch accepts: ${LOG_RETENTION_DAYS.join(", ")}`,
    })
    .default(90),
});

const taintSchema = z.strictObject({
  key: z.string().regex(LABEL_KEY, { error: "must be a valid Kubernetes taint key" }),
  value: z.string().regex(LABEL_VALUE, { error: "must be a valid Kubernetes label value" }).default(""),
  effect: z.enum(TAINT_EFFECTS, { error: `must be one of ${TAINT_EFFECTS.join(", ")}` }),
});

const nodeGroupSchema = z
  .strictObject({
    /** Unique name; EKS node-group naming rules. */
    name: z.string({ error: "is required" }).regex(NODE_GROUP_NAME, {
      error: "must be 1-63 letters, digits, '-' or '_', starting with a letter or digit",
    }),
    /** EC2 instance types, at least one. */
    instanceTypes: z
      .array(z.string().regex(INSTANCE_TYPE, { error: "must be an EC2 instance type such as t3.large" }))
      .min(1, { error: "must list at least one instance type" })
      .default(["t3.large"]),
    capacityType: z.enum(["ON_DEMAND", "SPOT"], { error: "must be ON_DEMAND or SPOT" }).default("ON_DEMAND"),
    minSize: sizeSchema().default(2),
    desiredSize: sizeSchema().default(2),
    maxSize: sizeSchema().default(4),
    labels: z
      .record(
        z.string().regex(LABEL_KEY, { error: "must be a valid Kubernetes label key" }),
        z.string().regex(LABEL_VALUE, { error: "must be a valid Kubernetes label value" }),
      )
      .default({}),
    taints: z.array(taintSchema).default([]),
  })
  .superRefine(
    (group, ctx) => {
      const { minSize, desiredSize, maxSize } = group as Partial<Record<string, unknown>>;
      if (typeof maxSize === "number" && maxSize < 1) {
        ctx.addIssue({ code: "custom", path: ["maxSize"], input: maxSize, message: "must be at least 1" });
      }
      if (typeof minSize === "number" && typeof desiredSize === "number" && minSize > desiredSize) {
        ctx.addIssue({
          code: "custom",
          path: ["minSize"],
          input: minSize,
          message: `must be <= desiredSize (${desiredSize})`,
        });
      }
      if (typeof desiredSize === "number" && typeof maxSize === "number" && desiredSize > maxSize) {
        ctx.addIssue({
          code: "custom",
          path: ["desiredSize"],
          input: desiredSize,
          message: `must be <= maxSize (${maxSize})`,
        });
      }
    },
    { when: () => true },
  );

function sizeSchema() {
  return z
    .number({ error: "must be a whole number >= 0" })
    .int({ error: "must be a whole number >= 0" })
    .min(0, { error: "must be >= 0" });
}

const nodeGroupsSchema = z
  .array(nodeGroupSchema, { error: "must be a list of node groups" })
  .min(1, { error: "must define at least one node group" })
  .superRefine(
    (groups, ctx) => {
      if (!Array.isArray(groups)) return;
      const seen = new Map<unknown, number>();
      groups.forEach((group, index) => {
        const name = (group as { name?: unknown }).name;
        const first = seen.get(name);
        if (first !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: [index, "name"],
            input: name,
            message: `must be unique (nodeGroups[${first}] has the same name)`,
          });
        } else {
          seen.set(name, index);
        }
      });
    },
    { when: () => true },
  );

const calicoSchema = z.strictObject({
  /** Calico release, exact (images are pinned to it). */
  version: z
    .string()
    .regex(/^v\d+\.\d+\.\d+$/, { error: "must be an exact Calico release such as v3.31.7" })
    .refine(isSupportedCalicoVersion, {
      error: `must be a release of a supported Calico line: ${SUPPORTED_CALICO_MINORS.map((m) => `v${m}.x`).join(", ")}`,
    })
    .default(DEFAULT_CALICO_VERSION),
  /** Image registry holding `node` and `typha`; point it at a private mirror if nodes have no internet. */
  registry: z
    .string()
    .regex(REGISTRY, { error: "must be a registry prefix such as quay.io/calico (no scheme, no trailing /)" })
    .default(DEFAULT_CALICO_REGISTRY),
  /** Namespace for calico-node and Typha. */
  namespace: z
    .string()
    .max(63, { error: "must be at most 63 characters" })
    .regex(DNS_LABEL, { error: "must be a DNS label: lowercase letters, digits and '-'" })
    .default(DEFAULT_CALICO_NAMESPACE),
  /** How long `pulumi up` waits for calico-node to be ready on every node before failing. */
  readinessTimeoutMinutes: z
    .number()
    .int({ error: "must be a whole number of minutes" })
    .min(1, { error: "must be at least 1" })
    .max(60, { error: "must be at most 60" })
    .default(DEFAULT_READINESS_TIMEOUT_MINUTES),
});

const tagsSchema = z.record(
  z
    .string()
    .min(1, { error: "tag keys must not be empty" })
    .max(128, { error: "tag keys must be at most 128 characters" })
    .refine((key) => !key.toLowerCase().startsWith("aws:"), {
      error: "tag keys must not start with aws: (reserved)",
    })
    .regex(TAG_TEXT, { error: "tag keys may hold letters, digits, spaces and _ . : / = + - @ only" }),
  z
    .string()
    .max(256, { error: "tag values must be at most 256 characters" })
    .regex(TAG_TEXT, { error: "tag values may hold letters, digits, spaces and _ . : / = + - @ only" }),
);

/** Tags we add to every resource; a resource takes at most 50. */
const RESERVED_TAG_COUNT = 3;
const MAX_TAGS = 50;

/** The whole `eks-calico:*` namespace. Each field is one stack config key. */
export const stackConfigSchema = z
  .strictObject({
    network: networkSchema.prefault({}),
    cluster: clusterSchema.prefault({}),
    nodeGroups: nodeGroupsSchema,
    calico: calicoSchema.prefault({}),
    tags: tagsSchema.default({}),
    /** Marks a production stack: protects stateful resources and refuses an API endpoint open to all. */
    protect: z.boolean({ error: "must be true or false" }).default(false),
  })
  .superRefine(
    (config, ctx) => {
      const cidrs: unknown = (config.cluster as { publicAccessCidrs?: unknown } | undefined)
        ?.publicAccessCidrs;
      if (config.protect === true && Array.isArray(cidrs)) {
        cidrs.forEach((cidr, index) => {
          if (cidr === "0.0.0.0/0") {
            ctx.addIssue({
              code: "custom",
              path: ["cluster", "publicAccessCidrs", index],
              input: cidr,
              message:
                "must not open the API endpoint to the whole internet on a protected (production) stack; list your ranges, or [] for private only",
            });
          }
        });
      }
      const tags: unknown = config.tags;
      if (
        tags !== null &&
        typeof tags === "object" &&
        Object.keys(tags).length > MAX_TAGS - RESERVED_TAG_COUNT
      ) {
        ctx.addIssue({
          code: "custom",
          path: ["tags"],
          input: tags,
          message: `must hold at most ${MAX_TAGS - RESERVED_TAG_COUNT} tags (AWS allows ${MAX_TAGS}; Name, pulumi:project and pulumi:stack are added)`,
        });
      }
    },
    { when: () => true },
  );

export type StackConfig = z.infer<typeof stackConfigSchema>;
export type NetworkConfig = StackConfig["network"];
export type ClusterConfig = StackConfig["cluster"];
export type NodeGroupConfig = StackConfig["nodeGroups"][number];
export type CalicoConfig = StackConfig["calico"];
export type TaintEffect = (typeof TAINT_EFFECTS)[number];
