import * as assert from "node:assert/strict";
import { ConfigError, type ConfigProblem, validateConfig } from "../stacks";
import { evaluateStackExpectingError, loadStackConfig } from "../offline/engine";
import { STACKS } from "./helpers";

/** The `eks-calico:*` keys of a stack file, decoded as the program decodes them. */
function namespaceOf(stack: string): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(loadStackConfig(stack).values)) {
    if (key.startsWith("eks-calico:")) raw[key.slice("eks-calico:".length)] = JSON.parse(value);
  }
  return raw;
}

const GROUP = { name: "general", instanceTypes: ["t3.large"], minSize: 1, desiredSize: 2, maxSize: 3 };

function problemsFor(raw: Record<string, unknown>): ConfigProblem[] {
  const result = validateConfig(raw);
  assert.equal(result.ok, false, "expected the configuration to be refused");
  return result.ok ? [] : result.problems;
}

describe("stack configuration", () => {
  // The kubeconfig example too: its keys are checked without reading its file.
  for (const stack of [...STACKS, "kubeconfig.example"]) {
    it(`accepts Pulumi.${stack}.yaml`, () => {
      const result = validateConfig(namespaceOf(stack));
      assert.ok(result.ok, result.ok ? "" : JSON.stringify(result.problems));
    });
  }

  it("fills every default from the schema when only a node group name is given", () => {
    const result = validateConfig({ nodeGroups: [{ name: "general" }] });
    assert.ok(result.ok);
    assert.deepEqual(result.config, {
      network: {
        cidr: "10.0.0.0/16",
        availabilityZones: 2,
        excludeZones: [],
        natGateways: "single",
        endpoints: { s3: true, interface: false },
      },
      cluster: {
        version: "1.35",
        publicAccessCidrs: ["0.0.0.0/0"],
        deploysFromInsideVpc: false,
        logTypes: ["api", "audit", "authenticator"],
        logRetentionDays: 90,
        vpcCni: { prefixDelegation: false, podSecurityGroups: false },
        podIdentity: false,
        addons: { vpcCni: {}, kubeProxy: {}, coreDns: {}, podIdentityAgent: {} },
        access: [],
      },
      nodeGroups: [
        {
          name: "general",
          instanceTypes: ["t3.large"],
          capacityType: "ON_DEMAND",
          amiType: "AL2023_x86_64_STANDARD",
          diskSizeGiB: 50,
          minSize: 2,
          desiredSize: 2,
          maxSize: 4,
          labels: {},
          taints: [],
          clusterAddons: false,
        },
      ],
      calico: {
        installer: "manifest",
        version: "v3.31.7",
        registry: "quay.io/calico",
        namespace: "kube-system",
        autoscalerRegistry: "registry.k8s.io/cpa",
        startupTaintRegistry: "registry.k8s.io",
        operatorRegistry: "quay.io/tigera",
        apiServer: true,
        reinstall: false,
        adopt: false,
        observability: false,
        maxUnavailable: "10%",
        cleanupTimeoutMinutes: 10,
        felix: { logSeverityScreen: "info", prometheusMetricsEnabled: false },
        probe: { enabled: true, registry: "registry.k8s.io/e2e-test-images", timeoutMinutes: 5 },
      },
      karpenter: {
        enabled: false,
        nodePools: {
          general: {
            capacityTypes: ["on-demand"],
            architectures: ["amd64"],
            instanceCategories: ["c", "m", "r"],
            minGeneration: 5,
            minVcpus: 2,
            limits: { cpu: 100 },
            consolidationPolicy: "WhenEmptyOrUnderutilized",
            consolidateAfter: "1m",
            budgets: [{ nodes: "10%" }],
            expireAfter: "720h",
            amiAlias: "al2023@latest",
            diskSizeGiB: 50,
            labels: {},
            taints: [],
          },
        },
      },
      tags: {},
      deploy: {
        runner: "github-hosted",
        runnerCidrs: [],
        runnerSecurityGroupIds: [],
        securityGroupRuleQuota: 60,
      },
      protect: false,
    });
  });

  it("reports every problem at once, with the bad value", () => {
    const problems = problemsFor({
      network: { cidr: "300.0.0.0/16", natGateways: "many" },
      nodeGroups: [{ ...GROUP, maxSize: 1, instanceTypes: ["large"] }],
    });
    assert.deepEqual(
      problems.map((p) => [p.path, p.value]),
      [
        ["network.cidr", "300.0.0.0/16"],
        ["network.natGateways", "many"],
        ["nodeGroups[0].instanceTypes[0]", "large"],
        ["nodeGroups[0].desiredSize", 2],
      ],
    );
  });

  it("takes Karpenter beside either install: both run the startup taint's remover", () => {
    for (const installer of ["manifest", "operator"]) {
      const calico = { installer, version: "v3.31.7" };
      const result = validateConfig({ nodeGroups: [GROUP], karpenter: { enabled: true }, calico });
      assert.ok(result.ok, result.ok ? "" : JSON.stringify(result.problems));
    }
  });

  it("formats a ConfigError with the stack, each key path, rule, value and a hint", () => {
    const error = new ConfigError("dev", [
      { path: "network.cidr", value: "10.0.0.0/33", rule: "must be an IPv4 CIDR block" },
      { path: "nodeGroups[0].maxSize", value: 0, rule: "must be at least 1" },
    ]);
    assert.equal(
      error.message,
      [
        'Stack "dev" has invalid configuration (2 problems):',
        '  - network.cidr: must be an IPv4 CIDR block (got "10.0.0.0/33")',
        "      hint: use a private range such as 10.0.0.0/16 that no peered network uses",
        "  - nodeGroups[0].maxSize: must be at least 1 (got 0)",
        "      hint: keep 0 <= minSize <= desiredSize <= maxSize, with maxSize >= 1",
      ].join("\n"),
    );
  });
});

describe("config refusal through the program", () => {
  it("refuses bad values before any resource is registered", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: {
        "eks-calico:network": { cidr: "10.0.0.0/33", availabilityZones: 2, natGateways: "single" },
        "eks-calico:nodeGroups": [{ ...GROUP, minSize: 5 }],
      },
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["network.cidr", "nodeGroups[0].minSize"],
    );
    assert.match(error.message, /network\.cidr: must be an IPv4 CIDR block/);
    // Only the stack itself exists: no VPC, no cluster.
    assert.deepEqual(
      resources.map((r) => r.type),
      ["pulumi:pulumi:Stack"],
    );
  });

  it("refuses more availability zones than the region offers, before any resource", async () => {
    const { error, resources } = await evaluateStackExpectingError("dev", {
      config: { "eks-calico:network": { cidr: "10.0.0.0/16", availabilityZones: 5 } },
    });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.equal(error.problems[0].path, "network.availabilityZones");
    assert.match(
      error.problems[0].rule,
      /at most 4: us-west-2 offers us-west-2a, us-west-2b, us-west-2c, us-west-2d/,
    );
    assert.deepEqual(
      resources.map((r) => r.type),
      ["pulumi:pulumi:Stack"],
    );
  });

  it("requires aws:region", async () => {
    const { error } = await evaluateStackExpectingError("dev", { config: { "aws:region": undefined } });
    assert.ok(ConfigError.isConfigError(error), String(error));
    assert.deepEqual(
      error.problems.map((p) => p.path),
      ["aws:region"],
    );
  });
});
