/**
 * The adoption report (`npm start -- --adopt-from FILE`): a Calico manifest applied with kubectl, against
 * this stack's plan. Which objects the plan takes over (and what changes in them, what stays), which the
 * old manifest has and the plan does not (with the `kubectl delete` to run after the switch and why), which
 * the plan creates, and what stops the switch. With the operator, the switch is the operator's migration
 * of kube-system/calico-node, judged by its converter's rules (components/calico/operator/migration.ts).
 */
import { conversionBlockers } from "../../components/calico/operator/migration";
import { CALICO_VERSION_ANNOTATION } from "../../components/calico/operator/custom-resources";
import type { DaemonSet } from "../../components/calico/object-shapes";
import { removedApi } from "../../policy/calico";
import { COMMON_LABELS } from "../../components/calico/labels";
import { describeRef, isOurs } from "../../components/calico/takeover/run";
import { TYPHA_OBJECT_KINDS, TYPHA_RETIREMENT_TYPE } from "../../components/calico/takeover/typha-retirement";
import { scalesDeployment } from "../../components/calico/takeover/typha-scalers";
import { calicoObjects } from "../calico-yaml";
import type { StackEvaluation } from "../engine";
import { isPlainObject } from "../plan";
import { immutableConflict } from "./immutable";
import { type LeftBehind, leftBehind } from "./left-behind";
import { type ManifestObject, apiVersionOfType, asServedToday, objectKey } from "./objects";

/** One field of an old object that the takeover changes: this program's value replaces it, or it goes. */
export interface FieldDifference {
  /** `spec.template.spec.containers[calico-node].env[FELIX_LOGSEVERITYSCREEN].value` */
  readonly path: string;
  /** `set`: the rendered object has another value (or adds it); `removed`: only the old object has it. */
  readonly kind: "set" | "removed";
  readonly before: unknown;
  readonly after?: unknown;
}

/** Metadata a server writes, or kubectl's own bookkeeping: never compared. */
const SERVER_METADATA = new Set([
  "creationTimestamp",
  "resourceVersion",
  "uid",
  "generation",
  "managedFields",
  "selfLink",
  "namespace",
  "name",
]);
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** A list whose items all have a distinct `name`: its items are told apart, and named, by it. */
function keyedByName(list: unknown[]): boolean {
  const names = list.map((item) => (isPlainObject(item) ? item.name : undefined));
  return list.length > 0 && names.every((n) => typeof n === "string") && new Set(names).size === names.length;
}

function child(path: string, key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === "" ? key : `${path}.${key}`;
}

function compareField(path: string, before: unknown, after: unknown, out: FieldDifference[]): void {
  if (after === undefined) {
    if (Array.isArray(before) && keyedByName(before)) {
      for (const item of before)
        out.push({ path: `${path}[${(item as { name: string }).name}]`, kind: "removed", before: item });
    } else if (before !== undefined) {
      out.push({ path, kind: "removed", before });
    }
    return;
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      compareField(child(path, key), before[key], after[key], out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && keyedByName(before) && keyedByName(after)) {
    const byName = (list: unknown[]) => new Map(list.map((item) => [(item as { name: string }).name, item]));
    const [was, now] = [byName(before), byName(after)];
    for (const name of [...new Set([...was.keys(), ...now.keys()])]) {
      compareField(`${path}[${name}]`, was.get(name), now.get(name), out);
    }
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, kind: "set", before, after });
}

/**
 * What changes in an old object when `ours` is applied over it as the takeover applies it: kubectl's
 * fields handed to this program's field manager first (components/calico/takeover/managed-fields.ts), so
 * the apply sets every field `ours` has and removes every other field of the old object. The
 * difference of the two objects, server-written metadata, kubectl's last-applied annotation and status
 * aside. The real takeover on a control plane checks it (test/cluster/takeover.test.ts).
 */
