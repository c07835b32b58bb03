/**
 * The takeover's managed-fields hand-over (components/calico/takeover/managed-fields.ts) and its dynamic
 * provider as `pulumi up` loads it: serialized, then required from the text. Against a real API server:
 * test/cluster/takeover.test.ts.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import { takeoverProvider } from "../components/calico/takeover";
import { credentialsOf } from "../components/kubernetes/client";
import {
  handOver,
  isHandedOver,
  otherToolEntries,
  unionFields,
} from "../components/calico/takeover/managed-fields";
import { calicoLineOfImage, keepsSchemasOf, stricterSchema } from "../components/calico/takeover/schemas";
import { hasOpenSpec, renderCrds, withSchema } from "../components/calico/crds";
import { TYPED_SPEC_KINDS } from "../components/calico/crd-schemas";
import { DEFAULT_CALICO_VERSION } from "../components/calico/defaults";
import { UNREACHABLE_KUBECONFIG } from "./helpers";

const CSA = {
  manager: "kubectl-client-side-apply",
  operation: "Update",
  apiVersion: "apps/v1",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:spec": { "f:template": { "f:spec": { "f:hostNetwork": {} } } } },
};
const CONTROLLER = {
  manager: "kube-controller-manager",
  operation: "Update",
  apiVersion: "apps/v1",
  subresource: "status",
  fieldsV1: { "f:status": { "f:numberReady": {} } },
};

describe("takeover: a CRD's schema is never made weaker", () => {
  const crd = (spec: unknown, version = "v1") => ({
    spec: {
      versions: [{ name: version, schema: { openAPIV3Schema: { type: "object", properties: { spec } } } }],
    },
  });

  it("keeps an existing schema whose spec declares fields; not an open one, nor another version's", () => {
    const typed = crd({ type: "object", properties: { cidr: { type: "string" } } });
    assert.deepEqual(stricterSchema(typed, "v1"), typed.spec.versions[0].schema.openAPIV3Schema);
    assert.equal(
      stricterSchema(crd({ type: "object", "x-kubernetes-preserve-unknown-fields": true }), "v1"),
      undefined,
    );
    assert.equal(stricterSchema(crd({ type: "object", properties: {} }), "v1"), undefined);
    assert.equal(stricterSchema(typed, "v3"), undefined);
    assert.equal(stricterSchema({}, "v1"), undefined);
  });

  it("keeps schemas only from a Calico line as new as the one installed, read from calico-node's image", () => {
    assert.equal(calicoLineOfImage("quay.io/calico/node:v3.31.7"), "3.31");
    assert.equal(calicoLineOfImage("docker.io/calico/node:v3.3.6"), "3.3");
    assert.equal(calicoLineOfImage("registry.example.com:5000/mirror/calico/node:v3.32.1"), "3.32");
    assert.equal(calicoLineOfImage("quay.io/calico/node:v3.31.7@sha256:" + "a".repeat(64)), "3.31");
    assert.equal(calicoLineOfImage("quay.io/calico/node:latest"), undefined);
    assert.equal(calicoLineOfImage(undefined), undefined);
    assert.equal(keepsSchemasOf("3.31", "3.31"), true);
    assert.equal(keepsSchemasOf("3.32", "3.31"), true);
    assert.equal(keepsSchemasOf("4.0", "3.32"), true);
    // An older release's schema would prune what later releases added; an unknown one is not trusted.
    assert.equal(keepsSchemasOf("3.31", "3.32"), false);
    assert.equal(keepsSchemasOf("3.3", "3.31"), false);
    assert.equal(keepsSchemasOf(undefined, "3.31"), false);
  });

  it("asks only for the CRDs whose spec this program keeps open", () => {
    const crds = renderCrds(DEFAULT_CALICO_VERSION);
    const open = crds.filter(hasOpenSpec).map((c) => c.spec.names.kind);
    assert.deepEqual(
      crds
        .filter((c) => !hasOpenSpec(c))
        .map((c) => c.spec.names.kind)
        .sort(),
      [...TYPED_SPEC_KINDS].sort(),
    );
    assert.ok(open.includes("IPPool") && open.includes("AdminNetworkPolicy"), open.join());
  });

  it("applies a kept schema to every version, and leaves the CRD as rendered without one", () => {
    const [ippools] = renderCrds(DEFAULT_CALICO_VERSION).filter((c) => c.spec.names.kind === "IPPool");
    assert.equal(withSchema(ippools.spec, undefined), ippools.spec);
    const schema = {
      type: "object",
      properties: { spec: { type: "object", properties: { cidr: { type: "string" } } } },
    };
    assert.deepEqual(
      withSchema(ippools.spec, schema).versions.map((v) => v.schema?.openAPIV3Schema),
      ippools.spec.versions.map(() => schema),
    );
  });
});

describe("takeover: handing kubectl's fields over", () => {
  it("hands over kubectl's writes and before-first-apply, never controllers or other tools", () => {
    const cases: [object, boolean][] = [
      [CSA, true],
      [{ manager: "kubectl", operation: "Apply" }, true],
      [{ manager: "kubectl-create", operation: "Update" }, true],
      [{ manager: "kubectl-edit", operation: "Update" }, true],
      [{ manager: "before-first-apply", operation: "Update" }, true],
      [CONTROLLER, false],
      [{ manager: "kubectl-client-side-apply", operation: "Update", subresource: "status" }, false],
      [{ manager: "kube-controller-manager", operation: "Update" }, false],
      [{ manager: "argocd-controller", operation: "Apply" }, false],
      [{ manager: "helm", operation: "Update" }, false],
    ];
    for (const [entry, expected] of cases) assert.equal(isHandedOver(entry), expected, JSON.stringify(entry));
  });

  it("finds another tool's fields (Argo CD, Flux, Helm), never controllers' status, scale or metadata writes", () => {
    const spec = { "f:spec": { "f:template": {} } };
    const entries = [
      { manager: "kubectl-client-side-apply", operation: "Update", fieldsV1: spec },
      { manager: "eks-calico", operation: "Apply", fieldsV1: spec },
      { manager: "argocd-controller", operation: "Apply", fieldsV1: spec },
      { manager: "helm", operation: "Update", fieldsV1: { "f:data": {} } },
      { manager: "kustomize-controller", operation: "Apply", fieldsV1: { "f:metadata": {}, "f:rules": {} } },
      {
        manager: "kube-controller-manager",
        operation: "Update",
        fieldsV1: { "f:metadata": { "f:annotations": {} } },
      },
      {
        manager: "kube-controller-manager",
        operation: "Update",
        subresource: "status",
        fieldsV1: { "f:status": {} },
      },
      {
        manager: "cluster-proportional-autoscaler",
        operation: "Update",
        subresource: "scale",
        fieldsV1: spec,
      },
    ];
    assert.deepEqual(
      otherToolEntries(entries, "eks-calico", isHandedOver).map((e) => e.manager),
      ["argocd-controller", "helm", "kustomize-controller"],
    );
  });

  it("merges the field sets into one Apply entry of the new manager, keeping other entries", () => {
    const ours = {
      manager: "eks-calico",
      operation: "Apply",
      apiVersion: "apps/v1",
      fieldsV1: { "f:spec": { "f:template": { "f:spec": { "f:priorityClassName": {} } } } },
    };
    const result = handOver([CSA, CONTROLLER, ours], "eks-calico");
    assert.deepEqual(result?.from, ["kubectl-client-side-apply (Update)"]);
    assert.deepEqual(result?.managedFields, [
      CONTROLLER,
      {
        manager: "eks-calico",
        operation: "Apply",
        apiVersion: "apps/v1",
        time: undefined,
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:spec": { "f:template": { "f:spec": { "f:hostNetwork": {}, "f:priorityClassName": {} } } },
        },
      },
    ]);
    assert.equal(handOver([CONTROLLER, ours], "eks-calico"), undefined, "nothing of kubectl's: no patch");
  });

  it("unions nested field sets", () => {
    assert.deepEqual(unionFields({ "f:a": { "f:b": {} }, "f:c": {} }, { "f:a": { "f:d": {} }, "f:e": {} }), {
      "f:a": { "f:b": {}, "f:d": {} },
      "f:c": {},
      "f:e": {},
    });
  });

  it("reads the kubeconfig's context and its server; an unknown context is an error naming it", () => {
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "current-context: a",
      "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443/proxied'}}, {name: bad}]",
      "users: [{name: u, user: {token: secret-token}}]",
      "contexts: [{name: a, context: {cluster: c, user: u}}, {name: d, context: {cluster: bad}}]",
    ].join("\n");
    assert.equal(credentialsOf(kubeconfig).server, "https://127.0.0.1:6443/proxied");
    assert.throws(() => credentialsOf(kubeconfig, "b"), /no context "b"/);
    assert.throws(
      () => credentialsOf(kubeconfig, "d"),
      /has context "d" naming cluster "bad", which it lacks or gives no server/,
    );
  });

  it("serializes into a provider that the dynamic provider host can load (create, diff, update)", async () => {
    // What @pulumi/pulumi's dynamic Resource sends as __provider, and cmd/dynamic-provider loads.
    const serialized = await pulumi.runtime.serializeFunction(() => takeoverProvider, { allowSecrets: true });
    const loaded = (
      requireFromString(serialized.text) as { handler: () => pulumi.dynamic.ResourceProvider }
    ).handler();
    assert.equal(typeof loaded.create, "function");
    assert.equal(typeof loaded.update, "function");
    const diff = await loaded.diff?.(
      "takeover",
      { fieldManager: "eks-calico", objects: [{ kind: "A" }] },
      { fieldManager: "eks-calico", objects: [{ kind: "A" }] },
    );
    assert.equal(diff?.changes, false);
    const changed = await loaded.diff?.(
      "takeover",
      { fieldManager: "eks-calico", objects: [{ kind: "A" }] },
      { fieldManager: "eks-calico", objects: [{ kind: "B" }] },
    );
    assert.equal(changed?.changes, true);
    // Every function the step calls is in the text: run against a server that is not there, it fails
    // reaching it, not on a name the serialization left out (a name that is also a global, as mocha's
    // \`run\`, is not captured).
    const objects = [{ apiVersion: "v1", kind: "ConfigMap", name: "x", namespace: "y" }];
    await assert.rejects(
      loaded.create({
        kubeconfig: UNREACHABLE_KUBECONFIG,
        fieldManager: "eks-calico",
        adopt: false,
        objects,
        openSchemas: [],
      }),
      (error: Error) => /ECONNREFUSED/.test(`${error.message} ${String((error as { code?: string }).code)}`),
    );
  });
});
