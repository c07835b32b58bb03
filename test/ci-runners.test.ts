/**
 * Where each stack's CI runs (`deploy`, stacks/schema/deploy.ts): the schema's rules, the runners the
 * workflows pick per stack (.github/scripts/list-stacks.js), the security group rules that admit
 * self-hosted runners to the private endpoint, and the offline plan's warning when the deploy path cannot
 * reach the endpoint (stacks/deploy-path.ts).
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { API_PORT, runnerRuleName } from "../components/cluster/runner-access";
import { PROJECT_ROOT, deployableStacks } from "../offline/engine";
import { planWarnings, stackRunners } from "../offline/stack-runners";
import { GITHUB_HOSTED_LABELS, type StackConfig, runnerLabels, validateConfig } from "../stacks";
import { deployPathWarnings } from "../stacks/deploy-path";
import { byUrn, evaluatedWith, one, ofType, stackValue } from "./helpers";
import { runStart } from "./start-runner";

const RULE = "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule";
const GROUP = { name: "general" };
const SELF_HOSTED = { runner: "self-hosted", labels: ["self-hosted", "linux", "eks-prod"] };

/** The config `validateConfig` makes of a full stack with `cluster` and `deploy` keys. */
function configWith(cluster: Record<string, unknown>, deploy: Record<string, unknown> = {}): StackConfig {
  const result = validateConfig({
    nodeGroups: [GROUP],
    cluster: { deploysFromInsideVpc: true, ...cluster },
    deploy,
  });
  assert.ok(result.ok, result.ok ? "" : JSON.stringify(result.problems));
  return result.config;
}

function problemsOf(raw: Record<string, unknown>): [string, string][] {
  const result = validateConfig({ nodeGroups: [GROUP], ...raw });
  assert.equal(result.ok, false, "expected a refusal");
  return result.ok ? [] : result.problems.map((p) => [p.path, p.rule]);
}

describe("deploy: the schema", () => {
  it("defaults to GitHub-hosted runners, with nothing admitted to the cluster security group", () => {
    const config = configWith({});
    assert.deepEqual(config.deploy, {
      runner: "github-hosted",
      runnerCidrs: [],
      runnerSecurityGroupIds: [],
      securityGroupRuleQuota: 60,
    });
    assert.deepEqual(runnerLabels(config.deploy), GITHUB_HOSTED_LABELS);
    assert.deepEqual(runnerLabels(configWith({}, SELF_HOSTED).deploy), SELF_HOSTED.labels);
  });

  it("needs labels for self-hosted runners, and refuses self-hosted keys with GitHub-hosted ones", () => {
    assert.deepEqual(problemsOf({ deploy: { runner: "self-hosted" } }), [
      [
        "deploy.labels",
        "is required with runner self-hosted: the labels `runs-on` picks the stack's runners by, for example [self-hosted, linux, eks-prod]",
      ],
    ]);
    const refused = problemsOf({
      deploy: {
        labels: ["x"],
        runnerCidrs: ["10.99.0.0/24"],
        runnerSecurityGroupIds: ["sg-0123456789abcdef0"],
      },
    });
    assert.deepEqual(
      refused.map(([key]) => key),
      ["deploy.labels", "deploy.runnerCidrs", "deploy.runnerSecurityGroupIds"],
    );
    assert.ok(refused.every(([, rule]) => rule.startsWith("applies to runner self-hosted only")));
  });

  it("checks each source: CIDR network addresses, not the whole internet, and security group ids", () => {
    const problems = problemsOf({
      deploy: {
        ...SELF_HOSTED,
        runnerCidrs: ["10.99.0.5/24", "10.99.1.0/33"],
        runnerSecurityGroupIds: ["sg-12", "0123456789abcdef0"],
        unknown: true,
      },
    });
    assert.deepEqual(problems.map(([key]) => key).sort(), [
      "deploy.runnerCidrs[0]",
      "deploy.runnerCidrs[1]",
      "deploy.runnerSecurityGroupIds[0]",
      "deploy.runnerSecurityGroupIds[1]",
      "deploy.unknown",
    ]);
    assert.deepEqual(problemsOf({ deploy: { ...SELF_HOSTED, runnerCidrs: ["0.0.0.0/1", "128.0.0.0/1"] } }), [
      ["deploy.runnerCidrs", "must name the runners' ranges, not every IPv4 address"],
    ]);
  });

  it("takes a peered VPC's security group of another account as <account-id>/sg-...", () => {
    const peered = "123456789012/sg-0123456789abcdef0";
    const config = configWith({}, { ...SELF_HOSTED, runnerSecurityGroupIds: [peered] });
    assert.deepEqual(config.deploy.runnerSecurityGroupIds, [peered]);
    assert.equal(runnerRuleName("cluster", peered), "cluster-runners-123456789012-sg-0123456789abcdef0");
    for (const bad of [
      "12345/sg-0123456789abcdef0",
      "123456789012/sg-12",
      "123456789012-sg-0123456789abcdef0",
    ]) {
      const [[key, rule]] = problemsOf({ deploy: { ...SELF_HOSTED, runnerSecurityGroupIds: [bad] } });
      assert.equal(key, "deploy.runnerSecurityGroupIds[0]", bad);
      assert.match(rule, /or 123456789012\/sg-0123456789abcdef0 for a peered VPC of another account$/);
    }
  });

  it("admits no runner to the security group of a cluster made elsewhere", () => {
    const result = validateConfig({
      cluster: { existing: { name: "platform", maxNodes: 5 } },
      deploy: { ...SELF_HOSTED, runnerCidrs: ["10.99.0.0/24"] },
    });
    assert.equal(result.ok, false);
    assert.deepEqual(
      (result.ok ? [] : result.problems).map((p) => p.path),
      ["deploy.runnerCidrs"],
    );
  });
});

