/**
 * The nodes: managed node groups that follow the cluster's version, on launch templates with IMDSv2,
 * encrypted gp3 volumes and tagged instances, volumes and network interfaces; AMI types whose
 * architecture matches the instance types.
 */
import * as assert from "node:assert/strict";
import {
  AMI_TYPES,
  AMI_TYPE_NAMES,
  instanceArchitecture,
  nodeBlockDevices,
} from "../components/cluster/ami-types";
import { type ConfigProblem, validateConfig } from "../stacks";
import { STACKS, evaluated, evaluatedWith, ofType, one, stackValue } from "./helpers";

const EKS = "eks:index:Cluster";
const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";
const LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate";
/** Taint effects as the EKS API spells them. */
const EKS_TAINT_EFFECTS: Record<string, string> = {
  NoSchedule: "NO_SCHEDULE",
  PreferNoSchedule: "PREFER_NO_SCHEDULE",
  NoExecute: "NO_EXECUTE",
};

interface GroupConfig {
  name: string;
  instanceTypes: string[];
  capacityType: string;
  amiType: string;
  diskSizeGiB: number;
  minSize: number;
  desiredSize: number;
  maxSize: number;
  labels: Record<string, string>;
  taints: { key: string; value: string; effect: string }[];
}

for (const stack of STACKS) {
  describe(`nodes of ${stack}`, () => {
    const groups = stackValue<GroupConfig[]>(stack, "nodeGroups");
    /** The config entry of a node group resource, by its name (groups may register in any order). */
    const groupOf = (resource: { name: string }): GroupConfig => {
      const group = groups.find((g) => `cluster-${g.name}` === resource.name);
      assert.ok(group, `${resource.name} is a group of ${stack}'s nodeGroups`);
      return group;
    };
    const version = stackValue<{ version: string }>(stack, "cluster").version;
    const tags = {
      ...stackValue<Record<string, string>>(stack, "tags"),
      "pulumi:project": "eks-calico",
      "pulumi:stack": stack,
    };

    it("creates one managed node group per config entry, only in private subnets", async () => {
      const evaluation = await evaluated(stack);
      const eks = one(evaluation, EKS);
      const role = one(evaluation, "aws:iam/role:Role", "cluster-node");
      const privateIds = ofType(evaluation, "aws:ec2/subnet:Subnet")
        .filter((s) => s.name.startsWith("network-private-"))
        .map((s) => `<subnet-id:${s.name}>`);
      const nodeGroups = ofType(evaluation, NODE_GROUP);
      assert.deepEqual(nodeGroups.map((g) => g.name).sort(), groups.map((g) => `cluster-${g.name}`).sort());
      nodeGroups.forEach((nodeGroup) => {
        const group = groupOf(nodeGroup);
        // The cluster's name and the role's ARN, taken from those resources.
        assert.deepEqual(nodeGroup.propertyDependencies.clusterName, [eks.urn]);
        assert.deepEqual(nodeGroup.propertyDependencies.nodeRoleArn, [role.urn]);
        assert.deepEqual(nodeGroup.inputs.subnetIds, privateIds);
        assert.deepEqual(nodeGroup.inputs.instanceTypes, group.instanceTypes);
        assert.equal(nodeGroup.inputs.capacityType, group.capacityType);
        assert.deepEqual(nodeGroup.inputs.scalingConfig, {
          minSize: group.minSize,
          desiredSize: group.desiredSize,
          maxSize: group.maxSize,
        });
        assert.deepEqual(nodeGroup.inputs.labels, group.labels);
        // Autoscalers own desiredSize after creation.
        assert.deepEqual(nodeGroup.options.ignoreChanges, ["scalingConfig.desiredSize"]);
      });
    });

    it("maps taints to the EKS spelling, the Calico startup taint last", async () => {
      const nodeGroups = ofType(await evaluated(stack), NODE_GROUP);
      nodeGroups.forEach((nodeGroup) => {
        const expected = [
          ...groupOf(nodeGroup).taints,
          { key: "eks-calico.io/policy-not-ready", value: "true", effect: "NoSchedule" as const },
        ].map((t) => ({
          key: t.key,
          value: t.value,
          effect: EKS_TAINT_EFFECTS[t.effect],
        }));
        assert.deepEqual(nodeGroup.inputs.taints, expected);
      });
    });

    it("runs every node group at the cluster's Kubernetes version, on the configured AMI type", async () => {
      const evaluation = await evaluated(stack);
      assert.equal(one(evaluation, EKS).inputs.version, version);
      ofType(evaluation, NODE_GROUP).forEach((nodeGroup) => {
        // Given by the program: the node group follows the control plane on every upgrade.
        assert.equal(nodeGroup.inputs.version, version, nodeGroup.name);
        assert.equal(nodeGroup.inputs.amiType, groupOf(nodeGroup).amiType, nodeGroup.name);
      });
    });

    it("gives every node an encrypted gp3 volume of diskSizeGiB and tags instances, volumes and ENIs", async () => {
      const evaluation = await evaluated(stack);
      for (const group of groups) {
        const template = one(evaluation, LAUNCH_TEMPLATE, `cluster-${group.name}`);
        assert.deepEqual(template.inputs.blockDeviceMappings, [
          {
            deviceName: "/dev/xvda",
            ebs: {
              volumeType: "gp3",
              encrypted: "true",
              deleteOnTermination: "true",
              volumeSize: group.diskSizeGiB,
            },
          },
        ]);
        const named = { ...tags, Name: `eks-calico-${stack}-${group.name}` };
        assert.deepEqual(template.inputs.tagSpecifications, [
          { resourceType: "instance", tags: named },
          { resourceType: "volume", tags: named },
          { resourceType: "network-interface", tags: named },
        ]);
        // The template sets no AMI: EKS picks it from amiType and version, which is what lets both be set.
        assert.equal(template.inputs.imageId, undefined);
      }
    });
  });
}

