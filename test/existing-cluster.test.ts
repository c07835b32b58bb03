/**
 * A Calico-only stack for an EKS cluster made elsewhere (`cluster.existing`), through the real program:
 * no VPC or cluster, a provider from the cluster's endpoint and CA, the vpc-cni add-on taken over and
 * configured in place, refusals for what the stack cannot do, and the same Calico outputs, probe and
 * policy pack as a full stack.
 */
import * as assert from "node:assert/strict";
import { vpcCniChange } from "../components/existing-cluster/vpc-cni";
import { ConfigError, validateConfig } from "../stacks";
import { KNOWN_AFTER_UP, type StackEvaluation, evaluateStackExpectingError } from "../offline/engine";
import type { ExistingClusterSimulation } from "../offline/world/existing";
import { policies, vpcCniNetworkPolicyOff } from "../policy/policies";
import { broken, expectOne, replaced } from "./policy-records";
import { evaluated, evaluatedWith, input, one, ofType, providerFor, dependsOn } from "./helpers";
import { runPack } from "./policy-harness";

const STACK = "existing.example";
const ADDON = "aws:eks/addon:Addon";
const PROVIDER = "pulumi:providers:kubernetes";
const DAEMON_SET = "kubernetes:apps/v1:DaemonSet";

function withCluster(existingCluster: ExistingClusterSimulation, config: Record<string, unknown> = {}) {
  return evaluatedWith(STACK, { simulate: { existingCluster }, config });
}

/** The problems a refused evaluation reports, as `path: rule`, and what was registered before. */
async function refusal(options: Parameters<typeof evaluatedWith>[1]) {
  const { error, resources } = await evaluateStackExpectingError(STACK, options);
  assert.ok(ConfigError.isConfigError(error), String(error));
  return {
    problems: error.problems.map((p) => `${p.path}: ${p.rule}`),
    hints: error.problems.map((p) => p.hint ?? ""),
    types: resources.map((r) => r.type),
  };
}

/** Whether `later` depends, directly or through others, on `earlier`. */
const EXISTING = (extra: Record<string, unknown> = {}) => ({
  "eks-calico:cluster": { existing: { name: "platform-prod", maxNodes: 20, ...extra } },
});

