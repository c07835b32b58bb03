/**
 * The rendered crd.projectcalico.org CRDs against what upstream's policy-only CRDs state
 * (fixtures/upstream-crds.yaml): every kind whose spec is typed has exactly upstream's field defaults,
 * exactly upstream's kinds have a status subresource, and each policy.networking.k8s.io CRD carries exactly
 * upstream's annotations, on each supported line.
 */
import * as assert from "node:assert/strict";
import {
  CALICO_CRD_GROUP,
  KUBERNETES_POLICY_GROUP,
  hasOpenSpec,
  renderCrds,
} from "../components/calico/crds";
import { SUPPORTED_CALICO_MINORS } from "../components/calico/defaults";
import { CALICO_RELEASES } from "../components/calico/releases";
import type { JsonSchema } from "../components/calico/crd-schemas";
import { UPSTREAM_CRDS as UPSTREAM } from "./upstream-crds";

/** Every `default` in a schema, by dotted path (`[]` for items, `{}` for map values). */
function defaultsOf(schema: JsonSchema | undefined, at: string, into: Record<string, unknown> = {}) {
  if (schema === undefined) return into;
  if (schema.default !== undefined) into[at] = schema.default;
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    defaultsOf(property, `${at}.${name}`, into);
  defaultsOf(schema.items, `${at}.[]`, into);
  defaultsOf(schema.additionalProperties, `${at}.{}`, into);
  return into;
}

describe("Calico's CRDs against upstream's defaults and subresources", () => {
  it("has upstream's CRD facts for the newest release of every supported line", () => {
    assert.deepEqual(Object.keys(UPSTREAM).sort(), [...SUPPORTED_CALICO_MINORS].sort());
    for (const line of SUPPORTED_CALICO_MINORS) {
      assert.equal(UPSTREAM[line].release, CALICO_RELEASES[line].at(-1), line);
      assert.match(UPSTREAM[line].commit, /^[0-9a-f]{40}$/);
    }
  });

  for (const line of SUPPORTED_CALICO_MINORS) {
    const crds = renderCrds(CALICO_RELEASES[line].at(-1) as string).filter(
      (c) => c.spec.group === CALICO_CRD_GROUP,
    );

    it(`${line}: each typed kind defaults exactly what upstream defaults`, () => {
      for (const crd of crds.filter((c) => !hasOpenSpec(c))) {
        const kind = crd.spec.names.kind;
        const schema = crd.spec.versions[0].schema?.openAPIV3Schema as JsonSchema;
        assert.deepEqual(
          defaultsOf(schema.properties?.spec, "spec"),
          UPSTREAM[line].defaults[kind] ?? {},
          kind,
        );
      }
    });

    it(`${line}: each network-policy-api CRD has exactly upstream's annotations`, () => {
      const policyApi = renderCrds(CALICO_RELEASES[line].at(-1) as string).filter(
        (c) => c.spec.group === KUBERNETES_POLICY_GROUP,
      );
      assert.deepEqual(
        Object.fromEntries(policyApi.map((c) => [c.spec.names.kind, c.metadata.annotations])),
        UPSTREAM[line].policyApiAnnotations,
      );
    });

    it(`${line}: a status subresource on exactly the kinds upstream gives one`, () => {
      const withStatus = crds.filter((c) =>
        c.spec.versions.some((v) => v.subresources?.status !== undefined),
      );
      assert.deepEqual(
        withStatus.map((c) => c.spec.names.kind).sort(),
        [...UPSTREAM[line].statusSubresource].sort(),
      );
    });
  }
});
