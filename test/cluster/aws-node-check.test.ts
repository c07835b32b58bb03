/**
 * The aws-node check (components/existing-cluster/aws-node-check.ts) run by the real engine, as `pulumi up`
 * runs it after an existing cluster's vpc-cni add-on update (test/cluster/programs/existing-cluster-steps.ts
 * registers it with the plan's settings). aws-node is a fixture in the shape the add-on writes
 * (amazon-vpc-cni-k8s config/master/aws-k8s-cni.yaml: env on the `aws-node` container,
 * `--enable-network-policy` on `aws-eks-nodeagent`), server-side applied by the manager `eks` as EKS applies
 * add-ons ("Both types of fields are tagged with manager: eks", EKS user guide,
 * kubernetes-field-management). Without it, `up` fails with the check's message; as the add-on writes it,
 * `up` passes and a preview changes nothing; edited with kubectl, as an update with PRESERVE leaves it, a
 * preview plans the check to run and `up` fails naming each edited key, in the words of the check's own
 * refusal (awsNodeRefusal, unit-tested in test/aws-node-check.test.ts) for the same DaemonSet; set right
 * again, nothing is left to change. Security groups for pods turned on in strict mode are refused too
 * (their pods' vlan… interfaces escape Felix), and standard mode passes. What the check finds is known
 * after up in the offline plan.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { KNOWN_AFTER_UP, evaluateStack } from "../../offline/engine";
import { AWS_NODE_CHECK_TYPE } from "../../components/existing-cluster/aws-node-check";
import { awsNodeRefusal } from "../../components/existing-cluster/aws-node";
import { compare, disagreements, summary } from "./agreement";
import { EngineCase, assertSucceeded, engineChanges } from "./engine-case";

const STACK = "existing.example";
const PROGRAM = path.join(__dirname, "programs", "existing-cluster-steps.ts");

/** aws-node as the vpc-cni add-on writes it with this stack's settings (a subset of its env and args). */
const AWS_NODE = {
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: { name: "aws-node", namespace: "kube-system", labels: { "k8s-app": "aws-node" } },
  spec: {
    selector: { matchLabels: { "k8s-app": "aws-node" } },
    template: {
      metadata: { labels: { "k8s-app": "aws-node" } },
      spec: {
        hostNetwork: true,
        containers: [
          {
            name: "aws-node",
            image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.20.4-eksbuild.2",
            env: [
              { name: "ANNOTATE_POD_IP", value: "true" },
              { name: "AWS_VPC_K8S_CNI_VETHPREFIX", value: "eni" },
              { name: "WARM_ENI_TARGET", value: "1" },
            ],
          },
          {
            name: "aws-eks-nodeagent",
            image: "602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon/aws-network-policy-agent:v1.2.7",
            args: ["--enable-ipv6=false", "--enable-network-policy=false", "--enable-cloudwatch-logs=false"],
          },
        ],
      },
    },
  },
};

