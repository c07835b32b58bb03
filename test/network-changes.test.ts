/**
 * Network changes on a deployed stack, decided from its last outputs: an added AZ adds subnets and changes
 * none (the cluster and its node groups keep the AZs the cluster was created in), and a new VPC CIDR or a
 * removed AZ is refused before any resource is registered, every problem at once. Checked on the decision itself, through the program
 * with the offline diff, and through `npm start --diff`.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { layoutOutput, newLayout } from "../components/network/layout";
import { diffDocuments } from "../offline/diff";
import { type StackEvaluation, evaluateStackExpectingError } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { ConfigError } from "../stacks";
import { type RegionZones, type ZoneRequest } from "../stacks/zones";
import { networkLayout } from "../stacks/previous-network";
import { evaluated, evaluatedWith, input, ofType, one, stackValue } from "./helpers";
import { runStart } from "./start-runner";

const SUBNET = "aws:ec2/subnet:Subnet";
const ZONES = ["us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"];

/** A request for `count` AZs, none listed or left out (network.availabilityZones alone). */
const request = (count: number): ZoneRequest => ({ count, exclude: [] });
/** us-west-2's AZs as aws.getAvailabilityZones lists them, `offered` in state available. */
const usWest2 = (offered: readonly string[] = ZONES): RegionZones => ({
  region: "us-west-2",
  all: ZONES.map((name, i) => ({ name, id: `usw2-az${i + 1}` })),
  offered,
});

/** A stack's `network` config with `change` merged in, as a config override. */
function network(stack: string, change: Record<string, unknown>) {
  return { "eks-calico:network": { ...stackValue<object>(stack, "network"), ...change } };
}

/** Each subnet's CIDR by resource name. */
function subnetCidrs(evaluation: StackEvaluation): Record<string, string> {
  return Object.fromEntries(ofType(evaluation, SUBNET).map((s) => [s.name, String(s.inputs.cidrBlock)]));
}

/** The subnets the EKS cluster and every node group are given. */
function clusterWiring(evaluation: StackEvaluation) {
  const eks = one(evaluation, "eks:index:Cluster");
  return {
    cluster: [input(eks, "publicSubnetIds"), input(eks, "privateSubnetIds")],
    nodeGroups: ofType(evaluation, "aws:eks/nodeGroup:NodeGroup").map((g) => input(g, "subnetIds")),
  };
}

