/**
 * A test program for the real engine: the read behind the `calico` output's readiness fields
 * (components/calico/readiness-read.ts) alone, as the manifest install makes it, on the cluster the stack's
 * kubeconfig reaches, or with `eks-calico-test:server` on another server URL (one that does not answer),
 * so the engine shows what an `up` that cannot read the cluster reports.
 */
import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import YAML from "yaml";
import { liveCalicoStatus } from "../../../components/calico/readiness-read";
import { statusOutputs } from "../../../components/calico/readiness";

/** The kubeconfig with every cluster's server replaced by `server`. */
function withServer(kubeconfig: string, server: string): string {
  const file = YAML.parse(kubeconfig) as { clusters: { cluster: { server: string } }[] };
  for (const entry of file.clusters) entry.cluster.server = server;
  return YAML.stringify(file);
}

export = () => {
  const cluster = new pulumi.Config("eks-calico").requireObject<{
    kubeconfig: { path: string; context?: string };
  }>("cluster");
  const text = fs.readFileSync(cluster.kubeconfig.path, "utf8");
  const server = new pulumi.Config("eks-calico-test").get("server");
  const kubeconfig = server === undefined ? text : withServer(text, server);
  const live = liveCalicoStatus(
    {
      kubeconfig: pulumi.secret(kubeconfig),
      clusterIdentifier: "local",
      context: cluster.kubeconfig.context,
    },
    pulumi.output("applied"),
    {
      calicoNode: { namespace: "kube-system", name: "calico-node" },
      typha: { namespace: "kube-system", name: "calico-typha" },
      cleanupNamespace: "kube-system",
    },
  );
  return { calico: statusOutputs("manifest", live) };
};
