/**
 * The EKS managed add-ons: vpc-cni, kube-proxy and CoreDNS at explicit versions (EKS's default for the
 * Kubernetes version, or a pin), the VPC CNI configured for Calico policy-only mode and tagged, and
 * CoreDNS where it may run.
 */
import * as assert from "node:assert/strict";
import { COREDNS_DEFAULT_TOLERATIONS, coreDnsConfiguration } from "../components/cluster/addons";
import { DEFAULT_ADDON_VERSIONS } from "../offline/world";
import { addonVersion } from "../offline/world/aws-calls";

/** What aws.eks.getAddonVersion answers for Kubernetes 1.35, the stacks' version (describe-addon-versions). */
const DEFAULTS_1_35: Record<string, string> = {
  "vpc-cni": "v1.22.4-eksbuild.3",
  coredns: "v1.13.2-eksbuild.31",
  "kube-proxy": "v1.35.3-eksbuild.29",
};
import { STACKS, evaluated, evaluatedWith, input, one, ofType, stackValue } from "./helpers";

const ADDON = "aws:eks/addon:Addon";
const ADDONS = {
  "cluster-vpc-cni": "vpc-cni",
  "cluster-kube-proxy": "kube-proxy",
  "cluster-coredns": "coredns",
};

for (const stack of STACKS) {
  describe(`add-ons of ${stack}`, () => {
    const version = stackValue<{ version: string }>(stack, "cluster").version;
    const tags = {
      ...stackValue<Record<string, string>>(stack, "tags"),
      "pulumi:project": "eks-calico",
      "pulumi:stack": stack,
    };

    it("manages vpc-cni, kube-proxy and coredns as EKS add-ons at EKS's default version for the cluster", async () => {
      const evaluation = await evaluated(stack);
      const addons = ofType(evaluation, ADDON);
      assert.deepEqual(addons.map((a) => a.name).sort(), Object.keys(ADDONS).sort());
      for (const [name, addonName] of Object.entries(ADDONS)) {
        const addon = one(evaluation, ADDON, name);
        assert.equal(addon.inputs.addonName, addonName);
        assert.equal(addon.inputs.clusterName, `eks-calico-${stack}`);
        assert.equal(version, "1.35");
        assert.equal(addon.inputs.addonVersion, DEFAULTS_1_35[addonName]);
        assert.equal(addon.inputs.resolveConflictsOnCreate, "OVERWRITE");
        assert.equal(addon.inputs.resolveConflictsOnUpdate, "OVERWRITE");
        // A deleted add-on keeps its software running: a rename never strips pod networking or DNS.
        assert.equal(addon.inputs.preserve, true);
        // A map of the stack's tags (eks.VpcCniAddon passed a list, so its add-on was never tagged).
        assert.deepEqual(addon.inputs.tags, tags);
      }
    });

    it("stops @pulumi/eks from creating add-ons of its own at the most recent version", async () => {
      const evaluation = await evaluated(stack);
      const eks = one(evaluation, "eks:index:Cluster");
      assert.equal(eks.inputs.useDefaultVpcCni, true);
      assert.equal(input(eks, "kubeProxyAddonOptions.enabled"), false);
      assert.equal(input(eks, "corednsAddonOptions.enabled"), false);
      assert.deepEqual(ofType(evaluation, "eks:index:VpcCniAddon"), []);
    });

    it("configures the VPC CNI for Calico with exactly the policy agent off and ANNOTATE_POD_IP", async () => {
      const addon = one(await evaluated(stack), ADDON, "cluster-vpc-cni");
      assert.equal(
        addon.inputs.configurationValues,
        '{"enableNetworkPolicy":"false","env":{"ANNOTATE_POD_IP":"true"}}',
      );
    });

    it("lets CoreDNS tolerate the taints of the groups marked clusterAddons, keeping EKS's own", async () => {
      const groups = stackValue<
        { clusterAddons?: boolean; taints: { key: string; value: string; effect: string }[] }[]
      >(stack, "nodeGroups");
      const expected = groups
        .filter((g) => g.clusterAddons === true)
        .flatMap((g) =>
          g.taints.map((t) => ({ key: t.key, operator: "Equal", value: t.value, effect: t.effect })),
        );
      const addon = one(await evaluated(stack), ADDON, "cluster-coredns");
      if (expected.length === 0) {
        assert.equal(addon.inputs.configurationValues, undefined);
      } else {
        assert.deepEqual(JSON.parse(String(addon.inputs.configurationValues)), {
          tolerations: [...COREDNS_DEFAULT_TOLERATIONS, ...expected],
        });
      }
    });
  });
}

