/** `calico`: the Calico release, its image registry, its namespace and how long `up` waits for it. */
import { z } from "zod";
import {
  DEFAULT_CALICO_NAMESPACE,
  DEFAULT_CALICO_REGISTRY,
  DEFAULT_CALICO_VERSION,
  SUPPORTED_CALICO_MINORS,
  isSupportedCalicoVersion,
} from "../../components/calico/defaults";
import { DEFAULT_AUTOSCALER_REGISTRY } from "../../components/calico/autoscaler";
import { DEFAULT_MAX_UNAVAILABLE, MAX_TIMEOUT_MINUTES } from "../../components/calico/rollout";

/** Namespaces every cluster has that are not Calico's to create or delete. */
const SHARED_NAMESPACES: readonly string[] = ["default", "kube-public", "kube-node-lease"];

// RFC 1123 label: what Kubernetes accepts as a namespace name.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// An image registry prefix: host[:port][/path], no scheme and no trailing slash.
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9._-]+)*$/;

const MAX_UNAVAILABLE_RULE = 'must be a whole number >= 1 or a percentage from "1%" to "100%"';

export const calicoSchema = z.strictObject({
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
    // kube-system, or a namespace this stack creates and owns: a rename or destroy would delete any other.
    .refine((ns) => ns === "kube-system" || !(SHARED_NAMESPACES.includes(ns) || ns.startsWith("kube-")), {
      error:
        "must be kube-system or a namespace of Calico's own: default, kube-public, kube-node-lease and other kube- namespaces belong to the cluster, and the stack would delete it on a rename or destroy",
    })
    .default(DEFAULT_CALICO_NAMESPACE),
  /** Registry holding `cluster-proportional-autoscaler` (Typha's autoscaler); a mirror for private nodes. */
  autoscalerRegistry: z
    .string()
    .regex(REGISTRY, {
      error: "must be a registry prefix such as registry.k8s.io/cpa (no scheme, no trailing /)",
    })
    .default(DEFAULT_AUTOSCALER_REGISTRY),
  /** calico-node pods replaced at once in a rollout: a whole number or a percentage of the nodes. */
  maxUnavailable: z
    .union(
      [
        z.number().int({ error: MAX_UNAVAILABLE_RULE }).min(1, { error: MAX_UNAVAILABLE_RULE }),
        z
          .string()
          .regex(/^([1-9]|[1-9][0-9]|100)%$/, { error: MAX_UNAVAILABLE_RULE }) as z.ZodType<`${number}%`>,
      ],
      { error: MAX_UNAVAILABLE_RULE },
    )
    .default(DEFAULT_MAX_UNAVAILABLE),
  /**
   * How long `pulumi up` waits for Calico to be ready on every node before failing. Unset: derived from
   * the rollout estimate at the node groups' maximum size (components/calico/rollout.ts).
   */
  readinessTimeoutMinutes: z
    .number()
    .int({ error: "must be a whole number of minutes" })
    .min(1, { error: "must be at least 1" })
    .max(MAX_TIMEOUT_MINUTES, { error: `must be at most ${MAX_TIMEOUT_MINUTES} (24 hours)` })
    .optional(),
});
