/**
 * The aws-node check (components/existing-cluster/aws-node-check.ts) on a real API server, as `pulumi up`
 * runs it after an existing cluster's vpc-cni add-on update: loaded from its serialized text, with the
 * plan's inputs. aws-node is a fixture in the shape the add-on writes (amazon-vpc-cni-k8s
 * config/master/aws-k8s-cni.yaml: env on the `aws-node` container, `--enable-network-policy` on
 * `aws-eks-nodeagent`), server-side applied by the manager `eks` as EKS applies add-ons ("Both types of
 * fields are tagged with manager: eks", EKS user guide, kubernetes-field-management). Edited with kubectl,
 * as an update with PRESERVE leaves it, the check refuses naming each edited key, in the words the offline
 * plan uses when told of the same edits; set right again, it passes.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import requireFromString from "require-from-string";
import { LocalCluster, plan } from "../../local-cluster/deploy";
import { evaluateStackExpectingError } from "../../offline/engine";
import type { AwsNodeEdits } from "../../offline/world/aws-node";
import {
  AWS_NODE_CHECK_TYPE,
  type AwsNodeCheckInputs,
  awsNodeCheckProvider,
} from "../../components/existing-cluster/aws-node-check";
import { compare, summary } from "./agreement";

const DIR = path.join(os.tmpdir(), `eks-calico-aws-node-test-${process.pid}`);
const STACK = "existing.example";

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

async function loadedProvider(): Promise<pulumi.dynamic.ResourceProvider> {
  const serialized = await pulumi.runtime.serializeFunction(() => awsNodeCheckProvider, {
    allowSecrets: true,
  });
  return (requireFromString(serialized.text) as { handler: () => pulumi.dynamic.ResourceProvider }).handler();
}

/** The refusal's own text, wherever an error message carries it. */
function refusalOf(message: string): string {
  return /aws-node \(DaemonSet [^]*$/.exec(message)?.[0].trim() ?? `(no refusal) ${message}`;
}

after(function () {
  for (const line of summary()) console.log(line);
});

describe("the aws-node check, on a real API server", function () {
  this.timeout(20 * 60_000);

  it("refuses a setting edited on aws-node, naming it as the offline plan does, and passes once set right", async function () {
    const cluster = await LocalCluster.start("dev", { dir: DIR });
    try {
      const simulate = { existingCluster: { nodes: cluster.state.nodes } };
      const step = (await plan(STACK, {}, simulate)).resources.find((r) => r.type === AWS_NODE_CHECK_TYPE);
      assert.ok(step, "the plan has the aws-node check");
      const provider = await loadedProvider();
      // No settling wait: each state below is read as it is.
      const inputs: AwsNodeCheckInputs = {
        ...(step.inputs as unknown as AwsNodeCheckInputs),
        kubeconfig: fs.readFileSync(cluster.state.kubeconfig, "utf8"),
        context: undefined,
        settleSeconds: 0,
      };
      const real = () =>
        provider.create(inputs).then(
          (result) => (result.outs as { verified: Record<string, string> }).verified,
          (error: Error) => refusalOf(error.message),
        );
      /** The refusal of the real check, which must refuse. */
      const refused = async () => {
        const answer = await real();
        assert.equal(typeof answer, "string", `the check passed: ${JSON.stringify(answer)}`);
        return answer as string;
      };
      const offline = async (awsNodeEdits: AwsNodeEdits) => {
        const { error } = await evaluateStackExpectingError(STACK, {
          simulate: { existingCluster: { ...simulate.existingCluster, awsNodeEdits } },
        });
        return refusalOf(String(error));
      };
      const kubectl = (args: string[], input?: string) => {
        const result = cluster.kubectl(args, input);
        assert.ok(result.ok, result.output);
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

      await assert.rejects(provider.create(inputs), /DaemonSet kube-system\/aws-node does not exist/);

      // As the add-on writes it: the check passes and reports the settings.
      kubectl(["apply", "--server-side", "--field-manager=eks", "-f", "-"], JSON.stringify(AWS_NODE));
      compare("aws-node check: aws-node as the add-on writes it passes", step.inputs.settings, await real());

      // ANNOTATE_POD_IP edited with kubectl: refused, naming it, in the plan's words.
      kubectl(["set", "env", ...awsNode, "-c", "aws-node", "ANNOTATE_POD_IP=false"]);
      const oneEdit = await refused();
      assert.match(oneEdit, /env\.ANNOTATE_POD_IP is "false" on container aws-node/);
      compare(
        "aws-node check: a kubectl-edited env entry is refused",
        await offline({ "env.ANNOTATE_POD_IP": "false" }),
        oneEdit,
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
        await offline({ "env.ANNOTATE_POD_IP": "false", enableNetworkPolicy: "true" }),
        twoEdits,
      );

      // Set right again with the refusal's fixes.
      kubectl(["set", "env", ...awsNode, "-c", "aws-node", "ANNOTATE_POD_IP=true"]);
      setAgentArg("--enable-network-policy=false");
      compare("aws-node check: set right again, it passes", step.inputs.settings, await real());
    } finally {
      await cluster.stop();
    }
    assert.deepEqual(summary().slice(1), [], summary().join("\n"));
  });
});
