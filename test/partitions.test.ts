/**
 * Every partition: regions map to the partition the AWS SDKs give them (botocore partitions.json), every
 * ARN the program writes is built from that partition, and no `arn:aws:` literal is left in the program.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { partitionOfRegion } from "../components/cluster/partitions";
import { PROJECT_ROOT, evaluateStackExpectingError } from "../offline/engine";
import { ConfigError } from "../stacks";
import { evaluatedWith } from "./helpers";

/** Regions and the partition botocore 1.43.67's partitions.json puts them in (its `regions` lists). */
const REGIONS: Record<string, string> = {
  "us-east-1": "aws",
  "il-central-1": "aws",
  "mx-central-1": "aws",
  "cn-north-1": "aws-cn",
  "us-gov-west-1": "aws-us-gov",
  "us-iso-east-1": "aws-iso",
  "us-isob-east-1": "aws-iso-b",
  "eu-isoe-west-1": "aws-iso-e",
  "us-isof-south-1": "aws-iso-f",
  "eusc-de-east-1": "aws-eusc",
};

/** The program's source files: what `index.ts` can reach (the offline world and tests are not the program). */
function programFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(dir, e.name);
      return e.isDirectory() ? walk(full) : e.name.endsWith(".ts") ? [full] : [];
    });
  return [
    path.join(PROJECT_ROOT, "index.ts"),
    ...["components", "stacks", "policy"].flatMap((d) => walk(path.join(PROJECT_ROOT, d))),
  ];
}

describe("AWS partitions", () => {
  it("puts each region in the partition the AWS SDKs do, and no other name in any", () => {
    for (const [region, partition] of Object.entries(REGIONS))
      assert.equal(partitionOfRegion(region), partition, region);
    for (const name of ["us-west", "mars-east-1", "US-EAST-1", "us-east-1a"])
      assert.equal(partitionOfRegion(name), undefined, name);
  });

  for (const [region, partition] of Object.entries({
    "us-gov-west-1": "aws-us-gov",
    "cn-north-1": "aws-cn",
    "us-west-2": "aws",
  })) {
    it(`${region}: every policy ARN the stack attaches is in ${partition}`, async () => {
      const evaluation = await evaluatedWith("dev", { config: { "aws:region": region } });
      const arns = evaluation.resources
        .filter((r) => r.type === "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
        .map((r) => String(r.inputs.policyArn));
      assert.ok(arns.length >= 3, arns.join(", "));
      for (const arn of arns) assert.ok(arn.startsWith(`arn:${partition}:iam::aws:policy/`), arn);
    });
  }

  it("us-gov-west-1: the plan shows no commercial-partition ARN, in its resources or its outputs", async () => {
    const evaluation = await evaluatedWith("dev", { config: { "aws:region": "us-gov-west-1" } });
    const text = JSON.stringify({ resources: evaluation.resources, outputs: evaluation.outputs });
    assert.ok(!text.includes("arn:aws:"), text.match(/.{60}arn:aws:.{60}/)?.[0]);
    assert.ok(text.includes("arn:aws-us-gov:"));
  });

  it("says it cannot know a region of a partition it has no data for, rather than deny it exists", async () => {
    const { error } = await evaluateStackExpectingError("dev", { config: { "aws:region": "us-iso-east-1" } });
    assert.ok(error instanceof ConfigError, String(error));
    assert.match(
      error.problems[0].rule,
      /the offline plan cannot know the availability zones of "us-iso-east-1"/,
    );
  });

  it("refuses a region name no partition has, at aws:region", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: { "aws:region": "mars-east-1" },
    });
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.problems[0].path, "aws:region");
    assert.equal(resources.filter((r) => r.custom).length, 0, "nothing registered");
  });

  it("leaves no arn:aws: literal in the program", () => {
    const found = programFiles().flatMap((file) =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line) => (line.includes("arn:aws:") ? [path.relative(PROJECT_ROOT, file)] : [])),
    );
    // The one exception: an example principal in a refusal's text (a commercial-partition role).
    assert.deepEqual(found, ["stacks/problems.ts"]);
  });
});
