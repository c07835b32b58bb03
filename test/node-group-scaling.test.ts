/**
 * Node-group sizes on a deployed stack (stacks/previous-scaling.ts): the `nodeGroupScaling` output, the
 * desired size a deployed group keeps (an autoscaler's, read back with aws.eks.getNodeGroup), an update
 * of minSize or maxSize that sends EKS a desired size inside the new range, and the refusal when AWS
 * cannot show the current one. EKS refuses a desired size outside [minSize, maxSize] ("Minimum capacity X
 * can't be greater than desired size Y": hashicorp/terraform-provider-aws#18310; "desiredSize can't be
 * greater than maxSize": ministryofjustice/cloud-platform-infrastructure#4595); under ignoreChanges the
 * provider sends the state's old desired size with the new range (internal/service/eks/node_group.go,
 * resourceNodeGroupUpdate; pulumi/pulumi#2657).
 */
import * as assert from "node:assert/strict";
import { diffDocuments } from "../offline/diff";
import { evaluateStackExpectingError, type StackEvaluation } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { DeployedNodeGroups } from "../offline/world/node-groups";
import { ConfigError } from "../stacks";
import { type CurrentGroup, sizeNodeGroups } from "../stacks/previous-scaling";
import { type DeployedScaling, namesNodeGroup } from "../stacks/scaling-output";
import { REPLACING_KEYS } from "../stacks/node-group-replacement";
import type { NodeGroupConfig } from "../stacks/schema";
import { REPLACEMENT_RULES } from "../offline/replacements";
import { evaluated, evaluatedWith, one, stackValue, unwrapped } from "./helpers";

const NODE_GROUP = "aws:eks/nodeGroup:NodeGroup";
const GENERAL = "<node-group-name:cluster-general>";
const TYPHA = "kubernetes:apps/v1:Deployment";

type Sizes = { minSize: number; desiredSize: number; maxSize: number };
/** The settings that replace dev's `general` group when they change, as Pulumi.dev.yaml sets them. */
const DEV_SETTINGS = {
  amiType: "AL2023_x86_64_STANDARD",
  capacityType: "ON_DEMAND",
  instanceTypes: ["t3.large"],
};

/** dev's node groups, the first (`general`, deployed at 2..3 with 2 nodes) with other sizes. */
function devGroups(sizes: Sizes): unknown[] {
  const groups = stackValue<Record<string, unknown>[]>("dev", "nodeGroups");
  return groups.map((g, i) => (i === 0 ? { ...g, ...sizes } : g));
}

const calicoOutput = (e: StackEvaluation) => e.outputs.calico as Record<string, unknown>;
const typhaReplicas = (e: StackEvaluation) =>
  (one(e, TYPHA, "calico-deployment-calico-typha").inputs.spec as { replicas: number }).replicas;

