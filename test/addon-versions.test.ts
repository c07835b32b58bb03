/**
 * Deployed add-on versions are kept (stacks/addon-versions.ts): when AWS moves an add-on's default, a
 * deployed stack's next update changes no add-on and says what the new default is; a new Kubernetes
 * version, or a pin set, changed or removed, moves it. Each case is a later update of a deployed stack.
 */
import * as assert from "node:assert/strict";
import fc from "fast-check";
import { ADDON_NAMES, type AddonKey } from "../components/cluster/addons";
import { DEFAULT_ADDON_VERSIONS } from "../offline/world";
import { type StackEvaluation, evaluateStack } from "../offline/engine";
import { keptAddonVersions } from "../stacks/addon-versions";
import { withWarnings } from "./helpers";
import { storedOutputs } from "./deployed-stack";

const ADDON = "aws:eks/addon:Addon";
const RESOURCE: Record<AddonKey, string> = {
  vpcCni: "cluster-vpc-cni",
  kubeProxy: "cluster-kube-proxy",
  coreDns: "cluster-coredns",
  podIdentityAgent: "cluster-pod-identity-agent",
};
const KEYS = Object.keys(ADDON_NAMES) as AddonKey[];
/** A vpc-cni build newer than every default the table records, as AWS would publish it. */
const MOVED = "v1.23.0-eksbuild.1";
const DEFAULT_1_35 = DEFAULT_ADDON_VERSIONS["1.35"]["vpc-cni"];

/** The version each add-on resource of `evaluation` is given. */
function registered(evaluation: StackEvaluation): Record<AddonKey, unknown> {
  const byName = new Map(evaluation.resources.filter((r) => r.type === ADDON).map((r) => [r.name, r]));
  return Object.fromEntries(
    KEYS.map((key) => [key, byName.get(RESOURCE[key])?.inputs.addonVersion]),
  ) as Record<AddonKey, unknown>;
}

describe("add-on versions are kept as deployed", function () {
  this.timeout(180_000);
  let deployed: Record<string, unknown>;
  before(async () => {
    deployed = storedOutputs(await evaluateStack("dev", { preview: false }));
  });

  it("the stack records each add-on's version, whether a pin chose it, and the Kubernetes version", () => {
    assert.deepEqual(deployed.addons, {
      kubernetesVersion: "1.35",
      coreDns: { version: DEFAULT_ADDON_VERSIONS["1.35"].coredns, pinned: false },
      kubeProxy: { version: DEFAULT_ADDON_VERSIONS["1.35"]["kube-proxy"], pinned: false },
      vpcCni: { version: DEFAULT_1_35, pinned: false },
    });
  });

  it("AWS moves vpc-cni's default: the next update keeps every add-on, and says what the new default is", async () => {
    const { result, warnings } = await withWarnings(() =>
      evaluateStack("dev", { previousOutputs: deployed, simulate: { addonDefaults: { "vpc-cni": MOVED } } }),
    );
    assert.equal(registered(result).vpcCni, DEFAULT_1_35);
    const notices = warnings.filter((w) => w.startsWith("cluster.addons."));
    assert.equal(notices.length, 1, notices.join("\n"));
    assert.match(notices[0], new RegExp(`vpcCni: EKS's default vpc-cni for Kubernetes 1.35 is now ${MOVED}`));
    assert.match(notices[0], new RegExp(`keeps ${DEFAULT_1_35}.*cluster.addons.vpcCni.version: ${MOVED}`));
  });

  it("a new stack, and a deployed one on a new Kubernetes version, take the moved default", async () => {
    const simulate = { addonDefaults: { "vpc-cni": MOVED } };
    assert.equal(registered(await evaluateStack("dev", { simulate })).vpcCni, MOVED);
    const upgrade = await evaluateStack("dev", {
      previousOutputs: deployed,
      simulate,
      config: { "eks-calico:cluster.version": "1.36" },
    });
    assert.equal(registered(upgrade).vpcCni, MOVED);
    assert.equal(registered(upgrade).kubeProxy, DEFAULT_ADDON_VERSIONS["1.36"]["kube-proxy"]);
  });

  it("a pin set moves it; removing the pin returns it to EKS's default", async () => {
    const pinned = await evaluateStack("dev", {
      preview: false,
      previousOutputs: deployed,
      config: { "eks-calico:cluster.addons.vpcCni.version": MOVED },
    });
    assert.equal(registered(pinned).vpcCni, MOVED);
    const unpinned = await evaluateStack("dev", { previousOutputs: storedOutputs(pinned) });
    assert.equal(registered(unpinned).vpcCni, DEFAULT_1_35);
  });

  it("the rule over generated records and configs: kept exactly when unpinned now and before, on the same version", () => {
    const version = fc.constantFrom("1.34", "1.35");
    const pin = fc.option(fc.constantFrom("v1.1.0-eksbuild.1", "v1.2.0-eksbuild.1"), { nil: undefined });
    fc.assert(
      fc.property(version, version, fc.boolean(), pin, (before, now, wasPinned, configured) => {
        const previous = {
          addons: { kubernetesVersion: before, vpcCni: { version: "v9.9.9-eksbuild.9", pinned: wasPinned } },
        };
        const addons = { vpcCni: { version: configured }, kubeProxy: {}, coreDns: {}, podIdentityAgent: {} };
        const { versions } = keptAddonVersions({ version: now, addons }, previous);
        const expected = configured ?? (before === now && !wasPinned ? "v9.9.9-eksbuild.9" : undefined);
        assert.equal(versions.vpcCni, expected);
      }),
    );
  });
});
