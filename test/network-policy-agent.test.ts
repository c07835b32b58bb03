/**
 * An existing cluster whose VPC CNI network-policy agent enforces policy: one enforcer at a time, never
 * none. The stack refuses to guess, keeps the agent on beside Calico while the cluster's policies are
 * copied (`networkPolicyAgent: on`), and turns it off (`off`) only after calico-node is ready and the
 * hand-over step found nothing left, as AWS orders it; the probe runs after that.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import { ConfigError } from "../stacks";
import {
  KNOWN_AFTER_UP,
  PROJECT_ROOT,
  type StackEvaluation,
  evaluateStackExpectingError,
} from "../offline/engine";
import type { ExistingClusterSimulation } from "../offline/world/existing";
import {
  HAND_OVER_STEPS,
  calicoNodeNotReady,
  handOverRefusal,
} from "../components/existing-cluster/agent-hand-over";
import { HAND_OVER_TYPE, handOverProvider } from "../components/existing-cluster/hand-over-step";
import { networkPolicyAgentOn, vpcCniChange } from "../components/existing-cluster/vpc-cni";
import { policies, vpcCniNetworkPolicyOff } from "../policy/policies";
import { broken, expectOne, replaced } from "./policy-records";
import { UNREACHABLE_KUBECONFIG, evaluatedWith, input, one, ofType, unwrapped, dependsOn } from "./helpers";
import { runPack } from "./policy-harness";

const STACK = "existing.example";
const ADDON = "aws:eks/addon:Addon";
const DAEMON_SET = "kubernetes:apps/v1:DaemonSet";
const AGENT_ON: ExistingClusterSimulation = {
  vpcCni: {
    managed: true,
    configurationValues: '{"enableNetworkPolicy":"true","env":{"WARM_IP_TARGET":"5"}}',
  },
};

const existing = (extra: Record<string, unknown> = {}) => ({
  "eks-calico:cluster": { existing: { name: "platform-prod", maxNodes: 20, ...extra } },
});

function withAgent(agent: "on" | "off" | undefined, simulation: ExistingClusterSimulation = AGENT_ON) {
  return evaluatedWith(STACK, {
    config: existing(agent === undefined ? {} : { networkPolicyAgent: agent }),
    simulate: { existingCluster: simulation },
  });
}

const configurationOf = (plan: StackEvaluation) =>
  JSON.parse(input<string>(one(plan, ADDON), "configurationValues")) as Record<string, unknown>;

describe("an existing cluster's VPC CNI network-policy agent", () => {
  it("reads the agent from the add-on's configuration values, JSON or YAML, unset meaning off", () => {
    assert.equal(networkPolicyAgentOn(""), false);
    assert.equal(networkPolicyAgentOn('{"enableNetworkPolicy":"false"}'), false);
    assert.equal(networkPolicyAgentOn('{"enableNetworkPolicy":"true"}'), true);
    assert.equal(networkPolicyAgentOn("enableNetworkPolicy: 'true'\n"), true);
    assert.equal(networkPolicyAgentOn("enableNetworkPolicy: true\n"), true);
    assert.throws(() => networkPolicyAgentOn("- a list"), /are not a map/);
    assert.deepEqual(vpcCniChange('{"enableNetworkPolicy":"true"}', "on").changes, [
      'env.ANNOTATE_POD_IP: unset -> "true"',
    ]);
  });

  it("refuses to plan while the agent runs and the stack is not told what to do, with the steps", async () => {
    const { error, resources } = await evaluateStackExpectingError(STACK, {
      config: existing(),
      simulate: { existingCluster: AGENT_ON },
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.equal(error.problems.length, 1);
    const [problem] = error.problems;
    assert.equal(problem.path, "cluster.existing.networkPolicyAgent");
    assert.match(problem.rule, /runs its network-policy agent .*AWS requires every network policy deleted/);
    // Every step, in order, under the hint: numbered, each on its own line.
    assert.deepEqual(problem.steps, HAND_OVER_STEPS);
    const lines = unwrapped(error.message).split("\n");
    const first = lines.indexOf(`      hint: ${problem.hint}`);
    assert.ok(first > 0, error.message);
    assert.deepEqual(
      lines.slice(first + 1),
      HAND_OVER_STEPS.map((step, i) => `        (${i + 1}) ${step}`),
    );
    assert.deepEqual(
      resources.map((r) => r.type),
      ["pulumi:pulumi:Stack"],
      "refused before any resource",
    );
  });

  it("refuses keeping an agent that is off, and the key on a self-managed VPC CNI", async () => {
    const off = await evaluateStackExpectingError(STACK, {
      config: existing({ networkPolicyAgent: "on" }),
      simulate: { existingCluster: { vpcCni: { managed: true, configurationValues: "" } } },
    });
    assert.ok(ConfigError.isConfigError(off.error));
    assert.match(unwrapped(off.error.message), /cluster\.existing\.networkPolicyAgent: .*never turns it on/);
    const selfManaged = await evaluateStackExpectingError(STACK, {
      config: existing({ networkPolicyAgent: "off", vpcCniConfigured: true }),
      simulate: { existingCluster: { vpcCni: { managed: false } } },
    });
    assert.ok(ConfigError.isConfigError(selfManaged.error));
    assert.match(unwrapped(selfManaged.error.message), /applies to the vpc-cni EKS add-on only/);
  });

  it("changes nothing about an agent already off, and needs no key for it", async () => {
    const plan = await withAgent(undefined, { vpcCni: { managed: true, configurationValues: "" } });
    assert.equal(ofType(plan, HAND_OVER_TYPE).length, 0);
    assert.ok(
      dependsOn(plan, one(plan, DAEMON_SET, "calico-daemonset-calico-node"), one(plan, ADDON)),
      "the add-on first, as before",
    );
    assert.equal((plan.outputs.vpcCni as { networkPolicyAgent: string }).networkPolicyAgent, "off");
  });

  describe("kept on beside Calico (networkPolicyAgent: on)", () => {
    let plan: StackEvaluation;
    before(async () => {
      plan = await withAgent("on");
    });

    it("keeps the agent, sets ANNOTATE_POD_IP, tags the add-on and updates it before Calico", () => {
      assert.deepEqual(configurationOf(plan), {
        enableNetworkPolicy: "true",
        env: { WARM_IP_TARGET: "5", ANNOTATE_POD_IP: "true" },
      });
      assert.equal(
        (input<Record<string, string>>(one(plan, ADDON), "tags") ?? {})["eks-calico/network-policy-agent"],
        "hand-over",
      );
      assert.ok(dependsOn(plan, one(plan, DAEMON_SET, "calico-daemonset-calico-node"), one(plan, ADDON)));
      assert.equal(ofType(plan, HAND_OVER_TYPE).length, 0);
    });

    it("runs no probe, since the agent enforces the same policies, and claims no enforcement", () => {
      assert.equal(
        plan.resources.filter((r) => r.name.includes("-probe-")).length,
        0,
        "no probe object while the agent enforces",
      );
      const calico = plan.outputs.calico as { policyEnforced: boolean; isReady: unknown };
      assert.equal(calico.policyEnforced, false);
      assert.equal(calico.isReady, KNOWN_AFTER_UP);
      const vpcCni = plan.outputs.vpcCni as { networkPolicyAgent: string; handOver: string };
      assert.equal(vpcCni.networkPolicyAgent, "on");
      assert.match(vpcCni.handOver, /set cluster\.existing\.networkPolicyAgent: off/);
    });

    it("passes the policy pack only with the hand-over tag on the add-on", async () => {
      assert.deepEqual(await runPack(policies, plan.resources), []);
      const addon = one(plan, ADDON);
      const untagged = broken(addon, (i) => {
        i.tags = {};
      });
      await expectOne(
        vpcCniNetworkPolicyOff,
        replaced(plan.resources, untagged),
        addon.urn,
        /turns on the VPC CNI network-policy agent/,
      );
    });
  });

  describe("turned off (networkPolicyAgent: off) while it runs", () => {
    let plan: StackEvaluation;
    before(async () => {
      plan = await withAgent("off");
    });

    it("orders calico-node, the hand-over step, the add-on's update, then the probe", () => {
      const step = one(plan, HAND_OVER_TYPE);
      const addon = one(plan, ADDON);
      const node = one(plan, DAEMON_SET, "calico-daemonset-calico-node");
      const probeNamespace = plan.resources.find((r) => r.name.endsWith("-probe-namespace"));
      assert.ok(probeNamespace);
      assert.ok(dependsOn(plan, step, node), "the step waits for calico-node");
      assert.ok(dependsOn(plan, addon, step), "the add-on waits for the step");
      assert.ok(dependsOn(plan, probeNamespace, addon), "the probe waits for the agent to be off");
      assert.ok(!dependsOn(plan, node, addon), "Calico does not wait for the add-on");
      assert.deepEqual(configurationOf(plan), {
        enableNetworkPolicy: "false",
        env: { WARM_IP_TARGET: "5", ANNOTATE_POD_IP: "true" },
      });
      assert.deepEqual(input(step, "calicoNode"), { namespace: "kube-system", name: "calico-node" });
      assert.ok(step.secretInputs.includes("kubeconfig"));
    });

    it("proves enforcement with the probe, and leaves what the step finds known after up", () => {
      // What the step reads (calico-node ready, no policy left) only `pulumi up` sees: on a real control
      // plane, test/cluster/hand-over.test.ts.
      assert.equal((plan.outputs.calico as { policyEnforced: unknown }).policyEnforced, KNOWN_AFTER_UP);
      assert.equal((plan.outputs.vpcCni as { settings: unknown }).settings, KNOWN_AFTER_UP);
      assert.match(
        (plan.outputs.vpcCni as { handOver: string }).handOver,
        /turned off once calico-node is ready/,
      );
      assert.ok(
        !plan.resources.some((r) => r.type === ADDON && JSON.stringify(r.inputs.tags).includes("hand-over")),
      );
    });

    it("passes the policy pack, and the operator install is handed over the same way", async () => {
      assert.deepEqual(await runPack(policies, plan.resources), []);
      const operator = await evaluatedWith(STACK, {
        config: {
          ...existing({ networkPolicyAgent: "off" }),
          "eks-calico:calico": { installer: "operator" },
        },
        simulate: { existingCluster: AGENT_ON },
      });
      const step = one(operator, HAND_OVER_TYPE);
      assert.deepEqual(input(step, "calicoNode"), { namespace: "calico-system", name: "calico-node" });
      assert.ok(dependsOn(operator, step, one(operator, "kubernetes:operator.tigera.io/v1:Installation")));
    });
  });

  it("refuses the hand-over while calico-node is not ready on every node, or anything is left", () => {
    const ref = { namespace: "kube-system", name: "calico-node" };
    assert.match(String(calicoNodeNotReady(ref, undefined)), /does not exist/);
    assert.match(
      String(calicoNodeNotReady(ref, { status: { desiredNumberScheduled: 0 } })),
      /runs on no node/,
    );
    assert.match(
      String(
        calicoNodeNotReady(ref, {
          status: { desiredNumberScheduled: 3, numberReady: 3, updatedNumberScheduled: 2 },
        }),
      ),
      /3 ready and 2 up-to-date of 3 pods/,
    );
    const ready = { status: { desiredNumberScheduled: 3, numberReady: 3, updatedNumberScheduled: 3 } };
    assert.equal(calicoNodeNotReady(ref, ready), undefined);
    assert.equal(handOverRefusal("c", { remaining: [] }), undefined);
    const both = handOverRefusal("c", { calicoNotReady: "x", remaining: ["NetworkPolicy a/b"] });
    assert.match(
      String(both),
      /Calico does not enforce yet: x; AWS requires .* 1 remain: NetworkPolicy a\/b/,
    );
  });

  it("is the hand-over of docs/existing-clusters.md, step for step", () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "existing-clusters.md"), "utf8");
    const section = readme.split("network-policy agent enforces policy")[1]?.split("\n- ")[0] ?? "";
    const steps = [...section.matchAll(/^ {4}(\d)\. /gm)].map((m) => Number(m[1]));
    assert.deepEqual(
      steps,
      HAND_OVER_STEPS.map((_, i) => i + 1),
    );
    for (const key of [
      "networkPolicyAgent: on",
      "networkPolicyAgent: off",
      "calicoctl convert",
      "policyendpoints",
    ]) {
      assert.ok(section.includes(key) && HAND_OVER_STEPS.some((step) => step.includes(key)), key);
    }
  });

  it("serializes into a step the dynamic provider host can load, which checks again on every update", async () => {
    const serialized = await pulumi.runtime.serializeFunction(() => handOverProvider, { allowSecrets: true });
    const loaded = (
      requireFromString(serialized.text) as { handler: () => pulumi.dynamic.ResourceProvider }
    ).handler();
    const same = { cluster: "c", calicoNode: { namespace: "kube-system", name: "calico-node" } };
    assert.equal((await loaded.diff?.("id", same, same))?.changes, true);
    await assert.rejects(loaded.create({ ...same, kubeconfig: UNREACHABLE_KUBECONFIG }), (error: Error) =>
      /ECONNREFUSED/.test(`${error.message} ${String((error as { code?: string }).code)}`),
    );
  });
});