describe("node-group scaling on a deployed stack", () => {
  let deployed: StackEvaluation;
  before(async () => {
    deployed = await evaluated("dev");
  });
  const update = (sizes: Sizes, nodeGroups?: { autoscaledDesiredSizes?: Record<string, number> }) =>
    evaluatedWith("dev", {
      config: { "eks-calico:nodeGroups": devGroups(sizes) },
      previousOutputs: deployed.outputs,
      ...(nodeGroups !== undefined ? { simulate: { nodeGroups } } : {}),
    });

  it("exports each group's EKS name and sizes as deployed", () => {
    assert.deepEqual(deployed.outputs.nodeGroupScaling, {
      general: { nodeGroupName: GENERAL, minSize: 2, desiredSize: 2, maxSize: 3, ...DEV_SETTINGS },
    });
  });

  it("a change of desiredSize alone is ignored: the Calico counts and Typha's replicas stay", async () => {
    const bigger = await update({ minSize: 2, desiredSize: 3, maxSize: 3 });
    const group = one(bigger, NODE_GROUP, "cluster-general");
    assert.deepEqual(group.options.ignoreChanges, ["scalingConfig.desiredSize"]);
    assert.equal(
      bigger.simulated.find((line) => line.startsWith("cluster-general:")),
      "cluster-general: 2 nodes (the desired size it runs at; desiredSize is ignored)",
    );
    for (const key of ["desired", "ready", "typhaReplicas"]) {
      assert.equal(calicoOutput(bigger)[key], calicoOutput(deployed)[key], key);
    }
    assert.equal(typhaReplicas(bigger), typhaReplicas(deployed));
    assert.deepEqual(bigger.outputs.nodeGroupScaling, deployed.outputs.nodeGroupScaling);
    // The plan changes the node group's ignored input and nothing else.
    const diff = diffDocuments(resourcesDocument(deployed), resourcesDocument(bigger));
    assert.deepEqual([diff.added, diff.removed], [[], []]);
    assert.deepEqual(
      diff.changed.map((r) => [r.heading, r.changes.map((c) => [c.path, c.effect])]),
      [[`${NODE_GROUP} cluster-general`, [["inputs.scalingConfig.desiredSize", "ignored"]]]],
    );
  });

  it("the same change on a new stack starts the group, Calico and Typha at the configured size", async () => {
    const fresh = await evaluatedWith("dev", {
      config: { "eks-calico:nodeGroups": devGroups({ minSize: 2, desiredSize: 3, maxSize: 3 }) },
    });
    assert.equal(calicoOutput(fresh).desired, 3);
    assert.equal(typhaReplicas(fresh), 2);
  });

  it("keeps an autoscaler's desired size in the counts, not the last update's", async () => {
    const scaled = await update(
      { minSize: 2, desiredSize: 2, maxSize: 3 },
      { autoscaledDesiredSizes: { [GENERAL]: 3 } },
    );
    assert.equal(calicoOutput(scaled).desired, 3);
    assert.deepEqual(one(scaled, NODE_GROUP, "cluster-general").options.ignoreChanges, [
      "scalingConfig.desiredSize",
    ]);
  });

  it("minSize raised above the deployed desired size: this update raises the desired size with it", async () => {
    const raised = await update({ minSize: 3, desiredSize: 3, maxSize: 4 });
    const group = one(raised, NODE_GROUP, "cluster-general");
    assert.deepEqual(group.options.ignoreChanges, []);
    assert.deepEqual(group.inputs.scalingConfig, { minSize: 3, desiredSize: 3, maxSize: 4 });
    assert.deepEqual(raised.outputs.nodeGroupScaling, {
      general: {
        nodeGroupName: GENERAL,
        minSize: 3,
        desiredSize: 3,
        maxSize: 4,
        ...DEV_SETTINGS,
        desiredSizeSet:
          "raised from 2 to 3: minSize 3 is above the desired size the group ran at, and EKS refuses a desired size below minSize",
      },
    });
    assert.equal(calicoOutput(raised).desired, 3);
    assert.equal(typhaReplicas(raised), 2);
    // The next update leaves the desired size to autoscalers again.
    const next = await evaluatedWith("dev", {
      config: { "eks-calico:nodeGroups": devGroups({ minSize: 3, desiredSize: 3, maxSize: 4 }) },
      previousOutputs: raised.outputs,
    });
    assert.deepEqual(one(next, NODE_GROUP, "cluster-general").options.ignoreChanges, [
      "scalingConfig.desiredSize",
    ]);
    assert.equal(
      Object.hasOwn((next.outputs.nodeGroupScaling as Record<string, object>).general, "desiredSizeSet"),
      false,
    );
  });

  it("a range change never lowers an autoscaler's desired size below what the range allows", async () => {
    // The state still holds 2: sent under ignoreChanges, it would take the autoscaler's third node away.
    const wider = await update(
      { minSize: 2, desiredSize: 2, maxSize: 5 },
      { autoscaledDesiredSizes: { [GENERAL]: 3 } },
    );
    const group = one(wider, NODE_GROUP, "cluster-general");
    assert.deepEqual(group.options.ignoreChanges, []);
    assert.deepEqual(group.inputs.scalingConfig, { minSize: 2, desiredSize: 3, maxSize: 5 });
    assert.equal(calicoOutput(wider).desired, 3);
    assert.match(
      String(
        (wider.outputs.nodeGroupScaling as Record<string, { desiredSizeSet: string }>).general.desiredSizeSet,
      ),
      /^kept at 3: /,
    );
  });

  it("maxSize lowered below the deployed desired size: the desired size comes down to it", async () => {
    const lower = await update(
      { minSize: 1, desiredSize: 2, maxSize: 2 },
      { autoscaledDesiredSizes: { [GENERAL]: 3 } },
    );
    const group = one(lower, NODE_GROUP, "cluster-general");
    assert.deepEqual(group.inputs.scalingConfig, { minSize: 1, desiredSize: 2, maxSize: 2 });
    assert.deepEqual(group.options.ignoreChanges, []);
    assert.equal(calicoOutput(lower).desired, 2);
  });

  it("a new stack with any valid sizes is created as configured, nothing refused", async () => {
    const fresh = await evaluatedWith("dev", {
      config: { "eks-calico:nodeGroups": devGroups({ minSize: 3, desiredSize: 3, maxSize: 4 }) },
    });
    const group = one(fresh, NODE_GROUP, "cluster-general");
    assert.deepEqual(group.options.ignoreChanges, ["scalingConfig.desiredSize"]);
    assert.deepEqual(group.inputs.scalingConfig, { minSize: 3, desiredSize: 3, maxSize: 4 });
  });

  describe("when AWS does not show the current desired size", () => {
    const denied = (sizes: Sizes) => ({
      config: { "eks-calico:nodeGroups": devGroups(sizes) },
      previousOutputs: deployed.outputs,
      simulate: { nodeGroups: { readDenied: true } },
    });

    it("refuses a range change before any resource, with AWS's error and the command", async () => {
      const { error, resources } = await evaluateStackExpectingError(
        "dev",
        denied({ minSize: 3, desiredSize: 3, maxSize: 4 }),
      );
      assert.ok(ConfigError.isConfigError(error), String(error));
      assert.equal(resources.filter((r) => r.type === NODE_GROUP).length, 0);
      const [problem] = error.problems;
      assert.equal(problem.path, "nodeGroups[0].minSize");
      assert.equal(problem.value, 3);
      assert.match(problem.rule, /AccessDeniedException: .* eks:DescribeNodegroup/);
      assert.match(problem.rule, /from 2\.\.3 to 3\.\.4/);
      assert.match(
        String(problem.hint),
        /`aws eks describe-nodegroup --cluster-name eks-calico-dev --nodegroup-name <node-group-name:cluster-general>`/,
      );
      assert.match(
        String(problem.steps?.[0]),
        /^`aws eks update-nodegroup-config --cluster-name eks-calico-dev --nodegroup-name <node-group-name:cluster-general> --scaling-config minSize=3,maxSize=4,desiredSize=3`/,
      );
      assert.match(
        unwrapped(error.message),
        /nodeGroups\[0\]\.minSize: changes the deployed node group's size range/,
      );
    });

    it("plans any other change with the sizes the last update exported", async () => {
      const other = await evaluatedWith("dev", denied({ minSize: 2, desiredSize: 3, maxSize: 3 }));
      assert.equal(calicoOutput(other).desired, 2);
      assert.deepEqual(one(other, NODE_GROUP, "cluster-general").options.ignoreChanges, [
        "scalingConfig.desiredSize",
      ]);
    });
  });
});

