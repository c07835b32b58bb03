/**
 * The AWS limits as data (stacks/schema/aws-limits.ts), each with its source and the day it was read, and
 * the schema refusing by them: a quota key with a ceiling (rules per security group times security groups
 * per network interface cannot exceed 1,000, Amazon VPC quotas), the gp3 size AWS raised to 65,536 GiB
 * (EC2 CreateVolume), and registry hosts the nodes of an IPv4 cluster cannot reach (an IPv6 literal).
 */
import * as assert from "node:assert/strict";
import { z } from "zod";
import { validateConfig, stackConfigSchema } from "../stacks";
import { AWS_LIMITS, type PlatformLimit } from "../stacks/schema/aws-limits";
import { hasIpv6LiteralHost } from "../stacks/schema/registry";
import { stackValue } from "./helpers";
import EKS_SERVICE_QUOTAS from "./fixtures/eks-service-quotas.json";

const SELF_HOSTED = { runner: "self-hosted", labels: ["self-hosted", "linux"] };

/** The problems of dev's config with `changes`, as [path, rule]. */
function problems(changes: Record<string, unknown>): [string, string][] {
  const result = validateConfig({
    nodeGroups: stackValue<unknown[]>("dev", "nodeGroups"),
    cluster: { version: "1.35" },
    ...changes,
  });
  return result.ok ? [] : result.problems.map((p) => [p.path, p.rule]);
}

/** dev's node group with its data volume at `size` GiB. */
const diskOf = (size: number) => ({
  nodeGroups: [{ ...stackValue<Record<string, unknown>[]>("dev", "nodeGroups")[0], diskSizeGiB: size }],
});

describe("AWS limits as data", () => {
  it("gives every limit a value, a name, a source and the day it was read", () => {
    const limits = Object.entries(AWS_LIMITS) as [string, PlatformLimit][];
    assert.ok(limits.length >= 10, `${limits.length} limits`);
    for (const [key, limit] of limits) {
      assert.ok(Number.isInteger(limit.value) && limit.value > 0, `${key}: value`);
      assert.ok(limit.name.trim().length > 0, `${key}: name`);
      assert.ok(limit.source.trim().length > 10, `${key}: source`);
      assert.match(limit.read, /^\d{4}-\d{2}-\d{2}$/, `${key}: read`);
      assert.equal(
        new Date(`${limit.read}T00:00:00Z`).toISOString().slice(0, 10),
        limit.read,
        `${key}: a real day`,
      );
      assert.equal(typeof limit.adjustable, "boolean", `${key}: adjustable`);
    }
  });

  it("holds every EKS quota row to the EKS service quotas table as read (name, default, adjustable)", () => {
    const table = EKS_SERVICE_QUOTAS.quotas;
    const eksRows = (Object.values(AWS_LIMITS) as PlatformLimit[]).filter((limit) =>
      limit.source.includes("/eks/latest/userguide/service-quotas.html"),
    );
    assert.ok(eksRows.length >= 3, `${eksRows.length} rows cite the EKS quotas page`);
    for (const limit of eksRows) {
      const row = table.find((quota) => quota.name === limit.name);
      assert.ok(row !== undefined, `${limit.name}: not in the EKS quotas table`);
      assert.deepEqual(
        { value: limit.value, adjustable: limit.adjustable, read: limit.read },
        { value: row.default, adjustable: row.adjustable, read: EKS_SERVICE_QUOTAS.read },
        limit.name,
      );
    }
  });

  it("holds the schema's bounds to the rows", () => {
    const schema = z.toJSONSchema(stackConfigSchema, { io: "input", unrepresentable: "any" }) as {
      properties: Record<string, { properties?: Record<string, { maximum?: number; maxItems?: number }> }> &
        Record<string, { items?: { properties?: Record<string, { maximum?: number }> } }>;
    };
    const deploy = schema.properties.deploy.properties ?? {};
    assert.equal(
      deploy.securityGroupRuleQuota.maximum,
      AWS_LIMITS.rulesPerSecurityGroupTimesGroupsPerInterface.value,
    );
    const group = schema.properties.nodeGroups.items?.properties ?? {};
    assert.equal(group.diskSizeGiB.maximum, AWS_LIMITS.gp3VolumeSizeGiB.value);
    assert.equal(
      schema.properties.cluster.properties?.publicAccessCidrs.maxItems,
      AWS_LIMITS.publicAccessCidrsPerCluster.value,
    );
  });
});

