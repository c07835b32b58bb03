/**
 * AMI types against instance families (components/cluster/ami-families.ts): for every instance type of the
 * instance table and every AMI type offered, the verdict follows each statement of the EKS User Guide as
 * the rows record it; and a node group breaking one is refused at its instance type with the rule.
 */
import * as assert from "node:assert/strict";
import {
  AMI_TYPES,
  AMI_TYPE_NAMES,
  instanceArchitecture,
  type AmiType,
} from "../components/cluster/ami-types";
import {
  ACCELERATED_AMI_TYPES,
  ACCELERATED_VARIANTS,
  GRAVITON1,
  NOT_FOR_ACCELERATED_AMIS,
  NOT_FOR_STANDARD_AMIS,
  amiFamilyProblem,
  familyNamedBy,
  instanceFamily,
} from "../components/cluster/ami-families";
import { INSTANCE_TYPES } from "../stacks/schema/instance-types";
import { validateConfig } from "../stacks";

/** The table's types an AMI type's architecture can run at all (the architecture rule is separate). */
const sameArchitecture = (amiType: AmiType) =>
  INSTANCE_TYPES.filter((type) => instanceArchitecture(type) === AMI_TYPES[amiType].architecture);

const listedFor = (amiType: AmiType, family: string) =>
  ACCELERATED_VARIANTS.some((row) => row.amiTypes.includes(amiType) && row.families.includes(family));

describe("AMI types against instance families (EKS User Guide)", () => {
  it("maps every accelerated AMI type to one row of the accelerated table, and no standard type", () => {
    for (const amiType of AMI_TYPE_NAMES) {
      const rows = ACCELERATED_VARIANTS.filter((row) => row.amiTypes.includes(amiType));
      if (ACCELERATED_AMI_TYPES.includes(amiType)) assert.equal(rows.length, 1, amiType);
      else
        assert.ok(
          rows.every((row) => row.accelerator === "AWS Neuron"),
          amiType,
        );
    }
    assert.ok(ACCELERATED_AMI_TYPES.length >= 7);
  });

  it("an accelerated AMI type runs exactly the families of its row", () => {
    for (const amiType of ACCELERATED_AMI_TYPES) {
      for (const type of sameArchitecture(amiType)) {
        const verdict = amiFamilyProblem(amiType, type) === undefined;
        assert.equal(verdict, listedFor(amiType, instanceFamily(type)), `${amiType} on ${type}`);
      }
    }
  });

  it("no accelerated AMI type runs the a, c, hpc, m or t families", () => {
    for (const amiType of ACCELERATED_AMI_TYPES) {
      for (const type of INSTANCE_TYPES) {
        const family = instanceFamily(type);
        if (
          !NOT_FOR_ACCELERATED_AMIS.families.some(
            (name) => /^[a-z]+$/.test(name) && familyNamedBy(family, name),
          )
        ) {
          continue;
        }
        assert.notEqual(amiFamilyProblem(amiType, type), undefined, `${amiType} on ${type}`);
      }
    }
  });

  it("a standard AMI type runs no g3, g4, inf or p family, except those a row lists for it", () => {
    const standard = AMI_TYPE_NAMES.filter((name) => !ACCELERATED_AMI_TYPES.includes(name));
    let refused = 0;
    for (const amiType of standard) {
      for (const type of sameArchitecture(amiType)) {
        const family = instanceFamily(type);
        const named = NOT_FOR_STANDARD_AMIS.families.some((name) => familyNamedBy(family, name));
        const graviton1 = GRAVITON1.amiTypes.includes(amiType) && GRAVITON1.families.includes(family);
        const expected = graviton1 || (named && !listedFor(amiType, family));
        assert.equal(amiFamilyProblem(amiType, type) !== undefined, expected, `${amiType} on ${type}`);
        if (expected) refused += 1;
      }
    }
    assert.ok(refused > 20, "the table has accelerated families");
  });

  it("Amazon Linux 2023 on Arm runs no first-generation Graviton (a1); Bottlerocket on Arm does", () => {
    const a1 = INSTANCE_TYPES.filter((type) => instanceFamily(type) === "a1");
    assert.ok(a1.length > 0);
    for (const type of a1) {
      for (const amiType of GRAVITON1.amiTypes) assert.notEqual(amiFamilyProblem(amiType, type), undefined);
      assert.equal(amiFamilyProblem("BOTTLEROCKET_ARM_64", type), undefined);
    }
  });

  it("the table's families of each row are of its AMI types' architecture", () => {
    for (const row of ACCELERATED_VARIANTS) {
      for (const type of INSTANCE_TYPES.filter((t) => row.families.includes(instanceFamily(t)))) {
        for (const amiType of row.amiTypes) {
          assert.equal(
            instanceArchitecture(type),
            AMI_TYPES[amiType].architecture,
            `${row.variant}: ${type}`,
          );
        }
      }
    }
  });
});

