/**
 * `nodeGroups[].labels` and `nodeGroups[].taints`: what Kubernetes, the kubelet and the EKS API each
 * accept, checked per key so every refusal names its key.
 */
import { z } from "zod";
import { AWS_LIMITS } from "./aws-limits";
import { isRecord } from "./records";
import { described } from "./described";

/** Taint effects in Kubernetes spelling (the EKS API spells them NO_SCHEDULE, ...). */
export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/**
 * The EKS API's own limits (botocore data/eks/2017-11-01/service-2.json, August 2026: shapes labelKey,
 * labelValue, taintKey, taintValue): a label or taint key is 1 to 63 characters as a whole, prefix
 * included, a label value 1 to 63, a taint value 0 to 63. At most 50 taints per node group
 * (terraform-provider-aws internal/service/eks/node_group.go `taint` MaxItems 50; the EKS user guide,
 * "Node taints on managed node groups"). The model sets no limit on the number of labels.
 */
export const EKS_LABEL_LIMITS = {
  keyLength: AWS_LIMITS.labelKeyLength.value,
  valueLength: AWS_LIMITS.labelValueLength.value,
  taints: AWS_LIMITS.taintsPerNodeGroup.value,
} as const;

// Kubernetes label keys and values: k8s.io/apimachinery pkg/api/validate/content/kube.go (IsLabelKey,
// IsLabelValue) and dns.go (IsDNS1123Subdomain): an optional DNS-subdomain prefix of at most 253
// characters and a '/', then a name of at most 63; a value of at most 63, empty allowed.
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Why `key` is not a Kubernetes label key (IsLabelKey), or undefined when it is one. */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2) return "may hold one '/' only, between a DNS-subdomain prefix and a name";
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return "must have a DNS-subdomain prefix before the '/': lowercase letters, digits, '-' and '.'";
  }
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name)) {
    return "must have a name of 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
  }
  return undefined;
}

/** The prefix (domain) of a label or taint key, or undefined when it has none. */
export function keyDomain(key: string): string | undefined {
  const slash = key.indexOf("/");
  return slash < 0 ? undefined : key.slice(0, slash);
}

const within = (domain: string, parent: string) => domain === parent || domain.endsWith(`.${parent}`);

/**
 * Labels a kubelet may give its own node: kubernetes pkg/kubelet/apis (k8s.io/kubelet pkg/apis
 * well_known_labels.go) `kubeletLabels` and `kubeletLabelNamespaces` ([*.]kubelet.kubernetes.io,
 * [*.]node.kubernetes.io). EKS passes a node group's labels to the kubelet (`--node-labels`), and
 * cmd/kubelet/app/options/options.go ValidateKubeletFlags refuses any other key in the kubernetes.io or
 * k8s.io namespaces: "unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels", so the
 * node never joins (NodeCreationFailure; aws/containers-roadmap#2465 for node-role.kubernetes.io/).
 */
const KUBELET_LABEL_NAMESPACES = ["kubelet.kubernetes.io", "node.kubernetes.io"] as const;

/**
 * The labels of kubeletLabels: Kubernetes sets them on every node itself (hostname, OS, architecture,
 * zone, region, instance type; https://kubernetes.io/docs/reference/node/node-labels/), so one value for
 * a whole node group (whose nodes span zones) would be wrong.
 */
export const KUBELET_PRESET_LABELS: readonly string[] = [
  "kubernetes.io/hostname",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
  "beta.kubernetes.io/instance-type",
  "node.kubernetes.io/instance-type",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
];

/**
 * EKS sets eks.amazonaws.com/ labels itself (capacityType, nodegroup, nodegroup-image) and refuses them
 * in a node group: "Label cannot contain reserved prefixes [kubernetes.io/, k8s.io/,
 * eks.amazonaws.com/]" (the EKS API's error, quoted in eksctl-io/eksctl#4007).
 */
const EKS_DOMAIN = "eks.amazonaws.com";

/** Why a node group may not carry a label with `key`, or undefined when it may. */
export function reservedLabelProblem(key: string): string | undefined {
  const domain = keyDomain(key);
  if (domain === undefined) return undefined;
  if (within(domain, EKS_DOMAIN)) {
    return "must not use eks.amazonaws.com/, which EKS reserves for the labels it sets itself";
  }
  if (KUBELET_PRESET_LABELS.includes(key)) {
    return "is a label Kubernetes sets on every node itself (hostname, OS, architecture, zone, region or instance type): remove it";
  }
  const kubernetes = within(domain, "kubernetes.io") || within(domain, "k8s.io");
  if (kubernetes && !KUBELET_LABEL_NAMESPACES.some((allowed) => within(domain, allowed))) {
    return "is in the kubernetes.io/k8s.io namespace, where the kubelet accepts only node.kubernetes.io/ and kubelet.kubernetes.io/ labels: nodes with it never join (use node.kubernetes.io/<name> or your own domain)";
  }
  return undefined;
}

/**
 * Taint key prefixes EKS refuses on a node group: they belong to Kubernetes and EKS ("EKS have decided
 * that kubernetes.io/anything is reserved ... when applying a taint", alphagov/govuk-infrastructure#1264).
 */