describe("a quota key has the ceiling AWS states", () => {
  it("refuses deploy.securityGroupRuleQuota above 1,000, naming the rule; takes 1,000", () => {
    const quota = (value: number) =>
      problems({
        deploy: { ...SELF_HOSTED, runnerCidrs: ["10.99.0.0/24"], securityGroupRuleQuota: value },
      }).filter(([path]) => path.startsWith("deploy"));
    assert.deepEqual(quota(1000), []);
    const [[path, rule], ...rest] = quota(1500);
    assert.deepEqual(rest, []);
    assert.equal(path, "deploy.securityGroupRuleQuota");
    assert.match(
      rule,
      /^must be at most 1,000: .*rules per security group times security groups per network interface cannot exceed 1,000 \(Amazon VPC quotas, Security groups\)$/,
    );
  });
});

describe("a limit AWS raised", () => {
  it("takes a gp3 data volume up to 65,536 GiB and refuses one above", () => {
    const at = (size: number) => problems(diskOf(size)).filter(([path]) => path.endsWith("diskSizeGiB"));
    assert.deepEqual(at(20000), [], "20,000 GiB, refused at 16,384 before");
    assert.deepEqual(at(65536), []);
    const [[path, rule]] = at(70000);
    assert.equal(path, "nodeGroups[0].diskSizeGiB");
    assert.match(
      rule,
      /^must be at most 65536, the largest gp3 volume \(EC2 CreateVolume: gp3 1 - 65,536 GiB\)$/,
    );
  });
});

describe("a registry the nodes can reach", () => {
  const V6 = "[2001:db8::10]:5000/mirror";
  // Every registry key the schema has, by the class: any key named registry or ...Registry.
  const KEYS: [string, Record<string, unknown>][] = [
    ["calico.registry", { registry: V6 }],
    ["calico.autoscalerRegistry", { autoscalerRegistry: V6 }],
    ["calico.operatorRegistry", { installer: "operator", operatorRegistry: V6 }],
    ["calico.probe.registry", { probe: { registry: V6 } }],
  ];

  it("tells an IPv6 literal host from a name or an IPv4 address", () => {
    assert.equal(hasIpv6LiteralHost(V6), true);
    assert.equal(hasIpv6LiteralHost("[::1]/calico"), true);
    assert.equal(hasIpv6LiteralHost("10.0.0.5:5000/calico"), false);
    assert.equal(hasIpv6LiteralHost("quay.io/calico"), false);
  });

  for (const [path, calico] of KEYS) {
    it(`refuses an IPv6 literal host at ${path} on the IPv4 cluster the stack makes`, () => {
      const calicoConfig = { ...stackValue<Record<string, unknown>>("dev", "calico"), ...calico };
      const found = problems({ calico: calicoConfig }).filter(([at]) => at === path);
      assert.equal(found.length, 1, JSON.stringify(problems({ calico: calicoConfig })));
      assert.match(
        found[0][1],
        /^must name a registry the nodes can reach: its host is an IPv6 address, and the cluster this stack makes is IPv4/,
      );
      // An IPv4 address is taken.
      const v4 = JSON.parse(JSON.stringify(calicoConfig).replaceAll("[2001:db8::10]", "10.0.0.10")) as object;
      assert.deepEqual(
        problems({ calico: v4 }).filter(([at]) => at === path),
        [],
      );
    });
  }

  it("refuses an IPv6 literal on an existing cluster, which must be IPv4, and takes it by kubeconfig", () => {
    const calico = { ...stackValue<Record<string, unknown>>("dev", "calico"), registry: V6 };
    const existing = problems({ cluster: { existing: { name: "platform-prod", maxNodes: 20 } }, calico });
    assert.match(
      existing.find(([at]) => at === "calico.registry")?.[1] ?? "",
      /its host is an IPv6 address, and the cluster must be IPv4 \(cluster\.existing takes no IPv6 cluster/,
    );
    // A cluster reached by kubeconfig may be of either family: nothing reads it before up.
    const result = validateConfig({
      cluster: { kubeconfig: { path: "kubeconfig.yaml", maxNodes: 20, vpcCniConfigured: true } },
      calico,
    });
    const paths = result.ok ? [] : result.problems.map((p) => p.path);
    assert.ok(!paths.includes("calico.registry"), JSON.stringify(paths));
  });
});
