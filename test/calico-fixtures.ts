/** Shared fixtures for the Calico object tests: a default render and lookups into it. */
import * as assert from "node:assert/strict";
import {
  DEFAULT_CALICO_NAMESPACE,
  DEFAULT_CALICO_REGISTRY,
  DEFAULT_CALICO_VERSION,
} from "../components/calico/defaults";
import { renderCalicoObjects, type CalicoSettings } from "../components/calico/manifest";
import { DEFAULT_FELIX } from "../components/calico/felix-settings";
import type { CalicoObject, Container, EnvVar, PolicyRule } from "../components/calico/object-shapes";

/** One release of each supported line. */
export const VERSIONS = ["v3.31.7", "v3.32.1"] as const;

export const DEFAULTS: CalicoSettings = {
  namespace: DEFAULT_CALICO_NAMESPACE,
  version: DEFAULT_CALICO_VERSION,
  registry: DEFAULT_CALICO_REGISTRY,
  autoscalerRegistry: "registry.k8s.io/cpa",
  initialNodes: 10,
  minNodes: 10,
  maxUnavailable: "10%",
  felix: DEFAULT_FELIX,
};

export function render(overrides: Partial<CalicoSettings> = {}): CalicoObject[] {
  return renderCalicoObjects({ ...DEFAULTS, ...overrides });
}

export type OfKind<K extends CalicoObject["kind"]> = Extract<CalicoObject, { kind: K }>;

export function ofKind<K extends CalicoObject["kind"]>(objects: CalicoObject[], kind: K): OfKind<K>[] {
  return objects.filter((o): o is OfKind<K> => o.kind === kind);
}

/** Exactly one object of `kind` named `name`. */
export function find<K extends CalicoObject["kind"]>(
  objects: CalicoObject[],
  kind: K,
  name: string,
): OfKind<K> {
  const matches = ofKind(objects, kind).filter((o) => o.metadata.name === name);
  assert.equal(matches.length, 1, `expected one ${kind} ${name}, found ${matches.length}`);
  return matches[0];
}

export function calicoNode(objects = render()) {
  const daemonSet = find(objects, "DaemonSet", "calico-node");
  const pod = daemonSet.spec.template.spec;
  assert.ok(pod, "calico-node has a pod spec");
  return { daemonSet, pod, container: pod.containers[0] };
}

export function typha(objects = render()) {
  const deployment = find(objects, "Deployment", "calico-typha");
  const pod = deployment.spec.template.spec;
  assert.ok(pod, "calico-typha has a pod spec");
  return { deployment, pod, container: pod.containers[0] };
}

export function envOf(container: Container): Map<string, EnvVar> {
  const env = container.env ?? [];
  const byName = new Map(env.map((e) => [e.name, e]));
  assert.equal(byName.size, env.length, `duplicate env names in ${container.name}`);
  return byName;
}

/** Whether any rule grants `verb` on `resource` in `group`. */
export function allows(rules: PolicyRule[], verb: string, group: string, resource: string): boolean {
  return rules.some(
    (r) =>
      (r.apiGroups ?? []).includes(group) && (r.resources ?? []).includes(resource) && r.verbs.includes(verb),
  );
}

export const NAMESPACED_KINDS = new Set([
  "ServiceAccount",
  "Role",
  "RoleBinding",
  "ConfigMap",
  "Secret",
  "Deployment",
  "Service",
  "PodDisruptionBudget",
  "DaemonSet",
]);
