/** Calico's defaults and CRDs, checked directly against the supported release lines. */
import * as assert from "node:assert/strict";
import {
  DEFAULT_CALICO_VERSION,
  SUPPORTED_CALICO_MINORS,
  isSupportedCalicoVersion,
  supportedMinorOf,
} from "../components/calico/defaults";
import { CALICO_CRD_KINDS } from "../components/calico/crds";
import { objectValidationsFor, specSchemaFor } from "../components/calico/crd-schemas";
import { VERSIONS, find, ofKind, render } from "./calico-fixtures";

describe("calico defaults", () => {
  it("accepts exact releases of the supported lines only", () => {
    assert.deepEqual([...SUPPORTED_CALICO_MINORS], ["3.31", "3.32"]);
    assert.equal(DEFAULT_CALICO_VERSION, "v3.31.7");
    for (const ok of ["v3.31.7", "v3.31.0", "v3.32.1"]) assert.equal(isSupportedCalicoVersion(ok), true, ok);
    for (const bad of ["v3.30.4", "3.31.7", "v3.31", "v3.31.7-rc1", "latest", ""]) {
      assert.equal(isSupportedCalicoVersion(bad), false, bad);
    }
  });

  it("refuses to render an unsupported release, naming the supported lines", () => {
    assert.throws(() => render({ version: "v3.30.4" }), /v3\.30\.4.*not supported.*v3\.31 or v3\.32/);
  });
});

describe("calico CRDs", () => {
  const CALICO_22 = [
    "bgpconfigurations",
    "bgpfilters",
    "bgppeers",
    "blockaffinities",
    "caliconodestatuses",
    "clusterinformations",
    "felixconfigurations",
    "globalnetworkpolicies",
    "globalnetworksets",
    "hostendpoints",
    "ipamblocks",
    "ipamconfigs",
    "ipamhandles",
    "ippools",
    "ipreservations",
    "kubecontrollersconfigurations",
    "networkpolicies",
    "networksets",
    "stagedglobalnetworkpolicies",
    "stagedkubernetesnetworkpolicies",
    "stagednetworkpolicies",
    "tiers",
  ].map((plural) => `${plural}.crd.projectcalico.org`);

  it("v3.31: the 22 Calico CRDs plus AdminNetworkPolicy and BaselineAdminNetworkPolicy", () => {
    assert.equal(CALICO_22.length, 22);
    const names = ofKind(render({ version: "v3.31.7" }), "CustomResourceDefinition").map(
      (c) => c.metadata.name,
    );
    assert.deepEqual(names, [
      ...CALICO_22,
      "adminnetworkpolicies.policy.networking.k8s.io",
      "baselineadminnetworkpolicies.policy.networking.k8s.io",
    ]);
  });

  it("v3.32: the 22 Calico CRDs plus ClusterNetworkPolicy", () => {
    const names = ofKind(render({ version: "v3.32.1" }), "CustomResourceDefinition").map(
      (c) => c.metadata.name,
    );
    assert.deepEqual(names, [...CALICO_22, "clusternetworkpolicies.policy.networking.k8s.io"]);
  });

  it("exactly networkpolicies, networksets and the two staged namespaced kinds are namespaced", () => {
    const namespaced = CALICO_CRD_KINDS.filter((k) => k.scope === "Namespaced").map((k) => k.plural);
    assert.deepEqual(namespaced.sort(), [
      "networkpolicies",
      "networksets",
      "stagedkubernetesnetworkpolicies",
      "stagednetworkpolicies",
    ]);
    for (const version of VERSIONS) {
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const expected =
          crd.spec.group === "crd.projectcalico.org" && namespaced.includes(crd.spec.names.plural);
        assert.equal(crd.spec.scope, expected ? "Namespaced" : "Cluster", crd.metadata.name);
      }
    }
  });

  for (const version of VERSIONS) {
    it(`${version}: every CRD is apiextensions v1 with consistent names and a structural schema`, () => {
      const minor = supportedMinorOf(version);
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const { names, group, versions } = crd.spec;
        assert.equal(crd.apiVersion, "apiextensions.k8s.io/v1");
        assert.equal(crd.metadata.name, `${names.plural}.${group}`);
        assert.equal(names.listKind, `${names.kind}List`);
        assert.equal(names.singular, names.kind.toLowerCase());
        assert.equal(versions.length, 1, crd.metadata.name);
        const [served] = versions;
        assert.equal(served.served, true);
        assert.equal(served.storage, true);
        if (group === "crd.projectcalico.org") assert.equal(served.name, "v1");
        // spec is typed for the kinds crd-schemas/ covers (checked in calico-crd-schemas.test.ts).
        const calico = group === "crd.projectcalico.org";
        const typed = calico ? specSchemaFor(names.kind, minor) : undefined;
        // CEL rules a line states on the whole object (Tier, FelixConfiguration on 3.32).
        const rules = calico ? objectValidationsFor(names.kind, minor) : [];
        assert.deepEqual(served.schema?.openAPIV3Schema, {
          type: "object",
          properties: {
            apiVersion: { type: "string" },
            kind: { type: "string" },
            metadata: { type: "object" },
            spec: typed ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
          ...(rules.length > 0 ? { "x-kubernetes-validations": rules } : {}),
        });
      }
    });
  }

  it("has status subresources on the network-policy-api kinds, never on caliconodestatuses", () => {
    for (const version of VERSIONS) {
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const hasStatus = crd.spec.versions[0].subresources?.status !== undefined;
        if (crd.spec.group === "policy.networking.k8s.io") assert.ok(hasStatus, crd.metadata.name);
      }
      // calico-node writes CalicoNodeStatus with a plain update; a status subresource would drop it.
      const nodeStatus = find(
        render({ version }),
        "CustomResourceDefinition",
        "caliconodestatuses.crd.projectcalico.org",
      );
      assert.equal(nodeStatus.spec.versions[0].subresources, undefined);
    }
  });

  it("carries the API-approval annotation the API server requires for *.k8s.io groups", () => {
    for (const version of VERSIONS) {
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const approval = crd.metadata.annotations?.["api-approved.kubernetes.io"];
        if (crd.spec.group.endsWith(".k8s.io")) {
          assert.match(
            approval ?? "",
            /^https:\/\/github\.com\/kubernetes-sigs\/network-policy-api\/pull\/\d+$/,
          );
        } else {
          assert.equal(approval, undefined, crd.metadata.name);
        }
      }
    }
  });

  it("does not depend on the Calico version within a line, labels included", () => {
    const crds = (version: string) => ofKind(render({ version }), "CustomResourceDefinition");
    assert.deepEqual(crds("v3.31.6"), crds("v3.31.7"));
    for (const crd of crds("v3.31.7")) {
      assert.deepEqual(crd.metadata.labels, {
        "app.kubernetes.io/part-of": "eks-calico",
        "app.kubernetes.io/managed-by": "pulumi",
      });
    }
  });
});
