/**
 * A Kubernetes upgrade changes exactly the control plane, every node group and the add-ons whose
 * default version differs: nothing else, so one `pulumi up` upgrades in dependency order.
 */
import * as assert from "node:assert/strict";
import { diffDocuments } from "../offline/diff";
import { resourcesDocument } from "../offline/plan";
import { STACKS, evaluated, evaluatedWith, stackValue } from "./helpers";

type Change = [string, string, unknown, unknown];

/**
 * What a new probe id changes: each Job's name, the anchor's name and run label, and the other-node
 * clients, which follow the anchor's placement (known after up) and so change with its replacement.
 */
function probeRunChanges(changed: ReturnType<typeof diffDocuments>["changed"]): Change[] {
  const named = changed
    .find((r) => r.heading === "kubernetes:batch/v1:Job calico-probe-allowed-client")
    ?.changes.find((c) => c.path === "inputs.metadata.name");
  const [from, to] = [named?.before, named?.after].map(
    (n) => /^allowed-client-([0-9a-f]{8})$/.exec(String(n))?.[1],
  );
  assert.ok(from !== undefined && to !== undefined && from !== to, JSON.stringify(named));
  const JOB = "kubernetes:batch/v1:Job calico-probe";
  const RUN = '["eks-calico.io/probe-run"]';
  return [
    ...["allowed", "denied", "recheck"].flatMap((access): Change[] => [
      [
        `${JOB}-${access}-client`,
        "inputs.metadata.name",
        `${access}-client-${from}`,
        `${access}-client-${to}`,
      ],
      [`${JOB}-other-node-probe-${access}-client`, "inputs.metadata", "(current)", "(new)"],
      [`${JOB}-other-node-probe-${access}-client`, "inputs.spec", "(current)", "(new)"],
    ]),
    [
      "kubernetes:core/v1:Pod calico-probe-anchor",
      "inputs.metadata.name",
      `probe-anchor-${from}`,
      `probe-anchor-${to}`,
    ],
    ["kubernetes:core/v1:Pod calico-probe-anchor", `inputs.metadata.labels${RUN}`, from, to],
  ];
}

for (const stack of STACKS) {
  it(`upgrading ${stack} one Kubernetes minor changes the cluster, node groups and add-on versions only`, async () => {
    const cluster = stackValue<{ version: string }>(stack, "cluster");
    const from = cluster.version;
    const to = `1.${Number(from.split(".")[1]) + 1}`;
    assert.equal(from, "1.35", "the add-on versions below are 1.35's and 1.36's");
    const before = await evaluated(stack);
    const after = await evaluatedWith(stack, {
      config: { "eks-calico:cluster": { ...cluster, version: to } },
    });
    const diff = diffDocuments(resourcesDocument(before), resourcesDocument(after));
    assert.deepEqual([diff.added, diff.removed], [[], []]);

    const groups = stackValue<{ name: string }[]>(stack, "nodeGroups");
    const expected = [
      ["eks:index:Cluster cluster-eks", "inputs.version", from, to],
      ...groups.map((g) => [`aws:eks/nodeGroup:NodeGroup cluster-${g.name}`, "inputs.version", from, to]),
      // EKS's defaults for 1.35 and 1.36 (describe-addon-versions): vpc-cni's is the same for both.
      [
        "aws:eks/addon:Addon cluster-coredns",
        "inputs.addonVersion",
        "v1.13.2-eksbuild.31",
        "v1.14.6-eksbuild.4",
      ],
      [
        "aws:eks/addon:Addon cluster-kube-proxy",
        "inputs.addonVersion",
        "v1.35.3-eksbuild.29",
        "v1.36.0-eksbuild.25",
      ],
      // New nodes: the enforcement probe runs again, its run (Jobs and anchor) named from a new hash.
      ...probeRunChanges(diff.changed),
    ];
    const actual = diff.changed.flatMap((r) => r.changes.map((c) => [r.heading, c.path, c.before, c.after]));
    assert.deepEqual(
      actual.sort((a, b) => String(a).localeCompare(String(b))),
      expected.sort((a, b) => String(a).localeCompare(String(b))),
    );
    // kube-proxy always follows the minor: the upgrade is never the control plane alone.
    assert.ok(actual.some((c) => c[0] === "aws:eks/addon:Addon cluster-kube-proxy"));
  });
}
