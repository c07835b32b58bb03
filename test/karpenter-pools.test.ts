/**
 * `karpenter.nodePools` and the NodePools rendered from them: the pinned CRDs' rules hold a pool before
 * any resource (every problem at once, with its key path), and every pool's nodes start with the Calico
 * startup taint as a startup taint.
 */
import * as assert from "node:assert/strict";
import { karpenterSchema, nodePoolSchema } from "../stacks/schema/karpenter";
import { renderNodeClass, renderNodePool } from "../components/karpenter/node-pools";
import { STARTUP_TAINT, STARTUP_TAINT_VALUE } from "../components/startup-taint/objects";
import { dependsOn, evaluatedWith, ofType, one, withWarnings } from "./helpers";

/** Each problem of `input` as `path: message`. */
function problems(input: unknown): string[] {
  const parsed = karpenterSchema.safeParse(input);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

interface Requirement {
  key: string;
  operator: string;
  values: string[];
}
const specOf = (pool: ReturnType<typeof renderNodePool>) =>
  (pool.spec.template as { spec: { requirements: Requirement[]; startupTaints: unknown; taints?: unknown } })
    .spec;

describe("karpenter.nodePools", () => {
  it("is off by default, with one general-purpose pool when on", () => {
    const config = karpenterSchema.parse({});
    assert.equal(config.enabled, false);
    assert.deepEqual(Object.keys(config.nodePools), ["general"]);
    assert.deepEqual(karpenterSchema.parse({ enabled: true }).nodePools.general, nodePoolSchema.parse({}));
  });

  it("refuses what the NodePool CRD refuses, every problem at once, by key path", () => {
    const found = problems({
      nodePools: {
        Bad_Name: {},
        general: {
          capacityTypes: ["spot", "spot"],
          architectures: ["x86"],
          expireAfter: "30d",
          consolidateAfter: "1.5m",
          budgets: [{ nodes: "110%" }, { nodes: "1", schedule: "@daily" }],
          amiAlias: "windows2022@latest",
          limits: { cpu: 0 },
        },
      },
    });
    const paths = found.map((p) => p.split(": ")[0]);
    for (const path of [
      "nodePools.Bad_Name",
      "nodePools.general.capacityTypes",
      "nodePools.general.architectures.0",
      "nodePools.general.expireAfter",
      "nodePools.general.consolidateAfter",
      "nodePools.general.budgets.0.nodes",
      "nodePools.general.budgets.1",
      "nodePools.general.amiAlias",
      "nodePools.general.limits.cpu",
    ]) {
      assert.ok(paths.includes(path), `${path} in ${found.join(" | ")}`);
    }
    assert.match(found.join("\n"), /must name the al2023 family/);
    assert.match(found.join("\n"), /schedule and duration go together/);
  });

  it("takes what the CRD takes: Never, cron budgets with a duration, a pinned AMI release", () => {
    assert.deepEqual(
      problems({
        nodePools: {
          batch: {
            expireAfter: "Never",
            consolidateAfter: "1h30m",
            budgets: [{ nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h", reasons: ["Drifted"] }],
            amiAlias: "al2023@v20261120",
          },
        },
      }),
      [],
    );
  });
});

describe("the NodePools of karpenter.nodePools", () => {
  it("starts every pool's nodes with the Calico startup taint, as a startup taint, after the pool's own", () => {
    const pool = renderNodePool(
      "db",
      nodePoolSchema.parse({ taints: [{ key: "example.com/dedicated", value: "db", effect: "NoSchedule" }] }),
    );
    const spec = specOf(pool);
    assert.deepEqual(spec.startupTaints, [{ ...STARTUP_TAINT, value: STARTUP_TAINT_VALUE }]);
    assert.deepEqual(spec.taints, [{ key: "example.com/dedicated", value: "db", effect: "NoSchedule" }]);
  });

  it("asks EC2 for what the pool names, on Linux, and bounds it by its vCPU limit", () => {
    const settings = nodePoolSchema.parse({
      capacityTypes: ["spot", "on-demand"],
      architectures: ["arm64"],
      minGeneration: 6,
      minVcpus: 4,
      limits: { cpu: 64 },
    });
    const pool = renderNodePool("general", settings);
    const byKey = Object.fromEntries(
      specOf(pool).requirements.map((r) => [r.key, [r.operator, ...r.values]]),
    );
    assert.deepEqual(byKey, {
      "kubernetes.io/os": ["In", "linux"],
      "kubernetes.io/arch": ["In", "arm64"],
      "karpenter.sh/capacity-type": ["In", "spot", "on-demand"],
      "karpenter.k8s.aws/instance-category": ["In", "c", "m", "r"],
      "karpenter.k8s.aws/instance-generation": ["Gt", "5"],
      "karpenter.k8s.aws/instance-cpu": ["Gt", "3"],
    });
    assert.deepEqual(pool.spec.limits, { cpu: "64" });
  });

  it("gives each pool its own EC2NodeClass: IMDSv2 with hop limit 1, an encrypted gp3 root, discovery by tag", () => {
    const settings = nodePoolSchema.parse({ amiAlias: "al2023@v20261120", diskSizeGiB: 80 });
    assert.deepEqual(
      (renderNodePool("batch", settings).spec.template as { spec: { nodeClassRef: unknown } }).spec
        .nodeClassRef,
      { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "batch" },
    );
    const nodeClass = renderNodeClass("batch", settings, {
      clusterName: "cluster-eksCluster-0123",
      nodeRole: "cluster-karpenter-node",
      tags: { team: "platform" },
    });
    const spec = nodeClass.spec;
    assert.equal(nodeClass.metadata.name, "batch");
    assert.equal(spec.role, "cluster-karpenter-node");
    assert.deepEqual(spec.amiSelectorTerms, [{ alias: "al2023@v20261120" }]);
    const discovery = [{ tags: { "karpenter.sh/discovery": "cluster-eksCluster-0123" } }];
    assert.deepEqual(spec.subnetSelectorTerms, discovery);
    assert.deepEqual(spec.securityGroupSelectorTerms, discovery);
    assert.deepEqual(spec.metadataOptions, {
      httpEndpoint: "enabled",
      httpTokens: "required",
      httpPutResponseHopLimit: 1,
      httpProtocolIPv6: "disabled",
    });
    assert.deepEqual(spec.blockDeviceMappings, [
      {
        deviceName: "/dev/xvda",
        rootVolume: true,
        ebs: { volumeSize: "80Gi", volumeType: "gp3", encrypted: true, deleteOnTermination: true },
      },
    ]);
    assert.deepEqual(spec.tags, { team: "platform" });
  });
});

describe("karpenter.enabled in the plan", () => {
  it("makes the interruption queue and its rules, the node role with an EC2_LINUX entry, the controller's Pod Identity role, and the pools", async () => {
    const plan = await evaluatedWith("dev", { config: { "eks-calico:karpenter.enabled": true } });
    const rules = ofType(plan, "aws:cloudwatch/eventRule:EventRule").map(
      (r) => JSON.parse(r.inputs.eventPattern as string) as { source: string[]; "detail-type": string[] },
    );
    assert.deepEqual(rules.map((r) => `${r.source[0]} ${r["detail-type"][0]}`).sort(), [
      "aws.ec2 EC2 Capacity Reservation Instance Interruption Warning",
      "aws.ec2 EC2 Instance Rebalance Recommendation",
      "aws.ec2 EC2 Instance State-change Notification",
      "aws.ec2 EC2 Spot Instance Interruption Warning",
      "aws.health AWS Health Event",
    ]);
    const queue = one(plan, "aws:sqs/queue:Queue", "karpenter-interruption");
    assert.equal(queue.inputs.messageRetentionSeconds, 300);
    assert.equal(queue.inputs.sqsManagedSseEnabled, true);
    assert.equal(one(plan, "aws:eks/accessEntry:AccessEntry", "karpenter-node").inputs.type, "EC2_LINUX");
    const association = one(
      plan,
      "aws:eks/podIdentityAssociation:PodIdentityAssociation",
      "karpenter-controller",
    );
    assert.deepEqual(
      [association.inputs.namespace, association.inputs.serviceAccount],
      ["kube-system", "karpenter"],
    );
    assert.equal(
      ofType(plan, "aws:iam/policy:Policy").filter((p) => p.name.startsWith("karpenter-")).length,
      6,
    );
    const pool = one(plan, "kubernetes:karpenter.sh/v1:NodePool", "karpenter-pool-general");
    const template = (pool.inputs.spec as { template: { spec: { startupTaints: unknown } } }).template;
    assert.deepEqual(template.spec.startupTaints, [{ ...STARTUP_TAINT, value: STARTUP_TAINT_VALUE }]);
    const nodeClass = one(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "karpenter-class-general");
    // What the class selects by, the private subnets and the cluster security group carry.
    const selector = (nodeClass.inputs.spec as { subnetSelectorTerms: { tags: Record<string, string> }[] })
      .subnetSelectorTerms[0].tags;
    const [[key, value]] = Object.entries(selector);
    const subnets = ofType(plan, "aws:ec2/subnet:Subnet");
    for (const subnet of subnets) {
      const tags = subnet.inputs.tags as Record<string, string>;
      assert.equal(tags[key], subnet.name.includes("-private-") ? value : undefined, subnet.name);
    }
    const tag = one(plan, "aws:ec2/tag:Tag", "karpenter-discovery");
    assert.deepEqual([tag.inputs.key, tag.inputs.value], [key, value]);
  });

  it("runs the controller on the managed node groups, never on its own nodes, as the associated service account", async () => {
    const plan = await evaluatedWith("dev", { config: { "eks-calico:karpenter.enabled": true } });
    const deployment = one(plan, "kubernetes:apps/v1:Deployment", "karpenter-controller");
    const pod = (
      deployment.inputs.spec as {
        replicas: number;
        template: {
          spec: {
            serviceAccountName: string;
            affinity: { nodeAffinity: unknown };
            containers: { env: { name: string; value?: string }[] }[];
          };
        };
      }
    ).template.spec;
    assert.deepEqual(pod.affinity.nodeAffinity, {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] },
        ],
      },
    });
    const association = one(
      plan,
      "aws:eks/podIdentityAssociation:PodIdentityAssociation",
      "karpenter-controller",
    );
    assert.equal(pod.serviceAccountName, association.inputs.serviceAccount);
    assert.ok(
      deployment.dependencies.includes(association.urn),
      "its pods start once the role is associated",
    );
    const env = Object.fromEntries(pod.containers[0].env.map((e) => [e.name, e.value]));
    // Both come from other resources: the queue's name, the EKS cluster's.
    assert.ok(env.INTERRUPTION_QUEUE !== undefined && env.INTERRUPTION_QUEUE !== "", "INTERRUPTION_QUEUE");
    assert.ok(env.CLUSTER_NAME !== undefined && env.CLUSTER_NAME !== "", "CLUSTER_NAME");
    // The stack's region: without it Karpenter asks IMDS, which hop limit 1 keeps from pods.
    assert.equal(env.AWS_REGION, "us-west-2");
    const queue = one(plan, "aws:sqs/queue:Queue", "karpenter-interruption");
    assert.ok(deployment.dependencies.includes(queue.urn));
    // The agent that hands the pod its role runs on every managed node before the controller's pods.
    const agent = one(plan, "aws:eks/addon:Addon", "cluster-pod-identity-agent");
    assert.equal(agent.inputs.addonName, "eks-pod-identity-agent");
    assert.ok(dependsOn(plan, deployment, agent), "the controller starts after the agent");
    for (const group of ofType(plan, "aws:eks/nodeGroup:NodeGroup")) assert.ok(dependsOn(plan, group, agent));
  });

  it("deletes the pools before the controller and what it needs: Karpenter terminates its nodes first", async () => {
    const plan = await evaluatedWith("dev", { config: { "eks-calico:karpenter.enabled": true } });
    const deployment = one(plan, "kubernetes:apps/v1:Deployment", "karpenter-controller");
    const pool = one(plan, "kubernetes:karpenter.sh/v1:NodePool", "karpenter-pool-general");
    const nodeClass = one(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "karpenter-class-general");
    const needed = [
      deployment,
      one(plan, "aws:eks/podIdentityAssociation:PodIdentityAssociation", "karpenter-controller"),
      one(plan, "aws:eks/accessEntry:AccessEntry", "karpenter-node"),
      one(plan, "aws:iam/role:Role", "karpenter-node"),
      one(plan, "aws:iam/role:Role", "karpenter-controller"),
      one(plan, "aws:sqs/queue:Queue", "karpenter-interruption"),
      ...ofType(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment").filter((a) =>
        a.name.startsWith("karpenter-"),
      ),
    ];
    for (const resource of [pool, nodeClass]) {
      for (const earlier of needed)
        assert.ok(dependsOn(plan, resource, earlier), `${resource.name} after ${earlier.name}`);
    }
    assert.deepEqual(nodeClass.options.customTimeouts, { delete: "30m" });
  });

  it("says in the plan that a pool on @latest has its nodes replaced by AWS's next AMI, and not for a pinned one", async () => {
    const { warnings } = await withWarnings(() =>
      evaluatedWith("dev", {
        config: {
          "eks-calico:karpenter": {
            enabled: true,
            nodePools: { general: {}, pinned: { amiAlias: "al2023@v20261120" } },
          },
        },
      }),
    );
    const notices = warnings.filter((w) => w.startsWith("karpenter."));
    assert.equal(notices.length, 1, notices.join("\n"));
    assert.match(notices[0], /^karpenter\.nodePools\.general\.amiAlias is al2023@latest: Karpenter replaces/);
  });

  it("makes none of it by default", async () => {
    const plan = await evaluatedWith("dev", {});
    assert.deepEqual(
      plan.resources
        .filter((r) => r.name.startsWith("karpenter") || r.name.includes("pod-identity"))
        .map((r) => r.name),
      [],
    );
  });
});
