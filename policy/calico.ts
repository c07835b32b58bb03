/** Calico policies: calico-node on every node, no wildcard RBAC, no removed Kubernetes APIs. */
import type { ResourceValidationPolicy } from "@pulumi/policy";
import { CALICO_NODE, type Props, isRecord, shown, strings } from "./common";

export function isCalicoNode(type: string, props: Props): boolean {
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

const INSTALLATION = "kubernetes:operator.tigera.io/v1:Installation";

/**
 * An Installation's calico-node tolerations override (`spec.calicoNodeDaemonSet.spec.template.spec`), which
 * replaces the operator's default of tolerating every taint (tigera/operator api/v1/calico_node_types.go).
 */
function installationTolerations(name: string, props: Props, report: (message: string) => void): void {
  let pod: unknown = props.spec;
  for (const key of ["calicoNodeDaemonSet", "spec", "template", "spec"])
    pod = isRecord(pod) ? pod[key] : undefined;
  const tolerations = isRecord(pod) ? pod.tolerations : undefined;
  if (Array.isArray(tolerations) && !tolerations.some(toleratesEverything)) {
    report(
      `Installation ${name} overrides calico-node's tolerations with ${JSON.stringify(tolerations)}, which ` +
        'replace the operator\'s toleration of every taint. Add { operator: "Exists" } with no key and no effect.',
    );
  }
}

export const calicoNodeEverywhere: ResourceValidationPolicy = {
  name: "calico-node-on-every-node",
  description:
    "The calico-node DaemonSet tolerates every taint (one toleration: operator Exists, no key, no effect) " +
    "and runs at priority system-node-critical: a node without Felix runs its pods with no network policy. " +
    "A Tigera operator Installation that overrides calico-node's tolerations keeps that toleration.",
  enforcementLevel: "mandatory",
  validateResource: (args, report) => {
    const props: Props = args.props;
    if (args.type === INSTALLATION) {
      installationTolerations(args.name, props, report);
      return;
    }
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