describe("deploy: the runners the workflows pick", () => {
  it("gives each deployable stack its labels, and names the stacks GitHub-hosted runners cannot reach", () => {
    const output = execFileSync(process.execPath, [".github/scripts/list-stacks.js"], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
    });
    const lines = Object.fromEntries(
      output
        .trim()
        .split("\n")
        .map((line) => [line.slice(0, line.indexOf("=")), JSON.parse(line.slice(line.indexOf("=") + 1))]),
    ) as { stacks: string[]; runners: Record<string, string[]>; unreachable: string[] };
    assert.deepEqual(lines.stacks, deployableStacks());
    assert.deepEqual(Object.keys(lines.runners), deployableStacks());
    for (const stack of deployableStacks()) {
      const cidrs = stackValue<{ publicAccessCidrs: string[] }>(stack, "cluster").publicAccessCidrs;
      assert.equal(lines.unreachable.includes(stack), !cidrs.includes("0.0.0.0/0"), stack);
    }
  });

  it("reads a self-hosted stack's labels from its stack file", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "runners-"));
    fs.copyFileSync(path.join(PROJECT_ROOT, "Pulumi.yaml"), path.join(root, "Pulumi.yaml"));
    const prod = fs.readFileSync(path.join(PROJECT_ROOT, "Pulumi.prod.yaml"), "utf8");
    // Runners inside prod's VPC (network.cidr 10.30.0.0/16): they resolve the endpoint to its private address.
    const deploy = [
      "  eks-calico:deploy:",
      "    runner: self-hosted",
      "    labels: [self-hosted, linux, eks-prod]",
      "    runnerCidrs: [10.30.240.0/24]",
      "",
    ].join("\n");
    fs.writeFileSync(path.join(root, "Pulumi.prod.yaml"), `${prod.trimEnd()}\n${deploy}`);
    fs.copyFileSync(path.join(PROJECT_ROOT, "Pulumi.dev.yaml"), path.join(root, "Pulumi.dev.yaml"));
    fs.copyFileSync(
      path.join(PROJECT_ROOT, "Pulumi.existing.example.yaml"),
      path.join(root, "Pulumi.existing.example.yaml"),
    );
    assert.deepEqual(stackRunners(root), [
      { stack: "dev", labels: GITHUB_HOSTED_LABELS, reachableFromGitHub: true },
      { stack: "prod", labels: ["self-hosted", "linux", "eks-prod"], reachableFromGitHub: false },
    ]);
    // The deploy path now reaches the endpoint: the plan has nothing to warn about.
    assert.deepEqual(planWarnings("prod", {}, root), []);
  });
});