describe("existing-cluster stack", () => {
  let plan: StackEvaluation;
  before(async () => {
    plan = await evaluated(STACK);
  });

  it("creates no VPC, cluster or node groups, and says the cluster it plans against is simulated", () => {
    for (const type of [
      "eks:index:Cluster",
      "aws:eks/nodeGroup:NodeGroup",
      "aws:ec2/vpc:Vpc",
      "aws:ec2/subnet:Subnet",
    ]) {
      assert.equal(ofType(plan, type).length, 0, type);
    }
    assert.ok(
      plan.simulated.some((line) => /^existing cluster platform-prod: not visible offline/.test(line)),
    );
  });

  it("builds the provider from the cluster's endpoint and CA with aws eks get-token, as a secret", () => {
    const provider = one(plan, PROVIDER, "cluster");
    assert.ok(provider.secretInputs.includes("kubeconfig"));
    assert.equal(
      input(provider, "clusterIdentifier"),
      "arn:aws:eks:us-west-2:000000000000:cluster/platform-prod",
    );
    const kubeconfig = JSON.parse(input<string>(provider, "kubeconfig")) as {
      clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
      users: { user: { exec: { command: string; args: string[] } } }[];
    };
    assert.equal(kubeconfig.clusters[0].cluster.server, "<cluster-endpoint:platform-prod>");
    assert.equal(kubeconfig.clusters[0].cluster["certificate-authority-data"], "<cluster-ca:platform-prod>");
    assert.deepEqual(kubeconfig.users[0].user.exec, {
      apiVersion: "client.authentication.k8s.io/v1beta1",
      command: "aws",
      args: [
        "--region",
        "us-west-2",
        "eks",
        "get-token",
        "--cluster-name",
        "platform-prod",
        "--output",
        "json",
      ],
    });
    for (const calico of plan.resources.filter((r) => r.type.startsWith("kubernetes:"))) {
      assert.equal(calico.provider, providerFor(plan, provider, calico), calico.name);
    }
    assert.deepEqual(plan.secretOutputs.includes("kubeconfig"), true);
  });

  it("takes the vpc-cni add-on over in place, retained, with Calico's settings merged, before Calico", () => {
    const addon = one(plan, ADDON, "cluster-vpc-cni");
    assert.equal(addon.options.importId, "platform-prod:vpc-cni");
    assert.equal(addon.options.retainOnDelete, true);
    assert.equal(addon.options.protect, false, "never protected: `pulumi destroy` would refuse it");
    assert.deepEqual(JSON.parse(input<string>(addon, "configurationValues")), {
      enableNetworkPolicy: "false",
      env: { ANNOTATE_POD_IP: "true" },
    });
    assert.equal(input(addon, "resolveConflictsOnUpdate"), "PRESERVE");
    assert.equal(input(addon, "serviceAccountRoleArn"), undefined, "the add-on had no IRSA role");
    assert.ok(
      dependsOn(plan, one(plan, DAEMON_SET, "calico-daemonset-calico-node"), addon),
      "calico-node waits for the add-on's update",
    );
    assert.deepEqual(plan.outputs.vpcCni, {
      managed: true,
      changes: ['enableNetworkPolicy: unset -> "false"', 'env.ANNOTATE_POD_IP: unset -> "true"'],
      networkPolicyAgent: "off",
      // What the aws-node check reads (test/cluster/aws-node-check.test.ts).
      settings: KNOWN_AFTER_UP,
    });
  });

  it("exports the full stack's Calico readiness and enforcement outputs, known after up", async () => {
    const calico = plan.outputs.calico as Record<string, unknown>;
    const full = (await evaluated("dev")).outputs.calico as Record<string, unknown>;
    assert.deepEqual(Object.keys(calico).sort(), Object.keys(full).sort());
    // The stack does not configure this cluster's nodes: even the desired pods are known after up.
    assert.deepEqual(
      [calico.desired, calico.ready, calico.updated, calico.available, calico.isReady, calico.policyEnforced],
      Array(6).fill(KNOWN_AFTER_UP),
    );
  });

  it("passes the policy pack, whose VPC CNI rule now reads the imported add-on", async () => {
    assert.deepEqual(await runPack(policies, plan.resources), []);
    const addon = one(plan, ADDON);
    const agentOn = broken(addon, (i) => {
      i.configurationValues = JSON.stringify({ enableNetworkPolicy: "true" });
    });
    await expectOne(
      vpcCniNetworkPolicyOff,
      replaced(plan.resources, agentOn),
      addon.urn,
      /turns on the VPC CNI network-policy agent/,
    );
    const on = await withCluster(
      { vpcCni: { managed: true, configurationValues: '{"enableNetworkPolicy":"true"}' } },
      EXISTING({ networkPolicyAgent: "off" }),
    );
    // Merged, not copied: the stack turns the agent off (test/network-policy-agent.test.ts: in order).
    assert.equal(
      (JSON.parse(input<string>(one(on, ADDON), "configurationValues")) as Record<string, unknown>)
        .enableNetworkPolicy,
      "false",
    );
  });

  it("keeps the add-on's other settings, and changes nothing on an add-on already set up", async () => {
    const yaml = "env:\n  WARM_IP_TARGET: '5'\n  ANNOTATE_POD_IP: 'true'\nenableNetworkPolicy: 'false'\n";
    const ready = await withCluster({ vpcCni: { managed: true, configurationValues: yaml } });
    assert.equal(input(one(ready, ADDON), "configurationValues"), yaml, "the same string: no update");
    assert.deepEqual(ready.outputs.vpcCni, {
      managed: true,
      changes: [],
      networkPolicyAgent: "off",
      settings: KNOWN_AFTER_UP,
    });
    const partial = await withCluster({
      vpcCni: { managed: true, configurationValues: "env:\n  WARM_IP_TARGET: '5'\n" },
    });
    assert.deepEqual(JSON.parse(input<string>(one(partial, ADDON), "configurationValues")), {
      env: { WARM_IP_TARGET: "5", ANNOTATE_POD_IP: "true" },
      enableNetworkPolicy: "false",
    });
  });

  it("refuses a self-managed VPC CNI until it is stated configured, then leaves it alone", async () => {
    const refused = await refusal({ simulate: { existingCluster: { vpcCni: { managed: false } } } });
    assert.equal(refused.problems.length, 1);
    assert.match(
      refused.problems[0],
      /^cluster\.existing\.vpcCniConfigured: is false, and platform-prod's VPC CNI is self-managed/,
    );
    assert.deepEqual(refused.types, ["pulumi:pulumi:Stack"], "refused before any resource");
    const stated = await withCluster({ vpcCni: { managed: false } }, EXISTING({ vpcCniConfigured: true }));
    assert.equal(ofType(stated, ADDON).length, 0);
    assert.deepEqual(stated.outputs.vpcCni, { managed: false, changes: [], networkPolicyAgent: "off" });
    assert.equal((stated.outputs.calico as { isReady: unknown }).isReady, KNOWN_AFTER_UP);
  });

  it("refuses a cluster AWS cannot show, or one that is not ACTIVE", async () => {
    const missing = await refusal({ simulate: { existingCluster: { name: "someone-else" } } });
    assert.match(
      missing.problems.join("\n"),
      /^cluster\.existing\.name: names no EKS cluster AWS can show in us-west-2: .*No cluster found for name: platform-prod/,
    );
    const creating = await refusal({ simulate: { existingCluster: { status: "CREATING" } } });
    assert.match(creating.problems.join("\n"), /names a cluster in status CREATING/);
  });

  it("refuses an IPv6 cluster, whose pods' IPv6 traffic calico-node here would not police", async () => {
    const refused = await refusal({ simulate: { existingCluster: { ipFamily: "ipv6" } } });
    assert.deepEqual(refused.types, ["pulumi:pulumi:Stack"], "refused before any resource");
    assert.match(
      refused.problems.join("\n"),
      /^cluster\.existing\.name: names a cluster whose ipFamily is ipv6: calico-node as this stack installs it enforces IPv4 only/,
    );
  });

  it("refuses a cluster that cannot hold policy, naming the setting, the value and the fix, all at once", async () => {
    // Configuration values as DescribeAddon returns them: the JSON string the add-on was given.
    const strict = JSON.stringify({ env: { ENABLE_POD_ENI: "true", AWS_VPC_K8S_CNI_VETHPREFIX: "veth" } });
    const refused = await refusal({
      simulate: {
        existingCluster: { autoMode: true, vpcCni: { managed: true, configurationValues: strict } },
      },
    });
    assert.deepEqual(refused.types, ["pulumi:pulumi:Stack"], "refused before any resource");
    assert.equal(refused.problems.length, 3, refused.problems.join("\n"));
    const [auto, pods, prefix] = refused.problems;
    assert.match(
      auto,
      /^cluster\.existing\.name: names a cluster in EKS Auto Mode \(computeConfig\.enabled: true\)/,
    );
    assert.match(
      pods,
      /env\.ENABLE_POD_ENI: "true"\) in strict mode \(env\.POD_SECURITY_GROUP_ENFORCING_MODE: unset, strict by default\)/,
    );
    assert.match(refused.hints[1], /^set env\.POD_SECURITY_GROUP_ENFORCING_MODE: "standard"/);
    assert.match(refused.hints[2], /^remove env\.AWS_VPC_K8S_CNI_VETHPREFIX/);
    assert.match(
      prefix,
      /names pod interfaces "veth"… \(env\.AWS_VPC_K8S_CNI_VETHPREFIX\): calico-node's FELIX_INTERFACEPREFIX is eni/,
    );
    const explicit = await refusal({
      simulate: {
        existingCluster: {
          vpcCni: {
            managed: true,
            configurationValues:
              "env:\n  ENABLE_POD_ENI: 'true'\n  POD_SECURITY_GROUP_ENFORCING_MODE: strict\n",
          },
        },
      },
    });
    assert.match(
      explicit.problems.join("\n"),
      /in strict mode \(env\.POD_SECURITY_GROUP_ENFORCING_MODE: "strict"\)/,
    );
    // What Calico can work with: standard mode, the default prefix written out, security groups for pods off.
    for (const env of [
      { ENABLE_POD_ENI: "true", POD_SECURITY_GROUP_ENFORCING_MODE: "standard" },
      { AWS_VPC_K8S_CNI_VETHPREFIX: "eni", ENABLE_POD_ENI: "false" },
    ]) {
      const plan = await withCluster({
        vpcCni: { managed: true, configurationValues: JSON.stringify({ env }) },
      });
      assert.ok(ofType(plan, ADDON).length === 1, JSON.stringify(env));
    }
  });

  it("refuses every key for what the stack does not create, all at once", async () => {
    const { problems } = await refusal({
      config: {
        "eks-calico:network": { cidr: "10.0.0.0/16" },
        "eks-calico:nodeGroups": [],
        "eks-calico:cluster": {
          version: "1.35",
          access: [],
          existing: { name: "platform-prod", maxNodes: 20 },
        },
        "eks-calico:protect": true,
      },
    });
    assert.deepEqual(
      problems.filter((p) => p.includes("must not be set with cluster.existing")).map((p) => p.split(":")[0]),
      ["network", "nodeGroups", "cluster.version", "cluster.access", "protect"],
    );
    assert.match(
      problems.find((p) => p.startsWith("protect:")) ?? "",
      /creates none of them; the vpc-cni add-on it takes over is retained on delete/,
    );
  });

  it("requires nodeGroups on a full stack, and a name and maxNodes for an existing cluster", async () => {
    const full = await evaluateStackExpectingError("dev", { config: { "eks-calico:nodeGroups": undefined } });
    assert.ok(ConfigError.isConfigError(full.error));
    assert.match(
      full.error.message,
      /nodeGroups: is required unless cluster\.existing or cluster\.kubeconfig names a cluster/,
    );
    const refused = validateConfig({ cluster: { existing: { name: "-bad" } } });
    assert.ok(!refused.ok);
    assert.deepEqual(
      refused.problems.map((p) => `${p.path}: ${p.rule}`),
      [
        "cluster.existing.name: must be an EKS cluster name: 1-100 letters, digits, '-' or '_', starting with a letter or digit",
        "cluster.existing.maxNodes: is required",
      ],
    );
  });

  it("refuses cluster set with --secret: the cluster's name becomes the imported add-on's id", async () => {
    const { problems } = await refusal({ secrets: ["eks-calico:cluster"] });
    assert.deepEqual(
      problems.map((p) => p.split(":")[0]),
      ["cluster.existing.name"],
    );
  });

  it("installs Calico with the operator on an existing cluster too", async () => {
    const operator = await evaluatedWith(STACK, {
      config: { "eks-calico:calico": { installer: "operator" } },
    });
    const installation = one(operator, "kubernetes:operator.tigera.io/v1:Installation");
    assert.ok(dependsOn(operator, installation, one(operator, ADDON)));
    assert.equal((operator.outputs.calico as { installer: string }).installer, "operator");
    assert.deepEqual(await runPack(policies, operator.resources), []);
  });

  it("merges Calico's settings only into configuration values that are a map", () => {
    assert.throws(() => vpcCniChange("- a list"), /are not a map/);
    assert.deepEqual(vpcCniChange("").changes.length, 2);
  });
});