describe("add-on versions", () => {
  it("uses the pinned versions of cluster.addons instead of EKS's defaults", async () => {
    const pins = {
      vpcCni: "v1.20.4-eksbuild.2",
      kubeProxy: "v1.35.0-eksbuild.2",
      coreDns: "v1.12.4-eksbuild.1",
    };
    const evaluation = await evaluatedWith("dev", {
      config: {
        "eks-calico:cluster": {
          ...stackValue<object>("dev", "cluster"),
          addons: {
            vpcCni: { version: pins.vpcCni },
            kubeProxy: { version: pins.kubeProxy },
            coreDns: { version: pins.coreDns },
          },
        },
      },
    });
    assert.equal(one(evaluation, ADDON, "cluster-vpc-cni").inputs.addonVersion, pins.vpcCni);
    assert.equal(one(evaluation, ADDON, "cluster-kube-proxy").inputs.addonVersion, pins.kubeProxy);
    assert.equal(one(evaluation, ADDON, "cluster-coredns").inputs.addonVersion, pins.coreDns);
  });

  it("is refused by the offline world when asked for the most recent version, which has no fixed answer", () => {
    assert.throws(
      () => addonVersion({ addonName: "kube-proxy", kubernetesVersion: "1.35", mostRecent: true }),
      /mostRecent: true\) has no fixed answer/,
    );
  });

  it("marks the versions of a Kubernetes version newer than its table as not known, rather than refusing", () => {
    assert.equal(
      addonVersion({ addonName: "kube-proxy", kubernetesVersion: "1.37" }).version,
      "<addon-version:kube-proxy:1.37>",
    );
  });

  it("has a default for every add-on at every Kubernetes version the schema accepts, kube-proxy on its minor", async () => {
    const { SUPPORTED_KUBERNETES_VERSIONS } = await import("../stacks/schema");
    for (const version of SUPPORTED_KUBERNETES_VERSIONS) {
      const row = DEFAULT_ADDON_VERSIONS[version];
      assert.ok(row, `no add-on defaults for ${version}`);
      for (const v of Object.values(row)) assert.match(v, /^v\d+\.\d+\.\d+-eksbuild\.\d+$/);
      assert.ok(
        row["kube-proxy"].startsWith(`v${version}.`),
        `kube-proxy ${row["kube-proxy"]} for ${version}`,
      );
    }
  });
});

describe("CoreDNS placement", () => {
  const taint = (key: string, value: string, effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute") => ({
    key,
    value,
    effect,
  });

  it("keeps EKS's defaults when no group is marked for cluster add-ons", () => {
    assert.equal(
      coreDnsConfiguration([{ clusterAddons: false, taints: [taint("gpu", "true", "NoSchedule")] }]),
      undefined,
    );
    assert.equal(coreDnsConfiguration([{ clusterAddons: true, taints: [] }]), undefined);
  });

  it("tolerates each repelling taint of the marked groups once, never PreferNoSchedule", () => {
    const config = coreDnsConfiguration([
      {
        clusterAddons: true,
        taints: [taint("dedicated", "system", "NoSchedule"), taint("soft", "", "PreferNoSchedule")],
      },
      {
        clusterAddons: true,
        taints: [taint("dedicated", "system", "NoSchedule"), taint("drain", "x", "NoExecute")],
      },
      { clusterAddons: false, taints: [taint("gpu", "true", "NoSchedule")] },
    ]);
    assert.deepEqual((JSON.parse(String(config)) as { tolerations: unknown[] }).tolerations, [
      ...COREDNS_DEFAULT_TOLERATIONS,
      { key: "dedicated", operator: "Equal", value: "system", effect: "NoSchedule" },
      { key: "drain", operator: "Equal", value: "x", effect: "NoExecute" },
    ]);
  });
});