describe("node groups refused for an AMI type their family cannot run", () => {
  const group = (amiType: string, instanceTypes: string[]) => ({
    nodeGroups: [{ name: "gpu", amiType, instanceTypes, minSize: 1, desiredSize: 1, maxSize: 2 }],
  });
  const cases: { amiType: AmiType; types: string[]; index: number; rule: RegExp; hint: RegExp }[] = [
    {
      amiType: "AL2023_x86_64_NVIDIA",
      types: ["g5.xlarge", "m5.xlarge"],
      index: 1,
      rule: /not a family the AL2023 x86_64 NVIDIA AMI \(NVIDIA GPU\) supports.*accelerated AMIs for GPU instances/,
      hint: /AL2023_x86_64_STANDARD/,
    },
    {
      amiType: "AL2023_x86_64_NEURON",
      types: ["g6.xlarge"],
      index: 0,
      rule: /AL2023 x86_64 Neuron AMI \(AWS Neuron\) supports: it supports inf1, inf2, trn1, trn2/,
      hint: /AL2023_x86_64_NVIDIA/,
    },
    {
      amiType: "AL2023_x86_64_STANDARD",
      types: ["p4d.24xlarge"],
      index: 0,
      rule: /non-accelerated AMIs support none of the g3, g4, inf, p families.*Choose an optimal/,
      hint: /AL2023_x86_64_NVIDIA/,
    },
    {
      amiType: "AL2023_ARM_64_STANDARD",
      types: ["a1.xlarge"],
      index: 0,
      rule: /first-generation Graviton.*Graviton2 or later/,
      hint: /BOTTLEROCKET_ARM_64/,
    },
  ];
  for (const { amiType, types, index, rule, hint } of cases) {
    it(`${amiType} on ${types[index]}`, () => {
      const result = validateConfig(group(amiType, types));
      const problem = result.ok
        ? undefined
        : result.problems.find((p) => p.path === `nodeGroups[0].instanceTypes[${index}]`);
      assert.ok(problem, JSON.stringify(result));
      assert.equal(problem.value, types[index]);
      assert.match(problem.rule, rule);
      assert.match(problem.hint ?? "", hint);
    });
  }

  it("accepts each accelerated AMI type on a family of its row", () => {
    for (const row of ACCELERATED_VARIANTS) {
      const type = INSTANCE_TYPES.find(
        (t) => row.families.includes(instanceFamily(t)) && /\.(x|2x|4x)large$/.test(t),
      );
      if (type === undefined) continue;
      for (const amiType of row.amiTypes) {
        const result = validateConfig(group(amiType, [type]));
        const problems = result.ok
          ? []
          : result.problems.filter((p) => p.path.startsWith("nodeGroups[0].instanceTypes"));
        assert.deepEqual(problems, [], `${amiType} on ${type}`);
      }
    }
  });
});
