/**
 * The requests pulumi-kubernetes (4.34, server-side apply mode) sends to create an object, replayed
 * against the local API server, because the provider itself cannot be built here (docs/real-cluster.md).
 * From provider/pkg/await/await.go (Creation, patchForce) and provider/pkg/provider/provider.go
 * (fieldManagerName):
 * - the field manager is the `pulumi.com/patchFieldManager` annotation, else a per-resource
 *   `pulumi-kubernetes-<random>` name;
 * - a provider with `upsertExistingObjects` sends a server-side apply (PATCH, application/apply-patch+yaml,
 *   `fieldValidation=Warn`), forced when the provider has `enablePatchForce`, the object the
 *   `pulumi.com/patchForce` annotation, or the live object no managed fields; it does not move kubectl's
 *   fields first (fixCSAFieldManagers runs on updates only);
 * - a provider without it sends a create (POST, field manager `pulumi-kubernetes`): AlreadyExists when the
 *   object is there.
 */
import { type Credentials, KubeRequestError, kubeRequest } from "../components/calico/takeover/kube-client";
import { type ObjectRef, objectPath } from "../components/calico/takeover/run";
import { FIELD_MANAGER_ANNOTATION } from "../components/calico/takeover";

export interface ProviderSettings {
  /** `upsertExistingObjects` of the object's provider. */
  readonly upsert: boolean;
  /** `enablePatchForce` of the object's provider. */
  readonly force: boolean;
}

type KubeObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
};

export function refOf(object: KubeObject): ObjectRef {
  const { apiVersion, kind, metadata } = object;
  return { apiVersion, kind, name: metadata.name, namespace: metadata.namespace };
}

/** The field manager the provider uses for `object`; `fallback` stands in for its random name. */
export function fieldManagerOf(object: KubeObject, fallback: string): string {
  return object.metadata.annotations?.[FIELD_MANAGER_ANNOTATION] ?? fallback;
}

/**
 * Creates `object` as the provider would; returns the API server's refusal, or undefined. `dryRun`
 * is a preview's request (`dryRun=All`): the object the API server would hold is returned instead.
 */
export async function providerCreate(
  credentials: Credentials,
  object: KubeObject,
  settings: ProviderSettings,
  options: { dryRun?: boolean } = {},
): Promise<{ refusal?: string; result?: KubeObject }> {
  const path = await objectPath(credentials, refOf(object));
  const manager = fieldManagerOf(object, `pulumi-kubernetes-${object.metadata.name}`);
  const dryRun = options.dryRun ? "&dryRun=All" : "";
  try {
    if (settings.upsert) {
      let live: { metadata: { managedFields?: unknown[] } } | undefined;
      try {
        live = await kubeRequest(credentials, "GET", path);
      } catch (error) {
        if (!(error instanceof KubeRequestError && error.status === 404)) throw error;
      }
      const force =
        settings.force ||
        object.metadata.annotations?.["pulumi.com/patchForce"] === "true" ||
        (live !== undefined && (live.metadata.managedFields ?? []).length === 0);
      const result = await kubeRequest<KubeObject>(
        credentials,
        "PATCH",
        `${path}?fieldManager=${encodeURIComponent(manager)}&force=${force}&fieldValidation=Warn${dryRun}`,
        object,
        "application/apply-patch+yaml",
      );
      return { result };
    }
    const collection = path.slice(0, path.lastIndexOf("/"));
    const result = await kubeRequest<KubeObject>(
      credentials,
      "POST",
      `${collection}?fieldManager=pulumi-kubernetes${dryRun}`,
      object,
    );
    return { result };
  } catch (error) {
    if (error instanceof KubeRequestError) {
      const status = (() => {
        try {
          return (JSON.parse(error.body) as { message?: string }).message ?? error.body;
        } catch {
          return error.body;
        }
      })();
      return { refusal: `${object.kind} ${object.metadata.name}: HTTP ${error.status}: ${status}` };
    }
    throw error;
  }
}
