/**
 * The Calico objects a cluster already has (applied with kubectl), and what happens when this program
 * creates an object of the same kind and name: pulumi-kubernetes 4.29+ fails with AlreadyExists unless the
 * provider upserts (`upsertExistingObjects`, offline/../components/cluster/provider.ts); an upsert is a
 * forced server-side apply, which the API server refuses where an immutable field differs (a workload's
 * selector, a binding's roleRef), and which leaves the fields only the old object has in place.
 */
import { fieldDifferences } from "../adoption/fields";
import { type ManifestObject, apiVersionOfType, objectKey } from "../adoption/objects";
import { SimulatedFailure } from "./workloads";

const WORKLOADS = new Set(["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"]);
const BINDINGS = new Set(["ClusterRoleBinding", "RoleBinding"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A workload's selector as stored: extensions/v1beta1 and apps/v1beta1 defaulted a missing selector to
 * the pod template's labels (apps/v1 requires one).
 */
function selectorOf(object: Record<string, unknown>): unknown {
  const spec = isRecord(object.spec) ? object.spec : {};
  if (spec.selector !== undefined) return spec.selector;
  const template = isRecord(spec.template) ? spec.template : {};
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  return { matchLabels: metadata.labels };
}

function immutableConflict(
  kind: string,
  existing: ManifestObject,
  ours: Record<string, unknown>,
): string | undefined {
  if (WORKLOADS.has(kind) && JSON.stringify(selectorOf(existing)) !== JSON.stringify(selectorOf(ours))) {
    return `spec.selector: Invalid value: ${JSON.stringify(selectorOf(ours))}: field is immutable (the existing object selects ${JSON.stringify(selectorOf(existing))})`;
  }
  if (BINDINGS.has(kind) && JSON.stringify(existing.roleRef) !== JSON.stringify(ours.roleRef)) {
    return `roleRef: Invalid value: ${JSON.stringify(ours.roleRef)}: cannot change roleRef (the existing binding refers to ${JSON.stringify(existing.roleRef)})`;
  }
  return undefined;
}

export class ExistingObjects {
  private readonly byKey: Map<string, ManifestObject>;

  constructor(objects: readonly ManifestObject[] = []) {
    this.byKey = new Map(
      objects.map((o) => [objectKey(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name), o]),
    );
  }

  /**
   * This program creates `inputs` (of resource type `type`) through a provider that does or does not
   * upsert: refused as the API server and pulumi-kubernetes refuse it, or taken over, with what stays.
   */
  create(type: string, inputs: Record<string, unknown>, upserts: boolean, simulated: string[]): void {
    const { apiVersion, kind } = apiVersionOfType(type);
    const metadata = isRecord(inputs.metadata) ? inputs.metadata : {};
    const key = objectKey(apiVersion, kind, metadata.namespace, metadata.name);
    const existing = this.byKey.get(key);
    if (existing === undefined) return;
    const where = `${kind} ${typeof metadata.namespace === "string" ? `${metadata.namespace}/` : ""}${String(metadata.name)}`;
    if (!upserts) {
      throw new SimulatedFailure(
        `${where}: already exists in the cluster (applied outside this stack): pulumi-kubernetes 4.29+ refuses to create over it; set calico.adopt: true to take it over`,
      );
    }
    const conflict = immutableConflict(kind, existing, inputs);
    if (conflict !== undefined) {
      throw new SimulatedFailure(`${where}: the takeover's server-side apply is refused: ${conflict}`);
    }
    this.byKey.delete(key);
    const kept = fieldDifferences(existing as Record<string, unknown>, inputs).filter(
      (d) => d.kind === "kept",
    );
    simulated.push(
      `${where}: taken over from the existing object (upsert, forced server-side apply)${
        kept.length === 0
          ? ""
          : `; kept from it, as this program does not set them: ${kept.map((d) => d.path).join(", ")}`
      }`,
    );
  }
}
