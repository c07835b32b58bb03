/**
 * The Calico objects a cluster already has (applied with kubectl), and what happens when this program
 * creates an object of the same kind and name: pulumi-kubernetes 4.29+ fails with AlreadyExists unless the
 * provider upserts (`upsertExistingObjects`, components/cluster/provider.ts); an upsert is a
 * forced server-side apply, which the API server refuses where an immutable field differs (a workload's
 * selector, a binding's roleRef), and which leaves the fields only the old object has in place, unless the
 * takeover step (components/calico/takeover) handed kubectl's fields to the applying field manager first:
 * then the apply removes them.
 */
import { fieldDifferences } from "../adoption/fields";
import { immutableConflict } from "../adoption/immutable";
import { type ManifestObject, apiVersionOfType, asServedToday, objectKey } from "../adoption/objects";
import { SimulatedFailure } from "./workloads";
import {
  type ObjectRef,
  type TakeoverResult,
  describeRef,
  foreignObjectsMessage,
  isOurs,
} from "../../components/calico/takeover/run";
import { COMMON_LABELS } from "../../components/calico/labels";
import { CALICO_NODE } from "../../components/calico/names";
import {
  type OpenSchema,
  calicoLineOfDaemonSet,
  keepsSchemasOf,
  stricterSchema,
} from "../../components/calico/takeover/schemas";
import { TYPHA_OBJECT_KINDS } from "../../components/calico/takeover/typha-retirement";
import { isPlainObject } from "../plan";

function keyOf(ref: ObjectRef): string {
  return objectKey(ref.apiVersion, ref.kind, ref.namespace, ref.name);
}

export class ExistingObjects {
  private readonly byKey: Map<string, ManifestObject>;
  /** Objects whose kubectl-owned fields the takeover handed to the applying field manager. */
  private readonly handedOver = new Set<string>();

  constructor(objects: readonly ManifestObject[] = []) {
    this.byKey = new Map(
      objects.map((o) => [objectKey(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name), o]),
    );
  }

  /**
   * The takeover step: each existing object in `refs` has its fields (all kubectl's: the manifest was
   * applied with kubectl) handed over. Answers as the step does, per object; without `adopt`, an object
   * this program did not make (without its labels) stops the step, as it does.
   */
  takeOver(refs: readonly ObjectRef[], adopt: boolean, simulated: string[]): TakeoverResult[] {
    const existing = refs.filter((ref) => this.byKey.has(keyOf(ref)));
    const foreign = existing.filter(
      (ref) => !isOurs(this.byKey.get(keyOf(ref))?.metadata.labels, COMMON_LABELS),
    );
    if (!adopt && foreign.length > 0) {
      throw new SimulatedFailure(
        foreignObjectsMessage(
          foreign.map((ref) => `${describeRef(ref)} (written by kubectl-client-side-apply)`),
        ),
      );
    }
    return refs.map((ref) => {
      const key = keyOf(ref);
      if (!this.byKey.has(key)) return { object: describeRef(ref), outcome: "absent" };
      this.handedOver.add(key);
      simulated.push(
        `${describeRef(ref)}: its fields handed from kubectl-client-side-apply to this program's field manager (as applied with kubectl apply)`,
      );
      return { object: describeRef(ref), outcome: "from kubectl-client-side-apply (Update)" };
    });
  }

  /**
   * The stricter schemas the takeover step finds (components/calico/takeover/schemas.ts): for each CRD in
   * `open` that exists with a spec schema declaring its fields, that schema, as the cluster serves it;
   * none when the manifest's calico-node runs a Calico line older than `line`.
   */
  stricterSchemas(open: readonly OpenSchema[], line: string): Record<string, Record<string, unknown>> {
    const kept: Record<string, Record<string, unknown>> = {};
    const daemonSet = [...this.byKey.values()].find(
      (o) => o.kind === "DaemonSet" && o.metadata.name === CALICO_NODE,
    );
    if (!keepsSchemasOf(calicoLineOfDaemonSet(daemonSet), line)) return kept;
    for (const { name, version } of open) {
      const crd = [...this.byKey.values()].find(
        (o) => o.kind === "CustomResourceDefinition" && o.metadata.name === name,
      );
      const schema = crd === undefined ? undefined : stricterSchema(asServedToday(crd), version);
      if (schema !== undefined) kept[name] = schema;
    }
    return kept;
  }

  /**
   * This program creates `inputs` (of resource type `type`) through a provider that does or does not
   * upsert: refused as the API server and pulumi-kubernetes refuse it, or taken over, with what stays.
   */
  create(type: string, inputs: Record<string, unknown>, upserts: boolean, simulated: string[]): void {
    const { apiVersion, kind } = apiVersionOfType(type);
    const metadata = isPlainObject(inputs.metadata) ? inputs.metadata : {};
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
    const kept = fieldDifferences(asServedToday(existing), inputs).filter((d) => d.kind === "kept");
    const fate = this.handedOver.has(key) ? "removed" : "kept from it";
    simulated.push(
      `${where}: taken over from the existing object (upsert, forced server-side apply)${
        kept.length === 0
          ? ""
          : `; ${fate}, as this program does not set them: ${kept.map((d) => d.path).join(", ")}`
      }`,
    );
  }

  /**
   * The Typha retirement step (components/calico/takeover/typha-retirement.ts), once calico-node has
   * rolled out: the old Typha's Deployment, Service and PodDisruptionBudget that exist are deleted.
   */
  retireTypha(namespace: string, name: string, simulated: string[]): string[] {
    const deleted = TYPHA_OBJECT_KINDS.filter(({ apiVersion, kind }) =>
      this.byKey.delete(objectKey(apiVersion, kind, namespace, name)),
    ).map(({ kind }) => `${kind} ${namespace}/${name}`);
    simulated.push(
      deleted.length === 0
        ? `the old Typha ${namespace}/${name}: none in the cluster, nothing to delete`
        : `the old Typha deleted once every calico-node pod runs this program's spec (simulated as rolled out): ${deleted.join(", ")}`,
    );
    return deleted;
  }
}
