/**
 * The settings an existing cluster's vpc-cni add-on is given are proven, not assumed: after the add-on's
 * update the aws-node check reads the DaemonSet and refuses, naming each owned setting aws-node runs
 * otherwise (a kubectl edit the add-on's PRESERVE update keeps); Calico and the probe wait for it, and the
 * `vpcCni` output reports only what it read. Settings changed in the add-on by another tool since the
 * stack's last update are reported. The decision logic, the plan's wiring, and the serialized step.
 */
import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import { ConfigError } from "../stacks";
import { KNOWN_AFTER_UP, type ResourceRecord, evaluateStackExpectingError } from "../offline/engine";
import type { ExistingClusterSimulation } from "../offline/world/existing";
import {
  type AwsNodeContainer,
  type AwsNodeDaemonSet,
  awsNodeDifferences,
  awsNodeRefusal,
  goBool,
  liveSetting,
} from "../components/existing-cluster/aws-node";
import { AWS_NODE_CHECK_TYPE, awsNodeCheckProvider } from "../components/existing-cluster/aws-node-check";
import { HAND_OVER_TYPE } from "../components/existing-cluster/hand-over-step";
import { configuredSetting, ownedSettings } from "../components/existing-cluster/vpc-cni";
import { changedElsewhere, changedElsewhereWarning } from "../components/existing-cluster/vpc-cni-owner";
import { previousVpcCniSettings } from "../stacks/previous-vpc-cni";
import { UNREACHABLE_KUBECONFIG, evaluatedWith, one, unwrapped, dependsOn } from "./helpers";

const STACK = "existing.example";
const ADDON = "aws:eks/addon:Addon";
const DAEMON_SET = "kubernetes:apps/v1:DaemonSet";
const OWNED = { enableNetworkPolicy: "false", "env.ANNOTATE_POD_IP": "true" };

const existing = (extra: Record<string, unknown> = {}) => ({
  "eks-calico:cluster": { existing: { name: "platform-prod", maxNodes: 20, ...extra } },
});

/** aws-node with the given containers. */
const awsNode = (...containers: AwsNodeContainer[]): AwsNodeDaemonSet => ({
  spec: { template: { spec: { containers } } },
});
/** The aws-node container with these env entries. */
const aws = (env: AwsNodeContainer["env"], envFrom?: unknown[]): AwsNodeContainer => ({
  name: "aws-node",
  env,
  ...(envFrom === undefined ? {} : { envFrom }),
});
/** The network-policy agent's container with these args. */
const agent = (...args: string[]): AwsNodeContainer => ({ name: "aws-eks-nodeagent", args });

