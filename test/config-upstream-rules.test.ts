/**
 * Rules taken from EKS, the kubelet, Kubernetes, IAM and Calico's releases: each refused at its key path
 * with the value and the rule, and what those sources accept passes (labels the kubelet takes, every
 * Linux AMI type EKS lists, every published Calico release).
 */
import * as assert from "node:assert/strict";
import { type ConfigProblem, validateConfig } from "../stacks";
import { AMI_TYPE_NAMES, NOT_OFFERED } from "../components/cluster/ami-types";
import { ENI_LIMIT_ROWS } from "../components/cluster/eni-limits";
import { CALICO_RELEASES } from "../components/calico/releases";
import { KUBELET_PRESET_LABELS, labelKeyProblem } from "../stacks/schema/node-labels";
import { type NodePodSettings, podsOnOneNode, tolerates } from "../stacks/schema/node-pods";
import { maxPods } from "../stacks/schema/pod-capacity";

const GROUP = { name: "general", instanceTypes: ["t3.large"], minSize: 1, desiredSize: 1, maxSize: 3 };
const ROLE = "arn:aws:iam::111122223333:role";

function problemsOf(raw: Record<string, unknown>): ConfigProblem[] {
  const result = validateConfig(raw);
  return result.ok ? [] : result.problems;
}

function accepted(raw: Record<string, unknown>): void {
  const problems = problemsOf(raw);
  assert.deepEqual(problems, [], JSON.stringify(raw));
}

const withLabels = (labels: Record<string, string>) => ({ nodeGroups: [{ ...GROUP, labels }] });
const withTaints = (taints: unknown[]) => ({
  nodeGroups: [
    { ...GROUP, taints },
    { ...GROUP, name: "plain" },
  ],
});

