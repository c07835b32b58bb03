/** `calico`: the Calico release, its image registry, its namespace and how long `up` waits for it. */
import { z } from "zod";
import { isRecord } from "./records";
import {
  AUTOSCALER_IMAGE,
  DEFAULT_AUTOSCALER_REGISTRY,
  DEFAULT_CALICO_NAMESPACE,
  DEFAULT_CALICO_REGISTRY,
  DEFAULT_CALICO_VERSION,
  DEFAULT_REMOVER_REGISTRY,
  REMOVER_IMAGE,
  SUPPORTED_CALICO_MINORS,
  isSupportedCalicoVersion,
} from "../../components/calico/defaults";
import { isPublishedCalicoRelease, releasesOfLine } from "../../components/calico/releases";
import { DEFAULT_PROBE_REGISTRY, PROBE_IMAGE } from "../../components/calico/probe/common";
import { CALICO_NODE_IMAGE, TYPHA_IMAGE } from "../../components/calico/names";
import { ALLOWED_WITHIN_SECONDS, POD_START_SECONDS } from "../../components/calico/probe/timing";
import { DEFAULT_MAX_UNAVAILABLE, MAX_TIMEOUT_MINUTES } from "../../components/calico/rollout";
import {
  DEFAULT_OPERATOR_REGISTRY,
  INSTALLERS,
  OPERATOR_IMAGE,
} from "../../components/calico/operator/settings";
import { REGISTRY_RULES, registrySchema } from "./registry";
import { described } from "./described";
import { CLEANUP_TIMEOUT_MINUTES } from "../../components/calico/felix-cleanup";
import { FELIX_SETTINGS, type FelixSettings } from "../../components/calico/felix-settings";

/** Namespaces every cluster has that are not Calico's to create or delete. */
const SHARED_NAMESPACES: readonly string[] = ["default", "kube-public", "kube-node-lease"];

// RFC 1123 label: what Kubernetes accepts as a namespace name.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const MAX_UNAVAILABLE_RULE = 'must be a whole number >= 1 or a percentage from "1%" to "100%"';

/** The probe's Jobs need a pod start plus the allowed client's retry window: at least this many minutes. */
export const MIN_PROBE_TIMEOUT_MINUTES = Math.ceil((POD_START_SECONDS + ALLOWED_WITHIN_SECONDS) / 60);

/** A registry key other than `calico.registry`: what it holds, then the rules it shares with that key. */
const registryOf = (holds: string) => described(holds, "Checked like `calico.registry`.");

/** `calico.probe`: the enforcement proof run on every `pulumi up` that changes Calico or the nodes. */
const probeSchema = z.strictObject({
  enabled: z
    .boolean({ error: "must be true or false" })
    .default(true)
    .meta(
      described(
        "Proves that NetworkPolicy is enforced, again whenever something that can change enforcement changes (see [Enforcement probe](probe.md)).",
        "Needs a node group that starts with an untainted node, where the probe's pods run.",
      ),
    ),
  registry: registrySchema(
    "registry.k8s.io/e2e-test-images",
    [PROBE_IMAGE.name],
    DEFAULT_PROBE_REGISTRY,
  ).meta(
    registryOf(
      `Registry holding the probe's \`${PROBE_IMAGE.name}:${PROBE_IMAGE.tag}\` image (the Kubernetes end-to-end test image); a mirror for nodes without internet.`,
    ),
  ),
  timeoutMinutes: z
    .number({ error: "must be a whole number of minutes" })
    .int({ error: "must be a whole number of minutes" })
    .min(MIN_PROBE_TIMEOUT_MINUTES, {
      error: `must be at least ${MIN_PROBE_TIMEOUT_MINUTES}: a probe pod's start (about ${POD_START_SECONDS}s) plus the allowed client's ${ALLOWED_WITHIN_SECONDS}s of retries`,
    })
    .max(60, { error: "must be at most 60" })
    .default(5)
    .meta(
      described(
        "Minutes `pulumi up` waits for each probe step (server, allowed client, denied client, recheck client) before failing: at least a probe pod's start plus the allowed client's retries.",
        "A change applies from the next probe run: Jobs that ran keep theirs.",
      ),
    ),
});

const OPERATOR_ONLY = "`operator` only";

const MANIFEST_ONLY = "`manifest` only (refused with `operator`)";

/** `calico.felix`: a key per row of components/calico/felix-settings.ts, a switch or one of its words. */
const felixSchema = z
  .strictObject(
    Object.fromEntries(
      Object.entries(FELIX_SETTINGS).map(([key, setting]) => {
        const values: readonly (string | boolean)[] = setting.values;
        const words = values.filter((v): v is string => typeof v === "string");
        const schema =
          words.length === 0
            ? z.boolean({ error: "must be true or false" })
            : z.enum(words as [string, ...string[]], {
                error: `must be one of ${words.map((v) => `"${v}"`).join(", ")}`,
              });
        const about = described(`${MANIFEST_ONLY}: ${setting.description}`, `Felix's \`${setting.env}\`.`);
        return [key, (schema as z.ZodType<string | boolean>).default(setting.default).meta(about)];
      }),
    ) as unknown as { [K in keyof FelixSettings]: z.ZodDefault<z.ZodType<FelixSettings[K]>> },
  )
  .prefault({});

