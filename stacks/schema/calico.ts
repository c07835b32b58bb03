/** `calico`: the Calico release, its image registry, its namespace and how long `up` waits for it. */
import { z } from "zod";
import {
  DEFAULT_CALICO_NAMESPACE,
  DEFAULT_CALICO_REGISTRY,
  DEFAULT_CALICO_VERSION,
  DEFAULT_READINESS_TIMEOUT_MINUTES,
  SUPPORTED_CALICO_MINORS,
  isSupportedCalicoVersion,
} from "../../components/calico/defaults";

// RFC 1123 label: what Kubernetes accepts as a namespace name.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// An image registry prefix: host[:port][/path], no scheme and no trailing slash.
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9._-]+)*$/;

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
    .default(DEFAULT_CALICO_NAMESPACE),
  /** How long `pulumi up` waits for calico-node to be ready on every node before failing. */
  readinessTimeoutMinutes: z
    .number()
    .int({ error: "must be a whole number of minutes" })
    .min(1, { error: "must be at least 1" })
    .max(60, { error: "must be at most 60" })
    .default(DEFAULT_READINESS_TIMEOUT_MINUTES),
});
