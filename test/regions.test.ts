/**
 * Every AWS region plans offline; a region newer than the offline table plans in the AZs it assumes,
 * saying so; a value that is no region name is a configuration error naming aws:region.
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

  it("plans a region newer than its table in the AZs every Region has, and more where network asks, saying so", async () => {
    const region = "eu-nowhere-9";
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ["a", "b"]],
      [{ "eks-calico:network.availabilityZones": 4 }, ["a", "b", "c", "d"]],
      [{ "eks-calico:network.zones": ["eu-nowhere-9e", "eun9-az6"] }, ["e", "f"]],
    ];
    for (const [config, letters] of cases) {
      const evaluation = await evaluatedWith("dev", { config: { "aws:region": region, ...config } });
      const zones = ofType(evaluation, "aws:ec2/subnet:Subnet").map((s) => s.inputs.availabilityZone);
      assert.deepEqual(
        [...new Set(zones)].sort(),
        letters.map((l) => `${region}${l}`),
        JSON.stringify(config),
      );
      assert.ok(
        evaluation.simulated.some((note) =>
          /eu-nowhere-9 is not in the offline region table \(offline\/world\/regions\.ts, botocore 1\.43\.67 of 2026-08-07, .*the plan assumed its AZs are .*`pulumi preview` with credentials asks AWS/.test(
            note,
          ),
        ),
        evaluation.simulated.join("\n"),
      );
    }
  });

  it("says what it assumed of a region newer than its table when a refusal rests on it", async () => {
    const { error } = await evaluateStackExpectingError("dev", {
      config: {
        "aws:region": "eu-nowhere-9",
        "eks-calico:network.excludeZones": ["eu-nowhere-9a", "eu-nowhere-9b"],
      },
    });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["network.availabilityZones"],
    );
    assert.match(
      error.message,
      /The offline plan assumed, where only AWS can answer:\n {2}- eu-nowhere-9 is not in/,
    );
  });

  it("refuses a value that is not a region name at all", async () => {
    const { error } = await evaluateStackExpectingError("dev", { config: { "aws:region": "Oregon" } });
    assert.ok(ConfigError.isConfigError(error));
    assert.match(error.message, /aws:region: must be an AWS region name/);
  });

  it("exits 2 from npm start for a value that is no region name, without a stack trace", async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args.join(" "));
    let code: number;
    try {
      code = await main(["--config", "aws:region=eu-nowhere", "--out", "/tmp/eks-calico-regions-test"]);
    } finally {
      console.error = original;
    }
    assert.equal(code, 2);
    assert.match(errors.join("\n"), /aws:region/);
    assert.doesNotMatch(errors.join("\n"), /\n\s+at /);
  });
});