const REFUSALS: {
  title: string;
  raw: Record<string, unknown>;
  path: string;
  value: unknown;
  rule: RegExp;
}[] = [
  {
    title: "a label key longer than EKS's 63 characters",
    raw: withLabels({ [`team.example.com/${"n".repeat(47)}`]: "a" }),
    path: `nodeGroups[0].labels["team.example.com/${"n".repeat(47)}"]`,
    value: `team.example.com/${"n".repeat(47)}`,
    rule: /^must be at most 63 characters, prefix included \(EKS's limit for label keys\); it has 64$/,
  },
  {
    title: "a label key with two slashes",
    raw: withLabels({ "a.io/b/c": "x" }),
    path: 'nodeGroups[0].labels["a.io/b/c"]',
    value: "a.io/b/c",
    rule: /^is not a valid Kubernetes label key: it may hold one '\/' only/,
  },
  {
    title: "a label key whose prefix is no DNS subdomain",
    raw: withLabels({ "Example.com/team": "x" }),
    path: 'nodeGroups[0].labels["Example.com/team"]',
    value: "Example.com/team",
    rule: /must have a DNS-subdomain prefix before the '\/'/,
  },
  {
    title: "an empty label value",
    raw: withLabels({ dedicated: "" }),
    path: "nodeGroups[0].labels.dedicated",
    value: "",
    rule: /^must not be empty: EKS takes label values of 1 to 63 characters/,
  },
  {
    title: "a label value of 64 characters",
    raw: withLabels({ team: "v".repeat(64) }),
    path: "nodeGroups[0].labels.team",
    value: "v".repeat(64),
    rule: /at most 63 characters/,
  },
  {
    title: "a node-role.kubernetes.io/ label, which the kubelet refuses",
    raw: withLabels({ "node-role.kubernetes.io/worker": "true" }),
    path: 'nodeGroups[0].labels["node-role.kubernetes.io/worker"]',
    value: "node-role.kubernetes.io/worker",
    rule: /kubelet accepts only node\.kubernetes\.io\/ and kubelet\.kubernetes\.io\/ labels: nodes with it never join/,
  },
  {
    title: "a k8s.io/ label",
    raw: withLabels({ "x.k8s.io/pool": "a" }),
    path: 'nodeGroups[0].labels["x.k8s.io/pool"]',
    value: "x.k8s.io/pool",
    rule: /kubernetes\.io\/k8s\.io namespace/,
  },
  {
    title: "a label Kubernetes sets itself",
    raw: withLabels({ "topology.kubernetes.io/zone": "us-west-2a" }),
    path: 'nodeGroups[0].labels["topology.kubernetes.io/zone"]',
    value: "topology.kubernetes.io/zone",
    rule: /^is a label Kubernetes sets on every node itself/,
  },
  {
    title: "an eks.amazonaws.com/ label",
    raw: withLabels({ "eks.amazonaws.com/nodegroup": "x" }),
    path: 'nodeGroups[0].labels["eks.amazonaws.com/nodegroup"]',
    value: "eks.amazonaws.com/nodegroup",
    rule: /eks\.amazonaws\.com\/, which EKS reserves/,
  },
  {
    title: "a taint key longer than EKS's 63 characters",
    raw: withTaints([{ key: `a.example.com/${"k".repeat(50)}`, effect: "NoSchedule" }]),
    path: "nodeGroups[0].taints[0].key",
    value: `a.example.com/${"k".repeat(50)}`,
    rule: /^must be at most 63 characters, prefix included \(EKS's limit for taint keys\)/,
  },
  {
    title: "a taint value that is not a label value",
    raw: withTaints([{ key: "dedicated", value: "gpu nodes", effect: "NoSchedule" }]),
    path: "nodeGroups[0].taints[0].value",
    value: "gpu nodes",
    rule: /^must be a valid Kubernetes label value/,
  },
  {
    title: "more than 50 taints",
    raw: withTaints(Array.from({ length: 51 }, (_, i) => ({ key: `t${i}`, effect: "PreferNoSchedule" }))),
    path: "nodeGroups[0].taints",
    value: undefined,
    rule: /^must hold at most 50 taints, EKS's limit per node group$/,
  },
  {
    title: "two taints with the same key and effect",
    raw: withTaints([
      { key: "dedicated", value: "a", effect: "NoSchedule" },
      { key: "dedicated", value: "b", effect: "NoSchedule" },
    ]),
    path: "nodeGroups[0].taints[1]",
    value: { key: "dedicated", value: "b", effect: "NoSchedule" },
    rule: /^repeats taints\[0\] \(key dedicated, effect NoSchedule\): Kubernetes refuses two taints with the same key and effect/,
  },
  {
    title: "a Windows AMI type, with its reason",
    raw: { nodeGroups: [{ ...GROUP, amiType: "WINDOWS_FULL_2025_x86_64" }] },
    path: "nodeGroups[0].amiType",
    value: "WINDOWS_FULL_2025_x86_64",
    rule: /^is a Windows AMI: calico-node runs on Linux nodes only \(must be one of AL2023_x86_64_STANDARD, /,
  },
  {
    title: "an Amazon Linux 2 AMI type, with its reason",
    raw: { nodeGroups: [{ ...GROUP, amiType: "AL2_ARM_64" }] },
    path: "nodeGroups[0].amiType",
    value: "AL2_ARM_64",
    rule: /^is Amazon Linux 2, whose EKS AMIs stopped on 26 November 2025/,
  },
  {
    title: "an instance type too small for the pods that may run on one node",
    raw: { nodeGroups: [{ ...GROUP, instanceTypes: ["t3.large", "t3.micro"] }] },
    path: "nodeGroups[0].instanceTypes[1]",
    value: "t3.micro",
    rule: /^holds at most 4 pods \(2 network interfaces x \(2 - 1\) addresses \+ 2, the VPC CNI's max pods\), but up to 10 of the stack's own pods may run on one node of this group: aws-node, kube-proxy, calico-node, calico-typha, calico-typha-autoscaler, coredns x2, probe server and clients x3$/,
  },
  {
    title: "the same IAM role twice, spelt with another case and a path",
    raw: {
      cluster: {
        access: [
          { principalArn: `${ROLE}/platform/Admins`, level: "admin" },
          { principalArn: `${ROLE}/admins`, level: "view" },
        ],
      },
      nodeGroups: [GROUP],
    },
    path: "cluster.access[1].principalArn",
    value: `${ROLE}/admins`,
    rule: /^must be unique: cluster\.access\[0\] names the same IAM principal as arn:aws:iam::111122223333:role\/platform\/Admins \(IAM names ignore case and path/,
  },
  {
    title: "tag keys that differ only in case",
    raw: { tags: { CostCenter: "1", costcenter: "2" }, nodeGroups: [GROUP] },
    path: "tags.costcenter",
    value: "costcenter",
    rule: /^differs only in case from the tag "CostCenter": IAM roles, which get these tags too, do not tell tag keys apart by case/,
  },
  {
    title: "a tag key the program sets, in another case",
    raw: { tags: { "Pulumi:Project": "x" }, nodeGroups: [GROUP] },
    path: 'tags["Pulumi:Project"]',
    value: "Pulumi:Project",
    rule: /^is the program's own pulumi:project tag in another case/,
  },
  {
    title: "a Calico release that was never published",
    raw: { calico: { version: "v3.32.9" }, nodeGroups: [GROUP] },
    path: "calico.version",
    value: "v3.32.9",
    rule: /^is not a published Calico release: its line has v3\.32\.0, v3\.32\.1 \(projectcalico\/calico release tags\)$/,
  },
];

describe("rules from EKS, the kubelet, Kubernetes, IAM and Calico's releases", () => {
  for (const row of REFUSALS) {
    it(`refuses ${row.title} at ${row.path}`, () => {
      const problems = problemsOf(row.raw);
      const problem = problems.find((p) => p.path === row.path);
      assert.ok(problem, `no problem at ${row.path}; got ${JSON.stringify(problems)}`);
      if (row.value !== undefined) assert.deepEqual(problem.value, row.value);
      assert.match(problem.rule, row.rule);
    });
  }

  it("names each rule once", () => {
    assert.equal(new Set(REFUSALS.map((r) => r.title)).size, REFUSALS.length);
  });
});

describe("what those sources accept", () => {
  it("accepts node.kubernetes.io/ and kubelet.kubernetes.io/ labels and their subdomains, the kubelet's own", () => {
    accepted(
      withLabels({
        "node.kubernetes.io/role": "system",
        "kubelet.kubernetes.io/managed": "true",
        "pool.node.kubernetes.io/tier": "gold",
        "example.com/team": "payments",
        [`e.io/${"n".repeat(58)}`]: "v".repeat(63),
      }),
    );
  });

  it("accepts an empty taint value and the same taint key with another effect", () => {
    accepted(
      withTaints([
        { key: "dedicated", effect: "NoSchedule" },
        { key: "dedicated", effect: "NoExecute" },
        { key: "gpu.example.com/model", value: "a100", effect: "PreferNoSchedule" },
      ]),
    );
  });

  it("accepts 50 taints", () => {
    accepted(
      withTaints(Array.from({ length: 50 }, (_, i) => ({ key: `t${i}`, effect: "PreferNoSchedule" }))),
    );
  });

  it("accepts every Linux AMI type of EKS's list, Neuron and FIPS included, on its architecture", () => {
    const added = [
      ["AL2023_x86_64_NEURON", "inf2.xlarge"],
      ["BOTTLEROCKET_x86_64_FIPS", "m6i.large"],
      ["BOTTLEROCKET_ARM_64_FIPS", "m7g.large"],
      ["BOTTLEROCKET_x86_64_NVIDIA_FIPS", "g5.xlarge"],
      ["BOTTLEROCKET_ARM_64_NVIDIA_FIPS", "g5g.xlarge"],
    ];
    for (const [amiType, instanceType] of added) {
      accepted({ nodeGroups: [{ ...GROUP, amiType, instanceTypes: [instanceType] }] });
    }
    assert.equal(AMI_TYPE_NAMES.length, 13);
    // With the refused ones, the 23 values of the EKS API's AmiTypes enum (botocore, August 2026).
    assert.equal(AMI_TYPE_NAMES.length + Object.keys(NOT_OFFERED).length, 23);
  });

  it("accepts every published release of each supported Calico line", () => {
    for (const version of Object.values(CALICO_RELEASES).flat()) {
      accepted({ calico: { version }, nodeGroups: [GROUP] });
    }
  });

  it("accepts distinct principals: a user and a role of one name, the same role in two accounts", () => {
    accepted({
      cluster: {
        access: [
          { principalArn: `${ROLE}/admins`, level: "admin" },
          { principalArn: "arn:aws:iam::111122223333:user/admins", level: "view" },
          { principalArn: "arn:aws:iam::444455556666:role/admins", level: "view" },
        ],
      },
      nodeGroups: [GROUP],
    });
  });

  it("accepts tag keys that differ by more than case", () => {
    accepted({ tags: { CostCenter: "1", "cost-center": "2", environment: "dev" }, nodeGroups: [GROUP] });
  });

  it("accepts the smallest types that hold the pods: t3.small untainted, m6g.medium tainted", () => {
    const arm = { ...GROUP, name: "edge", instanceTypes: ["m6g.medium"], amiType: "AL2023_ARM_64_STANDARD" };
    accepted({
      nodeGroups: [
        { ...GROUP, instanceTypes: ["t3.small"] },
        { ...arm, taints: [{ key: "edge", effect: "NoSchedule" }] },
      ],
    });
    // Untainted, the same group may get CoreDNS and the probe too: 10 pods, over its 8.
    const problems = problemsOf({ nodeGroups: [{ ...GROUP, instanceTypes: ["t3.small"] }, arm] });
    assert.deepEqual(
      problems.map((p) => [p.path, p.value]),
      [["nodeGroups[1].instanceTypes[0]", "m6g.medium"]],
    );
    assert.equal(problems[0].hint?.startsWith("use m6g.large (29 pods) or larger"), true);
  });
});

describe("the pods one node may get", () => {
  const settings: NodePodSettings = {
    installer: "manifest",
    apiServer: true,
    observability: false,
    probe: true,
    clusterAddonTaints: [],
  };
  const names = (s: NodePodSettings, taints: { key: string; value: string; effect: string }[]) =>
    podsOnOneNode(s, taints).map((w) => `${w.name}:${w.perNode}`);

  it("gives a tainted group only what tolerates its taints", () => {
    assert.deepEqual(names(settings, [{ key: "dedicated", value: "x", effect: "NoSchedule" }]), [
      "aws-node:1",
      "kube-proxy:1",
      "calico-node:1",
      "calico-typha:1",
      "calico-typha-autoscaler:1",
    ]);
    // A PreferNoSchedule taint repels nothing.
    assert.equal(names(settings, [{ key: "a", value: "", effect: "PreferNoSchedule" }]).length, 7);
  });

  it("lets CoreDNS onto the groups marked clusterAddons, and counts the operator's pods", () => {
    const taint = { key: "dedicated", value: "system", effect: "NoSchedule" };
    assert.ok(names({ ...settings, clusterAddonTaints: [taint] }, [taint]).includes("coredns:2"));
    const operator = { ...settings, installer: "operator" as const, observability: true };
    assert.deepEqual(names(operator, []), [
      "aws-node:1",
      "kube-proxy:1",
      "calico-node:1",
      "csi-node-driver:1",
      "tigera-operator:1",
      "calico-typha:1",
      "calico-kube-controllers:1",
      "calico-apiserver:2",
      "goldmane:1",
      "whisker:1",
      "coredns:2",
      "probe server and clients:3",
    ]);
    // CriticalAddonsOnly: calico-kube-controllers, Goldmane and Whisker tolerate it; the API server does not.
    const critical = names(operator, [{ key: "CriticalAddonsOnly", value: "true", effect: "NoSchedule" }]);
    assert.ok(critical.includes("calico-kube-controllers:1") && !critical.includes("calico-apiserver:2"));
  });

  it("matches tolerations to taints as Kubernetes does", () => {
    const taint = { key: "k", value: "v", effect: "NoSchedule" };
    assert.ok(tolerates({ operator: "Exists" }, taint));
    assert.ok(tolerates({ key: "k", operator: "Exists", effect: "NoSchedule" }, taint));
    assert.ok(tolerates({ key: "k", value: "v" }, taint));
    assert.ok(!tolerates({ key: "k", value: "w" }, taint));
    assert.ok(!tolerates({ key: "k", operator: "Exists", effect: "NoExecute" }, taint));
  });

  it("reads max pods as misc/eni-max-pods.txt lists them", () => {
    // amazon-vpc-cni-k8s misc/eni-max-pods.txt (commit b5218838): t3.micro 4, t3.small 11, m6g.medium 8,
    // t3.large 35, m5.large 29.
    for (const [type, pods] of [
      ["t3.micro", 4],
      ["t3.small", 11],
      ["m6g.medium", 8],
      ["t3.large", 35],
      ["m5.large", 29],
    ] as const) {
      assert.equal(maxPods(type), pods, type);
    }
    assert.equal(maxPods("t3.huge"), undefined);
    assert.ok(ENI_LIMIT_ROWS.every(([, , types]) => types.split(" ").every((t) => (maxPods(t) ?? 0) >= 4)));
  });
});

describe("label keys as Kubernetes reads them", () => {
  it("takes a prefix and a name, and refuses the rest", () => {
    assert.equal(labelKeyProblem("example.com/Team_1"), undefined);
    assert.equal(labelKeyProblem("team"), undefined);
    assert.match(labelKeyProblem("/team") ?? "", /DNS-subdomain prefix/);
    assert.match(labelKeyProblem("example.com/") ?? "", /name of 1 to 63/);
    assert.match(labelKeyProblem("-team") ?? "", /starting and ending with a letter or digit/);
  });

  it("refuses every label Kubernetes presets, those under node.kubernetes.io/ too", () => {
    for (const key of KUBELET_PRESET_LABELS) {
      const problem = problemsOf(withLabels({ [key]: "x" })).find((p) => p.value === key);
      assert.match(problem?.rule ?? "", /sets on every node itself/, key);
    }
  });
});
