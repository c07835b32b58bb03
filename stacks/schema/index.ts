/**
 * The stack configuration contract: every `eks-calico:*` key a stack file may set, its rules and its
 * default. This folder is the single home of every default (one file per top-level key); README's config
 * reference is tested against it.
 */
import { z } from "zod";
import { calicoSchema } from "./calico";
import { clusterSchema } from "./cluster";
import { networkSchema } from "./network";
import { type TAINT_EFFECTS, nodeGroupsSchema } from "./node-groups";
import { tagsSchema } from "./tags";

export { SUPPORTED_KUBERNETES_VERSIONS, CONTROL_PLANE_LOG_TYPES, LOG_RETENTION_DAYS } from "./cluster";
export { MIN_SUBNET_PREFIX } from "./network";
export { TAINT_EFFECTS, DISK_SIZE_GIB } from "./node-groups";
export { MAX_TAGS, RESERVED_TAG_COUNT } from "./tags";

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
    },
    { when: () => true },
  );

export type StackConfig = z.infer<typeof stackConfigSchema>;
export type NetworkConfig = StackConfig["network"];
export type ClusterConfig = StackConfig["cluster"];
export type NodeGroupConfig = StackConfig["nodeGroups"][number];
export type CalicoConfig = StackConfig["calico"];
export type TaintEffect = (typeof TAINT_EFFECTS)[number];