describe("network changes: the decision", () => {
  const deployed = { network: layoutOutput(newLayout("10.0.0.0/16", ZONES.slice(0, 2))) };

  it("lays out a new stack from the slots, the cluster in every AZ", () => {
    assert.deepEqual(networkLayout("10.0.0.0/16", request(2), usWest2(), {}), {
      layout: newLayout("10.0.0.0/16", ZONES.slice(0, 2)),
      notices: [],
    });
  });

  it("adds an AZ to a deployed stack in its slot, keeping the deployed ones and the cluster's AZs", () => {
    const result = networkLayout("10.0.0.0/16", request(3), usWest2(), deployed);
    assert.ok("layout" in result);
    assert.deepEqual(result.layout.zones, newLayout("10.0.0.0/16", ZONES.slice(0, 3)).zones);
    assert.deepEqual(result.layout.clusterZones, ["us-west-2a", "us-west-2b"]);
  });

  it("refuses a new VPC CIDR, with the reasons and the way to do it", () => {
    const result = networkLayout("10.1.0.0/16", request(2), usWest2(), deployed);
    assert.ok("problems" in result);
    assert.deepEqual(
      result.problems.map((p) => [p.path, p.value]),
      [["network.cidr", "10.1.0.0/16"]],
    );
    const [problem] = result.problems;
    assert.match(problem.rule, /^cannot change on a deployed stack \(its VPC is 10\.0\.0\.0\/16\)/);
    assert.ok(problem.details?.some((d) => /internet gateway is detached/.test(d)));
    assert.match(
      problem.hint ?? "",
      /set it back to 10\.0\.0\.0\/16; .*new stack .*docs\/stacks\.md#changing-the-network/,
    );
    assert.equal(problem.steps?.length, 3);
  });

  it("refuses removing an AZ, naming it and the cluster's AZs", () => {
    const three = { network: layoutOutput(newLayout("10.0.0.0/16", ZONES.slice(0, 3))) };
    const result = networkLayout("10.0.0.0/16", request(2), usWest2(), three);
    assert.ok("problems" in result);
    assert.deepEqual(
      result.problems.map((p) => [p.path, p.value]),
      [["network.availabilityZones", 2]],
    );
    assert.match(
      result.problems[0].rule,
      /it has 3 \(us-west-2a, us-west-2b, us-west-2c\), this update asks for 2$/,
    );
    assert.match(result.problems[0].details?.[0] ?? "", /created in \(us-west-2a, us-west-2b, us-west-2c\)/);
    assert.match(result.problems[0].hint ?? "", /^keep network\.availabilityZones at 3 or more/);
  });

  it("lists a new CIDR and a removed AZ together", () => {
    const three = { network: layoutOutput(newLayout("10.0.0.0/16", ZONES.slice(0, 3))) };
    const result = networkLayout("10.1.0.0/16", request(2), usWest2(), three);
    assert.ok("problems" in result);
    assert.deepEqual(
      result.problems.map((p) => p.path),
      ["network.cidr", "network.availabilityZones"],
    );
  });

  it("refuses an AZ the VPC has no room for, saying what fills it", () => {
    // Deployed subnets that fill the VPC: two AZs in quarters, outside their slots.
    const output = {
      cidr: "10.0.0.0/16",
      zones: {
        "us-west-2a": { private: "10.0.0.0/18", public: "10.0.128.0/18" },
        "us-west-2b": { private: "10.0.64.0/18", public: "10.0.192.0/18" },
      },
      clusterZones: ZONES.slice(0, 2),
    };
    const full = networkLayout("10.0.0.0/16", request(3), usWest2(), { network: output });
    assert.ok("problems" in full);
    const [problem] = full.problems;
    assert.equal(problem.path, "network.availabilityZones");
    assert.equal(
      problem.rule,
      "cannot add us-west-2c to the deployed network: 10.0.0.0/16 has no free /19 left for us-west-2c's private subnet",
    );
    assert.deepEqual(problem.details, ["taken: 10.0.0.0/18, 10.0.64.0/18, 10.0.128.0/18, 10.0.192.0/18"]);
    assert.match(
      problem.hint ?? "",
      /^keep network\.availabilityZones at 2; for more AZs create a new stack with a larger network\.cidr/,
    );
  });

  it("refuses to guess when the last `network` output is not one it writes", () => {
    const overlapping = {
      cidr: "10.0.0.0/16",
      zones: { a: { private: "10.0.0.0/17", public: "10.0.0.0/18" } },
    };
    for (const output of ["10.0.0.0/16", { cidr: "10.0.0.0/16" }, { ...overlapping, clusterZones: ["a"] }]) {
      const result = networkLayout("10.0.0.0/16", request(2), usWest2(), { network: output });
      assert.ok("problems" in result);
      assert.deepEqual(
        result.problems.map((p) => p.path),
        ["network"],
      );
    }
  });
});

