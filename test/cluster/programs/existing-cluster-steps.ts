/**
 * A test program for the real engine: the existing-cluster stack's two checking steps (the aws-node check
 * and the network-policy agent's hand-over, components/existing-cluster/), registered as that stack
 * registers them but alone, on the cluster the stack's kubeconfig reaches. The existing-cluster stack
 * itself cannot run here (it reads EKS); its steps can, and this runs them as the engine runs them:
 * serialized by the runtime, run in the dynamic provider host, their diff deciding whether they run.
 *
 * Config (`eks-calico-test:*`): `step` is `aws-node` (with `settings`, the owned settings) or `hand-over`;
 * `cluster` is the EKS cluster's name the steps' messages name.
 */
import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { AwsNodeCheck } from "../../../components/existing-cluster/aws-node-check";
import { NetworkPolicyAgentHandOver } from "../../../components/existing-cluster/hand-over-step";

export = () => {
  const cluster = new pulumi.Config("eks-calico").requireObject<{ kubeconfig: { path: string } }>("cluster");
  const kubeconfig = fs.readFileSync(cluster.kubeconfig.path, "utf8");
  const config = new pulumi.Config("eks-calico-test");
  const step = config.require("step");
  const name = config.require("cluster");
  if (step === "aws-node") {
    const check = new AwsNodeCheck("cluster-aws-node", {
      kubeconfig,
      cluster: name,
      settings: config.requireObject<Record<string, string>>("settings"),
    });
    return { verified: check.verified };
  }
  const handOver = new NetworkPolicyAgentHandOver("cluster-network-policy-agent", {
    kubeconfig,
    cluster: name,
    calicoNode: { namespace: "kube-system", name: "calico-node" },
  });
  return { remaining: handOver.remaining };
};
