/**
 * Old Calico manifests (test/fixtures/adopt/) as a cluster upgraded to today's Kubernetes holds them, for
 * the takeover tests.
 */
import { removedApi } from "../../policy/calico";
import { asServedToday, type ManifestObject } from "../../offline/adoption/objects";
import type { ManagedFieldsEntry } from "../../components/calico/takeover/managed-fields";

export type KubeObject = ManifestObject & {
  apiVersion: string;
  metadata: ManifestObject["metadata"] & {
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    managedFields?: ManagedFieldsEntry[];
  };
};

/**
 * An object of an old manifest as a cluster upgraded to today's Kubernetes stores it: at the API
 * version that replaced a removed one (extensions/v1beta1 workloads as apps/v1, whose selector that API
 * defaulted to the template's labels), v1beta1 CRDs as v1 (asServedToday), with an open schema where
 * the old one had none (stored v1beta1 CRDs have none; the v1 API refuses to create one without).
 */
export function asStoredToday(o: ManifestObject): Record<string, unknown> {
  const served = asServedToday(o) as KubeObject & { spec?: Record<string, unknown> };
  // The API version a removed one is served as today (policy/calico.ts's table of removed APIs).
  const successor = removedApi(o.apiVersion, o.kind)?.use ?? "";
  const stored = { ...served, apiVersion: /^[\w.]+\/v\w+$/.test(successor) ? successor : served.apiVersion };
  if (o.apiVersion === "extensions/v1beta1" && (o.kind === "DaemonSet" || o.kind === "Deployment")) {
    const spec = served.spec as { selector?: unknown; template: { metadata: { labels: object } } };
    return {
      ...stored,
      spec: { ...spec, selector: spec.selector ?? { matchLabels: spec.template.metadata.labels } },
    };
  }
  if (o.kind === "CustomResourceDefinition") {
    const spec = served.spec as { versions: { schema?: unknown }[] };
    const open = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };
    return {
      ...stored,
      spec: { ...spec, versions: spec.versions.map((v) => ({ ...v, schema: v.schema ?? open })) },
    };
  }
  return stored;
}
