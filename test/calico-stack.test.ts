/**
 * The CalicoPolicyOnly component inside the real program, for every stack: the exact object set, its
 * wiring (parent, provider, dependencies, options) and the readiness outputs.
 */
import * as assert from "node:assert/strict";
import { renderCalicoObjects } from "../components/calico/objects";
import { typhaReplicas } from "../components/calico/typha";
import type { CalicoObject } from "../components/calico/types";
import type { ResourceRecord, StackEvaluation } from "../offline/engine";
import { STACKS, evaluated, evaluatedWith, ofType, one, stackValue } from "./helpers";
import { validateKubernetesObject } from "./k8s-schema";

const COMPONENT = "eks-calico:calico:PolicyOnly";

interface StackCalicoConfig {
  version: string;
  registry: string;
  namespace: string;
  readinessTimeoutMinutes: number;
}

/** The resource type token @pulumi/kubernetes registers for an object. */
function typeToken(object: { apiVersion: string; kind: string }): string {
  const apiVersion = object.apiVersion.includes("/") ? object.apiVersion : `core/${object.apiVersion}`;
  return `kubernetes:${apiVersion}:${object.kind}`;
}

/** Every resource whose parent is the Calico component. */
function calicoChildren(evaluation: StackEvaluation): ResourceRecord[] {
  const component = one(evaluation, COMPONENT);
  return evaluation.resources.filter((r) => r.parent === component.urn);
}

function expectedObjects(stack: string, overrides: Partial<StackCalicoConfig> = {}): CalicoObject[] {
  const calico = { ...stackValue<StackCalicoConfig>(stack, "calico"), ...overrides };
  const groups = stackValue<{ maxSize: number }[]>(stack, "nodeGroups");
  return renderCalicoObjects({
    namespace: calico.namespace,
    version: calico.version,
    registry: calico.registry,
    expectedNodes: groups.reduce((sum, g) => sum + g.maxSize, 0),
  });
}

function sortedByTypeAndName(records: { type: string; metadata?: unknown; name?: string }[]): string[] {
  return records.map((r) => `${r.type} ${r.name ?? ""}`).sort();
}

for (const stack of STACKS) {
  describe(`Calico in ${stack}`, () => {
    const calicoConfig = stackValue<StackCalicoConfig>(stack, "calico");
    const groups = stackValue<{ name: string; desiredSize: number; maxSize: number }[]>(stack, "nodeGroups");

    it("registers exactly the rendered objects, each as its own typed resource with the rendered inputs", async () => {
      const children = calicoChildren(await evaluated(stack));
      const expected = expectedObjects(stack);
      assert.equal(children.length, expected.length);
      for (const object of expected) {
        const record = children.find(
          (c) =>
            c.type === typeToken(object) &&
            (c.inputs.metadata as { name?: string } | undefined)?.name === object.metadata.name,
        );
        assert.ok(record, `${object.kind}/${object.metadata.name} is not registered`);
        assert.deepEqual(record.inputs, object, `inputs of ${record.name}`);
      }
      // Never a ConfigFile, ConfigGroup, Helm chart or URL: every object is visible to tests and policies.
      assert.ok(
        children.every((c) => c.custom && c.type.startsWith("kubernetes:") && !c.type.includes("yaml")),
      );
    });

    it("validates every registered object against the Kubernetes OpenAPI schema", async () => {
      for (const child of calicoChildren(await evaluated(stack))) {
        validateKubernetesObject(child.inputs as { apiVersion: string; kind: string });
      }
    });

    it("creates every object through the cluster's Kubernetes provider", async () => {
      const evaluation = await evaluated(stack);
      const provider = one(evaluation, "pulumi:providers:kubernetes", "cluster-k8s");
      for (const child of calicoChildren(evaluation)) {
        assert.equal(child.provider, provider.urn, `${child.name} uses another provider`);
      }
    });

    it("makes every object wait for every node group", async () => {
      const evaluation = await evaluated(stack);
      const nodeGroups = ofType(evaluation, "eks:index:ManagedNodeGroup").map((g) => g.urn);
      assert.equal(nodeGroups.length, groups.length);
      for (const child of calicoChildren(evaluation)) {
        for (const nodeGroup of nodeGroups) {
          assert.ok(child.dependencies.includes(nodeGroup), `${child.name} does not wait for ${nodeGroup}`);
        }
      }
    });

    it("starts calico-node after its CRDs, RBAC and Typha", async () => {
      const evaluation = await evaluated(stack);
      const children = calicoChildren(evaluation);
      const node = one(evaluation, "kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node");
      const before = children.filter((c) => c !== node && !c.type.endsWith(":PodDisruptionBudget"));
      assert.ok(before.length > 20);
      for (const prerequisite of before) {
        assert.ok(
          node.dependencies.includes(prerequisite.urn),
          `calico-node does not wait for ${prerequisite.name}`,
        );
      }
    });

    it("retains CRDs on delete, and only CRDs", async () => {
      for (const child of calicoChildren(await evaluated(stack))) {
        const isCrd = child.type === "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";
        assert.equal(child.options.retainOnDelete, isCrd, child.name);
      }
    });

    it("awaits calico-node and Typha with the configured readiness timeout", async () => {
      const evaluation = await evaluated(stack);
      const timeout = `${calicoConfig.readinessTimeoutMinutes}m`;
      for (const [type, name] of [
        ["kubernetes:apps/v1:DaemonSet", "calico-daemonset-calico-node"],
        ["kubernetes:apps/v1:Deployment", "calico-deployment-calico-typha"],
      ]) {
        const workload = one(evaluation, type, name);
        assert.deepEqual(workload.options.customTimeouts, { create: timeout, update: timeout });
        // The await is what turns a broken rollout into a failed `pulumi up`: it must not be skipped.
        const annotations =
          (workload.inputs.metadata as { annotations?: Record<string, string> }).annotations ?? {};
        assert.equal(annotations["pulumi.com/skipAwait"], undefined);
      }
    });

    it("sizes Typha from the node groups' summed maxSize", async () => {
      const evaluation = await evaluated(stack);
      const maxNodes = groups.reduce((sum, g) => sum + g.maxSize, 0);
      const deployment = one(evaluation, "kubernetes:apps/v1:Deployment", "calico-deployment-calico-typha");
      assert.equal((deployment.inputs.spec as { replicas: number }).replicas, typhaReplicas(maxNodes));
      assert.equal(
        (evaluation.outputs.calico as { typhaReplicas: number }).typhaReplicas,
        typhaReplicas(maxNodes),
      );
    });

    it("exports calico-node readiness as kubectl shows it, from the DaemonSet status", async () => {
      const nodes = groups.reduce((sum, g) => sum + g.desiredSize, 0);
      const evaluation = await evaluated(stack);
      assert.deepEqual(evaluation.outputs.calico, {
        namespace: calicoConfig.namespace,
        version: calicoConfig.version,
        desired: nodes,
        current: nodes,
        updated: nodes,
        ready: nodes,
        available: nodes,
        isReady: true,
        typhaReplicas: typhaReplicas(groups.reduce((sum, g) => sum + g.maxSize, 0)),
        typhaReadyReplicas: typhaReplicas(groups.reduce((sum, g) => sum + g.maxSize, 0)),
      });
    });
  });
}

