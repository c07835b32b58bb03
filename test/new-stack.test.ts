/**
 * Adding a stack as the README says (`cp Pulumi.staging.yaml Pulumi.<stack>.yaml`) never breaks
 * `npm test`, whatever region, Calico line and node groups the new stack chooses: in a copy of the repository
 * with one more stack file, in another region on the other Calico line and with a node group of its own
 * (Graviton, Spot, tainted), the tests that read every stack file (against the docs, its region's AZs, its
 * line's objects, its groups) still pass.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseDocument } from "yaml";
import { SUPPORTED_CALICO_MINORS, supportedMinorOf } from "../components/calico/defaults";
import { CALICO_RELEASES } from "../components/calico/releases";
import { partitionOfRegion } from "../components/cluster/partitions";
import { PROJECT_ROOT, loadStackConfig } from "../offline/engine";
import { REGIONS } from "../offline/world";
import { stackValue } from "./helpers";
import { copyTrackedFiles } from "./repo-copy";

/** The test files that read every stack file: the docs, and what depends on its region or Calico line. */
const SUITES = [
  "test/calico-stack.test.ts",
  "test/cluster.test.ts",
  "test/destroy.test.ts",
  "test/docs-inventory.test.ts",
  "test/docs-links.test.ts",
  "test/docs-numbers.test.ts",
  "test/network.test.ts",
  "test/nodes.test.ts",
  "test/readme.test.ts",
  "test/ordering.test.ts",
  "test/stacks.test.ts",
  "test/workflows.test.ts",
];

const SOURCE = "staging";
const NEW_STACK = "loadtest";
/** The group the copy adds after the source's own, unlike them in architecture, capacity and taints. */
const ADDED_GROUP = {
  name: "batch",
  instanceTypes: ["m6g.large"],
  capacityType: "SPOT",
  amiType: "AL2023_ARM_64_STANDARD",
  diskSizeGiB: 40,
  minSize: 0,
  desiredSize: 1,
  maxSize: 4,
  labels: { workload: "batch" },
  taints: [{ key: "workload", value: "batch", effect: "NoExecute" }],
};

/**
 * The copy's region and Calico release: the first region (by name) of the source's partition, other than
 * its own, that needs no opt-in and has the AZs the stack asks for; the newest release of the other line.
 */
function newStackSettings(): { region: string; version: string } {
  const own = loadStackConfig(SOURCE).values["aws:region"];
  const azs = stackValue<{ availabilityZones: number }>(SOURCE, "network").availabilityZones;
  const region = Object.keys(REGIONS)
    .sort()
    .find(
      (name) =>
        name !== own &&
        partitionOfRegion(name) === partitionOfRegion(own) &&
        !REGIONS[name].optIn &&
        REGIONS[name].zones.length >= azs,
    );
  assert.ok(region !== undefined, `no other region with ${azs} AZs`);
  const line = supportedMinorOf(stackValue<{ version: string }>(SOURCE, "calico").version);
  const other = SUPPORTED_CALICO_MINORS.find((minor) => minor !== line);
  assert.ok(other !== undefined, `no Calico line besides v${line}`);
  return { region, version: CALICO_RELEASES[other].slice(-1)[0] };
}

describe("a new stack file", function () {
  this.timeout(10 * 60_000);

  it("copied from staging under a new name, region and Calico line, with a node group added, passes the tests that read every stack file", () => {
    const { region, version } = newStackSettings();
    for (const suite of SUITES) assert.ok(fs.existsSync(path.join(PROJECT_ROOT, suite)), suite);
    const copy = copyTrackedFiles("eks-calico-new-stack-");
    try {
      const file = parseDocument(fs.readFileSync(path.join(copy, `Pulumi.${SOURCE}.yaml`), "utf8"));
      file.setIn(["config", "aws:region"], region);
      file.setIn(["config", "eks-calico:calico", "version"], version);
      file.addIn(["config", "eks-calico:nodeGroups"], file.createNode(ADDED_GROUP));
      fs.writeFileSync(path.join(copy, `Pulumi.${NEW_STACK}.yaml`), file.toString());
      const written = loadStackConfig(NEW_STACK, {}, copy).values;
      assert.equal(written["aws:region"], region);
      assert.equal((JSON.parse(written["eks-calico:calico"]) as { version: string }).version, version);
      const groups = JSON.parse(written["eks-calico:nodeGroups"]) as { name: string }[];
      assert.equal(groups.at(-1)?.name, ADDED_GROUP.name);
      const run = spawnSync(
        process.execPath,
        [
          path.join(copy, "node_modules", "mocha", "bin", "mocha.js"),
          // The copy's .mocharc.js (its timeout too), one process: this test already runs beside others.
          "--no-parallel",
          "--reporter",
          "dot",
          ...SUITES,
        ],
        { cwd: copy, encoding: "utf8", timeout: 9 * 60_000 },
      );
      assert.equal(run.status, 0, `${run.stdout}${run.stderr}`.slice(-4000));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
