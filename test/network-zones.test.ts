/**
 * Which AZs a stack uses (stacks/zones.ts): by count, by name or zone ID, with exclusions and the zone IDs
 * EKS refuses cluster subnets in ("Subnet requirements for clusters", EKS User Guide network-reqs.html:
 * use1-az3, usw1-az2, cac1-az3), and which deployed AZs may go (those the cluster was not created in).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { EKS_DISALLOWED_ZONE_IDS, type RegionZones, chooseZones } from "../stacks/zones";
import { PROJECT_ROOT } from "../offline/engine";
import { offlineZoneId } from "../offline/world/aws-calls";
import { validateConfig } from "../stacks";
import { layoutOutput, newLayout } from "../components/network/layout";
import { diffDocuments } from "../offline/diff";
import { resourcesDocument } from "../offline/plan";
import { networkLayout } from "../stacks/previous-network";
import { evaluatedWith, ofType, stackValue } from "./helpers";

/** us-east-1 of an account where us-east-1c is use1-az3 and us-east-1a is use1-az6. */
const US_EAST_1: RegionZones = {
  region: "us-east-1",
  all: [
    { name: "us-east-1a", id: "use1-az6" },
    { name: "us-east-1b", id: "use1-az1" },
    { name: "us-east-1c", id: "use1-az3" },
    { name: "us-east-1d", id: "use1-az2" },
    { name: "us-east-1e", id: "use1-az4" },
  ],
  offered: ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1e"],
};
const US_WEST_2: RegionZones = {
  region: "us-west-2",
  all: ["a", "b", "c", "d"].map((letter, i) => ({ name: `us-west-2${letter}`, id: `usw2-az${i + 1}` })),
  offered: ["us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"],
};

const zones = (result: ReturnType<typeof chooseZones>) => {
  assert.ok("zones" in result, JSON.stringify(result));
  return result;
};
const problems = (result: ReturnType<typeof chooseZones>) => {
  assert.ok("problems" in result, JSON.stringify(result));
  return result.problems.map((p) => [p.path, p.value, p.rule]);
};

describe("AZs of a new stack", () => {
  it("takes the first offered by name, never a zone ID EKS refuses", () => {
    assert.deepEqual(zones(chooseZones({ count: 3, exclude: [] }, US_EAST_1)).zones, [
      "us-east-1a",
      "us-east-1b",
      "us-east-1d",
    ]);
  });

  it("leaves out excluded AZs, by name or by zone ID", () => {
    const request = { count: 2, exclude: ["us-east-1a", "use1-az1"] };
    assert.deepEqual(zones(chooseZones(request, US_EAST_1)).zones, ["us-east-1d", "us-east-1e"]);
  });

  it("uses exactly the listed AZs, in their order, by name or zone ID", () => {
    const request = { count: 2, zones: ["use1-az4", "us-east-1b"], exclude: [] };
    assert.deepEqual(zones(chooseZones(request, US_EAST_1)), {
      zones: ["us-east-1e", "us-east-1b"],
      removed: [],
    });
  });

  it("refuses a listed AZ EKS refuses, one excluded too, one listed twice, and names it as AWS does", () => {
    const request = {
      count: 4,
      zones: ["us-east-1c", "use1-az2", "us-east-1d", "us-east-1a"],
      exclude: ["use1-az6"],
    };
    const found = problems(chooseZones(request, US_EAST_1));
    assert.deepEqual(
      found.map(([path, value]) => [path, value]),
      [
        ["network.zones[0]", "us-east-1c"],
        ["network.zones[2]", "us-east-1d"],
        ["network.zones[3]", "us-east-1a"],
      ],
    );
    assert.match(
      String(found[0][2]),
      /^is us-east-1c \(use1-az3\), an AZ EKS does not create cluster subnets in/,
    );
    assert.equal(found[1][2], "is us-east-1d, which network.zones[1] names already");
    assert.equal(found[2][2], "is us-east-1a, which network.excludeZones also lists");
  });

  it("refuses an AZ the region does not have, listing the ones it has", () => {
    const found = problems(
      chooseZones({ count: 2, zones: ["us-east-1a", "use1-az9"], exclude: ["usw2-az1"] }, US_EAST_1),
    );
    assert.deepEqual(
      found.map(([path]) => path),
      ["network.excludeZones[0]", "network.zones[1]"],
    );
    assert.match(
      String(found[1][2]),
      /^is not an availability zone of us-east-1 by name or zone ID: it has us-east-1a \(use1-az6\), /,
    );
  });

  it("says what left too few AZs: the region's state, the exclusions and EKS's refusals", () => {
    const region = { ...US_EAST_1, offered: ["us-east-1a", "us-east-1b", "us-east-1c"] };
    const [[path, value, rule]] = problems(chooseZones({ count: 3, exclude: ["us-east-1b"] }, region));
    assert.deepEqual([path, value], ["network.availabilityZones", 3]);
    assert.equal(
      rule,
      "needs 2 more AZs than AWS offers now: us-east-1a, us-east-1b, us-east-1c are in state available; network.excludeZones leaves out us-east-1b; EKS does not create cluster subnets in us-east-1c (use1-az3)",
    );
  });
});