describe("Calico readiness and overrides", () => {
  it("reports not ready while a node's calico-node pod is not ready", async () => {
    const evaluation = await evaluatedWith("staging", { simulate: { notReadyNodes: 2 } });
    const calico = evaluation.outputs.calico as Record<string, unknown>;
    // staging runs 3 + 2 nodes; two of them are not ready.
    assert.deepEqual(
      [calico.desired, calico.current, calico.updated, calico.ready, calico.available, calico.isReady],
      [5, 5, 3, 3, 3, false],
    );
  });

  it("reports not ready with zero nodes, where the await would pass and prove nothing", async () => {
    const evaluation = await evaluatedWith("dev", {
      config: {
        "eks-calico:nodeGroups": [{ name: "general", minSize: 0, desiredSize: 0, maxSize: 2 }],
      },
    });
    const calico = evaluation.outputs.calico as Record<string, unknown>;
    assert.equal(calico.desired, 0);
    assert.equal(calico.isReady, false);
  });

  it("moves calico-node and Typha to an overridden namespace, creating it", async () => {
    const overrides = { namespace: "calico-system" };
    const evaluation = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { ...stackValue<StackCalicoConfig>("dev", "calico"), ...overrides } },
    });
    const children = calicoChildren(evaluation);
    const namespace = one(evaluation, "kubernetes:core/v1:Namespace");
    assert.equal((namespace.inputs.metadata as { name: string }).name, "calico-system");
    const namespaced = children.filter(
      (c) => (c.inputs.metadata as { namespace?: string }).namespace !== undefined,
    );
    assert.deepEqual(
      sortedByTypeAndName(namespaced),
      sortedByTypeAndName(
        children.filter((c) =>
          /:(ServiceAccount|Deployment|Service|PodDisruptionBudget|DaemonSet)$/.test(c.type),
        ),
      ),
    );
    namespaced.forEach((c) =>
      assert.equal((c.inputs.metadata as { namespace: string }).namespace, "calico-system"),
    );
    assert.equal((evaluation.outputs.calico as { namespace: string }).namespace, "calico-system");
    assert.equal(children.length, expectedObjects("dev", overrides).length);
  });

  it("bumps the Calico version in place: same resources, only images and version labels change", async () => {
    const calico = stackValue<StackCalicoConfig>("dev", "calico");
    const before = await evaluatedWith("dev", {
      config: { "eks-calico:calico": { ...calico, version: "v3.31.6" } },
    });
    const after = await evaluated("dev");
    const urns = (e: StackEvaluation) =>
      calicoChildren(e)
        .map((c) => c.urn)
        .sort();
    assert.deepEqual(urns(after), urns(before), "a version bump must not add, remove or rename resources");
    const changed = calicoChildren(after).filter((c) => {
      const old = calicoChildren(before).find((b) => b.urn === c.urn);
      return JSON.stringify(old?.inputs) !== JSON.stringify(c.inputs);
    });
    assert.deepEqual(changed.map((c) => c.type).sort(), [
      "kubernetes:apps/v1:DaemonSet",
      "kubernetes:apps/v1:Deployment",
    ]);
    for (const workload of changed) {
      const text = (e: StackEvaluation) =>
        JSON.stringify(calicoChildren(e).find((c) => c.urn === workload.urn)?.inputs);
      assert.equal(
        text(before).replaceAll("v3.31.6", "v3.31.7"),
        text(after),
        `${workload.name} changed beyond the version`,
      );
    }
  });
});
