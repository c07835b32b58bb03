/**
 * Configurations AWS, EKS or Kubernetes would refuse, refused before any cloud call, each at its key
 * path: reserved label and taint prefixes, malformed instance types, Calico in a namespace it does not
 * own, a private endpoint with no declared way in, EKS's quotas, and names too long once derived.
 */
import * as assert from "node:assert/strict";
import { validateConfig } from "../stacks";

const GROUP = { name: "general", minSize: 1, desiredSize: 1, maxSize: 3 };

const REFUSALS: { title: string; raw: Record<string, unknown>; path: string; rule: RegExp }[] = [
  {
    title: "a label in kubernetes.io/ that the kubelet refuses",
    raw: { nodeGroups: [{ ...GROUP, labels: { "node-role.kubernetes.io/worker": "true" } }] },
    path: 'nodeGroups[0].labels["node-role.kubernetes.io/worker"]',
    rule: /the kubelet accepts only node\.kubernetes\.io\/ and kubelet\.kubernetes\.io\/ labels/,
  },
  {
    title: "a label in eks.amazonaws.com/",
    raw: { nodeGroups: [{ ...GROUP, labels: { "eks.amazonaws.com/capacityType": "SPOT" } }] },
    path: 'nodeGroups[0].labels["eks.amazonaws.com/capacityType"]',
    rule: /eks\.amazonaws\.com\/, which EKS reserves/,
  },
  {
    title: "a taint in k8s.io/",
    raw: { nodeGroups: [{ ...GROUP, taints: [{ key: "k8s.io/role", value: "x", effect: "NoSchedule" }] }] },
    path: "nodeGroups[0].taints[0].key",
    rule: /prefix EKS reserves for taints/,
  },
  {
    title: "an instance type without a generation",
    raw: { nodeGroups: [{ ...GROUP, instanceTypes: ["m.large"] }] },
    path: "nodeGroups[0].instanceTypes[0]",
    rule: /family, generation and size/,
  },
  {
    title: "an instance type with an unknown size",
    raw: { nodeGroups: [{ ...GROUP, instanceTypes: ["m6i.huge"] }] },
    path: "nodeGroups[0].instanceTypes[0]",
    rule: /family, generation and size/,
  },
  {
    title: "Calico in the default namespace",
    raw: { calico: { namespace: "default" }, nodeGroups: [GROUP] },
    path: "calico.namespace",
    rule: /kube-system or a namespace of Calico's own/,
  },
  {
    title: "Calico in kube-node-lease",
    raw: { calico: { namespace: "kube-node-lease" }, nodeGroups: [GROUP] },
    path: "calico.namespace",
    rule: /would delete it on a rename or destroy/,
  },
  {
    title: "a private-only endpoint with no declared way in",
    raw: { cluster: { publicAccessCidrs: [] }, nodeGroups: [GROUP] },
    path: "cluster.publicAccessCidrs",
    rule: /set cluster\.deploysFromInsideVpc: true/,
  },
  {
    title: "more public access CIDRs than EKS allows",
    raw: {
      cluster: { publicAccessCidrs: Array.from({ length: 41 }, (_, i) => `198.51.${i}.0/24`) },
      nodeGroups: [GROUP],
    },
    path: "cluster.publicAccessCidrs",
    rule: /at most 40 blocks, the EKS quota "Public endpoint access CIDR ranges per cluster"/,
  },
  {
    title: "more node groups than EKS allows",
    raw: { nodeGroups: Array.from({ length: 31 }, (_, i) => ({ ...GROUP, name: `g${i}` })) },
    path: "nodeGroups",
    rule: /at most 30 node groups, the EKS quota "Managed node groups per cluster"/,
  },
  {
    title: "more nodes in a group than EKS allows",
    raw: { nodeGroups: [{ ...GROUP, maxSize: 451 }] },
    path: "nodeGroups[0].maxSize",
    rule: /at most 450, the EKS quota "Nodes per managed node group"/,
  },
  {
    title: "a node group name too long once prefixed and suffixed",
    raw: { nodeGroups: [{ ...GROUP, name: "g".repeat(48) }] },
    path: "nodeGroups[0].name",
    rule: /at most 47 characters: EKS names it cluster-<name>-<7 characters Pulumi adds>, at most 63/,
  },
];

describe("configuration EKS would refuse", () => {
  for (const row of REFUSALS) {
    it(`refuses ${row.title} at ${row.path}`, () => {
      const result = validateConfig(row.raw);
      const problems = result.ok ? [] : result.problems;
      const problem = problems.find((p) => p.path === row.path);
      assert.ok(problem, `no problem at ${row.path}; got ${JSON.stringify(problems)}`);
      assert.match(problem.rule, row.rule);
    });
  }

  it("accepts what these rules allow: a kube-system or own namespace, a declared private endpoint, limits", () => {
    for (const raw of [
      { calico: { namespace: "calico-system" }, nodeGroups: [GROUP] },
      { cluster: { publicAccessCidrs: [], deploysFromInsideVpc: true }, nodeGroups: [GROUP] },
      { nodeGroups: [{ ...GROUP, name: "g".repeat(47), maxSize: 450, labels: { "example.com/team": "a" } }] },
      { nodeGroups: [{ ...GROUP, instanceTypes: ["c7i-flex.large", "u7i-12tb.224xlarge", "m6i.metal"] }] },
    ]) {
      const result = validateConfig(raw);
      assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    }
  });
});