describe("AZs of a deployed stack", () => {
  // Created in a and b; c added by a later update, so the cluster does not use it.
  const deployed = {
    zones: ["us-west-2a", "us-west-2b", "us-west-2c"],
    clusterZones: ["us-west-2a", "us-west-2b"],
  };

  it("removes an AZ the cluster does not use when the count goes down", () => {
    assert.deepEqual(zones(chooseZones({ count: 2, exclude: [] }, US_WEST_2, deployed)), {
      zones: ["us-west-2a", "us-west-2b"],
      removed: ["us-west-2c"],
    });
  });

  it("removes an excluded or unlisted AZ the cluster does not use, and adds listed ones", () => {
    assert.deepEqual(zones(chooseZones({ count: 3, exclude: ["usw2-az3"] }, US_WEST_2, deployed)), {
      zones: ["us-west-2a", "us-west-2b", "us-west-2d"],
      removed: ["us-west-2c"],
    });
    const listed = { count: 3, zones: ["us-west-2d", "us-west-2b", "us-west-2a"], exclude: [] };
    assert.deepEqual(zones(chooseZones(listed, US_WEST_2, deployed)), {
      zones: ["us-west-2a", "us-west-2b", "us-west-2d"],
      removed: ["us-west-2c"],
    });
  });

  it("refuses to remove an AZ the cluster was created in, however it is asked", () => {
    const all = { zones: deployed.zones, clusterZones: deployed.zones };
    const [[path, , rule]] = problems(chooseZones({ count: 2, exclude: [] }, US_WEST_2, all));
    assert.equal(path, "network.availabilityZones");
    assert.equal(
      rule,
      "cannot remove AZs the cluster was created in from a deployed stack: it has 3 (us-west-2a, us-west-2b, us-west-2c), this update asks for 2",
    );
    const [[listedPath, , listedRule]] = problems(
      chooseZones({ count: 2, zones: ["us-west-2a", "us-west-2c"], exclude: [] }, US_WEST_2, deployed),
    );
    assert.equal(listedPath, "network.zones");
    assert.equal(
      listedRule,
      "cannot remove us-west-2b from the deployed stack: it is an AZ the cluster was created in (us-west-2a, us-west-2b)",
    );
    const [[excludedPath, excludedValue]] = problems(
      chooseZones({ count: 3, exclude: ["usw2-az1"] }, US_WEST_2, deployed),
    );
    assert.deepEqual([excludedPath, excludedValue], ["network.excludeZones[0]", "usw2-az1"]);
  });
});

describe("network.zones and network.excludeZones in the schema", () => {
  const network = (value: Record<string, unknown>) => {
    const result = validateConfig({ nodeGroups: stackValue<unknown[]>("dev", "nodeGroups"), network: value });
    return result.ok
      ? []
      : result.problems.filter((p) => p.path.startsWith("network")).map((p) => [p.path, p.rule]);
  };

  it("takes the count from the list, and refuses a count that differs from it", () => {
    assert.deepEqual(network({ zones: ["us-west-2a", "usw2-az2", "us-west-2c"] }), []);
    assert.deepEqual(network({ zones: ["us-west-2a", "us-west-2b"], availabilityZones: 3 }), [
      ["network.availabilityZones", "must be the number of AZs network.zones lists (2), or be left out"],
    ]);
  });

  it("refuses what is no AZ name or zone ID, a repeated entry, and a single AZ", () => {
    assert.deepEqual(
      network({ zones: ["us-west-2a"], excludeZones: ["us-west-2", "usw2-az1", "usw2-az1"] }).map(([p]) => p),
      ["network.zones", "network.excludeZones[0]", "network.excludeZones[2]"],
    );
  });
});

