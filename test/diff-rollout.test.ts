/**
 * What the offline diff says a change does to the nodes: a change inside a node group's launch template
 * makes a new template version, which its node group rolls to (every node replaced, as many at a time as
 * its update settings allow, against `pulumi up`'s wait); amiType and instanceTypes replace the node group;
 * where only @pulumi/eks or AWS can tell, the diff says "may replace" and why.
 */
import * as assert from "node:assert/strict";
import { type PlanDiff, type ResourceDiff, diffDocuments } from "../offline/diff";
import { renderDiff } from "../offline/diff-render";
import { type ResourcesDocument, resourcesDocument } from "../offline/plan";
import { EKS_DEFAULT_MAX_UNAVAILABLE } from "../components/cluster/node-rolls";
import type { RolloutSide } from "../offline/diff-types";
import {
  deployedDesiredSize,
  nodeCount,
  replacement,
  rollingUpdate,
  updateSettings,
} from "../offline/node-rollout";
import { evaluated, evaluatedWith, one, stackValue } from "./helpers";

const GROUP = "aws:eks/nodeGroup:NodeGroup cluster-general";
const TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate cluster-general";
/** dev's group as the base plan's nodeGroupScaling output left it: 2 nodes, which an autoscaler may move. */
const DEPLOYED_2 =
  "2 nodes (the desiredSize the last update left, nodeGroupScaling; an autoscaler may have moved it)";
const ROLL_2 = `rolling update (UpdateNodegroupVersion): EKS replaces all ${DEPLOYED_2}, maxUnavailable 1 (updateConfig) at a time; 2 batches, each draining for up to 15 min, within \`pulumi up\`'s 60 min wait`;
const TAKES_VERSION =
  "takes latestVersion from aws:ec2/launchTemplate:LaunchTemplate cluster-general, which its update " +
  "changes: a new launch template version (CreateLaunchTemplateVersion)";

function resource(diff: PlanDiff, heading: string): ResourceDiff {
  const found = [...diff.added, ...diff.removed, ...diff.changed].find((r) => r.heading === heading);
  assert.ok(found, `${heading} is in the diff`);
  return found;
}

/** dev's node groups, each changed by `change`. */
function devGroups(change: Record<string, unknown>): unknown[] {
  return stackValue<Record<string, unknown>[]>("dev", "nodeGroups").map((g) => ({ ...g, ...change }));
}

/** `doc` with the inputs of one resource (by type and name) replaced by `edit`'s result. */
function edited(
  doc: ResourcesDocument,
  type: string,
  name: string,
  edit: (inputs: Record<string, unknown>) => Record<string, unknown>,
  options: Partial<ResourcesDocument["resources"][number]["options"]> = {},
): ResourcesDocument {
  return {
    ...doc,
    resources: doc.resources.map((r) =>
      r.type === type && r.name === name
        ? { ...r, inputs: edit({ ...r.inputs }), options: { ...r.options, ...options } }
        : r,
    ),
  };
}

/** A node group's side of a step, with the options it sets and the rest at their defaults. */
function side(
  inputs: Record<string, unknown>,
  options: Partial<ResourcesDocument["resources"][number]["options"]> = {},
): RolloutSide {
  return {
    inputs,
    options: {
      protect: false,
      retainOnDelete: false,
      deleteBeforeReplace: false,
      ignoreChanges: [],
      replaceOnChanges: [],
      ...options,
    },
  };
}

/** A plan's outputs without `nodeGroupScaling`, as a plan from before that output existed has them. */
function withoutScaling(outputs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(outputs).filter(([key]) => key !== "nodeGroupScaling"));
}

async function devDiff(config: Record<string, unknown>): Promise<PlanDiff> {
  return diffDocuments(
    resourcesDocument(await evaluated("dev")),
    resourcesDocument(await evaluatedWith("dev", { config })),
  );
}

