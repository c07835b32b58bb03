/** The rendered ClusterRoles grant what upstream's policy-only manifest grants, less reasoned exclusions. */
import * as assert from "node:assert/strict";
import { CALICO_RELEASES } from "../components/calico/releases";
import { SUPPORTED_CALICO_MINORS } from "../components/calico/defaults";
import { find, render } from "./calico-fixtures";
import {
  EXCLUSIONS,
  UPSTREAM_RBAC,
  WORKLOADS,
  describePermission,
  excludes,
  grants,
  permissionsOf,
  upstreamPermissions,
} from "./upstream-rbac";

describe("calico RBAC against upstream's policy-only manifest", () => {
  it("has upstream's rules for every release of every supported line", () => {
    assert.deepEqual(Object.keys(UPSTREAM_RBAC).sort(), [...SUPPORTED_CALICO_MINORS].sort());
    for (const line of SUPPORTED_CALICO_MINORS) {
      assert.deepEqual(Object.keys(UPSTREAM_RBAC[line].releases), [...CALICO_RELEASES[line]], line);
      for (const commit of Object.values(UPSTREAM_RBAC[line].releases))
        assert.match(commit, /^[0-9a-f]{40}$/);
    }
  });

  for (const line of SUPPORTED_CALICO_MINORS) {
    for (const version of CALICO_RELEASES[line]) {
      for (const workload of WORKLOADS) {
        it(`${version}: ${workload} has every permission upstream grants, but the excluded`, () => {
          const { rules } = find(render({ version }), "ClusterRole", workload);
          const missing = upstreamPermissions(line, workload)
            .required.filter((p) => !grants(rules, p))
            .map(describePermission);
          assert.deepEqual(missing, [], `${workload} on ${version} lacks what upstream grants`);
        });
      }
    }
  }

  it("gives every exclusion a reason, and each excludes a rule upstream still grants", () => {
    for (const exclusion of EXCLUSIONS) {
      const label = `${exclusion.workloads.join(",")}: ${exclusion.resources.join(",")}`;
      assert.ok(exclusion.reason.trim().length > 40, `${label} needs a reason`);
      const used = SUPPORTED_CALICO_MINORS.some((line) =>
        exclusion.workloads.some((workload) =>
          permissionsOf(UPSTREAM_RBAC[line].rules).some((p) => excludes(exclusion, line, workload, p)),
        ),
      );
      assert.ok(used, `${label} excludes nothing upstream grants on ${SUPPORTED_CALICO_MINORS.join(", ")}`);
    }
  });

  it("grants none of what it excludes (an exclusion that is granted anyway is wrong)", () => {
    for (const line of SUPPORTED_CALICO_MINORS) {
      for (const workload of WORKLOADS) {
        const { rules } = find(render({ version: CALICO_RELEASES[line].at(-1) }), "ClusterRole", workload);
        const granted = upstreamPermissions(line, workload)
          .excluded.filter((p) => grants(rules, p))
          .map(describePermission);
        assert.deepEqual(granted, [], `${workload} on ${line}`);
      }
    }
  });
});
