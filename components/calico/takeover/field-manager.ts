/**
 * The field manager of every object `calico.adopt` applies, set by pulumi-kubernetes' annotation
 * (provider/pkg/provider/provider.go fieldManagerName: the annotation, else the name in the resource's
 * state, else a random `pulumi-kubernetes-*`). A fixed name is what lets the takeover hand kubectl's
 * fields to the manager the apply will use; once in the state it stays the object's manager.
 */
export const ADOPT_FIELD_MANAGER = "eks-calico";
export const FIELD_MANAGER_ANNOTATION = "pulumi.com/patchFieldManager";