describe("offline diff: what rolls the nodes", () => {
  it("rolls the node group to a new launch template version when the stack tags change", async () => {
    const diff = await devDiff({ "eks-calico:tags": { environment: "dev", team: "platform" } });
    const template = resource(diff, TEMPLATE);
    assert.equal(template.op, "update");
    const tagged = template.changes.find((c) => c.path === "inputs.tagSpecifications[0].tags.team");
    // The plan says why a tag rolls the nodes, at the template (docs/config-reference.md#tags).
    assert.match(
      tagged?.note ?? "",
      /the stack's tags reach each node only at launch: a changed tag replaces every node/,
    );
    // The template's own tags make no new version, and say nothing of nodes.
    assert.equal(template.changes.find((c) => c.path === "inputs.tags.team")?.note, undefined);
    const group = resource(diff, GROUP);
    assert.equal(group.op, "update");
    assert.deepEqual(
      group.changes.find((c) => c.path === "inputs.launchTemplate.version"),
      {
        path: "inputs.launchTemplate.version",
        before: "(current)",
        after: "(new)",
        effect: "update",
        note: TAKES_VERSION,
      },
    );
    assert.equal(group.rollout, ROLL_2);
    const text = renderDiff(diff, "dev.json");
    assert.ok(text.includes(`\n~ ${GROUP}\n    nodes: ${ROLL_2}\n`), text);
    assert.ok(text.includes(`\n    inputs.launchTemplate.version  (${TAKES_VERSION})\n`));
  });

  it("rolls the node group when diskSizeGiB changes the template's block devices", async () => {
    const diff = await devDiff({ "eks-calico:nodeGroups": devGroups({ diskSizeGiB: 80 }) });
    assert.deepEqual(resource(diff, TEMPLATE).changes, [
      { path: "inputs.blockDeviceMappings[0].ebs.volumeSize", before: 50, after: 80, effect: "update" },
    ]);
    const group = resource(diff, GROUP);
    assert.deepEqual(
      [group.op, group.rollout, group.changes.map((c) => c.path)],
      ["update", ROLL_2, ["inputs.launchTemplate.version"]],
    );
  });

  it("paces the roll by the deployed updateConfig, and counts the deployed desiredSize", async () => {
    const dev = resourcesDocument(await evaluated("dev"));
    const withConfig = (doc: ResourcesDocument, config: Record<string, unknown>) =>
      edited(
        doc,
        "aws:eks/nodeGroup:NodeGroup",
        "cluster-general",
        (inputs) => ({
          ...inputs,
          updateConfig: config,
          scalingConfig: { ...(inputs.scalingConfig as object), desiredSize: 3 },
        }),
        { ignoreChanges: [] },
      );
    const newVersion = (doc: ResourcesDocument) =>
      edited(doc, "aws:ec2/launchTemplate:LaunchTemplate", "cluster-general", (i) => ({
        ...i,
        description: "a new description",
      }));
    // The version update goes first (resourceNodeGroupUpdate): the deployed updateConfig paces it.
    const base = withConfig(dev, { maxUnavailable: 2 });
    const head = newVersion(withConfig(dev, { maxUnavailablePercentage: 50 }));
    assert.equal(
      resource(diffDocuments(base, head), GROUP).rollout,
      "rolling update (UpdateNodegroupVersion): EKS replaces all 2 nodes (the deployed desiredSize, nodeGroupScaling), maxUnavailable 2 (updateConfig) at a time; 1 batch, each draining for up to 15 min, within `pulumi up`'s 60 min wait",
    );
    // A base plan without the nodeGroupScaling output: the configured size, which Pulumi enforces here.
    const outputs = withoutScaling(base.outputs);
    assert.equal(
      resource(diffDocuments({ ...base, outputs }, head), GROUP).rollout,
      "rolling update (UpdateNodegroupVersion): EKS replaces all 3 nodes (desiredSize), maxUnavailable 2 (updateConfig) at a time; 2 batches, each draining for up to 15 min, within `pulumi up`'s 60 min wait",
    );
  });

  it("says the count is the configured one where the deployed one is not known", async () => {
    const dev = resourcesDocument(await evaluated("dev"));
    const outputs = withoutScaling(dev.outputs);
    const head = edited(dev, "aws:eks/nodeGroup:NodeGroup", "cluster-general", (i) => ({
      ...i,
      version: "1.36",
    }));
    assert.equal(
      resource(diffDocuments({ ...dev, outputs }, head), GROUP).rollout,
      "rolling update (UpdateNodegroupVersion): EKS replaces all 2 nodes (the configured desiredSize; the " +
        "deployed count may differ: it is ignored), maxUnavailable 1 (updateConfig) at a time; 2 batches, each draining for up to 15 min, within `pulumi up`'s 60 min wait",
    );
  });

  it("leaves the nodes alone when only the launch template's own tags change (no new version)", async () => {
    const dev = resourcesDocument(await evaluated("dev"));
    const head = edited(dev, "aws:ec2/launchTemplate:LaunchTemplate", "cluster-general", (inputs) => ({
      ...inputs,
      tags: { ...(inputs.tags as object), team: "platform" },
    }));
    const diff = diffDocuments(dev, head);
    assert.deepEqual(
      diff.changed.map((r) => `${r.op} ${r.heading}`),
      [`update ${TEMPLATE}`],
    );
  });

  it("rolls the nodes on a Kubernetes version change of the node group", async () => {
    const dev = resourcesDocument(await evaluated("dev"));
    const head = edited(dev, "aws:eks/nodeGroup:NodeGroup", "cluster-general", (i) => ({
      ...i,
      version: "1.36",
    }));
    const group = resource(diffDocuments(dev, head), GROUP);
    assert.deepEqual([group.op, group.rollout], ["update", ROLL_2]);
  });

  for (const [input, change, tfPath] of [
    ["amiType", { amiType: "BOTTLEROCKET_x86_64" }, "ami_type"],
    ["instanceTypes", { instanceTypes: ["t3.xlarge"] }, "instance_types"],
    ["capacityType", { capacityType: "SPOT" }, "capacity_type"],
  ] as const) {
    it(`replaces the node group and every node when ${input} changes (ForceNew ${tfPath})`, async () => {
      // As `npm start -- --diff base.json` plans the head: with the base plan's outputs as the last ones.
      const dev = await evaluated("dev");
      const diff = diffDocuments(
        resourcesDocument(dev),
        resourcesDocument(
          await evaluatedWith("dev", {
            config: { "eks-calico:nodeGroups": devGroups(change) },
            previousOutputs: dev.outputs,
          }),
        ),
      );
      const group = resource(diff, GROUP);
      assert.equal(group.op, "replace");
      assert.equal(
        group.rollout,
        `replaced by a new node group: all ${DEPLOYED_2} go, 2 nodes (the desiredSize this update sends) start in the new one`,
      );
      const direct = group.changes.find((c) => c.path.startsWith(`inputs.${input}`));
      assert.equal(direct?.effect, "replace");
      const source = `aws_eks_node_group ${tfPath} ForceNew, terraform-provider-aws internal/service/eks/node_group.go`;
      assert.equal(direct?.source, source);
      const text = renderDiff(diff, "dev.json");
      assert.ok(
        text.includes(`\n+- ${GROUP}\n    nodes: replaced by a new node group: all ${DEPLOYED_2} go,`),
        text,
      );
      assert.ok(text.includes(`(forces replacement: ${source})\n`));
    });
  }
});

