/**
 * Objects already in a cluster (applied with kubectl from a manifest), keyed the way the API server finds
 * them: API group, kind, namespace and name. Old API versions name the same objects as their successors
 * (an extensions/v1beta1 DaemonSet is the apps/v1 one), so groups are folded into the current one.
 */

export interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** Kinds whose old API group is served today under another. */
const MOVED: Readonly<Record<string, string>> = {
  "extensions/DaemonSet": "apps",
  "extensions/Deployment": "apps",
  "extensions/ReplicaSet": "apps",
  "extensions/NetworkPolicy": "networking.k8s.io",
  "extensions/PodSecurityPolicy": "policy",
};

/** The API group of an apiVersion ("" for the core group). */
export function groupOf(apiVersion: string): string {
  return apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
}

/** `group/kind/namespace/name`, with the group as served today. */
export function objectKey(apiVersion: string, kind: string, namespace: unknown, name: unknown): string {
  const group = groupOf(apiVersion);
  return [
    MOVED[`${group}/${kind}`] ?? group,
    kind,
    typeof namespace === "string" ? namespace : "",
    String(name),
  ].join("/");
}

/** The apiVersion of a typed Pulumi resource token: `kubernetes:apps/v1:DaemonSet` -> apps/v1. */
export function apiVersionOfType(type: string): { apiVersion: string; kind: string } {
  const [, version = "", kind = ""] = type.split(":");
  return { apiVersion: version.startsWith("core/") ? version.slice("core/".length) : version, kind };
}

/**
 * A CustomResourceDefinition as a current cluster holds one applied as apiextensions.k8s.io/v1beta1: the
 * single `version` and `validation` became the `versions` list (with `served`, `storage` and `schema`).
 */
export function asServedToday(o: ManifestObject): Record<string, unknown> {
  if (o.apiVersion !== "apiextensions.k8s.io/v1beta1" || o.kind !== "CustomResourceDefinition") {
    return o;
  }
  const { version, validation, versions, ...spec } = (o.spec ?? {}) as Record<string, unknown>;
  const listed = Array.isArray(versions)
    ? versions
    : [
        {
          name: version,
          served: true,
          storage: true,
          ...(validation === undefined ? {} : { schema: validation }),
        },
      ];
  return { ...o, apiVersion: "apiextensions.k8s.io/v1", spec: { ...spec, versions: listed } };
}
