/**
 * A test program for the real engine: one ConfigMap whose data change replaces it, with one of its keys
 * in `ignoreChanges`, on the cluster the stack's kubeconfig reaches
 * (test/cluster/ignore-changes-replace.test.ts).
 *
 * The ConfigMap goes through the provider every in-cluster object of index.ts uses (clusterProvider,
 * components/cluster/provider.ts), which updates ConfigMaps in place (`enableConfigMapMutable`); marked
 * `immutable`, a data change replaces it instead (pulumi-kubernetes provider/pkg/provider/diff.go). It has
 * no metadata.name: the provider names it from the resource's name and a random suffix, so the
 * replacement is created under a new name before the old object is deleted (the engine's default
 * create-before-delete), and the exported name tells the two objects apart.
 *
 * Config (`eks-calico-test:*`): `size`, the ignored key (`data.size`), and `kind`, the key that replaces it.
 */
import * as fs from "node:fs";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { clusterProvider } from "../../../components/cluster/provider";

export = () => {
  const cluster = new pulumi.Config("eks-calico").requireObject<{
    kubeconfig: { path: string; context: string };
  }>("cluster");
  const config = new pulumi.Config("eks-calico-test");
  const provider = clusterProvider(
    "local",
    {
      kubeconfig: pulumi.secret(fs.readFileSync(cluster.kubeconfig.path, "utf8")),
      context: cluster.kubeconfig.context,
      clusterIdentifier: "local",
    },
    {},
  );
  const configMap = new k8s.core.v1.ConfigMap(
    "scaling",
    {
      metadata: { namespace: "default" },
      immutable: true,
      data: { size: config.require("size"), kind: config.require("kind") },
    },
    { provider, ignoreChanges: ["data.size"] },
  );
  return { name: configMap.metadata.name };
};
