/**
 * An existing cluster whose kube-proxy add-on runs in nftables mode, refused where the Felix this stack
 * installs programs iptables. What each install sets is upstream's: v3.32.1's policy-only CRD defaults
 * FelixConfiguration `nftablesMode` to Auto, v3.31.7's gives it no default (test/fixtures/upstream-crds.yaml),
 * so Felix's own applies (felix/config/config_params.go at v3.31.7: `oneof(Enabled,Disabled);Disabled`),
 * and the Tigera operator writes Disabled
 * for its default Iptables data plane (tigera/operator v1.40.15 and v1.42.3
 * pkg/controller/installation/core_controller.go setNftablesMode). The add-on's configuration values are
 * the JSON string DescribeAddon returns.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { ConfigError } from "../stacks";
import { evaluateStackExpectingError } from "../offline/engine";
import type { ExistingClusterSimulation } from "../offline/world/existing";
import { evaluatedWith, ofType, stackValue } from "./helpers";

const STACK = "existing.example";
const NFTABLES = { managed: true, configurationValues: JSON.stringify({ mode: "nftables" }) } as const;

function calico(overrides: Record<string, unknown>) {
  return { "eks-calico:calico": { ...stackValue<object>(STACK, "calico"), ...overrides } };
}

async function problemsOf(existingCluster: ExistingClusterSimulation, config: Record<string, unknown>) {
  const { error, resources } = await evaluateStackExpectingError(STACK, {
    simulate: { existingCluster },
    config,
  });
  assert.ok(ConfigError.isConfigError(error), String(error));
  assert.deepEqual(
    resources.filter((r) => r.custom),
    [],
    "refused before any resource",
  );
  return error.problems;
}

/** The default upstream's CRD gives FelixConfiguration's nftablesMode on a line, if any. */
function nftablesDefault(minor: "3.31" | "3.32"): unknown {
  const crds = parse(
    fs.readFileSync(path.join(__dirname, "fixtures", "upstream-crds.yaml"), "utf8"),
  ) as Record<string, { defaults: Record<string, Record<string, unknown> | undefined> }>;
  return crds[minor].defaults.FelixConfiguration?.["spec.nftablesMode"];
}

describe("an existing cluster's kube-proxy in nftables mode", () => {
  it("is refused beside v3.31's Felix, whose nftablesMode defaults to Disabled, naming the setting and the fix", async () => {
    assert.equal(nftablesDefault("3.31"), undefined, "v3.31.7: no default in the CRD; Felix's is Disabled");
    const problems = await problemsOf({ kubeProxy: NFTABLES }, calico({ version: "v3.31.7" }));
    assert.equal(problems.length, 1);
    assert.equal(problems[0].path, "cluster.existing.name");
    assert.match(problems[0].rule, /kube-proxy add-on runs in nftables mode \(mode: "nftables"\)/);
    assert.match(problems[0].hint ?? "", /^use a v3\.32 release \(calico\.version\)/);
  });

  it("is installed with v3.32, whose Felix follows kube-proxy's mode (nftablesMode: Auto)", async () => {
    assert.equal(nftablesDefault("3.32"), "Auto");
    const plan = await evaluatedWith(STACK, {
      simulate: { existingCluster: { kubeProxy: NFTABLES } },
      config: calico({ version: "v3.32.1" }),
    });
    assert.equal(ofType(plan, "kubernetes:apps/v1:DaemonSet").length > 0, true);
  });

  it("is refused with the operator on either line, which writes nftablesMode: Disabled for Iptables", async () => {
    for (const version of ["v3.31.7", "v3.32.1"]) {
      const problems = await problemsOf(
        { kubeProxy: NFTABLES },
        calico({ version, installer: "operator", namespace: undefined }),
      );
      assert.match(
        problems.map((p) => p.rule).join("\n"),
        /the Tigera operator sets FelixConfiguration nftablesMode: Disabled/,
      );
      assert.match(problems.find((p) => /nftables/.test(p.rule))?.hint ?? "", /^set mode: "iptables"/);
    }
  });

  it("leaves kube-proxy in iptables or ipvs mode, or self-managed, to install", async () => {
    for (const kubeProxy of [
      { managed: true, configurationValues: "" },
      { managed: true, configurationValues: "mode: ipvs\n" },
      { managed: false },
    ] as const) {
      const plan = await evaluatedWith(STACK, {
        simulate: { existingCluster: { kubeProxy } },
        config: calico({ version: "v3.31.7" }),
      });
      assert.ok(ofType(plan, "kubernetes:apps/v1:DaemonSet").length > 0, JSON.stringify(kubeProxy));
    }
  });
});