describe("offline diff: the size a replacing node group starts at", () => {
  // staging's general group: minSize 2, desiredSize 3, maxSize 6 (Pulumi.staging.yaml).
  const STAGING = "<node-group-name:cluster-general>";
  const stagingGroups = (change: Record<string, unknown>) =>
    stackValue<Record<string, unknown>[]>("staging", "nodeGroups").map((g) =>
      g.name === "general" ? { ...g, ...change } : g,
    );

  async function replacedAt(running: number, change: Record<string, unknown>) {
    const first = await evaluated("staging");
    // The base plan: staging deployed, an autoscaler has since taken the group to `running` nodes.
    const simulate = { nodeGroups: { autoscaledDesiredSizes: { [STAGING]: running } } };
    const base = await evaluatedWith("staging", { previousOutputs: first.outputs, simulate });
    const head = await evaluatedWith("staging", {
      config: { "eks-calico:nodeGroups": stagingGroups(change) },
      previousOutputs: base.outputs,
      simulate,
    });
    return { head, diff: diffDocuments(resourcesDocument(base), resourcesDocument(head)) };
  }

  it("starts the new group at the 6 nodes the old one runs, not at desiredSize 3", async () => {
    const { head, diff } = await replacedAt(6, { instanceTypes: ["m6i.xlarge"] });
    const group = resource(diff, GROUP);
    assert.equal(group.op, "replace");
    assert.match(
      String(group.rollout),
      /, 6 nodes \(the desiredSize this update sends\) start in the new one$/,
    );
    const sent = one(head, "aws:eks/nodeGroup:NodeGroup", "cluster-general").inputs;
    assert.deepEqual(sent.scalingConfig, { minSize: 2, desiredSize: 6, maxSize: 6 });
    const options = one(head, "aws:eks/nodeGroup:NodeGroup", "cluster-general").options;
    assert.deepEqual(options.ignoreChanges, [], "sent: ignoreChanges would keep the state's 3");
    const scaling = head.outputs.nodeGroupScaling as Record<string, { desiredSizeSet?: string }>;
    assert.equal(
      scaling.general.desiredSizeSet,
      "replaced (instanceTypes [m6i.large] → [m6i.xlarge]: ForceNew), and the new group starts at the 6 nodes the old one runs",
    );
    assert.equal(scaling.system.desiredSizeSet, undefined, "the other group is not replaced");
  });

  it("moves the start into the new range only as far as EKS requires", async () => {
    const { head } = await replacedAt(6, { capacityType: "SPOT", minSize: 1, desiredSize: 2, maxSize: 4 });
    const sent = one(head, "aws:eks/nodeGroup:NodeGroup", "cluster-general").inputs;
    assert.deepEqual(sent.scalingConfig, { minSize: 1, desiredSize: 4, maxSize: 4 });
    const scaling = head.outputs.nodeGroupScaling as Record<string, { desiredSizeSet?: string }>;
    assert.match(
      String(scaling.general.desiredSizeSet),
      /capacityType ON_DEMAND → SPOT: .*, lowered to maxSize 4$/,
    );
  });

  it("says where the start comes from when the desired size stays ignored", () => {
    const ignored = { ignoreChanges: ["scalingConfig.desiredSize"] };
    assert.equal(
      replacement(
        side({ scalingConfig: { desiredSize: 3 } }, ignored),
        side({ scalingConfig: { desiredSize: 5 } }, ignored),
      ),
      "replaced by a new node group: all 3 nodes (the configured desiredSize; the deployed count may differ: it is ignored) go, 3 nodes (the desiredSize in Pulumi's state, which ignoreChanges keeps on a replacement) start in the new one",
    );
  });
});

