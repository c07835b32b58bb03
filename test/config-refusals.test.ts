/** Table-driven refusals: each bad configuration is refused at its exact key path with its rule. */
import * as assert from "node:assert/strict";
import { type ConfigProblem, validateConfig } from "../stacks";

const GROUP = { name: "general", instanceTypes: ["t3.large"], minSize: 1, desiredSize: 2, maxSize: 3 };

function problemsFor(raw: Record<string, unknown>): ConfigProblem[] {
  const result = validateConfig(raw);
  assert.equal(result.ok, false, "expected the configuration to be refused");
  return result.ok ? [] : result.problems;
}

describe("stack configuration refusals", () => {
  // Each row: a bad configuration, the exact key path the error must name, and a phrase of the rule.
  const refusals: { title: string; raw: Record<string, unknown>; path: string; rule: RegExp }[] = [
    {
      title: "a malformed VPC CIDR",
      raw: { network: { cidr: "10.0.0.0/33" }, nodeGroups: [GROUP] },
      path: "network.cidr",
      rule: /IPv4 CIDR/,
    },
    {
      title: "a CIDR with host bits set",
      raw: { network: { cidr: "10.0.0.1/16" }, nodeGroups: [GROUP] },
      path: "network.cidr",
      rule: /host bits set; the network address is 10.0.0.0\/16/,
    },
    {
      title: "a VPC larger than AWS allows",
      raw: { network: { cidr: "10.0.0.0/8" }, nodeGroups: [GROUP] },
      path: "network.cidr",
      rule: /\/16 to \/28/,
    },
    {
      title: "a VPC too small for the subnet layout",
      raw: { network: { cidr: "10.0.0.0/24", availabilityZones: 3 }, nodeGroups: [GROUP] },
      path: "network.cidr",
      rule: /too small for the subnet layout: .* a \/30, and AWS's smallest subnet is a \/28, so the VPC must be a \/22 or larger$/,
    },
    {
      title: "one availability zone",
      raw: { network: { availabilityZones: 1 }, nodeGroups: [GROUP] },
      path: "network.availabilityZones",
      rule: /at least 2/,
    },
    {
      title: "seven availability zones",
      raw: { network: { availabilityZones: 7 }, nodeGroups: [GROUP] },
      path: "network.availabilityZones",
      rule: /at most 6/,
    },
    {
      title: "an unknown NAT mode",
      raw: { network: { natGateways: "many" }, nodeGroups: [GROUP] },
      path: "network.natGateways",
      rule: /single, perAz or none/,
    },
    {
      title: "an unsupported Kubernetes version",
      raw: { cluster: { version: "1.20" }, nodeGroups: [GROUP] },
      path: "cluster.version",
      rule: /^is older than every version EKS offers \(1\.32, .* as of November 2026; older ones have left extended support\)$/,
    },
    {
      title: "a bad public access CIDR",
      raw: { cluster: { publicAccessCidrs: ["everywhere"] }, nodeGroups: [GROUP] },
      path: "cluster.publicAccessCidrs[0]",
      rule: /IPv4 CIDR/,
    },
    {
      title: "an unknown log type",
      raw: { cluster: { logTypes: ["api", "kubelet"] }, nodeGroups: [GROUP] },
      path: "cluster.logTypes[1]",
      rule: /one of api, audit/,
    },
    { title: "no node groups", raw: { nodeGroups: [] }, path: "nodeGroups", rule: /at least one node group/ },
    { title: "missing node groups", raw: {}, path: "nodeGroups", rule: /is required/ },
    {
      title: "maxSize 0",
      raw: { nodeGroups: [{ ...GROUP, minSize: 0, desiredSize: 0, maxSize: 0 }] },
      path: "nodeGroups[0].maxSize",
      rule: /at least 1/,
    },
    {
      title: "minSize above desiredSize",
      raw: { nodeGroups: [{ ...GROUP, minSize: 3 }] },
      path: "nodeGroups[0].minSize",
      rule: /<= desiredSize \(2\)/,
    },
    {
      title: "desiredSize above maxSize",
      raw: { nodeGroups: [GROUP, { ...GROUP, name: "b", desiredSize: 5 }] },
      path: "nodeGroups[1].desiredSize",
      rule: /<= maxSize \(3\)/,
    },
    {
      title: "a negative size",
      raw: { nodeGroups: [{ ...GROUP, minSize: -1 }] },
      path: "nodeGroups[0].minSize",
      rule: />= 0/,
    },
    {
      title: "duplicate node-group names",
      raw: { nodeGroups: [GROUP, GROUP] },
      path: "nodeGroups[1].name",
      rule: /unique \(nodeGroups\[0\]/,
    },
    {
      title: "an invalid node-group name",
      raw: { nodeGroups: [{ ...GROUP, name: "my group" }] },
      path: "nodeGroups[0].name",
      rule: /letters, digits/,
    },
    {
      title: "no instance types",
      raw: { nodeGroups: [{ ...GROUP, instanceTypes: [] }] },
      path: "nodeGroups[0].instanceTypes",
      rule: /at least one instance type/,
    },
    {
      title: "an unknown capacity type",
      raw: { nodeGroups: [{ ...GROUP, capacityType: "RESERVED" }] },
      path: "nodeGroups[0].capacityType",
      rule: /ON_DEMAND or SPOT/,
    },
    {
      title: "a taint effect in EKS spelling",
      raw: { nodeGroups: [{ ...GROUP, taints: [{ key: "a", value: "b", effect: "NO_SCHEDULE" }] }] },
      path: "nodeGroups[0].taints[0].effect",
      rule: /NoSchedule, PreferNoSchedule, NoExecute/,
    },
    {
      title: "an invalid label key",
      raw: { nodeGroups: [{ ...GROUP, labels: { "bad key!": "x" } }] },
      path: 'nodeGroups[0].labels["bad key!"]',
      rule: /label key/,
    },
    {
      title: "a misspelled key inside a node group",
      raw: { nodeGroups: [{ ...GROUP, maxsize: 3 }] },
      path: "nodeGroups[0].maxsize",
      rule: /not a known key/,
    },
    {
      title: "an unknown top-level key",
      raw: { nodegroups: [], nodeGroups: [GROUP] },
      path: "nodegroups",
      rule: /not a known key/,
    },
    {
      title: "a Calico version that is not exact",
      raw: { calico: { version: "3.31" }, nodeGroups: [GROUP] },
      path: "calico.version",
      rule: /exact Calico release/,
    },
    {
      title: "a namespace that is not a DNS label",
      raw: { calico: { namespace: "Calico_System" }, nodeGroups: [GROUP] },
      path: "calico.namespace",
      rule: /DNS label/,
    },
    {
      title: "a reserved tag key",
      raw: { tags: { "aws:owner": "me" }, nodeGroups: [GROUP] },
      path: 'tags["aws:owner"]',
      rule: /must not start with aws:/,
    },
    {
      title: "protect as a string",
      raw: { protect: "yes", nodeGroups: [GROUP] },
      path: "protect",
      rule: /true or false/,
    },
    {
      title: "a Kubernetes version EKS does not offer",
      raw: { cluster: { version: "1.31" }, nodeGroups: [GROUP] },
      path: "cluster.version",
      rule: /^is older than every version EKS offers/,
    },
    {
      title: "an unquoted Kubernetes version",
      raw: { cluster: { version: 1.3 }, nodeGroups: [GROUP] },
      path: "cluster.version",
      rule: /^must be a Kubernetes minor version, quoted \("1\.35"\)$/,
    },
    {
      title: "a log retention CloudWatch does not accept",
      raw: { cluster: { logRetentionDays: 100 }, nodeGroups: [GROUP] },
      path: "cluster.logRetentionDays",
      rule: /retention CloudWatch accepts/,
    },
    {
      title: "an API endpoint open to all on a protected stack",
      raw: {
        protect: true,
        cluster: { publicAccessCidrs: ["10.1.0.0/16", "0.0.0.0/0"] },
        nodeGroups: [GROUP],
      },
      path: "cluster.publicAccessCidrs[1]",
      rule: /whole internet on a protected/,
    },
    {
      title: "an instance type without a size",
      raw: { nodeGroups: [{ ...GROUP, instanceTypes: ["t3"] }] },
      path: "nodeGroups[0].instanceTypes[0]",
      rule: /EC2 instance type/,
    },
    {
      title: "a fractional size",
      raw: { nodeGroups: [{ ...GROUP, maxSize: 2.5 }] },
      path: "nodeGroups[0].maxSize",
      rule: /whole number/,
    },
    {
      title: "an invalid taint key",
      raw: { nodeGroups: [{ ...GROUP, taints: [{ key: "no spaces", effect: "NoSchedule" }] }] },
      path: "nodeGroups[0].taints[0].key",
      rule: /taint key/,
    },
    {
      title: "a label value too long",
      raw: { nodeGroups: [{ ...GROUP, labels: { team: "x".repeat(64) } }] },
      path: "nodeGroups[0].labels.team",
      rule: /label value/,
    },
    {
      title: "a registry with a scheme",
      raw: { calico: { registry: "https://quay.io/calico" }, nodeGroups: [GROUP] },
      path: "calico.registry",
      rule: /no scheme/,
    },
    {
      title: "an unsupported Calico line",
      raw: { calico: { version: "v3.29.3" }, nodeGroups: [GROUP] },
      path: "calico.version",
      rule: /supported Calico line/,
    },
    {
      title: "a zero readiness timeout",
      raw: { calico: { readinessTimeoutMinutes: 0 }, nodeGroups: [GROUP] },
      path: "calico.readinessTimeoutMinutes",
      rule: /at least 1/,
    },
    {
      title: "a misspelled Calico key",
      raw: { calico: { namepsace: "x" }, nodeGroups: [GROUP] },
      path: "calico.namepsace",
      rule: /not a known key/,
    },
    {
      title: "a tag key with characters AWS refuses",
      raw: { tags: { "cost#center": "1" }, nodeGroups: [GROUP] },
      path: 'tags["cost#center"]',
      rule: /letters, digits, spaces/,
    },
    {
      title: "a tag value too long",
      raw: { tags: { owner: "x".repeat(257) }, nodeGroups: [GROUP] },
      path: "tags.owner",
      rule: /at most 256/,
    },
    {
      title: "more tags than AWS allows with ours",
      raw: {
        tags: Object.fromEntries(Array.from({ length: 47 }, (_, i) => [`t${i}`, "x"])),
        nodeGroups: [GROUP],
      },
      path: "tags",
      rule: /at most 46 tags: AWS allows 50 per resource, and a subnet also gets/,
    },
  ];
  for (const row of refusals) {
    it(`refuses ${row.title} at ${row.path}`, () => {
      const problems = problemsFor(row.raw);
      const problem = problems.find((p) => p.path === row.path);
      assert.ok(problem, `no problem at ${row.path}; got ${JSON.stringify(problems)}`);
      assert.match(problem.rule, row.rule);
    });
  }

  it("has at least 30 distinct refusals", () => {
    assert.ok(refusals.length >= 30);
    assert.equal(new Set(refusals.map((r) => r.title)).size, refusals.length);
  });
});
