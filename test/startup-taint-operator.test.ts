/**
 * The Calico startup taint with `calico.installer: operator`: the node groups carry it, the remover runs
 * in calico-system once the Installation is Ready, and nothing the Installation waits for is held by the
 * taint. The tolerations each operator component gets are worked out from the operator's own rules,
 * committed as data (test/fixtures/tigera-operator/tolerations.json), not from this program's code.
 */
import * as assert from "node:assert/strict";
import { dependsOn, evaluatedWith, one, ofType } from "./helpers";
import { STARTUP_TAINT, STARTUP_TAINT_VALUE } from "../components/startup-taint/objects";
import upstream from "./fixtures/tigera-operator/tolerations.json";

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}
interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** k8s.io/api core/v1 toleration.go ToleratesTaint. */
function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== "" && t.effect !== taint.effect) return false;
  if (t.key !== undefined && t.key !== "" && t.key !== taint.key) return false;
  if (t.operator === "Exists") return true;
  return (t.value ?? "") === (taint.value ?? "");
}
const toleratedBy = (list: Toleration[], taint: Taint) => list.some((t) => tolerates(t, taint));

/** What the operator gives Typha and kube-controllers for an Installation's controlPlaneTolerations. */
function operatorTolerations(controlPlane: Toleration[]): {
  typha: Toleration[];
  kubeControllers: Toleration[];
} {
  const typha = controlPlane.length !== 0 ? controlPlane : upstream.tolerateAll;
  const kubeControllers = [...controlPlane];
  for (const t of upstream.tolerateCriticalAddonsAndControlPlane) {
    if (!kubeControllers.some((k) => JSON.stringify(k) === JSON.stringify(t))) kubeControllers.push(t);
  }
  return { typha, kubeControllers };
}

const OPERATOR = { config: { "eks-calico:calico.installer": "operator" } };
const TAINT: Taint = { ...STARTUP_TAINT, value: STARTUP_TAINT_VALUE };

describe("the Calico startup taint with the operator install", () => {
  it("starts every node group's nodes with it, as the manifest install does", async () => {
    const plan = await evaluatedWith("prod", OPERATOR);
    const groups = ofType(plan, "aws:eks/nodeGroup:NodeGroup");
    assert.ok(groups.length > 0);
    for (const group of groups) {
      assert.deepEqual(
        (group.inputs.taints as unknown[]).at(-1),
        { key: STARTUP_TAINT.key, value: STARTUP_TAINT_VALUE, effect: "NO_SCHEDULE" },
        group.name,
      );
    }
  });

  it("lets kube-controllers start on tainted nodes and leaves Typha's tolerations as they were", async () => {
    const plan = await evaluatedWith("dev", OPERATOR);
    const spec = one(plan, "kubernetes:operator.tigera.io/v1:Installation").inputs.spec as {
      controlPlaneTolerations?: Toleration[];
    };
    const ours = operatorTolerations(spec.controlPlaneTolerations ?? []);
    assert.ok(toleratedBy(ours.kubeControllers, TAINT), "kube-controllers tolerates the startup taint");
    assert.deepEqual(ours.typha, operatorTolerations([]).typha, "Typha's pods are unchanged");
    // Without the field the Installation's wait would hang: kube-controllers stays Pending on tainted nodes.
    assert.equal(toleratedBy(operatorTolerations([]).kubeControllers, TAINT), false);
  });

  it("runs the remover in calico-system after the Installation, and the probe after the remover", async () => {
    const plan = await evaluatedWith("dev", OPERATOR);
    const installation = one(plan, "kubernetes:operator.tigera.io/v1:Installation").urn;
    const remover = plan.resources.filter((r) => r.name.startsWith("calico-startup-taint-"));
    assert.equal(remover.length, 8);
    for (const object of remover) {
      assert.ok(dependsOn(plan, object.urn, installation), `${object.name} after the Installation`);
      const namespace = (object.inputs.metadata as { namespace?: string }).namespace;
      assert.ok(namespace === undefined || namespace === "calico-system", object.name);
    }
    const daemonSet = one(plan, "kubernetes:apps/v1:DaemonSet", "calico-startup-taint-remover");
    const probe = one(plan, "kubernetes:core/v1:Namespace", "calico-probe-namespace");
    assert.ok(dependsOn(plan, probe.urn, daemonSet.urn));
    const policy = one(
      plan,
      "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy",
      "calico-startup-taint-policy",
    );
    const match = (policy.inputs.spec as { matchConditions: { expression: string }[] }).matchConditions;
    assert.match(match[0].expression, /system:serviceaccount:calico-system:calico-startup-taint-remover'/);
  });

  it("pulls the remover from calico.startupTaintRegistry's mirror with the operator too", async () => {
    const mirror = "123456789012.dkr.ecr.us-west-2.amazonaws.com/k8s";
    const plan = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { installer: "operator", startupTaintRegistry: mirror } },
    });
    const ds = one(plan, "kubernetes:apps/v1:DaemonSet", "calico-startup-taint-remover").inputs.spec as {
      template: { spec: { containers: { image: string }[] } };
    };
    assert.match(ds.template.spec.containers[0].image, new RegExp(`^${mirror}/kubectl:`));
  });
});
