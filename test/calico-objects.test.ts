/** The Calico object list as a whole: order, names, what a version bump changes, and every object against Kubernetes' OpenAPI schema. */
import * as assert from "node:assert/strict";
import { DEFAULT_CALICO_NAMESPACE } from "../components/calico/defaults";
import { CALICO_CRD_KINDS, crdKindsFor, crdName } from "../components/calico/crds";
import { childResourceName, type CalicoSettings } from "../components/calico/manifest";
import { COMMON_LABELS } from "../components/calico/labels";
import type { CalicoObject, Container } from "../components/calico/object-shapes";
import { validateKubernetesObject as validate } from "./k8s-schema";
import { NAMESPACED_KINDS, VERSIONS, calicoNode, render, typha } from "./calico-fixtures";

describe("calico object list", () => {
  it("is in apply order: CRDs, RBAC, Typha, its autoscaler, then calico-node", () => {
    const ids = render({ version: "v3.32.1" }).map((o) => `${o.kind}/${o.metadata.name}`);
    assert.deepEqual(ids, [
      ...CALICO_CRD_KINDS.map((k) => `CustomResourceDefinition/${crdName(k)}`),
      "CustomResourceDefinition/clusternetworkpolicies.policy.networking.k8s.io",
      "ServiceAccount/calico-node",
      "ClusterRole/calico-node",
      "ClusterRoleBinding/calico-node",
      "ServiceAccount/calico-typha",
      "ClusterRole/calico-typha",
      "ClusterRoleBinding/calico-typha",
      "ClusterRole/calico-tier-getter",
      "ClusterRoleBinding/calico-tier-getter",
      "ClusterRole/eks-calico-aws-node-pod-patch",
      "ClusterRoleBinding/eks-calico-aws-node-pod-patch",
      "ConfigMap/calico-typha-ca",
      "Secret/calico-typha-tls",
      "Secret/calico-felix-typha-tls",
      "Deployment/calico-typha",
      "Service/calico-typha",
      "PodDisruptionBudget/calico-typha",
      "ServiceAccount/calico-typha-autoscaler",
      "ClusterRole/calico-typha-autoscaler",
      "ClusterRoleBinding/calico-typha-autoscaler",
      "Role/calico-typha-autoscaler",
      "RoleBinding/calico-typha-autoscaler",
      "ConfigMap/calico-typha-autoscaler",
      "Deployment/calico-typha-autoscaler",
      "DaemonSet/calico-node",
    ]);
  });

  it("labels every object as part of eks-calico managed by Pulumi", () => {
    for (const version of VERSIONS) {
      for (const object of render({ version })) {
        assert.equal(object.metadata.labels["app.kubernetes.io/part-of"], "eks-calico");
        assert.equal(object.metadata.labels["app.kubernetes.io/managed-by"], "pulumi");
      }
    }
  });

  it("puts every namespaced object, and only those, in the configured namespace", () => {
    for (const namespace of [DEFAULT_CALICO_NAMESPACE, "calico-system"]) {
      for (const object of render({ namespace })) {
        const expected = NAMESPACED_KINDS.has(object.kind) ? namespace : undefined;
        assert.equal(object.metadata.namespace, expected, `${object.kind}/${object.metadata.name}`);
      }
    }
  });

  it("moves only namespaces when the namespace changes", () => {
    const envIndex = (container: Container, name: string) =>
      (container.env ?? []).findIndex((e) => e.name === name);
    const typhaNamespace = envIndex(typha().container, "TYPHA_K8SNAMESPACE");
    const felixNamespace = envIndex(calicoNode().container, "FELIX_TYPHAK8SNAMESPACE");
    assert.ok(typhaNamespace >= 0 && felixNamespace >= 0);
    const moved = render({ namespace: "calico-system" });
    // A namespace that is not built in is created first; the built-in kube-system never is.
    assert.deepEqual(moved[0], {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "calico-system", labels: COMMON_LABELS },
    });
    assert.ok(render().every((o) => o.kind !== "Namespace"));
    const paths = changedPaths(render(), moved.slice(1));
    assert.deepEqual(paths, [
      "ServiceAccount/calico-node: metadata.namespace",
      "ClusterRoleBinding/calico-node: subjects[0].namespace",
      "ServiceAccount/calico-typha: metadata.namespace",
      "ClusterRoleBinding/calico-typha: subjects[0].namespace",
      "ConfigMap/calico-typha-ca: metadata.namespace",
      "Secret/calico-typha-tls: metadata.namespace",
      "Secret/calico-felix-typha-tls: metadata.namespace",
      "Deployment/calico-typha: metadata.namespace",
      `Deployment/calico-typha: spec.template.spec.containers[0].env[${typhaNamespace}].value`,
      "Service/calico-typha: metadata.namespace",
      "PodDisruptionBudget/calico-typha: metadata.namespace",
      "ServiceAccount/calico-typha-autoscaler: metadata.namespace",
      "ClusterRoleBinding/calico-typha-autoscaler: subjects[0].namespace",
      "Role/calico-typha-autoscaler: metadata.namespace",
      "RoleBinding/calico-typha-autoscaler: metadata.namespace",
      "RoleBinding/calico-typha-autoscaler: subjects[0].namespace",
      "ConfigMap/calico-typha-autoscaler: metadata.namespace",
      "Deployment/calico-typha-autoscaler: metadata.namespace",
      // The autoscaler is told which namespace its ConfigMap and target live in.
      "Deployment/calico-typha-autoscaler: spec.template.spec.containers[0].command[1]",
      "DaemonSet/calico-node: metadata.namespace",
      `DaemonSet/calico-node: spec.template.spec.containers[0].env[${felixNamespace}].value`,
    ]);
  });

  it("names each Pulumi child after the component, uniquely and independently of version and namespace", () => {
    const names = (settings: Partial<CalicoSettings>) =>
      render(settings).map((o) => childResourceName("calico", o));
    const defaults = names({});
    assert.equal(new Set(defaults).size, defaults.length);
    assert.ok(defaults.every((n) => n.startsWith("calico-")));
    assert.ok(defaults.includes("calico-crd-felixconfigurations"));
    assert.ok(defaults.includes("calico-daemonset-calico-node"));
    assert.ok(defaults.includes("calico-deployment-calico-typha"));
    assert.deepEqual(names({ version: "v3.31.6", namespace: "calico-system" }), [
      "calico-namespace-calico-system",
      ...defaults,
    ]);
    assert.ok(render().every((o) => childResourceName("other", o).startsWith("other-")));
  });
});