export const calicoSchema = z.strictObject({
  installer: z
    .enum(INSTALLERS, { error: `must be one of ${INSTALLERS.map((i) => `"${i}"`).join(", ")}` })
    .default("manifest")
    .meta(
      described(
        "How Calico is installed: `manifest` (this program's own policy-only objects) or `operator` (the Tigera operator and an `Installation`; see [Install modes](install-modes.md)).",
        "Switching on a deployed stack follows [Switching install mode](install-modes.md#switching-install-mode).",
      ),
    ),
  version: z
    .string()
    .regex(/^v\d+\.\d+\.\d+$/, { error: "must be an exact Calico release such as v3.31.7" })
    .superRefine((version, ctx) => {
      if (!/^v\d+\.\d+\.\d+$/.test(version)) return;
      if (!isSupportedCalicoVersion(version)) {
        ctx.addIssue({
          code: "custom",
          input: version,
          message: `must be a release of a supported Calico line: ${SUPPORTED_CALICO_MINORS.map((m) => `v${m}.x`).join(", ")}`,
        });
      } else if (!isPublishedCalicoRelease(version)) {
        // Only published releases have images to pull (components/calico/releases.ts, from the release tags).
        ctx.addIssue({
          code: "custom",
          input: version,
          message: `is not a published Calico release: its line has ${releasesOfLine(version).join(", ")} (projectcalico/calico release tags)`,
          params: {
            hint: "pick one of those; a release published since needs its row in components/calico/releases.ts first",
          },
        });
      }
    })
    .default(DEFAULT_CALICO_VERSION)
    .meta(
      described(
        `An exact Calico release (\`vX.Y.Z\`) of a supported line (${SUPPORTED_CALICO_MINORS.map((m) => `v${m}.x`).join(", ")}) that projectcalico/calico has published ([\`releases.ts\`](../components/calico/releases.ts) lists them).`,
        "Images are pinned to it; changing it rolls calico-node node by node.",
      ),
    ),
  registry: registrySchema("quay.io/calico", [CALICO_NODE_IMAGE, TYPHA_IMAGE], DEFAULT_CALICO_REGISTRY).meta(
    described(
      `Registry holding the \`${CALICO_NODE_IMAGE}\` and \`${TYPHA_IMAGE}\` images; point it at a private mirror for nodes without internet.`,
      ...REGISTRY_RULES,
    ),
  ),
  namespace: z
    .string()
    .max(63, { error: "must be at most 63 characters" })
    .regex(DNS_LABEL, { error: "must be a DNS label: lowercase letters, digits and '-'" })
    // kube-system, or a namespace this stack creates and owns: a rename or destroy would delete any other.
    .refine((ns) => ns === "kube-system" || !(SHARED_NAMESPACES.includes(ns) || ns.startsWith("kube-")), {
      error:
        "must be kube-system or a namespace of Calico's own: default, kube-public, kube-node-lease and other kube- namespaces belong to the cluster, and the stack would delete it on a rename or destroy",
    })
    .default(DEFAULT_CALICO_NAMESPACE)
    .meta(
      described(
        `Namespace of calico-node and Typha: \`kube-system\`, or a DNS label for a namespace this stack creates and owns. Never ${SHARED_NAMESPACES.map((ns) => `\`${ns}\``).join(", ")} or another \`kube-\` namespace, which a rename or destroy would delete.`,
      ),
    ),
  autoscalerRegistry: registrySchema(
    "registry.k8s.io/cpa",
    [AUTOSCALER_IMAGE],
    DEFAULT_AUTOSCALER_REGISTRY,
  ).meta(
    registryOf(
      `Registry holding \`${AUTOSCALER_IMAGE}\` (Typha's autoscaler, pinned); a mirror for nodes without internet.`,
    ),
  ),
  startupTaintRegistry: registrySchema(
    "registry.k8s.io",
    [REMOVER_IMAGE.name],
    DEFAULT_REMOVER_REGISTRY,
  ).meta(
    registryOf(
      `Registry holding \`${REMOVER_IMAGE.name}:${REMOVER_IMAGE.tag}\` (the startup taint's remover, pinned); a mirror for nodes without internet. A node whose remover cannot pull it keeps the taint and runs no workload.`,
    ),
  ),
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
    .default(DEFAULT_MAX_UNAVAILABLE)
    .meta(
      described(
        'calico-node pods replaced at once in a rollout: a whole number >= 1 or a percentage `"1%"` to `"100%"` of the nodes (rounded up).',
      ),
    ),
  // The derived timeout: components/calico/rollout.ts.
  readinessTimeoutMinutes: z
    .number()
    .int({ error: "must be a whole number of minutes" })
    .min(1, { error: "must be at least 1" })
    .max(MAX_TIMEOUT_MINUTES, { error: `must be at most ${MAX_TIMEOUT_MINUTES} (24 hours)` })
    .optional()
    .meta(
      described(
        "Minutes `pulumi up` waits for Calico to be ready on every node before failing.",
        "Unset: derived from the rollout estimate at the node groups' maximum size; a value shorter than the estimate is refused.",
      ),
    ),
  cleanupTimeoutMinutes: z
    .number()
    .int({ error: "must be a whole number of minutes" })
    .min(1, { error: "must be at least 1" })
    .max(MAX_TIMEOUT_MINUTES, { error: `must be at most ${MAX_TIMEOUT_MINUTES} (24 hours)` })
    .default(CLEANUP_TIMEOUT_MINUTES)
    .meta(
      described(
        "Minutes `pulumi destroy`, or a reinstall's first update, waits for Felix's rules to be removed from every node before failing (see [Felix's rules](destroy.md#felixs-rules)).",
        "Every node is cleaned at once, so it does not grow with the node count.",
        "The removal runs with the value of the last `pulumi up`: set it, run `pulumi up`, then destroy or reinstall.",
      ),
    ),
  operatorRegistry: registrySchema("quay.io/tigera", [OPERATOR_IMAGE], DEFAULT_OPERATOR_REGISTRY).meta(
    registryOf(
      `${OPERATOR_ONLY}: registry holding the Tigera operator image (\`${OPERATOR_IMAGE}\`, tag from the release table); a mirror for nodes without internet.`,
    ),
  ),
  apiServer: z
    .boolean({ error: "must be true or false" })
    .default(true)
    .meta(
      described(
        `${OPERATOR_ONLY}: the Calico API server (\`APIServer default\`, awaited Ready), so \`kubectl\` manages \`projectcalico.org/v3\` policies with validation.`,
        "It tolerates only control-plane taints, so it needs an untainted group with nodes.",
        "The manifest install has none and ignores this key.",
      ),
    ),
  reinstall: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta(
      described(
        "Switching `calico.installer` from `manifest` to `operator` on a deployed stack that the operator cannot migrate, or moving a deployed manifest install to another `calico.namespace`: `true` reinstalls in two updates instead of refusing.",
        "The first update removes the current install, the second installs the new one (see [Switching install mode](install-modes.md#switching-install-mode), [Moving Calico to another namespace](install-modes.md#moving-calico-to-another-namespace)).",
      ),
    ),
  // Created through a provider that upserts them and forces field ownership.
  adopt: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta(
      described(
        "`true` takes over Calico objects that already exist with the same kind and name (a Calico applied with `kubectl`): see [Taking over a Calico installed with kubectl](adoption.md).",
        "Manifest mode only.",
      ),
    ),
  observability: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .meta(
      described(
        `${OPERATOR_ONLY} (refused with \`manifest\`): Goldmane and Whisker, Calico's flow logs and their UI.`,
        "Never awaited: they report no status.",
      ),
    ),
  felix: felixSchema,
  /** The enforcement probe: a NetworkPolicy that must block, and one that must admit, proven by two Jobs. */
  probe: probeSchema.prefault({}),
});

