/**
 * The second `pulumi up` with nothing changed is a no-op, for every valid config: each generated stack
 * (test/generated-configs.ts) is deployed with the offline engine as `pulumi up` runs it, its outputs
 * stored as the engine stores them (test/deployed-stack.ts: through the SDK's protobuf Struct, keys
 * sorted), and planned again as the deployed stack: nothing may be created, updated, replaced, deleted or
 * marked "may replace". A failing case prints its seed and its shrunk config.
 */
import * as assert from "node:assert/strict";
import fc from "fast-check";
import { changedResources, deployOrDrop, planAgainst } from "./deployed-stack";
import { type GeneratedStack, generatedStacks } from "./generated-configs";
import { PROPERTY_SECONDS, checkProperty, propertyRun } from "./property-runs";

/**
 * What `generated` changes run again on its own deployment (nothing, for an idempotent program), as a
 * preview (a pull request's, a drift check's) or as the second `pulumi up`.
 */
async function secondPlan(
  generated: GeneratedStack,
  refusals: Map<string, number>,
  preview = true,
): Promise<string[]> {
  const deployed = await deployOrDrop(generated, refusals);
  const { diff } = await planAgainst(deployed, generated, { preview });
  return changedResources(diff);
}

describe("the second update of a deployed stack, with nothing changed", () => {
  it("keeps AZs listed out of alphabetical order where they are: no NAT gateway or node group moves", async () => {
    // The deployed order came back sorted from the `network` output's keys, so the second plan moved
    // the NAT gateway from us-west-2c to us-west-2a and replaced the node group.
    const generated = { stack: "dev", config: { "eks-calico:network.zones": ["us-west-2c", "us-west-2a"] } };
    assert.deepEqual(await secondPlan(generated, new Map()), []);
  });

  it("keeps AZs named by zone ID in the order listed", async () => {
    const generated = {
      stack: "dev",
      config: {
        "eks-calico:network.zones": ["usw2-az4", "usw2-az1", "usw2-az2"],
        "eks-calico:network.availabilityZones": 3,
      },
    };
    assert.deepEqual(await secondPlan(generated, new Map()), []);
  });

  const run = propertyRun(PROPERTY_SECONDS.idempotence);
  it(`plans no change for any generated config (seed ${run.seed})`, async function () {
    this.timeout(run.timeoutMs);
    const refusals = new Map<string, number>();
    const { tried, skipped } = await checkProperty(
      run,
      fc.asyncProperty(generatedStacks, fc.boolean(), async (generated, preview) => {
        assert.deepEqual(await secondPlan(generated, refusals, preview), [], JSON.stringify(generated));
      }),
    );
    const why = [...refusals].map(([path, count]) => `${path} ${count}`).join(", ");
    console.log(
      `      idempotence: ${tried} configs deployed and planned again, ${skipped} refused by the program${why === "" ? "" : ` (${why})`}, seed ${run.seed}`,
    );
  });
});