describe("AMI types and instance architectures", () => {
  it("reads the architecture from the instance type's name", () => {
    const arm = [
      "m7g.large",
      "c6gn.16xlarge",
      "r8gd.xlarge",
      "t4g.micro",
      "im4gn.large",
      "is4gen.xlarge",
      "g5g.xlarge",
      "a1.large",
      "hpc7g.16xlarge",
      "x2gd.medium",
      "m8g.48xlarge",
    ];
    const x86 = [
      "t3.large",
      "m6i.xlarge",
      "m6a.xlarge",
      "c7i-flex.large",
      "g4dn.xlarge",
      "p5en.48xlarge",
      "r7iz.large",
      "m5zn.metal",
      "inf2.xlarge",
      "trn1n.32xlarge",
      "u7i-12tb.224xlarge",
    ];
    for (const t of arm) assert.equal(instanceArchitecture(t), "arm64", t);
    for (const t of x86) assert.equal(instanceArchitecture(t), "x86_64", t);
    assert.equal(instanceArchitecture("large"), undefined);
  });

  it("puts the sized volume where each AMI keeps images and pods, every volume encrypted gp3", () => {
    const ebs = { volumeType: "gp3", encrypted: "true", deleteOnTermination: "true" };
    assert.deepEqual(nodeBlockDevices("AL2023_ARM_64_STANDARD", 80), [
      { deviceName: "/dev/xvda", ebs: { ...ebs, volumeSize: 80 } },
    ]);
    // Bottlerocket boots from a small /dev/xvda and keeps containers on /dev/xvdb.
    assert.deepEqual(nodeBlockDevices("BOTTLEROCKET_x86_64", 80), [
      { deviceName: "/dev/xvda", ebs },
      { deviceName: "/dev/xvdb", ebs: { ...ebs, volumeSize: 80 } },
    ]);
    for (const name of AMI_TYPE_NAMES) {
      assert.ok(
        nodeBlockDevices(name, 20).every((d) => d.ebs.encrypted === "true" && d.ebs.volumeType === "gp3"),
      );
    }
  });

  it("offers no Windows or Amazon Linux 2 AMI type (calico-node is Linux only; no AL2 AMIs for 1.33+)", () => {
    assert.deepEqual(
      AMI_TYPE_NAMES.filter((name) => /WINDOWS|^AL2_/.test(name)),
      [],
    );
    // Every Linux type of the EKS API's AmiTypes enum (components/cluster/ami-types.ts).
    assert.equal(Object.keys(AMI_TYPES).length, 13);
  });

  it("plans a Graviton group on an ARM AMI, and a Bottlerocket group's data volume on /dev/xvdb", async () => {
    const evaluation = await evaluatedWith("dev", {
      config: {
        "eks-calico:nodeGroups": [
          { name: "arm", instanceTypes: ["m7g.large", "c7g.large"], amiType: "AL2023_ARM_64_STANDARD" },
          { name: "br", instanceTypes: ["m6i.large"], amiType: "BOTTLEROCKET_x86_64", diskSizeGiB: 120 },
        ],
      },
    });
    assert.equal(one(evaluation, NODE_GROUP, "cluster-arm").inputs.amiType, "AL2023_ARM_64_STANDARD");
    const bottlerocket = one(evaluation, LAUNCH_TEMPLATE, "cluster-br").inputs.blockDeviceMappings as {
      deviceName: string;
      ebs: { volumeSize?: number };
    }[];
    assert.deepEqual(
      bottlerocket.map((d) => [d.deviceName, d.ebs.volumeSize]),
      [
        ["/dev/xvda", undefined],
        ["/dev/xvdb", 120],
      ],
    );
  });
});