export function fieldDifferences(
  old: Record<string, unknown>,
  ours: Record<string, unknown>,
): FieldDifference[] {
  const out: FieldDifference[] = [];
  const metadata = (o: Record<string, unknown>) => {
    const m = isPlainObject(o.metadata) ? o.metadata : {};
    const annotations = isPlainObject(m.annotations) ? { ...m.annotations } : undefined;
    if (annotations !== undefined) delete annotations[LAST_APPLIED];
    const kept = annotations !== undefined && Object.keys(annotations).length > 0 ? annotations : undefined;
    return Object.fromEntries(
      Object.entries({ ...m, annotations: kept }).filter(
        ([k, v]) => !SERVER_METADATA.has(k) && v !== undefined,
      ),
    );
  };
  compareField("metadata", metadata(old), metadata(ours), out);
  for (const key of [...new Set([...Object.keys(old), ...Object.keys(ours)])].sort()) {
    if (["apiVersion", "kind", "metadata", "status"].includes(key)) continue;
    compareField(key, old[key], ours[key], out);
  }
  return out;
}

export interface TakenOver {
  readonly object: string;
  readonly apiVersion: { readonly from: string; readonly to: string };
  readonly set: FieldDifference[];
  /**
   * Fields only the old object has: the takeover removes them (kubectl's fields are handed to this
   * program's field manager first, components/calico/takeover), each with why it matters where known.
   */
  readonly removed: (FieldDifference & { readonly note?: string })[];
}

/** Fields of old manifests that the takeover removes and that are known to be dead or to matter. */
const REMOVED_NOTES: readonly { readonly path: RegExp; readonly note: string }[] = [
  {
    path: /annotations\["scheduler\.alpha\.kubernetes\.io\/critical-pod"\]$/,
    note: "ignored since Kubernetes 1.16 (priorityClassName replaced it)",
  },
  {
    path: /nodeSelector\["beta\.kubernetes\.io\/(os|arch)"\]$/,
    note: "a label deprecated since Kubernetes 1.14 (kubernetes.io/os and /arch replace it)",
  },
  {
    path: /initContainers\[install-cni\]$/,
    note: "Calico's CNI installer: it writes Calico's CNI configuration onto every node at each pod start, which the VPC CNI does not use",
  },
];

export interface AdoptionReport {
  readonly installer: "manifest" | "operator";
  readonly takenOver: TakenOver[];
  readonly leftBehind: (LeftBehind & { readonly object: string; readonly command?: string })[];
  /** The old manifest's Typha: it serves the old calico-node pods until they are replaced, then goes. */
  readonly retired: { readonly object: string; readonly why: string }[];
  readonly created: string[];
  /** API versions of the manifest a current cluster no longer serves, and what it stores them as. */
  readonly removedApis: string[];
  /** What stops the switch; empty when it can go ahead. */
  readonly problems: string[];
}

/** The operator deletes these once it has migrated every node (tigera-operator.md, "Migration"). */
const MIGRATED_BY_OPERATOR = new Set([
  "DaemonSet/calico-node",
  "Deployment/calico-typha",
  "Deployment/calico-kube-controllers",
]);

function describe(o: { kind: string; metadata: { name: string; namespace?: string } }): string {
  return describeRef({ kind: o.kind, ...o.metadata });
}

/** `kubectl delete` of an object, with its group as served today. */
function deleteCommand(o: ManifestObject): string {
  const key = objectKey(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name);
  const group = key.split("/")[0];
  const resource = `${o.kind.toLowerCase()}${group === "" ? "" : `.${group}`}`;
  const namespace = o.metadata.namespace === undefined ? "" : ` -n ${o.metadata.namespace}`;
  return `kubectl delete${namespace} ${resource} ${o.metadata.name}`;
}

function imageTag(o: ManifestObject): string | undefined {
  const pod = (o.spec as { template?: { spec?: { containers?: { name: string; image?: string }[] } } })
    ?.template?.spec;
  const image = pod?.containers?.find((c) => c.name === "calico-node")?.image;
  return image?.split(":").pop();
}

