/**
 * The Calico startup taint in the plan: every managed node group's nodes start with it (after the
 * group's own taints), the remover that takes it off is planned beside calico-node, narrowed by its
 * admission policy, and a deployed stack's first update with it changes its node groups in place.
 * test/cluster/startup-taint.test.ts runs the remover against a real API server.
 */
import * as assert from "node:assert/strict";
import { evaluatedWith, ofType, one } from "./helpers";
import { diffDocuments } from "../offline/diff";
import { resourcesDocument } from "../offline/plan";
import type { StackEvaluation } from "../offline/engine";
import { ADOPT_FIELD_MANAGER, FIELD_MANAGER_ANNOTATION } from "../components/calico/takeover/field-manager";
import {
  REMOVER,
  REMOVER_SCRIPT,
  STARTUP_TAINT,
  STARTUP_TAINT_VALUE,
} from "../components/startup-taint/objects";

const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";
const EKS_TAINT = { key: STARTUP_TAINT.key, value: STARTUP_TAINT_VALUE, effect: "NO_SCHEDULE" };
const taintsOf = (e: StackEvaluation) =>
  ofType(e, NODE_GROUP).map((g) => [g.name, g.inputs.taints as unknown[]] as const);

describe("the Calico startup taint in the plan", () => {
  for (const stack of ["dev", "staging", "prod"]) {
    it(`${stack}: every node group starts its nodes with it, after the group's own taints`, async () => {
      const plan = await evaluatedWith(stack, {});
      const groups = taintsOf(plan);
      assert.ok(groups.length > 0);
      for (const [name, taints] of groups) assert.deepEqual(taints.at(-1), EKS_TAINT, name);
    });
  }

  it("keeps a group's own taints, before the startup taint", async () => {
    const plan = await evaluatedWith("dev", {
      config: {
        "eks-calico:nodeGroups[0].taints": [
          { key: "example.com/dedicated", value: "db", effect: "PreferNoSchedule" },
        ],
      },
    });
    assert.deepEqual(taintsOf(plan)[0][1], [
      { key: "example.com/dedicated", value: "db", effect: "PREFER_NO_SCHEDULE" },
      EKS_TAINT,
    ]);
  });

  it("plans the remover beside calico-node, tolerating every taint, its patches narrowed to its own node", async () => {
    const plan = await evaluatedWith("dev", {});
    const remover = one(plan, "kubernetes:apps/v1:DaemonSet", "calico-startup-taint-remover");
    const pod = (
      remover.inputs.spec as {
        template: {
          spec: { tolerations: unknown; hostNetwork: boolean; containers: { command: string[] }[] };
        };
      }
    ).template.spec;
    assert.deepEqual(pod.tolerations, [{ operator: "Exists" }]);
    assert.equal(pod.hostNetwork, true);
    assert.deepEqual(pod.containers[0].command, ["/bin/bash", "-c", REMOVER_SCRIPT]);
    const role = one(
      plan,
      "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
      "calico-startup-taint-cluster-role",
    );
    assert.deepEqual(role.inputs.rules, [{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "patch"] }]);
    const policy = one(
      plan,
      "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy",
      "calico-startup-taint-policy",
    );
    const spec = policy.inputs.spec as { failurePolicy: string; matchConditions: { expression: string }[] };
    assert.equal(spec.failurePolicy, "Fail");
    assert.match(
      spec.matchConditions[0].expression,
      new RegExp(`system:serviceaccount:kube-system:${REMOVER}'`),
    );
    // The policy binds before the remover can patch.
    const binding = one(
      plan,
      "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding",
      "calico-startup-taint-policy-binding",
    );
    assert.ok(remover.dependencies.includes(binding.urn));
  });

  it("pulls the remover's kubectl from registry.k8s.io, or from calico.startupTaintRegistry's mirror", async () => {
    const image = (plan: StackEvaluation) =>
      (
        one(plan, "kubernetes:apps/v1:DaemonSet", "calico-startup-taint-remover").inputs.spec as {
          template: { spec: { containers: { image: string }[] } };
        }
      ).template.spec.containers[0].image;
    assert.equal(image(await evaluatedWith("dev", {})), "registry.k8s.io/kubectl:v1.35.4");
    const mirror = "123456789012.dkr.ecr.us-west-2.amazonaws.com/k8s";
    const mirrored = await evaluatedWith("dev", {
      config: { "eks-calico:calico.startupTaintRegistry": mirror },
    });
    assert.equal(image(mirrored), `${mirror}/kubectl:v1.35.4`);
  });

  it("applies the remover under the adopting install's field manager with calico.adopt, as the rest", async () => {
    const plan = await evaluatedWith("dev", { config: { "eks-calico:calico.adopt": true } });
    const remover = plan.resources.filter((r) => r.name.includes("-startup-taint-"));
    assert.equal(remover.length, 8);
    for (const r of remover) {
      const annotations = (r.inputs.metadata as { annotations?: Record<string, string> }).annotations;
      assert.equal(annotations?.[FIELD_MANAGER_ANNOTATION], ADOPT_FIELD_MANAGER, r.name);
    }
    const plain = await evaluatedWith("dev", {});
    for (const r of plain.resources.filter((x) => x.name.includes("-startup-taint-"))) {
      assert.equal((r.inputs.metadata as { annotations?: unknown }).annotations, undefined, r.name);
    }
  });

  it("adds it to a deployed stack's node groups in place: no node replaced, and the plan says so", async () => {
    const after = await evaluatedWith("prod", {});
    const deployed = resourcesDocument(after);
    // The same stack as deployed before the taint: its node groups without it.
    const before = {
      ...deployed,
      resources: deployed.resources.map((r) =>
        r.type === NODE_GROUP
          ? { ...r, inputs: { ...r.inputs, taints: (r.inputs.taints as unknown[]).slice(0, -1) } }
          : r,
      ),
    };
    const diff = diffDocuments(before, deployed);
    const groups = diff.changed.filter((r) => r.heading.startsWith(NODE_GROUP));
    assert.equal(groups.length, ofType(after, NODE_GROUP).length);
    for (const group of groups) {
      assert.equal(group.op, "update", group.heading);
      assert.equal(group.rollout, "in place (taints): EKS replaces no node", group.heading);
    }
  });
});
