/**
 * Which Deployments scale a Typha (components/calico/takeover/typha-scalers.ts), by
 * cluster-proportional-autoscaler's `--target` and `--namespace` as v1.9.1 reads them: a comma-separated
 * list of kind/name, the kind `deployment(s)` in any case, the last value of a repeated flag (spf13/pflag),
 * the autoscaler's own namespace when `--namespace` is unset. The VPC CNI manifests' autoscaler is read
 * from the fixture as a cluster holds it.
 */
import * as assert from "node:assert/strict";
import { type ScalerDeployment, scalesDeployment } from "../components/calico/takeover/typha-scalers";
import { parseManifest } from "../offline/adoption/manifest";
import * as fs from "node:fs";
import * as path from "node:path";

const scaler = (namespace: string, command: string[], args: string[] = []): ScalerDeployment => ({
  metadata: { name: "some-autoscaler", namespace },
  spec: { template: { spec: { containers: [{ command, args }] } } },
});
const CPA = "/cluster-proportional-autoscaler";

describe("the Deployments that scale a Typha", () => {
  it("finds the VPC CNI manifests' calico-typha-horizontal-autoscaler, and not this program's own", () => {
    for (const file of ["amazon-vpc-cni-v1.5.yaml", "amazon-vpc-cni-v1.6.yaml"]) {
      const text = fs.readFileSync(path.join(__dirname, "fixtures", "adopt", file), "utf8");
      const deployments = parseManifest(text, file).filter((o) => o.kind === "Deployment");
      const scaling = deployments.filter((d) =>
        scalesDeployment(d as ScalerDeployment, "kube-system", "calico-typha"),
      );
      assert.deepEqual(
        scaling.map((d) => d.metadata.name),
        ["calico-typha-horizontal-autoscaler"],
        file,
      );
    }
    // This program's autoscaler during a takeover scales its own Typha, not the retired one.
    const ours = scaler("kube-system", [
      CPA,
      "--namespace=kube-system",
      "--target=deployment/calico-typha-takeover",
    ]);
    assert.equal(scalesDeployment(ours, "kube-system", "calico-typha"), false);
  });

  it("reads --target as the autoscaler does: a list, any case, = or a separate value, the last one set", () => {
    const target = (...argv: string[]) =>
      scalesDeployment(scaler("kube-system", [CPA, ...argv]), "kube-system", "calico-typha");
    assert.ok(target("--target=deployment/calico-typha"));
    assert.ok(target("--target", "Deployment/calico-typha"));
    assert.ok(target("--target=replicaset/x, deployments/calico-typha"));
    assert.ok(target("--target=deployment/other", "--target=deployment/calico-typha"));
    assert.ok(!target("--target=deployment/calico-typha", "--target=deployment/other"));
    assert.ok(!target("--target=replicationcontroller/calico-typha"));
    assert.ok(!target("--target=deployment/calico-typha-takeover"));
    assert.ok(!target("--configmap=calico-typha"));
    // In args rather than command, as a manifest may split them.
    assert.ok(
      scalesDeployment(
        scaler("kube-system", [CPA], ["--target=deployment/calico-typha"]),
        "kube-system",
        "calico-typha",
      ),
    );
  });

  it("scales the Typha of --namespace, or of its own namespace when unset", () => {
    const elsewhere = scaler("ops", [CPA, "--namespace=kube-system", "--target=deployment/calico-typha"]);
    assert.ok(scalesDeployment(elsewhere, "kube-system", "calico-typha"));
    const own = scaler("ops", [CPA, "--target=deployment/calico-typha"]);
    assert.ok(!scalesDeployment(own, "kube-system", "calico-typha"));
    assert.ok(scalesDeployment(own, "ops", "calico-typha"));
  });
});
