/**
 * The offline diff, judged as `pulumi preview` would: replacements from the sourced rules, cascades to
 * what is built from a replaced resource, protected resources blocked, ignoreChanges honoured, and
 * "may replace" where only @pulumi/eks or AWS could tell.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type PlanDiff, diffDocuments, parseResourcesDocument, ResourcesFileError } from "../offline/diff";
import { renderDiff } from "../offline/diff-render";
import { resourcesDocument } from "../offline/plan";
import { REPLACEMENT_RULES } from "../offline/replacements";
import { runStart } from "./start-runner";
import { STACKS, devNodeGroupsWithDesired, evaluated, evaluatedWith, stackValue } from "./helpers";

function op(diff: PlanDiff, heading: string): string | undefined {
  return [...diff.added, ...diff.removed, ...diff.changed].find((r) => r.heading === heading)?.op;
}

describe("offline diff: what changes", () => {
  it("shows a node group's desiredSize change by its path", async () => {
    const dev = await evaluated("dev");
    const bigger = await evaluatedWith("dev", {
      config: { "eks-calico:nodeGroups": devNodeGroupsWithDesired(4) },
    });
    const diff = diffDocuments(resourcesDocument(dev), resourcesDocument(bigger));
    assert.deepEqual(diff.added, []);
    assert.deepEqual(diff.removed, []);
    const group = diff.changed.find((r) => r.heading === "aws:eks/nodeGroup:NodeGroup cluster-general");
    assert.ok(group, "the node group changed");
    assert.deepEqual(
      group.changes.find((c) => c.path === "inputs.scalingConfig.desiredSize"),
      {
        path: "inputs.scalingConfig.desiredSize",
        before: 2,
        after: 4,
        effect: "ignored",
        note: "ignoreChanges",
      },
    );
    const text = renderDiff(diff, "base.json");
    assert.match(text, /\n {4}inputs\.scalingConfig\.desiredSize: 2 → 4 {2}\(ignored: ignoreChanges/);
    assert.match(
      text,
      /^Changes to stack dev against base\.json: \+ 0 to create, ~ 1 to update, \+- 0 to replace, - 0 to delete, \? 0 may replace, \d+ unchanged\.\nResources:\n {4}\+ 0 to create\n/,
    );
  });

  it("finds the subnets and routes staging adds to dev's, and removes them the other way", async () => {
    const dev = resourcesDocument(await evaluated("dev"));
    const staging = resourcesDocument(await evaluated("staging"));
    const zoneC = [
      "aws:ec2/subnet:Subnet network-public-us-west-2c",
      "aws:ec2/subnet:Subnet network-private-us-west-2c",
      "aws:ec2/routeTable:RouteTable network-private-us-west-2c",
      "aws:ec2/route:Route network-private-us-west-2c-default",
    ];
    const up = diffDocuments(dev, staging);
    for (const heading of zoneC)
      assert.ok(
        up.added.some((r) => r.heading === heading),
        heading,
      );
    assert.ok(up.added.some((r) => r.heading === "aws:eks/nodeGroup:NodeGroup cluster-system"));
    const down = diffDocuments(staging, dev);
    for (const heading of zoneC)
      assert.ok(
        down.removed.some((r) => r.heading === heading),
        heading,
      );
    assert.equal(down.added.length, 0);
    assert.match(renderDiff(down, "staging.json"), /\n- aws:ec2\/subnet:Subnet network-public-us-west-2c\n/);
    const vpc = up.changed.find((r) => r.heading === "aws:ec2/vpc:Vpc network-vpc");
    assert.deepEqual(
      vpc?.changes.find((c) => c.path === "inputs.cidrBlock"),
      {
        path: "inputs.cidrBlock",
        before: "10.10.0.0/16",
        after: "10.20.0.0/16",
        effect: "replace",
        source: "aws_vpc cidr_block ForceNew, terraform-provider-aws internal/service/ec2/vpc_.go",
      },
    );
  });

  it("finds the NAT gateways prod adds to staging's single one", async () => {
    const diff = diffDocuments(
      resourcesDocument(await evaluated("staging")),
      resourcesDocument(await evaluated("prod")),
    );
    const nat = diff.added.filter((r) => r.heading.startsWith("aws:ec2/natGateway:NatGateway "));
    assert.deepEqual(
      nat.map((r) => r.heading),
      [
        "aws:ec2/natGateway:NatGateway network-nat-us-west-2b",
        "aws:ec2/natGateway:NatGateway network-nat-us-west-2c",
      ],
    );
    const vpc = diff.changed.find((r) => r.heading === "aws:ec2/vpc:Vpc network-vpc");
    assert.ok(vpc?.changes.some((c) => c.path === "options.protect" && c.after === true));
  });

  it("reports no changes between a plan and itself", async () => {
    const doc = resourcesDocument(await evaluated("dev"));
    const diff = diffDocuments(doc, doc);
    assert.deepEqual([diff.added, diff.removed, diff.changed, diff.outputs], [[], [], [], []]);
    assert.equal(diff.unchanged, doc.resources.length);
    // Except what only the cluster knows: whether a removal left the Felix cleanup in calico-node's place.
    assert.deepEqual(
      diff.decidedInUp?.map((step) => step.heading),
      ["pulumi-nodejs:dynamic/calico:FelixRestore calico-felix-restore"],
    );
    assert.match(
      renderDiff(diff, "same.json"),
      /\nNo changes\.\n= pulumi-nodejs:dynamic\/calico:FelixRestore calico-felix-restore {2}\[known only in up: [^\n]+\]\n$/,
    );
  });

  it("refuses a file that is not a resources.json of this format", () => {
    assert.throws(() => parseResourcesDocument("{", "x.json"), ResourcesFileError);
    assert.throws(() => parseResourcesDocument("{}", "x.json"), /x\.json is not a resources\.json/);
    assert.throws(
      () => parseResourcesDocument('{"formatVersion":0,"resources":[]}', "x.json"),
      /format version 0/,
    );
  });
});

describe("offline diff: replacements", () => {
  it("has a replacement rule for every resource type the program registers", async () => {
    const types = new Set<string>();
    // Every stack file, and dev with the interface endpoints and Karpenter on.
    const plans = [
      ...(await Promise.all(STACKS.map((stack) => evaluated(stack)))),
      await evaluatedWith("dev", {
        config: { "eks-calico:network.endpoints.interface": true, "eks-calico:karpenter.enabled": true },
      }),
    ];
    for (const plan of plans) for (const r of plan.resources) if (r.custom || r.remote) types.add(r.type);
    assert.deepEqual([...types].filter((t) => !Object.hasOwn(REPLACEMENT_RULES, t)).sort(), []);
    for (const [type, rule] of Object.entries(REPLACEMENT_RULES)) assert.ok(rule.source.length > 10, type);
  });

  it("shows prod's VPC CIDR change as the replacement cascade it is, blocked by protection", async () => {
    const prod = await evaluated("prod");
    const network = stackValue<Record<string, unknown>>("prod", "network");
    const moved = await evaluatedWith("prod", {
      config: { "eks-calico:network": { ...network, cidr: "10.40.0.0/16" } },
    });
    const diff = diffDocuments(resourcesDocument(prod), resourcesDocument(moved));
    assert.equal(op(diff, "aws:ec2/vpc:Vpc network-vpc"), "replace");
    for (const zone of ["a", "b", "c"]) {
      assert.equal(op(diff, `aws:ec2/subnet:Subnet network-private-us-west-2${zone}`), "replace");
      assert.equal(op(diff, `aws:ec2/routeTable:RouteTable network-private-us-west-2${zone}`), "replace");
      assert.equal(op(diff, `aws:ec2/natGateway:NatGateway network-nat-us-west-2${zone}`), "replace");
    }
    // The node groups sit in the replaced subnets (aws_eks_node_group subnet_ids is ForceNew).
    assert.equal(op(diff, "aws:eks/nodeGroup:NodeGroup cluster-general"), "replace");
    // The AWS provider updates the cluster's subnets in place and EKS refuses another VPC's: whether the
    // cluster is replaced or `pulumi up` fails is decided at deploy time, and so is what is built on it.
    assert.equal(op(diff, "eks:index:Cluster cluster-eks"), "unknown");
    assert.equal(op(diff, "pulumi:providers:kubernetes cluster-k8s"), "unknown");
    assert.equal(op(diff, "kubernetes:apps/v1:DaemonSet calico-daemonset-calico-node"), "unknown");
    // The internet gateway moves to the new VPC in place.
    assert.equal(op(diff, "aws:ec2/internetGateway:InternetGateway network-igw"), "update");
    const blocked = diff.changed.filter((r) => r.blocked !== undefined).map((r) => r.heading);
    assert.deepEqual(blocked, ["aws:ec2/vpc:Vpc network-vpc"]);
    const cluster = diff.changed.find((r) => r.heading === "eks:index:Cluster cluster-eks");
    assert.equal(cluster?.mayBlock, "protected: `pulumi up` stops if it is replaced");
    const text = renderDiff(diff, "prod.json");
    assert.match(text, /\n {4}\+- \d+ to replace\n/);
    assert.match(text, /\npulumi up would stop: 1 protected resource would be replaced or deleted\.\n/);
    assert.match(text.split("\n")[0], /; BLOCKED: 1 protected\.$/);
    assert.match(text, /\n\+- aws:ec2\/vpc:Vpc network-vpc {2}\[BLOCKED: protected/);
    assert.match(
      text,
      /\n {4}inputs\.cidrBlock: "10\.30\.0\.0\/16" → "10\.40\.0\.0\/16" {2}\(forces replacement: aws_vpc cidr_block ForceNew, terraform-provider-aws internal\/service\/ec2\/vpc_\.go\)\n/,
    );
    assert.match(
      text,
      /\n {4}inputs\.vpcId {2}\(forces replacement: changes when aws:ec2\/vpc:Vpc network-vpc is replaced; aws_subnet vpc_id ForceNew, terraform-provider-aws internal\/service\/ec2\/vpc_subnet\.go\)\n/,
    );
    assert.match(
      text,
      /\n\? eks:index:Cluster cluster-eks {2}\[protected: `pulumi up` stops if it is replaced\]\n/,
    );
    assert.match(
      text,
      /\n {4}inputs\.vpcId {2}\(may replace: changes when aws:ec2\/vpc:Vpc network-vpc is replaced; @pulumi\/eks builds the cluster's security group in it; .*EKS refuses another VPC's subnets \(UpdateClusterConfig\): replaced, or `pulumi up` fails\)\n/,
    );
  });

  it("shows a scaling change that Pulumi ignores as ignored, not as a change", async () => {
    const diff = diffDocuments(
      resourcesDocument(await evaluated("dev")),
      resourcesDocument(
        await evaluatedWith("dev", { config: { "eks-calico:nodeGroups": devNodeGroupsWithDesired(3) } }),
      ),
    );
    const group = diff.changed.find((r) => r.heading === "aws:eks/nodeGroup:NodeGroup cluster-general");
    assert.equal(group?.op, "same");
    assert.equal(group?.changes[0].effect, "ignored");
    const text = renderDiff(diff, "dev.json");
    assert.match(text, /\n {4}~ 0 to update\n/);
    // Counted, and listed with --verbose.
    assert.match(text, /\n= 2 with only ignored changes or options: no step \(--verbose lists them\)\n/);
    assert.doesNotMatch(text, /What it does/, "nothing to do");
    assert.match(
      renderDiff(diff, "dev.json", { verbose: true }),
      /\n= aws:eks\/nodeGroup:NodeGroup cluster-general {2}\[no step: only ignored changes and options\]\n/,
    );
  });

  it("updates Calico in place on a version bump, replacing only the probe's run (Jobs and anchor) so the check runs again", async () => {
    const calico = stackValue<Record<string, unknown>>("dev", "calico");
    const diff = diffDocuments(
      resourcesDocument(
        await evaluatedWith("dev", { config: { "eks-calico:calico": { ...calico, version: "v3.31.6" } } }),
      ),
      resourcesDocument(await evaluated("dev")),
    );
    const replaced = diff.changed.filter((r) => r.op !== "update" && r.op !== "same");
    // The Felix restore step leaves the rendered DaemonSet out of its diff: calico-node's update shows it.
    assert.deepEqual(
      diff.changed
        .filter((r) => r.op === "same")
        .map((r) => [r.heading, [...new Set(r.changes.map((c) => `${c.path.split(".")[1]} ${c.effect}`))]]),
      [["pulumi-nodejs:dynamic/calico:FelixRestore calico-felix-restore", ["daemonSet ignored"]]],
    );
    assert.deepEqual(
      replaced.map((r) => `${r.op} ${r.heading}`),
      [
        "replace kubernetes:batch/v1:Job calico-probe-allowed-client",
        "replace kubernetes:batch/v1:Job calico-probe-denied-client",
        // They follow the anchor's placement, known after up: replaced with it unless the scheduler's
        // decision leaves them as they are.
        "unknown kubernetes:batch/v1:Job calico-probe-other-node-probe-allowed-client",
        "unknown kubernetes:batch/v1:Job calico-probe-other-node-probe-denied-client",
        "unknown kubernetes:batch/v1:Job calico-probe-other-node-probe-recheck-client",
        "replace kubernetes:batch/v1:Job calico-probe-recheck-client",
        "replace kubernetes:core/v1:Pod calico-probe-anchor",
      ],
    );
    // Named from a hash, the new run coexists with the old one: created before the old is deleted.
    assert.deepEqual(
      replaced.map((r) => r.deleteBeforeReplace),
      replaced.map(() => undefined),
    );
    assert.deepEqual(
      diff.changed
        .filter((r) => r.op === "update")
        .map((r) => r.heading)
        .sort(),
      [
        "kubernetes:apps/v1:DaemonSet calico-daemonset-calico-node",
        "kubernetes:apps/v1:Deployment calico-deployment-calico-typha",
      ],
    );
  });

  it("deletes a Kubernetes object first when its replacement keeps its name and namespace", async () => {
    const dev = resourcesDocument(await evaluated("dev"));
    const typha = dev.resources.find((r) => r.name === "calico-deployment-calico-typha");
    assert.ok(typha);
    const spec = typha.inputs.spec as Record<string, unknown>;
    const moved = {
      ...typha,
      inputs: { ...typha.inputs, spec: { ...spec, selector: { matchLabels: { a: "b" } } } },
    };
    const diff = diffDocuments(dev, {
      ...dev,
      resources: dev.resources.map((r) => (r === typha ? moved : r)),
    });
    const change = diff.changed.find(
      (r) => r.heading === "kubernetes:apps/v1:Deployment calico-deployment-calico-typha",
    );
    assert.deepEqual([change?.op, change?.deleteBeforeReplace], ["replace", true]);
  });

  it("says may replace for a change only @pulumi/eks can judge, and blocks deleting a protected resource", async () => {
    const prod = resourcesDocument(await evaluated("prod"));
    const cluster = prod.resources.find((r) => r.type === "eks:index:Cluster");
    assert.ok(cluster);
    const changedCluster = { ...cluster, inputs: { ...cluster.inputs, createOidcProvider: false } };
    const diff = diffDocuments(prod, {
      ...prod,
      resources: prod.resources.map((r) => (r === cluster ? changedCluster : r)),
    });
    assert.equal(op(diff, "eks:index:Cluster cluster-eks"), "unknown");
    // What is built from it may change too: not a guess of "update".
    assert.equal(op(diff, "aws:eks/nodeGroup:NodeGroup cluster-general"), "unknown");

    const withoutVpc = { ...prod, resources: prod.resources.filter((r) => r.type !== "aws:ec2/vpc:Vpc") };
    const deleted = diffDocuments(prod, withoutVpc).removed.find(
      (r) => r.heading === "aws:ec2/vpc:Vpc network-vpc",
    );
    assert.equal(deleted?.op, "delete");
    assert.match(String(deleted?.blocked), /^protected/);
  });

  it("reads back what it writes, and refuses other files", () => {
    assert.throws(() => parseResourcesDocument("[]", "a.json"), ResourcesFileError);
  });
});

describe("npm start --diff", () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-diff-"));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("never overwrites the plan it compares against, so a second run still shows the change", async () => {
    assert.equal((await runStart("--out", tmp)).code, 0);
    const baseline = path.join(tmp, "dev", "resources.json");
    const before = fs.readFileSync(baseline, "utf8");
    const tagged = ["--config", 'eks-calico:tags={"environment":"dev","team":"platform"}'];
    for (let run = 0; run < 2; run++) {
      const { code, out } = await runStart("--out", tmp, "--diff", baseline, ...tagged);
      assert.equal(code, 0);
      assert.match(out, /: \+ 0 to create, ~ \d+ to update,/);
      assert.doesNotMatch(out, /~ 0 to update/);
    }
    assert.equal(fs.readFileSync(baseline, "utf8"), before, "the baseline is untouched");
    assert.ok(fs.existsSync(path.join(tmp, "dev", "resources.new.json")));
  });

  it("compares two saved plans without planning, and needs --diff for --head", async () => {
    const dev = resourcesDocument(await evaluated("dev"));
    const staging = resourcesDocument(await evaluated("staging"));
    fs.writeFileSync(path.join(tmp, "a.json"), JSON.stringify(dev));
    fs.writeFileSync(path.join(tmp, "b.json"), JSON.stringify(staging));
    const { code, out } = await runStart(
      "--diff",
      path.join(tmp, "a.json"),
      "--head",
      path.join(tmp, "b.json"),
    );
    assert.equal(code, 0);
    assert.equal(out, renderDiff(diffDocuments(dev, staging), path.join(tmp, "a.json")));
    assert.equal((await runStart("--head", path.join(tmp, "b.json"))).code, 2);
  });
});
