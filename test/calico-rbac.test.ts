/**
 * Calico's RBAC: least privilege, every CRD kind readable, each role bound to exactly its subject. What
 * upstream grants is checked in calico-rbac-upstream.test.ts.
 */
import * as assert from "node:assert/strict";
import { crdKindsFor, crdName } from "../components/calico/crds";
import { VERSIONS, allows, find, ofKind, render } from "./calico-fixtures";

describe("calico RBAC", () => {
  it("uses no wildcard in any ClusterRole", () => {
    for (const version of VERSIONS) {
      for (const role of ofKind(render({ version }), "ClusterRole")) {
        for (const rule of role.rules) {
          const fields = [rule.verbs, rule.resources ?? [], rule.apiGroups ?? [], rule.resourceNames ?? []];
          for (const value of fields.flat())
            assert.ok(!value.includes("*"), `${role.metadata.name}: ${value}`);
          assert.equal(rule.nonResourceURLs, undefined, role.metadata.name);
        }
      }
    }
  });

  for (const version of VERSIONS) {
    for (const workload of ["calico-node", "calico-typha"]) {
      it(`${version}: ${workload} can read every CRD kind the CRD list defines`, () => {
        const { rules } = find(render({ version }), "ClusterRole", workload);
        for (const kind of crdKindsFor(version)) {
          const verbs = kind.group === "crd.projectcalico.org" ? ["get", "list", "watch"] : ["list", "watch"];
          for (const verb of verbs) {
            assert.ok(
              allows(rules, verb, kind.group, kind.plural),
              `${workload} cannot ${verb} ${crdName(kind)}`,
            );
          }
        }
      });
    }
  }

  it("keeps IPAM kinds read-only and grants no CNI token minting", () => {
    for (const workload of ["calico-node", "calico-typha"]) {
      const { rules } = find(render(), "ClusterRole", workload);
      for (const plural of ["ipamblocks", "blockaffinities", "ipamhandles", "ipamconfigs"]) {
        for (const verb of ["create", "update", "patch", "delete"]) {
          assert.ok(
            !allows(rules, verb, "crd.projectcalico.org", plural),
            `${workload} may ${verb} ${plural}`,
          );
        }
      }
      assert.ok(!rules.some((r) => (r.resources ?? []).includes("serviceaccounts/token")), workload);
    }
  });

  it("binds each ClusterRole to exactly its subject", () => {
    const objects = render({ namespace: "calico-system" });
    const subjects = (name: string) => find(objects, "ClusterRoleBinding", name).subjects;
    assert.deepEqual(subjects("calico-node"), [
      { kind: "ServiceAccount", name: "calico-node", namespace: "calico-system" },
    ]);
    assert.deepEqual(subjects("calico-typha"), [
      { kind: "ServiceAccount", name: "calico-typha", namespace: "calico-system" },
    ]);
    assert.deepEqual(subjects("calico-tier-getter"), [
      { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:kube-controller-manager" },
    ]);
    // The VPC CNI always runs as kube-system:aws-node, wherever Calico runs.
    assert.deepEqual(subjects("eks-calico-aws-node-pod-patch"), [
      { kind: "ServiceAccount", name: "aws-node", namespace: "kube-system" },
    ]);
    const roles = new Set(ofKind(objects, "ClusterRole").map((r) => r.metadata.name));
    for (const binding of ofKind(objects, "ClusterRoleBinding")) {
      assert.equal(binding.roleRef.kind, "ClusterRole");
      assert.equal(binding.roleRef.apiGroup, "rbac.authorization.k8s.io");
      assert.ok(roles.has(binding.roleRef.name), binding.roleRef.name);
    }
  });

  it("gives the tier getter `get tiers` and aws-node `patch pods`, nothing more", () => {
    const objects = render();
    assert.deepEqual(find(objects, "ClusterRole", "calico-tier-getter").rules, [
      { apiGroups: ["projectcalico.org"], resources: ["tiers"], verbs: ["get"] },
    ]);
    assert.deepEqual(find(objects, "ClusterRole", "eks-calico-aws-node-pod-patch").rules, [
      { apiGroups: [""], resources: ["pods"], verbs: ["patch"] },
    ]);
  });
});