/** Key of an object that Pulumi and Kubernetes treat as its identity. */
function identity(object: CalicoObject): string {
  return `${object.kind}/${object.metadata.name}`;
}

function pathTo(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const segment = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  return parent === "" ? segment : segment.startsWith("[") ? `${parent}${segment}` : `${parent}.${segment}`;
}

/** Paths at which two JSON values differ. */
function diff(a: unknown, b: unknown, at = ""): string[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    const length = Math.max(a.length, b.length);
    return Array.from({ length }, (_, i) => diff(a[i], b[i], pathTo(at, i))).flat();
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((key) => diff(a[key], b[key], pathTo(at, key)));
  }
  return Object.is(a, b) ? [] : [at];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `Kind/name: path` for every difference between two renders of the same object list. */
function changedPaths(before: CalicoObject[], after: CalicoObject[]): string[] {
  assert.deepEqual(after.map(identity), before.map(identity), "same objects in the same order");
  return before.flatMap((object, i) => diff(object, after[i]).map((p) => `${identity(object)}: ${p}`));
}

describe("calico version bump v3.31.6 -> v3.31.7", () => {
  const paths = changedPaths(render({ version: "v3.31.6" }), render({ version: "v3.31.7" }));

  it("changes exactly the two images and the version labels beside them", () => {
    assert.deepEqual(paths, [
      'Deployment/calico-typha: metadata.labels["app.kubernetes.io/version"]',
      'Deployment/calico-typha: spec.template.metadata.labels["app.kubernetes.io/version"]',
      "Deployment/calico-typha: spec.template.spec.containers[0].image",
      'DaemonSet/calico-node: metadata.labels["app.kubernetes.io/version"]',
      'DaemonSet/calico-node: spec.template.metadata.labels["app.kubernetes.io/version"]',
      "DaemonSet/calico-node: spec.template.spec.containers[0].image",
    ]);
  });

  it("touches no CRD, selector, name or namespace, so Pulumi replaces nothing", () => {
    for (const p of paths) {
      assert.ok(!p.startsWith("CustomResourceDefinition/"), p);
      assert.ok(!p.includes("selector"), p);
      assert.ok(!/: metadata\.(name|namespace)$/.test(p), p);
    }
  });
});

describe("calico objects against the Kubernetes OpenAPI schema", () => {
  for (const version of VERSIONS) {
    for (const namespace of [DEFAULT_CALICO_NAMESPACE, "calico-system"]) {
      it(`${version} in ${namespace}: every object validates`, () => {
        const objects = render({ version, namespace });
        const failures = objects.flatMap((object) => {
          try {
            validate(object);
            return [];
          } catch (error) {
            return [`${identity(object)}: ${error instanceof Error ? error.message : String(error)}`];
          }
        });
        assert.deepEqual(failures, []);
        const created = namespace === DEFAULT_CALICO_NAMESPACE ? 0 : 1;
        assert.equal(objects.length, created + crdKindsFor(version).length + 24, "validated the whole list");
      });
    }
  }

  it("fails on a kind it has no model for", () => {
    assert.throws(
      () => validate({ apiVersion: "v1", kind: "Endpoints" }),
      /no kubernetes-models class mapped for kind Endpoints/,
    );
  });

  it("catches an invalid object (a toleration operator that is a number)", () => {
    const broken = structuredClone(calicoNode().daemonSet);
    assert.ok(broken.spec.template.spec);
    Object.assign(broken.spec.template.spec, { tolerations: [{ operator: 42 }] });
    assert.throws(() => validate(broken), /tolerations\/0\/operator must be string/);
  });
});
