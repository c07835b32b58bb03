/**
 * The field manager of every object `calico.adopt` applies, set by pulumi-kubernetes' annotation
 * (provider/pkg/provider/provider.go fieldManagerName: the annotation, else the name in the resource's
 * state, else a random `pulumi-kubernetes-*`). A fixed name is what lets the takeover hand kubectl's
 * fields to the manager the apply will use; once in the state it stays the object's manager.
 */
export const ADOPT_FIELD_MANAGER = "eks-calico";
export const FIELD_MANAGER_ANNOTATION = "pulumi.com/patchFieldManager";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every object in `groups` (at any depth) with the field-manager annotation in its metadata. */
export function withFieldManager<T>(groups: T, fieldManager: string): T {
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (!isObject(value)) return value;
    if (typeof value.kind === "string" && isObject(value.metadata)) {
      const metadata = value.metadata;
      const annotations = isObject(metadata.annotations) ? metadata.annotations : {};
      return {
        ...value,
        metadata: { ...metadata, annotations: { ...annotations, [FIELD_MANAGER_ANNOTATION]: fieldManager } },
      };
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
  };
  return visit(groups) as T;
}