const RESERVED_TAINT_DOMAINS: readonly string[] = ["kubernetes.io", "k8s.io", EKS_DOMAIN];

function keySchema(what: "label" | "taint") {
  return z.string().superRefine((key, ctx) => {
    const problem = labelKeyProblem(key);
    const issue = (message: string) => ctx.addIssue({ code: "custom", input: key, message });
    if (problem !== undefined) {
      issue(`is not a valid Kubernetes ${what} key: it ${problem}`);
    } else if (key.length > EKS_LABEL_LIMITS.keyLength) {
      issue(
        `must be at most ${EKS_LABEL_LIMITS.keyLength} characters, prefix included (EKS's limit for ${what} keys); it has ${key.length}`,
      );
    }
    if (what === "label") {
      const reserved = reservedLabelProblem(key);
      if (reserved !== undefined) issue(reserved);
      return;
    }
    const domain = keyDomain(key);
    if (domain !== undefined && RESERVED_TAINT_DOMAINS.some((reserved) => within(domain, reserved))) {
      issue(
        "must not use a prefix EKS reserves for taints (kubernetes.io/, k8s.io/, eks.amazonaws.com/ and their subdomains)",
      );
    }
  });
}

const VALUE_SYNTAX =
  "must be a valid Kubernetes label value: letters, digits, '-', '_' or '.', starting and ending with a letter or digit";

/** A label value: 1 to 63 characters (EKS refuses an empty one: aws-controllers-k8s/community#2208). */
export const labelValueSchema = z
  .string()
  .min(1, { error: 'must not be empty: EKS takes label values of 1 to 63 characters (write "true")' })
  .max(EKS_LABEL_LIMITS.valueLength, {
    error: "must be a valid Kubernetes label value of at most 63 characters",
  })
  .regex(LABEL_VALUE, { error: VALUE_SYNTAX });

export const labelsSchema = z
  .record(keySchema("label"), labelValueSchema)
  .meta(
    described(
      `Kubernetes labels for the nodes (EKS refuses an empty value). Keys are at most ${EKS_LABEL_LIMITS.keyLength} characters in all (EKS's limit): an optional DNS-subdomain prefix and \`/\`, then a name.`,
      "In the `kubernetes.io/` and `k8s.io/` namespaces only what the kubelet accepts: `node.kubernetes.io/` and `kubelet.kubernetes.io/` (and their subdomains), not the labels Kubernetes sets itself (`kubernetes.io/hostname`, `topology.kubernetes.io/zone`, `node.kubernetes.io/instance-type`, ...). Any other, such as `node-role.kubernetes.io/`, keeps the nodes from joining.",
      "`eks.amazonaws.com/` is EKS's own.",
    ),
  );

const taintSchema = z.strictObject({
  key: keySchema("taint").meta(
    described(
      `A Kubernetes taint key of at most ${EKS_LABEL_LIMITS.keyLength} characters in all (EKS's limit), not in a prefix EKS reserves (\`kubernetes.io/\`, \`k8s.io/\`, \`eks.amazonaws.com/\` and their subdomains).`,
    ),
  ),
  value: z
    .string()
    .max(EKS_LABEL_LIMITS.valueLength, {
      error: "must be a valid Kubernetes label value of at most 63 characters",
    })
    .regex(LABEL_VALUE, { error: VALUE_SYNTAX })
    .default("")
    .meta(described("A Kubernetes label value; may be empty.")),
  effect: z
    .enum(TAINT_EFFECTS, { error: `must be one of ${TAINT_EFFECTS.join(", ")}` })
    .meta(described("In Kubernetes spelling (the EKS API spells them `NO_SCHEDULE`, ...).")),
});

/**
 * A node's taints are unique by key and effect: kubernetes pkg/apis/core/validation/validation.go
 * validateNodeTaints ("taints must be unique by key and effect pair"), so the node could not register.
 */
export const taintsSchema = z
  .array(taintSchema)
  .max(EKS_LABEL_LIMITS.taints, {
    error: `must hold at most ${EKS_LABEL_LIMITS.taints} taints, EKS's limit per node group`,
  })
  .superRefine(
    (taints: unknown, ctx) => {
      if (!Array.isArray(taints)) return;
      const seen = new Map<string, number>();
      taints.forEach((taint: unknown, index) => {
        if (!isRecord(taint) || typeof taint.key !== "string" || typeof taint.effect !== "string") return;
        const id = JSON.stringify([taint.key, taint.effect]);
        const first = seen.get(id);
        if (first === undefined) {
          seen.set(id, index);
          return;
        }
        ctx.addIssue({
          code: "custom",
          path: [index],
          input: taint,
          message: `repeats taints[${first}] (key ${taint.key}, effect ${taint.effect}): Kubernetes refuses two taints with the same key and effect on a node; keep one`,
        });
      });
    },
    { when: () => true },
  )
  .meta(
    described(
      "Taints for the nodes (the most is EKS's limit), no two with the same key and effect (Kubernetes refuses them).",
    ),
  );