describe("the offline world's zone IDs", () => {
  it("abbreviates the region as AWS's zone IDs do, one AZ letter after another", () => {
    assert.deepEqual(
      [
        ["us-east-1", "a"],
        ["ap-northeast-1", "d"],
        ["us-gov-west-1", "a"],
        ["cn-northwest-1", "b"],
        ["ca-central-1", "d"],
      ].map(([region, letter]) => offlineZoneId(region, letter)),
      ["use1-az1", "apne1-az4", "usgw1-az1", "cnnw1-az2", "cac1-az4"],
    );
  });

  it("plans a stack by zone ID and says the mapping is its own", async () => {
    const plan = await evaluatedWith("dev", {
      config: { "eks-calico:network": { zones: ["usw2-az3", "us-west-2a"] } },
    });
    const subnets = ofType(plan, "aws:ec2/subnet:Subnet").map((s) => s.inputs.availabilityZone);
    assert.deepEqual([...new Set(subnets)], ["us-west-2c", "us-west-2a"]);
    assert.ok(
      plan.simulated.some((line) =>
        line.startsWith(
          "zone IDs of us-west-2: us-west-2a usw2-az1, us-west-2b usw2-az2, us-west-2c usw2-az3",
        ),
      ),
      plan.simulated.join("\n"),
    );
  });
});

describe("removing an AZ the cluster does not use, through the program", () => {
  it("deletes that AZ's subnets and routes, and leaves the cluster's subnets and node groups alone", async () => {
    const dev = await evaluatedWith("dev", {});
    const three = await evaluatedWith("dev", {
      config: { "eks-calico:network": { availabilityZones: 3 } },
      previousOutputs: dev.outputs,
    });
    assert.deepEqual((three.outputs.network as { clusterZones: string[] }).clusterZones, [
      "us-west-2a",
      "us-west-2b",
    ]);
    const two = await evaluatedWith("dev", { previousOutputs: three.outputs });
    const diff = diffDocuments(resourcesDocument(three), resourcesDocument(two));
    assert.deepEqual(
      diff.removed.map((r) => r.heading).sort(),
      [
        "aws:ec2/route:Route network-private-us-west-2c-default",
        "aws:ec2/routeTable:RouteTable network-private-us-west-2c",
        "aws:ec2/routeTableAssociation:RouteTableAssociation network-private-us-west-2c",
        "aws:ec2/routeTableAssociation:RouteTableAssociation network-public-us-west-2c",
        "aws:ec2/subnet:Subnet network-private-us-west-2c",
        "aws:ec2/subnet:Subnet network-public-us-west-2c",
        "aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation network-s3-us-west-2c",
      ].sort(),
    );
    assert.deepEqual(
      diff.changed.map((r) => r.heading),
      [],
    );
  });

  it("warns what goes and what AWS refuses while interfaces are in it", () => {
    const deployed = {
      network: layoutOutput({
        ...newLayout("10.0.0.0/16", US_WEST_2.offered.slice(0, 3)),
        clusterZones: ["us-west-2a", "us-west-2b"],
      }),
    };
    const result = networkLayout("10.0.0.0/16", { count: 2, exclude: [] }, US_WEST_2, deployed);
    assert.ok("layout" in result);
    assert.deepEqual(
      result.layout.zones.map((z) => z.zone),
      ["us-west-2a", "us-west-2b"],
    );
    assert.deepEqual(result.notices, [
      "network: removes us-west-2c, which the cluster does not use: its subnets, route tables and NAT gateways go; AWS refuses to delete a subnet that network interfaces are still in (load balancers', endpoints'), so move those first",
    ]);
  });
});

describe("the zone IDs EKS refuses, held to the EKS User Guide", () => {
  /** Region → zone IDs of the guide's table: rows of three cells (region, its name, the IDs). */
  function upstream(): Record<string, string[]> {
    const text = fs.readFileSync(path.join(__dirname, "fixtures", "eks-disallowed-zones.adoc"), "utf8");
    const table = text.split("|===")[1];
    const cells = [...table.matchAll(/^\|(.*)$/gm)].map((m) => m[1].trim()).slice(3);
    const rows: Record<string, string[]> = {};
    for (let i = 0; i < cells.length; i += 3) {
      rows[cells[i].replace(/`/g, "")] = cells[i + 2].replace(/`/g, "").split(/,\s*/);
    }
    return rows;
  }

  it("has exactly the guide's table in the code", () => {
    assert.deepEqual(EKS_DISALLOWED_ZONE_IDS, upstream());
  });

  it("has exactly the guide's table in docs/stacks.md", () => {
    const page = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "stacks.md"), "utf8");
    const table = page.split("<!-- eks-disallowed-zones -->")[1].split("<!-- /eks-disallowed-zones -->")[0];
    const rows = [...table.matchAll(/^\| `([^`]+)` +\| `([^`]+)` +\|$/gm)].map((m) => [m[1], [m[2]]]);
    assert.deepEqual(Object.fromEntries(rows), upstream());
  });
});
