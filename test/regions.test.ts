/**
 * Every AWS region plans offline; a region that does not exist is a configuration error naming
 * aws:region, as it would be when AWS refuses it.
 */
import * as assert from "node:assert/strict";
import { partitionOfRegion } from "../components/cluster/partitions";
import { REGIONS } from "../offline/world";
import { availabilityZones } from "../offline/world/aws-calls";
import { evaluateStackExpectingError } from "../offline/engine";
import { ConfigError } from "../stacks";
import { evaluatedWith, ofType } from "./helpers";
import { main } from "../scripts/start";

describe("regions", () => {
  it("knows every commercial region, with at least two AZs each", () => {
    const commercial = Object.keys(REGIONS).filter((region) => partitionOfRegion(region) === "aws");
    assert.ok(commercial.length >= 34, `${commercial.length} commercial regions`);
    for (const [region, facts] of Object.entries(REGIONS)) {
      const zones = availabilityZones(region).names as string[];
      assert.ok(zones.length >= 2, region);
      assert.deepEqual(
        zones,
        facts.zones.map((z) => `${region}${z}`),
      );
    }
  });

  for (const region of ["eu-west-2", "ap-southeast-7", "us-gov-west-1", "cn-northwest-1"]) {
    it(`plans the dev stack in ${region}, subnets in its AZs`, async () => {
      const evaluation = await evaluatedWith("dev", { config: { "aws:region": region } });
      const zones = ofType(evaluation, "aws:ec2/subnet:Subnet").map((s) => s.inputs.availabilityZone);
      assert.deepEqual(
        [...new Set(zones)].sort(),
        REGIONS[region].zones.slice(0, 2).map((z) => `${region}${z}`),
      );
      assert.equal(evaluation.outputs.region, region);
    });
  }

  it("says it cannot know the AZs of a region its table lacks, at aws:region, with the nearest ones", async () => {
    const { error } = await evaluateStackExpectingError("dev", { config: { "aws:region": "eu-nowhere-9" } });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [["aws:region", "eu-nowhere-9"]],
    );
    assert.match(
      error.problems[0].rule,
      /the offline plan cannot know the availability zones of "eu-nowhere-9": its region table \(offline\/world\/regions\.ts, botocore 1\.43\.67 of 2026-08-07\) has \d+ regions, .*a Region AWS launched since is answered by `pulumi preview` with credentials/,
    );
  });

  it("refuses a value that is not a region name at all", async () => {
    const { error } = await evaluateStackExpectingError("dev", { config: { "aws:region": "Oregon" } });
    assert.ok(ConfigError.isConfigError(error));
    assert.match(error.message, /aws:region: must be an AWS region name/);
  });

  it("exits 2 from npm start for an unknown region, without a stack trace", async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args.join(" "));
    let code: number;
    try {
      code = await main(["--config", "aws:region=eu-nowhere-9", "--out", "/tmp/eks-calico-regions-test"]);
    } finally {
      console.error = original;
    }
    assert.equal(code, 2);
    assert.match(errors.join("\n"), /aws:region/);
    assert.doesNotMatch(errors.join("\n"), /\n\s+at /);
  });
});