/** The refusal's own text, wherever an error message carries it, without a stack trace after it. */
function refusalOf(message: string): string {
  const text = /aws-node \(DaemonSet [^]*$/.exec(message)?.[0] ?? `(no refusal) ${message}`;
  return text.split(/\n\s+at /)[0].trim();
}

describe("the aws-node check, run by the real engine", function () {
  this.timeout(20 * 60_000);

  it("fails up naming a setting edited on aws-node, in the check's own words, and changes nothing once set right", async function () {
    const plan = await evaluateStack(STACK);
    const planned = plan.resources.find((r) => r.type === AWS_NODE_CHECK_TYPE);
    assert.ok(planned, "the existing-cluster plan has the aws-node check");
    const settings = planned.inputs.settings as Record<string, string>;
    // What the check reads is known only once it has run.
    assert.equal((plan.outputs.vpcCni as { settings: unknown }).settings, KNOWN_AFTER_UP);
    const cluster = String(planned.inputs.cluster);
    const c = await EngineCase.start("aws-node check", {
      stack: "dev",
      program: PROGRAM,
      config: {
        "eks-calico-test:step": "aws-node",
        "eks-calico-test:settings": settings,
        // The existing cluster's name, which the messages name.
        "eks-calico-test:cluster": planned.inputs.cluster,
      },
    });
    try {
      const kubectl = (args: string[], input?: string) => {
        const result = c.cluster.kubectl(args, input);
        assert.ok(result.ok, result.output);
      };
      /** The check's refusal for AWS_NODE with its aws-node env entry and agent arg as given. */
      const expected = (annotatePodIp: string, agentArg: string) => {
        const edited = structuredClone(AWS_NODE);
        const [node, agent] = edited.spec.template.spec.containers;
        node.env = (node.env ?? []).map((e) =>
          e.name === "ANNOTATE_POD_IP" ? { ...e, value: annotatePodIp } : e,
        );
        (agent.args ?? [])[1] = agentArg;
        return refusalOf(String(awsNodeRefusal(cluster, edited, settings)));
      };
      /** `pulumi up`, which must fail; the check's message as the user reads it. */
      const refused = async () => {
        const up = await c.engine.run("up");
        assert.equal(up.ok, false, "pulumi up fails");
        // The step's own diagnostic, as the engine shows it for the resource.
        return refusalOf(up.errors.find((e) => e.includes("aws-node")) ?? up.error ?? "");
      };
      /** Whether a preview plans the check to run. */
      const planned = async () => {
        const preview = await c.engine.run("preview");
        assertSucceeded(preview, "pulumi preview");
        return Object.keys(engineChanges(preview.steps)).some((id) => id.includes("AwsNodeCheck"));
      };
      const awsNode = ["-n", "kube-system", "daemonset/aws-node"];
      // The agent's second arg, as `kubectl edit` would change it (the refusal's fix for an arg).
      const setAgentArg = (arg: string) =>
        kubectl([
          "patch",
          ...awsNode,
          "--type=json",
          "-p",
          JSON.stringify([{ op: "replace", path: "/spec/template/spec/containers/1/args/1", value: arg }]),
        ]);

      assert.match(await refused(), /DaemonSet kube-system\/aws-node does not exist/);

      // As the add-on writes it: up passes, and reports the settings.
      kubectl(["apply", "--server-side", "--field-manager=eks", "-f", "-"], JSON.stringify(AWS_NODE));
      const up = await c.engine.run("up");
      assertSucceeded(up, "pulumi up with aws-node as the add-on writes it");
      compare(
        "aws-node check: aws-node as the add-on writes it passes",
        settings,
        up.outputs.verified,
        "engine",
      );
      assert.equal(await planned(), false, "nothing to check while aws-node runs the settings");

      // ANNOTATE_POD_IP edited with kubectl: the check runs again, and refuses naming it.
      kubectl(["set", "env", ...awsNode, "-c", "aws-node", "ANNOTATE_POD_IP=false"]);
      assert.equal(await planned(), true, "an edited setting makes the check run");
      const oneEdit = await refused();
      assert.match(oneEdit, /env\.ANNOTATE_POD_IP is "false" on container aws-node/);
      compare(
        "aws-node check: a kubectl-edited env entry is refused",
        expected("false", "--enable-network-policy=false"),
        oneEdit,
        "engine",
      );

      // The agent turned on with kubectl as well: both named.
      setAgentArg("--enable-network-policy=true");
      const twoEdits = await refused();
      assert.match(
        twoEdits,
        /enableNetworkPolicy is --enable-network-policy=true on container aws-eks-nodeagent/,
      );
      compare(
        "aws-node check: a kubectl-edited agent arg and env entry are both refused",
        expected("false", "--enable-network-policy=true"),
        twoEdits,
        "engine",
      );

      // Set right again with the refusal's fixes: nothing to change.
      kubectl(["set", "env", ...awsNode, "-c", "aws-node", "ANNOTATE_POD_IP=true"]);
      setAgentArg("--enable-network-policy=false");
      assertSucceeded(await c.engine.run("preview", { expectNoChanges: true }), "preview after the fixes");

      // Security groups for pods turned on with kubectl, in the VPC CNI's default strict mode: their pods
      // would get vlan… interfaces Felix does not police, so up stops before Calico; standard mode passes.
      kubectl(["set", "env", ...awsNode, "-c", "aws-node", "ENABLE_POD_ENI=true"]);
      assert.equal(await planned(), true, "strict-mode security groups for pods make the check run");
      const strict = await refused();
      assert.match(strict, /runs pods Calico cannot police: env\.ENABLE_POD_ENI is true/);
      kubectl(["set", "env", ...awsNode, "-c", "aws-node", "POD_SECURITY_GROUP_ENFORCING_MODE=standard"]);
      assertSucceeded(await c.engine.run("up"), "pulumi up with standard mode");
      assertSucceeded(await c.engine.run("preview", { expectNoChanges: true }), "preview in standard mode");
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });
});