/**
 * The probe's pods tolerate no taint (they stand for ordinary workloads), so some node group must start
 * with an untainted node, or its server never schedules and `pulumi up` fails waiting for it.
 */
export function checkProbeNodes(config: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  const probe = isRecord(config.calico) ? config.calico.probe : undefined;
  if (isRecord(probe) && probe.enabled === false) return;
  if (!Array.isArray(config.nodeGroups)) return;
  // With no node at all, the node groups' own rule says so.
  const starts = config.nodeGroups.some(
    (g: unknown) => isRecord(g) && typeof g.desiredSize === "number" && g.desiredSize >= 1,
  );
  if (!starts) return;
  const ordinary = config.nodeGroups.some((group: unknown) => {
    if (!isRecord(group)) return true;
    const taints = Array.isArray(group.taints) ? group.taints : [];
    const repelled = taints.some(
      (t: unknown) => isRecord(t) && (t.effect === "NoSchedule" || t.effect === "NoExecute"),
    );
    return !repelled && (typeof group.desiredSize !== "number" || group.desiredSize >= 1);
  });
  if (!ordinary) {
    ctx.addIssue({
      code: "custom",
      path: ["calico", "probe", "enabled"],
      input: isRecord(probe) ? probe.enabled : undefined,
      message:
        "needs a node group that starts with an untainted node (no NoSchedule or NoExecute taint, desiredSize >= 1): the enforcement probe's pods run on ordinary nodes; add such a group, or set calico.probe.enabled: false",
    });
  }
}
