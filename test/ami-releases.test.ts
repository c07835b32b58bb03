/**
 * Node AMI releases (`nodeGroups[].amiReleaseVersion`, stacks/schema/ami-release.ts and
 * stacks/ami-releases.ts): the rules of a pin, the pin and `latest` reaching the node group's
 * releaseVersion, nothing sent when unset, and later updates: a new pin rolls that group's nodes in place,
 * and a second plan of a deployed stack changes nothing.
 */
import * as assert from "node:assert/strict";
import fc from "fast-check";
import { type ConfigProblem, validateConfig } from "../stacks";
import { type StackEvaluation, evaluateStack, listStacks } from "../offline/engine";
import { STACKS, evaluated, ofType, stackValue, withWarnings } from "./helpers";
import { changedResources, deploy, planAgainst } from "./deployed-stack";

const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";
const SSM = "aws:ssm/getParameter:getParameter";
const AL2023_LATEST =
  "/aws/service/eks/optimized-ami/1.35/amazon-linux-2023/x86_64/standard/recommended/release_version";

type Group = Record<string, unknown> & { name: string };

/** The changes but the enforcement probe's re-run (its Jobs and anchor pod, and what follows from them). */
const withoutProbe = (changes: string[]) => changes.filter((c) => !/ calico-probe-/.test(c));

/** The config's problems, or none. */
function problems(raw: Record<string, unknown>): ConfigProblem[] {
  const result = validateConfig(raw);
  return result.ok ? [] : result.problems;
}

/** A config of one group per entry of `groups`, on Kubernetes `version`. */
function config(groups: Record<string, unknown>[], version = "1.35"): Record<string, unknown> {
  return {
    cluster: { version },
    nodeGroups: groups.map((group, i) => ({ name: `g${i}`, ...group })),
  };
}

/** `stack`'s node groups with `change` applied to the group named `name` (all groups when undefined). */
function groupsWith(stack: string, change: Record<string, unknown>, name?: string): Group[] {
  return stackValue<Group[]>(stack, "nodeGroups").map((g) =>
    name === undefined || g.name === name ? { ...g, ...change } : g,
  );
}

const withGroups = (stack: string, groups: Group[]) => ({
  stack,
  config: { "eks-calico:nodeGroups": groups },
});

/** Each registered node group's releaseVersion input, by resource name; absent keys stay absent. */
function releases(evaluation: StackEvaluation): Record<string, unknown> {
  return Object.fromEntries(
    ofType(evaluation, NODE_GROUP).map((g) => [
      g.name,
      Object.hasOwn(g.inputs, "releaseVersion") ? g.inputs.releaseVersion : "(unset)",
    ]),
  );
}