describe("deploy: reaching the endpoint", () => {
  it("warns when GitHub-hosted runners meet a restricted or private-only endpoint", () => {
    assert.deepEqual(deployPathWarnings(configWith({ publicAccessCidrs: ["0.0.0.0/0"] })), []);
    const [restricted] = deployPathWarnings(configWith({ publicAccessCidrs: ["203.0.113.0/24"] }));
    assert.match(
      restricted,
      /^deploy\.runner is github-hosted, but the public endpoint admits only 203\.0\.113\.0\/24:/,
    );
    const [none] = deployPathWarnings(configWith({ publicAccessCidrs: [] }));
    assert.match(none, /cluster\.publicAccessCidrs is \[\] \(no public endpoint\)/);
  });

  it("warns when self-hosted runners meet a private-only endpoint that admits none of them", () => {
    const [warning] = deployPathWarnings(configWith({ publicAccessCidrs: [] }, SELF_HOSTED));
    assert.match(
      warning,
      /neither deploy\.runnerCidrs nor deploy\.runnerSecurityGroupIds admits the runners/,
    );
    for (const admitted of [
      { runnerCidrs: ["10.99.0.0/24"] },
      { runnerSecurityGroupIds: ["sg-0123456789abcdef0"] },
    ]) {
      assert.deepEqual(
        deployPathWarnings(configWith({ publicAccessCidrs: [] }, { ...SELF_HOSTED, ...admitted })),
        [],
      );
    }
  });

  it("warns when self-hosted runners outside the VPC meet a restricted public endpoint", () => {
    const restricted = { publicAccessCidrs: ["203.0.113.0/24"] };
    const peered = { ...SELF_HOSTED, runnerCidrs: ["10.0.8.0/24", "10.99.0.0/24"] };
    const [warning, ...rest] = deployPathWarnings(configWith(restricted, peered));
    assert.deepEqual(rest, []);
    assert.match(
      warning,
      /^deploy\.runner is self-hosted and the public endpoint is on, but 10\.99\.0\.0\/24 lies outside the VPC \(network\.cidr 10\.0\.0\.0\/16\): /,
    );
    assert.match(warning, /egress addresses must be in cluster\.publicAccessCidrs/);
    assert.match(warning, /cluster\.publicAccessCidrs: \[\] with cluster\.deploysFromInsideVpc: true/);
    // Another account's security group can only be in a peered VPC.
    const [byGroup] = deployPathWarnings(
      configWith(restricted, {
        ...SELF_HOSTED,
        runnerSecurityGroupIds: ["123456789012/sg-0123456789abcdef0"],
      }),
    );
    assert.match(byGroup, /but 123456789012\/sg-0123456789abcdef0 lies outside the VPC/);
    // Inside the VPC, or with the public endpoint off (the private addresses are in public DNS), or open to
    // every address (the runners' egress reaches it): nothing to warn about.
    for (const [cluster, deploy] of [
      [
        restricted,
        { ...SELF_HOSTED, runnerCidrs: ["10.0.8.0/24"], runnerSecurityGroupIds: ["sg-0123456789abcdef0"] },
      ],
      [{ publicAccessCidrs: [] }, peered],
      [{ publicAccessCidrs: ["0.0.0.0/0"] }, peered],
    ] as const) {
      assert.deepEqual(
        deployPathWarnings(configWith(cluster, deploy)),
        [],
        JSON.stringify([cluster, deploy]),
      );
    }
  });

  it("npm start warns for prod (GitHub-hosted, restricted endpoint) and still plans it", async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "plan-"));
    const run = await runStart("--stack", "prod", "--out", out);
    assert.equal(run.code, 0, run.err);
    assert.match(
      run.err,
      /^warning: stack prod: deploy\.runner is github-hosted, but the public endpoint admits only/m,
    );
    const dev = await runStart("--stack", "dev", "--out", out);
    assert.doesNotMatch(dev.err, /warning:/);
  });

  it("admits self-hosted runners on 443 to the control plane's own security group, before anything in-cluster", async () => {
    const evaluation = await evaluatedWith("dev", {
      config: {
        "eks-calico:deploy": {
          ...SELF_HOSTED,
          runnerCidrs: ["10.99.0.0/24"],
          runnerSecurityGroupIds: ["sg-0123456789abcdef0"],
        },
      },
    });
    const rules = ofType(evaluation, RULE);
    assert.deepEqual(
      rules.map((r) => [r.name, r.inputs.cidrIpv4, r.inputs.referencedSecurityGroupId]),
      [
        [runnerRuleName("cluster", "10.99.0.0/24"), "10.99.0.0/24", undefined],
        [runnerRuleName("cluster", "sg-0123456789abcdef0"), undefined, "sg-0123456789abcdef0"],
      ],
    );
    const eks = one(evaluation, "eks:index:Cluster");
    for (const rule of rules) {
      assert.deepEqual(
        [rule.inputs.ipProtocol, rule.inputs.fromPort, rule.inputs.toPort],
        ["tcp", API_PORT, API_PORT],
      );
      // @pulumi/eks's own group, the control plane's vpcConfig.securityGroupIds, which EKS never puts on
      // managed nodes; not the cluster security group (the stack's clusterSecurityGroupId), which it does.
      assert.equal(rule.inputs.securityGroupId, "<security-group-id:cluster-eks-cluster>");
      assert.notEqual(rule.inputs.securityGroupId, evaluation.outputs.clusterSecurityGroupId);
      assert.equal(byUrn(evaluation, rule.parent).type, "eks-calico:cluster:Cluster");
      assert.ok(rule.dependencies.includes(eks.urn));
    }
    const provider = one(evaluation, "pulumi:providers:kubernetes", "cluster-k8s");
    for (const rule of rules) assert.ok(provider.dependencies.includes(rule.urn), "the provider waits");
    assert.equal(ofType(await evaluatedWith("dev", {}), RULE).length, 0, "none by default");
  });
});