describe("the aws-node check of an existing cluster's VPC CNI", () => {
  describe("reading aws-node as the VPC CNI's programs read it", () => {
    it("parses booleans as Go's strconv.ParseBool", () => {
      assert.deepEqual(["1", "t", "TRUE", "True", "0", "F", "false", "yes", ""].map(goBool), [
        true,
        true,
        true,
        true,
        false,
        false,
        false,
        undefined,
        undefined,
      ]);
    });

    it("reads --enable-network-policy on aws-eks-nodeagent: last wins, bare is true, unset and absent are off", () => {
      const read = (d: AwsNodeDaemonSet) => liveSetting(d, "enableNetworkPolicy");
      assert.deepEqual(read(awsNode(agent("--enable-network-policy=false"))).value, "false");
      assert.equal(
        read(awsNode(agent("--enable-network-policy=false", "--enable-network-policy"))).value,
        "true",
      );
      assert.equal(
        read(awsNode(agent("--enable-network-policy=True", "--enable-network-policy=0"))).value,
        "0",
      );
      assert.equal(read(awsNode(agent("--log-level=debug"))).shown, "unset (false)");
      assert.match(read(awsNode(aws([]))).shown, /no aws-eks-nodeagent container runs/);
      assert.equal(read(awsNode(agent("--enable-network-policy=maybe"))).value, undefined);
    });

    it("reads env entries of the aws-node container, and says when it cannot", () => {
      const read = (d: AwsNodeDaemonSet) => liveSetting(d, "env.ANNOTATE_POD_IP");
      assert.equal(read(awsNode(aws([{ name: "ANNOTATE_POD_IP", value: "true" }]))).value, "true");
      assert.equal(read(awsNode(aws([]))).shown, "unset (false)");
      assert.equal(read(awsNode(aws([{ name: "ANNOTATE_POD_IP", value: "bogus" }]))).value, "false");
      assert.match(
        read(awsNode(aws([{ name: "ANNOTATE_POD_IP", valueFrom: { configMapKeyRef: {} } }]))).shown,
        /valueFrom/,
      );
      assert.match(read(awsNode(aws([], [{ configMapRef: { name: "x" } }]))).shown, /envFrom may set it/);
      assert.match(read(awsNode(agent())).shown, /no aws-node container/);
      assert.throws(() => liveSetting(awsNode(), "init.env.X"), /no place in aws-node/);
    });

    it("finds the differences by meaning, not spelling, in key order", () => {
      const right = awsNode(
        aws([{ name: "ANNOTATE_POD_IP", value: "1" }]),
        agent("--enable-network-policy=False"),
      );
      assert.deepEqual(awsNodeDifferences(right, OWNED), []);
      const wrong = awsNode(
        aws([{ name: "ANNOTATE_POD_IP", value: "false" }]),
        agent("--enable-network-policy"),
      );
      assert.deepEqual(
        awsNodeDifferences(wrong, OWNED).map((d) => `${d.key} ${d.shown} ${d.container}`),
        [
          "enableNetworkPolicy --enable-network-policy=true aws-eks-nodeagent",
          'env.ANNOTATE_POD_IP "false" aws-node',
        ],
      );
    });

    it("refuses naming each key, why it outlived the update and how to set it; passes when right", () => {
      const edited = awsNode(
        aws([{ name: "ANNOTATE_POD_IP", value: "false" }]),
        agent("--enable-network-policy=false"),
      );
      const refusal = awsNodeRefusal("c", edited, OWNED) ?? "";
      assert.match(
        refusal,
        /^aws-node \(DaemonSet kube-system\/aws-node\) on c does not run the VPC CNI settings this stack set in the vpc-cni add-on: env\.ANNOTATE_POD_IP is "false" on container aws-node, and the add-on sets "true"\. The add-on is updated with resolveConflicts PRESERVE/,
      );
      assert.match(
        refusal,
        /kubectl set env -n kube-system daemonset\/aws-node -c aws-node ANNOTATE_POD_IP=true/,
      );
      assert.ok(!refusal.includes("enableNetworkPolicy"), "only the key that differs");
      const right = awsNode(
        aws([{ name: "ANNOTATE_POD_IP", value: "true" }]),
        agent("--enable-network-policy=false"),
      );
      assert.equal(awsNodeRefusal("c", right, OWNED), undefined);
      assert.match(
        String(awsNodeRefusal("c", undefined, OWNED)),
        /DaemonSet kube-system\/aws-node does not exist on c/,
      );
    });

    it("refuses aws-node running pods Felix cannot police, read from the DaemonSet itself", () => {
      const right = [{ name: "ANNOTATE_POD_IP", value: "true" }];
      const refusalWith = (env: { name: string; value: string }[]) =>
        awsNodeRefusal("c", awsNode(aws([...right, ...env]), agent("--enable-network-policy=false")), OWNED);
      // Security groups for pods outside standard mode (strict is amazon-vpc-cni-k8s pkg/sgpp's default).
      assert.match(
        String(refusalWith([{ name: "ENABLE_POD_ENI", value: "true" }])),
        /runs pods Calico cannot police: env\.ENABLE_POD_ENI is true and env\.POD_SECURITY_GROUP_ENFORCING_MODE is unset/,
      );
      assert.equal(
        refusalWith([
          { name: "ENABLE_POD_ENI", value: "true" },
          { name: "POD_SECURITY_GROUP_ENFORCING_MODE", value: "standard" },
        ]),
        undefined,
      );
      assert.match(
        String(refusalWith([{ name: "AWS_VPC_K8S_CNI_VETHPREFIX", value: "veth" }])),
        /env\.AWS_VPC_K8S_CNI_VETHPREFIX is "veth": Felix polices eni… interfaces only/,
      );
      assert.equal(refusalWith([{ name: "AWS_VPC_K8S_CNI_VETHPREFIX", value: "eni" }]), undefined);
    });
  });

  describe("in the plan", () => {
    it("follows the add-on's update, precedes Calico, and is what the vpcCni output reports", async () => {
      const plan = await evaluatedWith(STACK, {});
      const check = one(plan, AWS_NODE_CHECK_TYPE);
      assert.ok(dependsOn(plan, check, one(plan, ADDON)), "after the add-on's update");
      assert.ok(
        dependsOn(plan, one(plan, DAEMON_SET, "calico-daemonset-calico-node"), check),
        "calico-node waits for the check",
      );
      assert.deepEqual(check.inputs.settings, OWNED);
      assert.ok(check.secretInputs.includes("kubeconfig"));
      // Only what the check read: known after up (on a real control plane, test/cluster/aws-node-check.test.ts).
      assert.equal((plan.outputs.vpcCni as { settings: unknown }).settings, KNOWN_AFTER_UP);
    });

    it("owns only ANNOTATE_POD_IP while the agent is kept on, and checks after the hand-over when it is turned off", async () => {
      assert.deepEqual(ownedSettings("on"), { "env.ANNOTATE_POD_IP": "true" });
      const agentOn: ExistingClusterSimulation = {
        vpcCni: { managed: true, configurationValues: '{"enableNetworkPolicy":"true"}' },
      };
      const on = await evaluatedWith(STACK, {
        config: existing({ networkPolicyAgent: "on" }),
        simulate: { existingCluster: agentOn },
      });
      assert.deepEqual(one(on, AWS_NODE_CHECK_TYPE).inputs.settings, { "env.ANNOTATE_POD_IP": "true" });
      const off = await evaluatedWith(STACK, {
        config: existing({ networkPolicyAgent: "off" }),
        simulate: { existingCluster: agentOn },
      });
      const check = one(off, AWS_NODE_CHECK_TYPE);
      const probe = off.resources.find((r) => r.name.endsWith("-probe-namespace")) as ResourceRecord;
      assert.ok(dependsOn(off, check, one(off, HAND_OVER_TYPE)), "after the hand-over step and the add-on");
      assert.ok(dependsOn(off, probe, check), "the probe waits for the check");
      assert.ok(
        !dependsOn(off, one(off, DAEMON_SET, "calico-daemonset-calico-node"), check),
        "Calico does not wait for it here",
      );
      assert.equal((off.outputs.vpcCni as { settings: unknown }).settings, KNOWN_AFTER_UP);
    });

    it("serializes into a step the dynamic provider host can load, which runs when it cannot read aws-node", async () => {
      const serialized = await pulumi.runtime.serializeFunction(() => awsNodeCheckProvider, {
        allowSecrets: true,
      });
      const loaded = (
        requireFromString(serialized.text) as { handler: () => pulumi.dynamic.ResourceProvider }
      ).handler();
      const same = { cluster: "c", settings: OWNED, settleSeconds: 0, kubeconfig: UNREACHABLE_KUBECONFIG };
      // Its diff reads aws-node (test/cluster/aws-node-check.test.ts); unreadable, the check must run.
      assert.equal((await loaded.diff?.("id", same, same))?.changes, true);
      await assert.rejects(loaded.create({ ...same, kubeconfig: UNREACHABLE_KUBECONFIG }), (error: Error) =>
        /ECONNREFUSED/.test(`${error.message} ${String((error as { code?: string }).code)}`),
      );
    });
  });

  describe("settings changed in the add-on outside this stack", () => {
    it("reads the last update's settings, and the add-on's current values, JSON or YAML", () => {
      assert.deepEqual(previousVpcCniSettings({ managed: true, settings: OWNED }), OWNED);
      assert.equal(previousVpcCniSettings({ managed: true, changes: [] }), undefined, "an older output");
      assert.equal(previousVpcCniSettings({ settings: { a: 1 } }), undefined);
      assert.equal(previousVpcCniSettings(undefined), undefined);
      assert.equal(configuredSetting("enableNetworkPolicy: false\n", "enableNetworkPolicy"), "false");
      assert.equal(configuredSetting('{"env":{"ANNOTATE_POD_IP":"true"}}', "env.ANNOTATE_POD_IP"), "true");
      assert.equal(configuredSetting("", "env.ANNOTATE_POD_IP"), undefined);
    });

    it("finds what differs from the last update, and nothing for a new stack", () => {
      assert.deepEqual(changedElsewhere(undefined, ""), []);
      assert.deepEqual(
        changedElsewhere(
          OWNED,
          JSON.stringify({ enableNetworkPolicy: "false", env: { ANNOTATE_POD_IP: "true" } }),
        ),
        [],
      );
      const changes = changedElsewhere(OWNED, '{"enableNetworkPolicy":"false","env":{}}');
      assert.deepEqual(changes, [{ key: "env.ANNOTATE_POD_IP", set: "true", now: undefined }]);
      assert.match(
        changedElsewhereWarning("c", changes),
        /Leave env\.ANNOTATE_POD_IP to this stack: remove it from the other tool's add-on configuration/,
      );
    });

    it("reports it in the vpcCni output and sets the value back", async () => {
      const plan = await evaluatedWith(STACK, {
        previousOutputs: { vpcCni: { managed: true, settings: OWNED } },
        simulate: {
          existingCluster: {
            vpcCni: {
              managed: true,
              configurationValues: '{"enableNetworkPolicy":"false","env":{"ANNOTATE_POD_IP":"false"}}',
            },
          },
        },
      });
      const vpcCni = plan.outputs.vpcCni as { changes: string[]; changedElsewhere: string[] };
      assert.deepEqual(vpcCni.changedElsewhere, ['env.ANNOTATE_POD_IP: "true" -> "false"']);
      assert.deepEqual(vpcCni.changes, ['env.ANNOTATE_POD_IP: "false" -> "true"']);
      const quiet = await evaluatedWith(STACK, {
        previousOutputs: { vpcCni: { managed: true, settings: OWNED } },
        simulate: {
          existingCluster: {
            vpcCni: {
              managed: true,
              configurationValues: '{"enableNetworkPolicy":"false","env":{"ANNOTATE_POD_IP":"true"}}',
            },
          },
        },
      });
      assert.equal((quiet.outputs.vpcCni as { changedElsewhere?: unknown }).changedElsewhere, undefined);
    });

    it("says so when the agent this stack turned off was turned on again, before the hand-over steps", async () => {
      const { error } = await evaluateStackExpectingError(STACK, {
        previousOutputs: { vpcCni: { managed: true, settings: OWNED } },
        simulate: {
          existingCluster: {
            vpcCni: { managed: true, configurationValues: '{"enableNetworkPolicy":"true"}' },
          },
        },
      });
      assert.ok(ConfigError.isConfigError(error), String(error));
      const message = unwrapped(error.message);
      assert.match(
        message,
        /which this stack's last update had turned off: it was turned on outside this stack since/,
      );
      assert.match(
        message,
        /hint: first remove enableNetworkPolicy from the other tool's add-on configuration/,
      );
    });
  });
});
