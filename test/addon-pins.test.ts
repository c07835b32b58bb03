/**
 * Add-on pins the offline plan cannot vouch for: it warns instead of passing them quietly, and says nothing
 * of a pin the recorded describe-addon-versions defaults show offered.
 */
import * as assert from "node:assert/strict";
import { addonPinWarnings } from "../offline/addon-pins";
import { planWarnings } from "../offline/stack-runners";
import { validateConfig } from "../stacks";
import type { StackConfig } from "../stacks/schema";

function clusterWith(
  version: string,
  addons: Record<string, { version?: string }>,
): Pick<StackConfig, "cluster"> {
  const validated = validateConfig({
    cluster: { version, addons },
    nodeGroups: [{ name: "general", instanceTypes: ["t3.large"], minSize: 1, desiredSize: 1, maxSize: 2 }],
  });
  assert.ok(validated.ok, JSON.stringify(!validated.ok && validated.problems));
  return validated.config;
}

describe("add-on pins the plan cannot confirm", () => {
  it("warns for a pin the recorded defaults do not show, naming the key, the version and the command", () => {
    const warnings = addonPinWarnings(clusterWith("1.35", { vpcCni: { version: "v1.99.0-eksbuild.1" } }));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^cluster\.addons\.vpcCni\.version pins v1\.99\.0-eksbuild\.1: /);
    assert.match(
      warnings[0],
      /aws eks describe-addon-versions --addon-name vpc-cni --kubernetes-version 1\.35/,
    );
    assert.match(warnings[0], /`pulumi up` fails at the add-on/);
  });

  it("is silent for no pins, and for a pin that is the recorded default of its Kubernetes version", () => {
    assert.deepEqual(addonPinWarnings(clusterWith("1.35", {})), []);
    // EKS's defaults for 1.35, as recorded (offline/world/addon-versions.ts).
    const defaults = {
      "vpc-cni": "v1.22.4-eksbuild.3",
      coredns: "v1.13.2-eksbuild.31",
      "kube-proxy": "v1.35.3-eksbuild.29",
    };
    assert.deepEqual(
      addonPinWarnings(
        clusterWith("1.35", {
          vpcCni: { version: defaults["vpc-cni"] },
          kubeProxy: { version: defaults["kube-proxy"] },
          coreDns: { version: defaults.coredns },
        }),
      ),
      [],
    );
  });

  it("warns once per pinned add-on, and the offline plan prints them with the stack's warnings", () => {
    const pins = { kubeProxy: { version: "v1.35.0-eksbuild.1" }, coreDns: { version: "v1.13.0-eksbuild.1" } };
    assert.deepEqual(
      addonPinWarnings(clusterWith("1.35", pins)).map((w) => w.split(" ")[0]),
      ["cluster.addons.kubeProxy.version", "cluster.addons.coreDns.version"],
    );
    const warnings = planWarnings("dev", { "eks-calico:cluster": { addons: pins } });
    assert.equal(warnings.filter((w) => w.startsWith("cluster.addons.")).length, 2);
  });
});