describe("offline diff: what it does not know", () => {
  it('renders an outcome decided inside @pulumi/eks as "may replace", with why', async () => {
    const prod = resourcesDocument(await evaluated("prod"));
    const head = edited(prod, "eks:index:Cluster", "cluster-eks", (i) => ({
      ...i,
      createOidcProvider: false,
    }));
    const diff = diffDocuments(prod, head);
    const cluster = resource(diff, "eks:index:Cluster cluster-eks");
    assert.equal(cluster.op, "unknown");
    const text = renderDiff(diff, "prod.json");
    assert.match(text.split("\n")[0], /, \? \d+ may replace, /);
    assert.match(
      text,
      /\n\? eks:index:Cluster cluster-eks {2}\[protected: `pulumi up` stops if it is replaced\]\n {4}inputs\.createOidcProvider: true → false {2}\(may replace: decided inside @pulumi\/eks \(nodejs\/eks\/cluster\/cluster\.ts\), which builds resources from it the offline plan does not see\)\n/,
    );
    // The node groups are built on the cluster: what would happen to their nodes if it is replaced.
    const group = resource(diff, "aws:eks/nodeGroup:NodeGroup cluster-general");
    assert.equal(group.op, "unknown");
    assert.match(String(group.rollout), /^if it is replaced: replaced by a new node group: all 3 nodes \(/);
    assert.doesNotMatch(text, /\bunknown\b/);
  });

  it("describes node counts, update settings and the wait from the inputs and options, with EKS's and the provider's defaults", () => {
    assert.equal(EKS_DEFAULT_MAX_UNAVAILABLE, 1);
    assert.equal(nodeCount(side({ scalingConfig: { desiredSize: 1 } })), "1 node (desiredSize)");
    assert.equal(
      nodeCount(side({ scalingConfig: { desiredSize: 1 } }), 4),
      "4 nodes (the deployed desiredSize, nodeGroupScaling)",
    );
    assert.equal(
      updateSettings(side({ updateConfig: { maxUnavailable: 3 } })),
      "maxUnavailable 3 (updateConfig)",
    );
    assert.equal(
      updateSettings(side({ updateConfig: { maxUnavailablePercentage: 25 } })),
      "maxUnavailablePercentage 25% (updateConfig)",
    );
    assert.equal(updateSettings(side({})), "maxUnavailable 1 (EKS default: no updateConfig)");
    const four = side({ scalingConfig: { desiredSize: 4 } });
    assert.equal(
      rollingUpdate(four, four),
      "rolling update (UpdateNodegroupVersion): EKS replaces all 4 nodes (desiredSize), maxUnavailable 1 (EKS default: no updateConfig) at a time; 4 batches, each draining for up to 15 min, within `pulumi up`'s 60 min wait",
    );
    // At EKS's 15 minutes of drain per batch, against the provider's 60-minute node group update timeout,
    // or the wait the update sets.
    const one = side({ scalingConfig: { desiredSize: 1 } });
    const twelve = rollingUpdate(one, one, 12);
    assert.match(
      twelve,
      /12 batches, each draining for up to 15 min: up to 180 min, past `pulumi up`'s 60 min/,
    );
    assert.match(twelve, /EKS keeps rolling: wait for `aws eks list-updates`/);
    assert.match(
      rollingUpdate(one, side({}, { customTimeouts: { update: "195m" } }), 12),
      /; 12 batches, each draining for up to 15 min, within `pulumi up`'s 195 min wait$/,
    );
    const quarter = side({ updateConfig: { maxUnavailablePercentage: 25 } });
    assert.match(rollingUpdate(quarter, quarter, 12), /; 4 batches, each draining for up to 15 min, within/);
    const none = side({ scalingConfig: { desiredSize: 0 } });
    assert.doesNotMatch(rollingUpdate(none, none), /batch/);
    assert.equal(
      replacement(four, side({ scalingConfig: { desiredSize: 5 } })),
      "replaced by a new node group: all 4 nodes (desiredSize) go, 5 nodes (the desiredSize this update sends) start in the new one",
    );
  });

  it("finds a node group's deployed size in nodeGroupScaling by its EKS name, offline or auto-named", () => {
    const scaling = (nodeGroupName: string) => ({
      nodeGroupScaling: { general: { nodeGroupName, minSize: 1, desiredSize: 6, maxSize: 9 } },
    });
    assert.equal(deployedDesiredSize(scaling("<node-group-name:cluster-general>"), "cluster-general"), 6);
    assert.equal(deployedDesiredSize(scaling("cluster-general-1a2b3c4"), "cluster-general"), 6);
    assert.equal(
      deployedDesiredSize(scaling("cluster-general-system-1a2b3c4"), "cluster-general"),
      undefined,
    );
    assert.equal(deployedDesiredSize({}, "cluster-general"), undefined);
  });
});