describe("node AMI releases: the rules of amiReleaseVersion", () => {
  it("accepts latest and a release of the group's family and Kubernetes version, newer ones too", () => {
    assert.deepEqual(
      problems(
        config([
          { amiReleaseVersion: "latest" },
          { amiReleaseVersion: "1.35.3-20251120" },
          // Newer than any release published today: no table of releases refuses it.
          { amiReleaseVersion: "1.35.99-20991231" },
          { amiType: "BOTTLEROCKET_x86_64", amiReleaseVersion: "1.55.0-d93bb1b1" },
          { amiType: "BOTTLEROCKET_x86_64", amiReleaseVersion: "latest" },
        ]),
      ),
      [],
    );
  });

  it("refuses a bad grammar, another Kubernetes minor and an unread latest, every problem at once", () => {
    const found = problems(
      config([
        { amiReleaseVersion: "v20251120" },
        { amiReleaseVersion: "1.34.2-20251120" },
        { amiType: "BOTTLEROCKET_x86_64", amiReleaseVersion: "v1.55.0" },
        {
          amiType: "BOTTLEROCKET_x86_64_NVIDIA_FIPS",
          instanceTypes: ["g5.xlarge"],
          amiReleaseVersion: "latest",
        },
        { amiReleaseVersion: 20251120 },
      ]),
    );
    assert.deepEqual(
      found.map((p) => [p.path, p.value]),
      [
        ["nodeGroups[4].amiReleaseVersion", 20251120],
        ["nodeGroups[0].amiReleaseVersion", "v20251120"],
        ["nodeGroups[1].amiReleaseVersion", "1.34.2-20251120"],
        ["nodeGroups[2].amiReleaseVersion", "v1.55.0"],
        ["nodeGroups[3].amiReleaseVersion", "latest"],
      ],
    );
    const rule = (i: number) => found.find((p) => p.path === `nodeGroups[${i}].amiReleaseVersion`)?.rule;
    assert.match(rule(0) ?? "", /Amazon Linux 2023 EKS AMI release such as 1\.35\.3-20251120/);
    assert.match(rule(1) ?? "", /release for Kubernetes 1\.34, but cluster\.version is 1\.35/);
    assert.match(rule(2) ?? "", /Bottlerocket release such as 1\.55\.0-d93bb1b1/);
    assert.match(rule(3) ?? "", /no public SSM parameter for the NVIDIA FIPS/);
    assert.match(rule(4) ?? "", /must be "latest" or an EKS AMI release/);
  });

  it("an AL2023 release is accepted exactly when its minor is cluster.version's (property)", () => {
    const versions = ["1.32", "1.33", "1.34", "1.35", "1.36"];
    fc.assert(
      fc.property(
        fc.constantFrom(...versions),
        fc.constantFrom(...versions),
        fc.nat({ max: 40 }),
        fc.date({ min: new Date("2024-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }),
        (cluster, release, patch, day) => {
          const date = day.toISOString().slice(0, 10).replaceAll("-", "");
          const pin = `${release}.${patch}-${date}`;
          const found = problems(config([{ amiReleaseVersion: pin }], cluster));
          assert.equal(found.length === 0, release === cluster, `${pin} on ${cluster}: ${found[0]?.rule}`);
        },
      ),
    );
  });
});

describe("node AMI releases: what the node groups get", function () {
  this.timeout(300_000);

  it("unset, no stack file sends a releaseVersion or reads an SSM parameter (plans as before)", async () => {
    for (const stack of STACKS) {
      const values = Object.values(releases(await evaluated(stack)));
      assert.ok(values.length > 0, stack);
      assert.ok(
        values.every((v) => v === "(unset)"),
        `${stack}: ${values.join(", ")}`,
      );
    }
    for (const stack of listStacks()) {
      const calls = new Set<string>();
      await evaluateStack(stack, { onCall: (token) => calls.add(token) });
      assert.ok(!calls.has(SSM), stack);
    }
  });

  it("a pin reaches its group's releaseVersion, and only that group's", async () => {
    const evaluation = await evaluateStack("staging", {
      config: {
        "eks-calico:nodeGroups": groupsWith("staging", { amiReleaseVersion: "1.35.3-20251120" }, "general"),
      },
    });
    assert.deepEqual(releases(evaluation), {
      "cluster-general": "1.35.3-20251120",
      "cluster-system": "(unset)",
    });
  });

  it("latest resolves through the public SSM parameter, and the plan says what it read and when it moves", async () => {
    const { result, warnings } = await withWarnings(() =>
      evaluateStack("dev", {
        config: { "eks-calico:nodeGroups": groupsWith("dev", { amiReleaseVersion: "latest" }) },
      }),
    );
    const placeholder = `<ami-release:${AL2023_LATEST}>`;
    assert.deepEqual(releases(result), { "cluster-general": placeholder });
    const notices = warnings.filter((w) => w.startsWith("nodeGroups[0].amiReleaseVersion"));
    assert.equal(notices.length, 1, warnings.join("\n"));
    assert.ok(notices[0].includes(`latest is ${placeholder} for AL2023_x86_64_STANDARD on Kubernetes 1.35`));
    assert.ok(notices[0].includes(`(SSM ${AL2023_LATEST})`));
    assert.match(
      notices[0],
      /rolls every node of the group onto it, and a release AWS publishes later rolls them/,
    );
    assert.ok(
      result.simulated.some((note) =>
        note.startsWith(`${AL2023_LATEST}: the newest AMI release is known only at \`up\``),
      ),
      result.simulated.join("\n"),
    );
  });

  it("latest on Bottlerocket reads its variant's image_version", async () => {
    const groups = groupsWith("dev", {
      amiType: "BOTTLEROCKET_ARM_64_NVIDIA",
      instanceTypes: ["g5g.2xlarge"],
      amiReleaseVersion: "latest",
    });
    const { result } = await withWarnings(() =>
      evaluateStack("dev", { config: { "eks-calico:nodeGroups": groups } }),
    );
    assert.deepEqual(releases(result), {
      "cluster-general":
        "<ami-release:/aws/service/bottlerocket/aws-k8s-1.35-nvidia/arm64/latest/image_version>",
    });
  });
});

describe("node AMI releases on a deployed stack", function () {
  this.timeout(600_000);

  it("a new pin rolls that group's nodes in place: no replacement, no other group", async () => {
    const before = await deploy(
      withGroups("staging", groupsWith("staging", { amiReleaseVersion: "1.35.3-20251120" }, "general")),
    );
    const { diff } = await planAgainst(
      before,
      withGroups("staging", groupsWith("staging", { amiReleaseVersion: "1.35.4-20251211" }, "general")),
    );
    // The group's nodes, and the enforcement probe, which runs again on new nodes (stacks/probe-nodes.ts).
    assert.deepEqual(withoutProbe(changedResources(diff)), [`update ${NODE_GROUP} cluster-general`]);
    assert.ok(
      changedResources(diff).some((r) => r.startsWith("replace kubernetes:batch/v1:Job calico-probe-")),
    );
    const group = diff.changed.find((r) => r.heading === `${NODE_GROUP} cluster-general`);
    assert.deepEqual(
      group?.changes.map((c) => [c.path, c.before, c.after, c.effect]),
      [["inputs.releaseVersion", "1.35.3-20251120", "1.35.4-20251211", "update"]],
    );
    assert.match(group?.rollout ?? "", /^rolling update \(UpdateNodegroupVersion\): EKS replaces all/);
  });

  it("setting a pin on a deployed group is an update of that group, not a replacement", async () => {
    const before = await deploy({ stack: "staging", config: {} });
    const { diff } = await planAgainst(
      before,
      withGroups("staging", groupsWith("staging", { amiReleaseVersion: "1.35.3-20251120" }, "system")),
    );
    assert.deepEqual(withoutProbe(changedResources(diff)), [`update ${NODE_GROUP} cluster-system`]);
  });

  for (const [label, change] of [
    ["unset", {}],
    ["pinned", { amiReleaseVersion: "1.35.3-20251120" }],
    ["latest", { amiReleaseVersion: "latest" }],
  ] as const) {
    it(`the second plan of a deployed stack with amiReleaseVersion ${label} changes nothing`, async () => {
      const stack = withGroups("staging", groupsWith("staging", change));
      const { result: diff } = await withWarnings(
        async () => (await planAgainst(await deploy(stack), stack)).diff,
      );
      assert.deepEqual(changedResources(diff), []);
    });
  }
});
