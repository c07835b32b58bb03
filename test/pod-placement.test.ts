/**
 * Every pod the install waits for needs a node group with nodes whose taints it tolerates
 * (stacks/pod-placement.ts): a group at zero hosts nothing, and the operator's API server tolerates only
 * control-plane taints (tigera/operator v1.40.15 pkg/render/apiserver.go tolerations()).
 */
import * as assert from "node:assert/strict";
import { evaluateStackExpectingError } from "../offline/engine";
import { ConfigError } from "../stacks";
import { podPlacementProblems } from "../stacks/pod-placement";
import type { NodePodSettings } from "../stacks/schema/node-pods";
import { evaluatedWith, stackValue } from "./helpers";

const SYSTEM_TAINT = { key: "dedicated", value: "system", effect: "NoSchedule" };
const manifest: NodePodSettings = {
  installer: "manifest",
  apiServer: true,
  observability: false,
  probe: false,
  clusterAddonTaints: [],
};

describe("pods the install waits for, on groups that have nodes", () => {
  it("refuses CoreDNS's only host at zero nodes beside a tainted group not marked clusterAddons", () => {
    const problems = podPlacementProblems(
      [
        { name: "system", taints: [SYSTEM_TAINT], nodes: 2 },
        { name: "general", taints: [], nodes: 0 },
      ],
      manifest,
    );
    assert.deepEqual(
      problems.map((p) => [p.path, p.value]),
      [
        [
          "nodeGroups",
          [
            { name: "system", nodes: 2, taints: ["dedicated=system:NoSchedule"] },
            { name: "general", nodes: 0, taints: [] },
          ],
        ],
      ],
    );
    assert.equal(
      problems[0].rule,
      "has no node coredns may run on: it tolerates CriticalAddonsOnly:any effect, node-role.kubernetes.io/control-plane:NoSchedule, " +
        "but the groups with nodes carry taints it does not tolerate: system (2: dedicated=system:NoSchedule), and general has no nodes; " +
        "EKS reports the CoreDNS add-on DEGRADED until `pulumi up` fails at its 20-minute timeout",
    );
    assert.match(
      problems[0].hint ?? "",
      /clusterAddons: true .* or give an untainted group desiredSize >= 1/,
    );
  });

  it("accepts the same groups once the untainted one has a node, or the tainted one hosts cluster add-ons", () => {
    const groups = (general: number) => [
      { name: "system", taints: [SYSTEM_TAINT], nodes: 2 },
      { name: "general", taints: [], nodes: general },
    ];
    assert.deepEqual(podPlacementProblems(groups(1), manifest), []);
    assert.deepEqual(
      podPlacementProblems(groups(0), { ...manifest, clusterAddonTaints: [SYSTEM_TAINT] }),
      [],
    );
  });

  it("refuses, in operator mode, every Calico Deployment a cluster of tainted groups cannot run, at once", () => {
    const operator: NodePodSettings = {
      ...manifest,
      installer: "operator",
      clusterAddonTaints: [SYSTEM_TAINT],
    };
    const problems = podPlacementProblems([{ name: "system", taints: [SYSTEM_TAINT], nodes: 3 }], operator);
    // CoreDNS tolerates the clusterAddons taint; the operator and Typha tolerate every NoSchedule taint.
    assert.deepEqual(
      problems.map((p) => p.rule.slice(0, p.rule.indexOf(":"))),
      ["has no node calico-kube-controllers may run on", "has no node calico-apiserver may run on"],
    );
    assert.match(
      problems[1].rule,
      /it tolerates node-role\.kubernetes\.io\/master:NoSchedule, node-role\.kubernetes\.io\/control-plane:NoSchedule, but/,
    );
    assert.equal(
      problems[1].hint,
      "give an untainted group desiredSize >= 1, or set calico.apiServer: false",
    );
    // Without the API server, kube-controllers still needs a node; a CriticalAddonsOnly taint lets it in.
    const critical = { key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" };
    assert.deepEqual(
      podPlacementProblems([{ name: "system", taints: [critical], nodes: 3 }], {
        ...operator,
        apiServer: false,
      }),
      [],
    );
  });
});

describe("pod placement through the program", () => {
  const general = stackValue<Record<string, unknown>[]>("dev", "nodeGroups")[0];
  const config: { "eks-calico:calico": unknown; "eks-calico:nodeGroups": Record<string, unknown>[] } = {
    "eks-calico:calico": {
      ...stackValue<Record<string, unknown>>("dev", "calico"),
      probe: { enabled: false },
    },
    "eks-calico:nodeGroups": [
      { ...general, name: "system", minSize: 2, desiredSize: 2, maxSize: 2, taints: [SYSTEM_TAINT] },
      { ...general, minSize: 0, desiredSize: 0, maxSize: 3 },
    ],
  };

  it("refuses a new stack whose only untainted group starts at zero, before any resource", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", { config });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.rule.slice(0, p.rule.indexOf(":"))]),
      [["nodeGroups", "has no node coredns may run on"]],
    );
    assert.equal(resources.filter((r) => r.custom).length, 0);
  });

  it("counts a deployed group at the size it runs, which an autoscaler set", async () => {
    const started = {
      ...config,
      "eks-calico:nodeGroups": config["eks-calico:nodeGroups"].map((g) =>
        g.name === "general" ? { ...g, desiredSize: 1 } : g,
      ),
    };
    const deployed = await evaluatedWith("dev", { config: started });
    const scaling = deployed.outputs.nodeGroupScaling as Record<string, { nodeGroupName: string }>;
    const plan = await evaluatedWith("dev", {
      config,
      previousOutputs: deployed.outputs,
      simulate: { nodeGroups: { autoscaledDesiredSizes: { [scaling.general.nodeGroupName]: 2 } } },
    });
    assert.ok(plan.resources.some((r) => r.type === "aws:eks/nodeGroup:NodeGroup"));
    // Scaled in to zero by the autoscaler, the group hosts nothing, whatever the last update set.
    const { error } = await evaluateStackExpectingError("dev", {
      config: started,
      previousOutputs: deployed.outputs,
      simulate: { nodeGroups: { autoscaledDesiredSizes: { [scaling.general.nodeGroupName]: 0 } } },
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.match(error.problems[0].rule, /^has no node coredns may run on: .* general has no nodes;/);
  });
});