describe("node-group names", () => {
  it("matches an EKS name to the group whose resource name it was auto-named from", () => {
    assert.ok(namesNodeGroup("cluster-general-1a2b3c4", "cluster-general"));
    // The offline world's name for it: a placeholder of AWS's auto-name.
    assert.ok(namesNodeGroup(GENERAL, "cluster-general"));
    assert.ok(!namesNodeGroup("cluster-general-system-1a2b3c4", "cluster-general"));
    assert.ok(!namesNodeGroup("cluster-general", "cluster-general"));
  });
});

describe("sizeNodeGroups: the decision per group", () => {
  const group = (sizes: Sizes) => ({ ...stackValue<object[]>("dev", "nodeGroups")[0], ...sizes }) as never;
  const at: DeployedScaling = { nodeGroupName: "ng-1", minSize: 2, desiredSize: 2, maxSize: 3 };
  const size = (sizes: Sizes, current: CurrentGroup | undefined, deployed: DeployedScaling | null = at) => {
    const result = sizeNodeGroups(
      [group(sizes)],
      deployed === null ? {} : { general: deployed },
      current === undefined ? {} : { general: current },
      "c",
    );
    return "sizing" in result ? result.sizing.general : result.problems;
  };

  it("a new group: its configured desiredSize, left to autoscalers after creation", () => {
    assert.deepEqual(size({ minSize: 1, desiredSize: 2, maxSize: 3 }, undefined, null), {
      desiredSize: 2,
      setDesiredSize: false,
      nodes: 2,
      configured: 2,
    });
  });

  it("a deployed group in the same range: the nodes it runs now, nothing sent; the config sets minSize", () => {
    assert.deepEqual(size({ minSize: 2, desiredSize: 3, maxSize: 3 }, { desiredSize: 3 }), {
      desiredSize: 3,
      setDesiredSize: false,
      nodes: 3,
      configured: 2,
    });
    assert.deepEqual(size({ minSize: 2, desiredSize: 2, maxSize: 3 }, { error: "denied" }), {
      desiredSize: 2,
      setDesiredSize: false,
      nodes: 2,
      configured: 2,
    });
  });

  it("a new range: the current desired size, moved into it only as far as EKS requires", () => {
    const sent = (sizes: Sizes, current: number) => {
      const s = size(sizes, { desiredSize: current });
      return "desiredSize" in s ? [s.desiredSize, s.setDesiredSize, s.nodes] : s;
    };
    assert.deepEqual(sent({ minSize: 4, desiredSize: 4, maxSize: 6 }, 2), [4, true, 4]);
    assert.deepEqual(sent({ minSize: 4, desiredSize: 4, maxSize: 6 }, 5), [5, true, 5]);
    assert.deepEqual(sent({ minSize: 1, desiredSize: 1, maxSize: 2 }, 3), [2, true, 2]);
  });
});