describe("network changes: through the program", () => {
  let dev: StackEvaluation;
  let devWithMore: StackEvaluation;
  before(async () => {
    dev = await evaluated("dev");
    devWithMore = await evaluatedWith("dev", {
      config: network("dev", { availabilityZones: 3 }),
      previousOutputs: dev.outputs,
    });
  });

  it("exports the layout, which the next update reads back", () => {
    const cidr = stackValue<{ cidr: string }>("dev", "network").cidr;
    assert.deepEqual(dev.outputs.network, layoutOutput(newLayout(cidr, ZONES.slice(0, 2))));
    assert.deepEqual(
      (devWithMore.outputs.network as { clusterZones: string[] }).clusterZones,
      ZONES.slice(0, 2),
    );
  });

  it("adds an AZ by adding its subnets and routes: nothing replaced, updated or deleted", () => {
    const diff = diffDocuments(resourcesDocument(dev), resourcesDocument(devWithMore));
    assert.deepEqual(diff.removed, []);
    assert.deepEqual(
      diff.changed.map((r) => `${r.op} ${r.heading}`),
      [],
    );
    assert.deepEqual(diff.added.map((r) => r.heading).sort(), [
      "aws:ec2/route:Route network-private-us-west-2c-default",
      "aws:ec2/routeTable:RouteTable network-private-us-west-2c",
      "aws:ec2/routeTableAssociation:RouteTableAssociation network-private-us-west-2c",
      "aws:ec2/routeTableAssociation:RouteTableAssociation network-public-us-west-2c",
      "aws:ec2/subnet:Subnet network-private-us-west-2c",
      "aws:ec2/subnet:Subnet network-public-us-west-2c",
      "aws:ec2/vpcEndpointRouteTableAssociation:VpcEndpointRouteTableAssociation network-s3-us-west-2c",
    ]);
    const before = subnetCidrs(dev);
    const after = subnetCidrs(devWithMore);
    for (const [name, cidr] of Object.entries(before)) assert.equal(after[name], cidr, name);
  });

  it("keeps the cluster and the node groups on the subnets of the AZs the cluster was created in", () => {
    assert.deepEqual(clusterWiring(devWithMore), clusterWiring(dev));
  });

  it("refuses a new CIDR and a removed AZ before registering any resource, both at once", async () => {
    const staging = await evaluated("staging");
    const { error, resources } = await evaluateStackExpectingError("staging", {
      config: network("staging", { cidr: "10.99.0.0/16", availabilityZones: 2 }),
      previousOutputs: staging.outputs,
    });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [
        ["network.cidr", "10.99.0.0/16"],
        ["network.availabilityZones", 2],
      ],
    );
    assert.deepEqual(
      resources.filter((r) => r.custom),
      [],
    );
  });

  it("does not echo a network set with --secret when it refuses a change, and lists the other refusals too", async () => {
    const staging = await evaluated("staging");
    const { error } = await evaluateStackExpectingError("staging", {
      config: network("staging", { cidr: "10.99.0.0/16", availabilityZones: 2 }),
      secrets: ["eks-calico:network"],
      previousOutputs: staging.outputs,
    });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["network.cidr", "network.availabilityZones"],
    );
    assert.equal(error.problems[0].value, "[secret]");
    assert.doesNotMatch(error.message, /10\.99\.0\.0/);
  });

  it("lists a refused network change with the other refusals the deployed stack decides (the creator listed)", async () => {
    // Deployed by a `pulumi up`, which recorded the creator.
    const staging = await evaluatedWith("staging", { preview: false });
    const creator = "arn:aws:iam::000000000000:role/OFFLINE-DEPLOYER";
    const { error } = await evaluateStackExpectingError("staging", {
      config: {
        ...network("staging", { cidr: "10.99.0.0/16" }),
        "eks-calico:cluster": {
          ...stackValue<object>("staging", "cluster"),
          access: [{ principalArn: creator, level: "admin" }],
        },
      },
      previousOutputs: staging.outputs,
    });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["network.cidr", "cluster.access[0].principalArn"],
    );
  });

  describe("through npm start --diff", () => {
    let tmp: string;
    before(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-network-"));
    });
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it("plans an added AZ as additions only, and refuses a new CIDR with the reason", async () => {
      assert.equal((await runStart("--out", tmp)).code, 0);
      const baseline = path.join(tmp, "dev", "resources.json");
      const added = await runStart(
        "--out",
        tmp,
        "--diff",
        baseline,
        "--config",
        'eks-calico:network={"availabilityZones":3}',
      );
      assert.equal(added.code, 0, added.err);
      assert.match(added.out, /: \+ 7 to create, ~ 0 to update, \+- 0 to replace, - 0 to delete/);

      const moved = await runStart(
        "--out",
        tmp,
        "--diff",
        baseline,
        "--config",
        'eks-calico:network={"cidr":"10.99.0.0/16"}',
      );
      assert.equal(moved.code, 2);
      assert.match(
        moved.err,
        /network\.cidr: cannot change on a deployed stack \(its VPC is 10\.10\.0\.0\/16\)/,
      );
      assert.match(moved.err, /docs\/stacks\.md#changing-the-network/);
    });
  });
});
