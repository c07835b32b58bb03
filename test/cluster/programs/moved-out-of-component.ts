/**
 * A test program for the real engine: a ConfigMap built inside a component of @pulumi/eks's node group
 * type (`layout: component`), or registered directly under the same parent with the alias the stack's
 * node groups carry (`layout: direct`, builtByPulumiEks in components/cluster/nodes.ts), with one more
 * key, as a node group gains its updateConfig (test/cluster/component-move.test.ts).
 *
 * A component's state is the same whether its provider plugin or the program builds it (a resource that
 * is not custom); this one is built here, since @pulumi/eks cannot run without AWS.
 */
import * as fs from "node:fs";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { clusterProvider } from "../../../components/cluster/provider";
import { PULUMI_EKS_NODE_GROUP, builtByPulumiEks } from "../../../components/cluster/nodes";

class Parent extends pulumi.ComponentResource {
  constructor(name: string) {
    super("eks-calico:cluster:Cluster", name, {});
  }
}

class Builder extends pulumi.ComponentResource {
  constructor(name: string, make: (parent: pulumi.Resource) => void, opts: pulumi.ComponentResourceOptions) {
    super(PULUMI_EKS_NODE_GROUP, name, {}, opts);
    make(this);
    this.registerOutputs({});
  }
}

export = () => {
  const cluster = new pulumi.Config("eks-calico").requireObject<{
    kubeconfig: { path: string; context: string };
  }>("cluster");
  const layout = new pulumi.Config("eks-calico-test").require("layout");
  const provider = clusterProvider(
    "local",
    {
      kubeconfig: pulumi.secret(fs.readFileSync(cluster.kubeconfig.path, "utf8")),
      context: cluster.kubeconfig.context,
      clusterIdentifier: "local",
    },
    {},
  );
  const parent = new Parent("cluster");
  const name = "cluster-general";
  let configMap: k8s.core.v1.ConfigMap | undefined;
  const make = (owner: pulumi.Resource, data: Record<string, string>, aliases: pulumi.Alias[] = []) =>
    (configMap = new k8s.core.v1.ConfigMap(
      name,
      { metadata: { namespace: "default" }, data },
      { provider, parent: owner, aliases },
    ));
  if (layout === "component") new Builder(name, (owner) => make(owner, { size: "3" }), { parent });
  else make(parent, { size: "3", maxUnavailable: "1" }, [builtByPulumiEks(name, parent)]);
  return { name: configMap?.metadata.name };
};