export function adoptionReport(manifest: readonly ManifestObject[], plan: StackEvaluation): AdoptionReport {
  const installation = plan.resources.find((r) => r.type === "kubernetes:operator.tigera.io/v1:Installation");
  const installer = installation === undefined ? "manifest" : "operator";
  const adopting = plan.resources.some(
    (r) => r.type === "pulumi:providers:kubernetes" && r.name === "calico-adopt",
  );
  const planned = new Map(
    calicoObjects(plan).map((r) => {
      const { apiVersion, kind } = apiVersionOfType(r.type);
      const metadata = r.inputs.metadata as { name: string; namespace?: string };
      return [
        objectKey(apiVersion, kind, metadata.namespace, metadata.name),
        { ...r.inputs, apiVersion, kind },
      ];
    }),
  );
  const retirement = plan.resources.find((r) => r.type === TYPHA_RETIREMENT_TYPE)?.inputs;
  const retires = (o: ManifestObject) =>
    retirement !== undefined &&
    TYPHA_OBJECT_KINDS.some((k) => k.kind === o.kind) &&
    o.metadata.namespace === retirement.namespace &&
    o.metadata.name === retirement.retired;
  const scalesRetired = (o: ManifestObject) =>
    retirement !== undefined &&
    o.kind === "Deployment" &&
    scalesDeployment(o, String(retirement.namespace), String(retirement.retired));
  const retired: AdoptionReport["retired"] = [];
  const problems: string[] = [];
  const takenOver: TakenOver[] = [];
  const left: AdoptionReport["leftBehind"] = [];
  const matched = new Set<string>();
  const removedApis = new Set<string>();
  /** CRDs of the plan that exist and another install made: the takeover step refuses them. */
  const foreignCrds: string[] = [];

  for (const o of manifest) {
    const removed = removedApi(o.apiVersion, o.kind);
    const key = objectKey(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name);
    if (removed !== undefined) {
      removedApis.add(
        `${o.apiVersion} ${o.kind} (${o.metadata.name}): removed in Kubernetes ${removed.removedIn}; a current cluster refuses it and holds the object as ${removed.use}`,
      );
    }
    const ours = planned.get(key);
    if (ours !== undefined) {
      matched.add(key);
      if (o.kind === "CustomResourceDefinition" && !isOurs(o.metadata.labels, COMMON_LABELS))
        foreignCrds.push(describe(o));
      const differences = fieldDifferences(asServedToday(o), ours);
      takenOver.push({
        object: describe(o),
        apiVersion: { from: o.apiVersion, to: String(ours.apiVersion) },
        set: differences.filter((d) => d.kind === "set"),
        removed: differences
          .filter((d) => d.kind === "removed")
          .map((d) => {
            const note = REMOVED_NOTES.find((k) => k.path.test(d.path))?.note;
            return note === undefined ? d : { ...d, note };
          }),
      });
      const conflict = immutableConflict(o.kind, o, ours);
      if (conflict !== undefined) problems.push(`${describe(o)}: the takeover would be refused: ${conflict}`);
      continue;
    }
    if (scalesRetired(o)) {
      retired.push({
        object: describe(o),
        why: `it scales the old Typha, ${String(retirement?.retired)}; left running, it would resize this program's Typha, which takes that name back once calico.adopt is off, against this program's own autoscaler: the stack deletes it with the old Typha (the Typha retirement step)`,
      });
      continue;
    }
    if (retires(o)) {
      retired.push({
        object: describe(o),
        why: `it serves the old calico-node pods until each is replaced: this plan's Typha, ${String(retirement?.serving)}, accepts only Felix clients with this stack's certificates (mutual TLS), which they do not have; the stack deletes it once every calico-node pod runs this plan's spec (the Typha retirement step)`,
      });
      continue;
    }
    if (
      installer === "operator" &&
      o.metadata.namespace === "kube-system" &&
      MIGRATED_BY_OPERATOR.has(`${o.kind}/${o.metadata.name}`)
    ) {
      left.push({
        object: describe(o),
        why: "migrated by the Tigera operator, which deletes it once every node runs its calico-node",
        delete: false,
      });
      continue;
    }
    const reason = leftBehind(o);
    left.push({ object: describe(o), ...reason, ...(reason.delete ? { command: deleteCommand(o) } : {}) });
    if (o.kind === "DaemonSet" && o.metadata.name === "calico-node" && installer === "manifest") {
      problems.push(
        `${describe(o)} is not the one this plan runs (${[...planned.values()]
          .filter((p) => p.kind === "DaemonSet")
          .map((p) => describe(p as ManifestObject))
          .join(
            ", ",
          )}): two Felixes would program every node; set calico.namespace to ${o.metadata.namespace ?? "its namespace"}`,
      );
    }
  }

  if (installer === "manifest" && takenOver.length > 0 && !adopting) {
    // The takeover step checks the CRDs before anything is applied; the other objects fail on create.
    const first =
      foreignCrds.length > 0
        ? `the takeover step refuses the ${foreignCrds.length} CRDs this program did not make, before anything changes`
        : "pulumi up fails with AlreadyExists on the first";
    problems.push(
      `${takenOver.length} objects of the manifest exist with the plan's kind and name: ${first}; set calico.adopt: true`,
    );
  }
  if (installer === "operator") {
    const node = manifest.find(
      (o) =>
        o.kind === "DaemonSet" && o.metadata.name === "calico-node" && o.metadata.namespace === "kube-system",
    );
    const wanted = (installation?.inputs.metadata as { annotations?: Record<string, string> } | undefined)
      ?.annotations?.[CALICO_VERSION_ANNOTATION];
    if (node !== undefined) {
      const blockers = conversionBlockers(node as unknown as DaemonSet);
      const tag = imageTag(node);
      if (tag !== undefined && wanted !== undefined && tag !== wanted) {
        blockers.push(
          `the manifest runs Calico ${tag} and the Installation asks for ${wanted}: the operator migrates only the release that runs (set calico.version to ${tag}, or upgrade first)`,
        );
      }
      problems.push(...blockers.map((b) => `the operator cannot migrate ${describe(node)}: ${b}`));
    }
  }

  const created = [...planned.entries()]
    .filter(([key]) => !matched.has(key))
    .map(([, o]) => describe(o as ManifestObject));
  return {
    installer,
    takenOver,
    leftBehind: left,
    retired,
    created,
    removedApis: [...removedApis],
    problems,
  };
}

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? "(none)" : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function renderAdoptionReport(report: AdoptionReport, source: string): string {
  const lines = [`Adoption report: ${source} against this plan (installer ${report.installer})`];
  lines.push(
    "",
    report.installer === "operator"
      ? "The Tigera operator takes the install over itself: creating the Installation starts its migration of kube-system/calico-node, node by node."
      : "Taken over (same kind and name; kubectl's fields handed to this program's field manager, then a forced server-side apply; never deleted or recreated). Fields another tool than kubectl wrote stay:",
  );
  for (const t of report.takenOver) {
    lines.push(
      `  ${t.object}${t.apiVersion.from === t.apiVersion.to ? "" : `  (${t.apiVersion.from} -> ${t.apiVersion.to})`}`,
    );
    for (const d of t.set) lines.push(`    ~ ${d.path}: ${shown(d.before)} -> ${shown(d.after)}`);
    for (const d of t.removed)
      lines.push(
        `    - ${d.path}: ${shown(d.before)} (removed: this program does not set it${d.note === undefined ? "" : `; ${d.note}`})`,
      );
  }
  lines.push("", "Left behind (in the old manifest, not in this plan):");
  for (const l of report.leftBehind) {
    lines.push(`  ${l.object}: ${l.why}`);
    if (l.command !== undefined) lines.push(`    after the switch: ${l.command}`);
  }
  if (report.retired.length > 0) {
    lines.push("", "Replaced, then deleted by the stack at the end of the takeover:");
    for (const r of report.retired) lines.push(`  ${r.object}: ${r.why}`);
  }
  lines.push("", "Created (in this plan, not in the old manifest):", ...report.created.map((c) => `  ${c}`));
  if (report.removedApis.length > 0) {
    lines.push(
      "",
      "API versions a current cluster no longer accepts:",
      ...report.removedApis.map((r) => `  ${r}`),
    );
  }
  lines.push(
    "",
    report.problems.length === 0
      ? "Nothing stops the switch."
      : `The switch cannot go ahead (${report.problems.length}):`,
    ...report.problems.map((p) => `  - ${p}`),
  );
  return `${lines.join("\n")}\n`;
}
