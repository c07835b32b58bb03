/**
 * Lists of the config that become one API list or one resource per entry: their documented maxima, and
 * each entry once as the service compares entries (stacks/schema/lists.ts). Sources: EKS CreateNodegroup
 * ("you can specify 0-20 instance types for instanceTypes" with a launch template, botocore 1.43.67
 * data/eks/2017-11-01/service-2.json); Amazon VPC quotas ("Inbound rules per security group", default 60);
 * EC2 refuses a repeated rule (InvalidPermission.Duplicate).
 */
import * as assert from "node:assert/strict";
import { validateConfig } from "../stacks";
import { INSTANCE_TYPES } from "../stacks/schema/instance-types";
import { AMI_TYPES } from "../components/cluster/ami-types";
import { stackValue } from "./helpers";

const SELF_HOSTED = { runner: "self-hosted", labels: ["self-hosted", "linux"] };

/** The problems of dev's config with `changes`, as [path, rule]. */
function problems(changes: Record<string, unknown>): [string, string][] {
  const config = {
    nodeGroups: stackValue<unknown[]>("dev", "nodeGroups"),
    cluster: { version: "1.35" },
    ...changes,
  };
  const result = validateConfig(config);
  return result.ok ? [] : result.problems.map((p) => [p.path, p.rule]);
}

/** `count` distinct IPv4 /32 blocks. */
const hosts = (count: number) =>
  Array.from({ length: count }, (_, i) => `10.99.${Math.floor(i / 256)}.${i % 256}/32`);

describe("list limits", () => {
  it("takes 20 instance types on a node group, refuses 21", () => {
    // Types of the default AMI type's architecture, so nothing but the count can be refused.
    const x86 = INSTANCE_TYPES.filter((t) => /^(m5|m6i|c5|c6i|r5|r6i)\./.test(t) && !t.includes("metal"));
    assert.ok(x86.length >= 21, "enough x86_64 types in the table");
    assert.equal(AMI_TYPES.AL2023_x86_64_STANDARD.architecture, "x86_64");
    const group = (types: string[]) => [
      { name: "general", instanceTypes: types, minSize: 1, desiredSize: 1, maxSize: 2 },
    ];
    const at = (types: string[]) =>
      problems({ nodeGroups: group(types) }).filter(([path]) =>
        path.startsWith("nodeGroups[0].instanceTypes"),
      );
    assert.deepEqual(at(x86.slice(0, 20)), []);
    assert.deepEqual(
      at(x86.slice(0, 21)).map(([p]) => p),
      ["nodeGroups[0].instanceTypes"],
    );
  });

  it("fits the runners' rules into the control plane group's inbound quota, less @pulumi/eks's one rule", () => {
    const runners = (cidrs: number, quota?: number) =>
      problems({
        deploy: {
          ...SELF_HOSTED,
          runnerCidrs: hosts(cidrs),
          ...(quota ? { securityGroupRuleQuota: quota } : {}),
        },
      }).filter(([path]) => path.startsWith("deploy"));
    assert.deepEqual(runners(59), []);
    const [[path, rule]] = runners(60);
    assert.equal(path, "deploy.runnerCidrs");
    assert.match(rule, /makes 60 inbound rules .* has 1 already .* "Inbound rules per security group" is 60/);
    assert.deepEqual(runners(60, 100), [], "a raised quota, stated");
    const mixed = problems({
      deploy: {
        ...SELF_HOSTED,
        runnerCidrs: hosts(30),
        runnerSecurityGroupIds: Array.from(
          { length: 30 },
          (_, i) => `sg-${(i + 1).toString(16).padStart(8, "0")}`,
        ),
      },
    }).filter(([p]) => p.startsWith("deploy"));
    assert.equal(mixed.length, 1, "CIDRs and groups count together");
  });
});

describe("no entry twice, as the service compares them", () => {
  it("refuses a repeated block in the public access and runner CIDRs", () => {
    assert.deepEqual(
      problems({
        cluster: {
          version: "1.35",
          publicAccessCidrs: ["203.0.113.0/24", "198.51.100.0/24", "203.0.113.0/24"],
        },
      }),
      [["cluster.publicAccessCidrs[2]", "repeats entry 0 (the same block): keep one"]],
    );
    assert.deepEqual(
      problems({ deploy: { ...SELF_HOSTED, runnerCidrs: ["10.99.0.0/24", "10.99.0.0/24"] } }),
      [["deploy.runnerCidrs[1]", "repeats entry 0 (the same block): keep one"]],
    );
  });

  it("refuses one security group written with and without its account", () => {
    assert.deepEqual(
      problems({
        deploy: {
          ...SELF_HOSTED,
          runnerSecurityGroupIds: ["sg-0123456789abcdef0", "123456789012/sg-0123456789abcdef0"],
        },
      }),
      [
        [
          "deploy.runnerSecurityGroupIds[1]",
          "repeats entry 0 (the same group, with or without its account): keep one",
        ],
      ],
    );
  });

  it("refuses a repeated instance type, log type and AZ", () => {
    const group = [
      { name: "general", instanceTypes: ["t3.large", "t3.large"], minSize: 1, desiredSize: 1, maxSize: 2 },
    ];
    assert.deepEqual(problems({ nodeGroups: group }), [
      ["nodeGroups[0].instanceTypes[1]", "repeats entry 0: keep one"],
    ]);
    assert.deepEqual(problems({ cluster: { version: "1.35", logTypes: ["api", "audit", "api"] } }), [
      ["cluster.logTypes[2]", "repeats entry 0: keep one"],
    ]);
    assert.deepEqual(problems({ network: { excludeZones: ["usw2-az1", "usw2-az1"] } }), [
      ["network.excludeZones[1]", "repeats entry 0: keep one"],
    ]);
  });
});