describe("node group configuration", () => {
  function problems(nodeGroups: unknown[]): ConfigProblem[] {
    const result = validateConfig({ nodeGroups });
    return result.ok ? [] : result.problems;
  }

  it("refuses a Graviton instance type on the default x86_64 AMI, naming the ARM AMI types", () => {
    const [problem, ...rest] = problems([{ name: "general", instanceTypes: ["m7g.large"] }]);
    assert.deepEqual(rest, []);
    assert.equal(problem.path, "nodeGroups[0].instanceTypes[0]");
    assert.equal(problem.value, "m7g.large");
    assert.match(
      problem.rule,
      /arm64 instance type \(AWS Graviton\), but amiType AL2023_x86_64_STANDARD is x86_64/,
    );
    assert.match(problem.rule, /AL2023_ARM_64_STANDARD/);
  });

  it("refuses an x86_64 instance type on an ARM AMI", () => {
    const found = problems([{ name: "g", instanceTypes: ["m6i.large"], amiType: "BOTTLEROCKET_ARM_64" }]);
    assert.deepEqual(
      found.map((p) => p.path),
      ["nodeGroups[0].instanceTypes[0]"],
    );
    assert.match(found[0].rule, /x86_64 instance type, but amiType BOTTLEROCKET_ARM_64 is arm64/);
  });

  it("refuses a group mixing architectures, whatever its AMI type", () => {
    const found = problems([
      { name: "mixed", instanceTypes: ["m6i.large", "m7g.large"], amiType: "AL2023_ARM_64_STANDARD" },
    ]);
    assert.deepEqual(
      found.map((p) => p.path),
      ["nodeGroups[0].instanceTypes"],
    );
    assert.match(found[0].rule, /mixes arm64 \(m7g\.large\) and x86_64 \(m6i\.large\)/);
  });

  it("refuses disks smaller than the AMI snapshot or larger than gp3 allows, and unknown AMI types", () => {
    const found = problems([
      { name: "a", diskSizeGiB: 8 },
      { name: "b", diskSizeGiB: 70000 },
      { name: "c", amiType: "AL2_x86_64" },
    ]);
    assert.deepEqual(
      found.map((p) => p.path),
      ["nodeGroups[0].diskSizeGiB", "nodeGroups[1].diskSizeGiB", "nodeGroups[2].amiType"],
    );
  });

  it("refuses node groups that all repel CoreDNS, unless one is marked for cluster add-ons", () => {
    const tainted = { name: "a", taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] };
    const found = problems([tainted, { ...tainted, name: "b", taints: [{ key: "x", effect: "NoExecute" }] }]);
    // No ordinary node either: the enforcement probe has nowhere to run.
    assert.deepEqual(
      found.map((p) => p.path),
      ["nodeGroups", "calico.probe.enabled"],
    );
    assert.match(found[0].rule, /CoreDNS can run on.*clusterAddons: true/);
    assert.match(found[1].rule, /untainted node.*or set calico.probe.enabled: false/);
    assert.deepEqual(
      problems([{ ...tainted, clusterAddons: true }]).map((p) => p.path),
      ["calico.probe.enabled"],
    );
    const noProbe = validateConfig({
      nodeGroups: [{ ...tainted, clusterAddons: true }],
      calico: { probe: { enabled: false } },
    });
    assert.deepEqual(noProbe.ok ? [] : noProbe.problems, []);
    // PreferNoSchedule only discourages: CoreDNS may still run there.
    assert.deepEqual(problems([{ name: "p", taints: [{ key: "x", effect: "PreferNoSchedule" }] }]), []);
  });
});