describe("sizeNodeGroups: a deployed group a change replaces", () => {
  const [dev] = stackValue<NodeGroupConfig[]>("dev", "nodeGroups");
  const at: DeployedScaling = { nodeGroupName: "ng-1", minSize: 2, desiredSize: 2, maxSize: 9 };
  const running = (desiredSize: number) => ({ desiredSize, replacing: DEV_SETTINGS });
  const size = (change: Partial<NodeGroupConfig>, current: CurrentGroup) => {
    const result = sizeNodeGroups([{ ...dev, ...change }], { general: at }, { general: current }, "c");
    assert.ok("sizing" in result);
    return result.sizing.general;
  };

  it("starts the new group at the nodes the old one runs, and sends it", () => {
    assert.deepEqual(size({ instanceTypes: ["t3.xlarge"], maxSize: 9 }, running(6)), {
      desiredSize: 6,
      setDesiredSize: true,
      nodes: 6,
      configured: 2,
      reason:
        "replaced (instanceTypes [t3.large] → [t3.xlarge]: ForceNew), and the new group starts at the 6 nodes the old one runs",
    });
  });

  it("clamps the start to the new range", () => {
    const lowered = size({ amiType: "BOTTLEROCKET_x86_64", minSize: 1, maxSize: 4 }, running(6));
    assert.deepEqual([lowered.desiredSize, lowered.nodes], [4, 4]);
    assert.match(
      String(lowered.reason),
      /amiType AL2023_x86_64_STANDARD → BOTTLEROCKET_x86_64: .*, lowered to maxSize 4$/,
    );
    const raised = size({ capacityType: "SPOT", minSize: 5, maxSize: 9 }, running(2));
    assert.deepEqual([raised.desiredSize, raised.nodes], [5, 5]);
    assert.match(String(raised.reason), /, raised to minSize 5$/);
  });

  it("a new order of instanceTypes replaces too: the provider's instance_types is a list", () => {
    const two = { ...DEV_SETTINGS, instanceTypes: ["t3.large", "m5.large"] };
    const swapped = size(
      { instanceTypes: ["m5.large", "t3.large"], maxSize: 9 },
      { desiredSize: 3, replacing: two },
    );
    assert.equal(swapped.setDesiredSize, true);
  });

  it("the same settings, or settings AWS did not show: no replacement, the desired size left to autoscalers", () => {
    assert.deepEqual(size({ maxSize: 9 }, running(6)), {
      desiredSize: 2,
      setDesiredSize: false,
      nodes: 6,
      configured: 2,
    });
    assert.deepEqual(size({ instanceTypes: ["t3.xlarge"], maxSize: 9 }, { desiredSize: 6 }), {
      desiredSize: 2,
      setDesiredSize: false,
      nodes: 6,
      configured: 2,
    });
  });

  it("knows every node-group config key the provider replaces on", () => {
    // replacements.ts states aws_eks_node_group's ForceNew arguments by their Pulumi names, from the
    // provider's schema (offline/aws-force-new.ts); a config key of the same name replaces the group.
    const replaceOn = REPLACEMENT_RULES["aws:eks/nodeGroup:NodeGroup"].replaceOn ?? [];
    const configKeys = Object.keys(dev);
    assert.deepEqual([...REPLACING_KEYS].sort(), configKeys.filter((key) => replaceOn.includes(key)).sort());
  });
});

describe("the offline world's node groups, held to EKS", () => {
  const previousOutputs = {
    clusterName: "c",
    nodeGroupScaling: { general: { nodeGroupName: GENERAL, minSize: 2, desiredSize: 2, maxSize: 3 } },
  };

  it("answers aws.eks.getNodeGroup from the last outputs, and fails for a group AWS does not have", () => {
    const world = new DeployedNodeGroups(previousOutputs, { autoscaledDesiredSizes: { [GENERAL]: 3 } });
    const answer = world.getNodeGroup({ clusterName: "c", nodeGroupName: GENERAL });
    assert.deepEqual(answer.scalingConfigs, [{ minSize: 2, desiredSize: 3, maxSize: 3 }]);
    // DescribeNodegroup's error for an unknown group (aws-samples/eks-workshop-v2#915).
    assert.throws(
      () => world.getNodeGroup({ clusterName: "c", nodeGroupName: "other" }),
      /ResourceNotFoundException: No node group found for name: other\./,
    );
  });
});
