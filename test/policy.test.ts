/**
 * The CrossGuard pack in policy/: every policy passes on every stack as the offline engine evaluates it,
 * and the pack loads and answers the way `pulumi preview --policy-pack policy` runs it. Rule-by-rule
 * cases are in policy-rules.test.ts.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PolicyResourceOptions } from "@pulumi/policy";
import { AnalyzerResourceOptions, EnforcementLevel } from "@pulumi/pulumi/proto/analyzer_pb";
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import {
  REMOVED_APIS,
  eksEndpointExposure,
  policies,
  removedApi,
  vpcCniNetworkPolicyOff,
} from "../policy/policies";
import { PROJECT_ROOT, type ResourceRecord } from "../offline/engine";
import { STACKS, evaluated, evaluatedWith, evaluatedWithOperator, input, ofType, one } from "./helpers";
import {
  POLICY_DIR,
  PolicyServer,
  policyOptions,
  runPack,
  runPolicy,
  runPolicyPackScript,
} from "./policy-harness";
import { ADDON, CLUSTER_ROLE, CRD, SUBNET, broken, calicoNode, onSubnets, replaced } from "./policy-records";

describe("policy pack: shape", () => {
  it("names each of its fifteen policies once, each with a description and an enforcement level", () => {
    const names = policies.map((p) => p.name);
    assert.equal(names.length, 15);
    assert.equal(new Set(names).size, names.length, `duplicate names in ${names.join(", ")}`);
    for (const policy of policies) {
      assert.match(policy.name, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.ok(policy.description.length > 40, `${policy.name} needs a description`);
      assert.ok(
        ["advisory", "mandatory", "remediate", "disabled"].includes(policy.enforcementLevel ?? ""),
        `${policy.name} has no enforcement level`,
      );
    }
  });

  it("declares the root's @pulumi/policy and @pulumi/pulumi ranges and starts from index.ts", () => {
    const read = (dir: string) =>
      JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
        main?: string;
        version?: string;
        dependencies: Record<string, string>;
      };
    const pack = read(POLICY_DIR);
    const root = read(PROJECT_ROOT);
    assert.equal(pack.main, "index.ts");
    // PolicyPack reads its version from the package.json of the directory it runs in.
    assert.match(pack.version ?? "", /^\d+\.\d+\.\d+$/);
    for (const dependency of ["@pulumi/policy", "@pulumi/pulumi"]) {
      assert.equal(pack.dependencies[dependency], root.dependencies[dependency], dependency);
    }
  });

  it("keeps the removed-API table in release order per API version, kind rows before the catch-all", () => {
    const byVersion = new Map<string, typeof REMOVED_APIS>();
    for (const row of REMOVED_APIS)
      byVersion.set(row.apiVersion, [...(byVersion.get(row.apiVersion) ?? []), row]);
    for (const [apiVersion, rows] of byVersion) {
      const catchAll = rows.filter((r) => r.kinds === undefined);
      assert.ok(catchAll.length <= 1, apiVersion);
      if (catchAll.length === 1) assert.equal(rows[rows.length - 1], catchAll[0], apiVersion);
    }
    assert.equal(removedApi("extensions/v1beta1", "Deployment")?.removedIn, "1.16");
    assert.equal(removedApi("extensions/v1beta1", "Ingress")?.removedIn, "1.22");
    assert.equal(removedApi("storage.k8s.io/v1beta1", "CSIStorageCapacity")?.removedIn, "1.27");
    assert.equal(removedApi("storage.k8s.io/v1beta1", "StorageClass")?.removedIn, "1.22");
    assert.equal(removedApi("policy/v1beta1", "PodDisruptionBudget")?.use, "policy/v1");
    assert.equal(removedApi("flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema")?.removedIn, "1.32");
    assert.equal(removedApi("apps/v1", "DaemonSet"), undefined);
    assert.equal(removedApi("policy/v1", "PodDisruptionBudget"), undefined);
  });
});

for (const stack of STACKS) {
  describe(`policy pack on ${stack}`, () => {
    it("passes every policy with no violation", async () => {
      assert.deepEqual(await runPack(policies, (await evaluated(stack)).resources), []);
    });

    it("has what each policy checks: a cluster, node groups on launch templates in private subnets, calico-node", async () => {
      const evaluation = await evaluated(stack);
      one(evaluation, "eks:index:Cluster");
      assert.equal(input(one(evaluation, ADDON, "cluster-vpc-cni"), "addonName"), "vpc-cni");
      calicoNode(evaluation);
      assert.ok(ofType(evaluation, CLUSTER_ROLE).length >= 3);
      const groups = ofType(evaluation, "aws:eks/nodeGroup:NodeGroup");
      assert.ok(groups.length >= 1);
      assert.equal(ofType(evaluation, "aws:ec2/launchTemplate:LaunchTemplate").length, groups.length);
      const privateSubnets = ofType(evaluation, SUBNET)
        .filter((s) => s.name.includes("-private-"))
        .map((s) => s.urn);
      for (const group of groups) {
        // The stack policy follows subnetIds to exactly the private subnets.
        assert.deepEqual(group.propertyDependencies.subnetIds, privateSubnets);
      }
      const vpcCni = await runPolicy(vpcCniNetworkPolicyOff, evaluation.resources);
      assert.deepEqual(vpcCni, { violations: [], notApplicable: [] });
    });

    it("refuses dev-style open public endpoints everywhere when restrictPublicEndpoint is `always`", async () => {
      const evaluation = await evaluated(stack);
      const eks = one(evaluation, "eks:index:Cluster");
      const { violations } = await runPolicy(eksEndpointExposure, evaluation.resources, {
        restrictPublicEndpoint: "always",
      });
      const open = (eks.inputs.publicAccessCidrs as string[]).includes("0.0.0.0/0");
      assert.deepEqual(
        violations.map((v) => v.urn),
        open ? [eks.urn] : [],
      );
      if (open) assert.match(violations[0].message, /restrictPublicEndpoint is `always`/);
    });
  });
}

/**
 * CrossGuard cannot check `retainOnDelete`: the analyzer protocol's resource options (and so
 * @pulumi/policy's PolicyResourceOptions, for resource and stack policies alike) carry protect,
 * ignoreChanges, deleteBeforeReplace, aliases, customTimeouts, additionalSecretOutputs and parent only.
 * The offline engine records the option, so the rule is enforced here, in `npm test`, instead.
 */
function crdsNotRetained(records: readonly ResourceRecord[]): string[] {
  return records
    .filter((r) => r.type.includes(":CustomResourceDefinition") && !r.options.retainOnDelete)
    .map((r) => r.name);
}

describe("CRDs retained on delete (checked offline: policies cannot see the option)", () => {
  it("is not among the options a policy receives", async () => {
    // The protocol the CLI speaks to the pack has no field for it...
    assert.equal("getProtect" in AnalyzerResourceOptions.prototype, true);
    assert.equal("getRetainondelete" in AnalyzerResourceOptions.prototype, false);
    // ...and @pulumi/policy's options type has none: this stops compiling the day one is added.
    const crd = ofType(await evaluated("dev"), CRD)[0];
    const opts: PolicyResourceOptions = policyOptions(crd);
    // @ts-expect-error PolicyResourceOptions has no retainOnDelete in @pulumi/policy 1.21.
    assert.equal(opts.retainOnDelete, undefined);
    assert.equal(crd.options.retainOnDelete, true);
  });

  for (const stack of STACKS) {
    it(`retains every CRD of ${stack}`, async () => {
      const evaluation = await evaluated(stack);
      assert.ok(ofType(evaluation, CRD).length >= 20);
      assert.deepEqual(crdsNotRetained(evaluation.resources), []);
    });
  }

  it("finds a CRD that is no longer retained", async () => {
    const dev = await evaluated("dev");
    const crd = ofType(dev, CRD)[0];
    const dropped = { ...crd, options: { ...crd.options, retainOnDelete: false } };
    assert.deepEqual(crdsNotRetained(replaced(dev.resources, dropped)), [crd.name]);
  });
});

describe("policy pack: as `pulumi preview --policy-pack policy` runs it", () => {
  let server: PolicyServer | undefined;
  before(async () => {
    server = await PolicyServer.start();
  });
  after(() => server?.stop());
  const running = (): PolicyServer => {
    assert.ok(server, "the policy server did not start");
    return server;
  };

  it("resolves Pulumi's runner from the repository's node_modules, with no install in policy/", () => {
    assert.equal(
      runPolicyPackScript(),
      path.join(PROJECT_ROOT, "node_modules", "@pulumi", "pulumi", "cmd", "run-policy-pack", "index.js"),
    );
    assert.equal(fs.existsSync(path.join(POLICY_DIR, "node_modules")), false);
  });

  it("serves the eks-calico pack with every policy at its level", async () => {
    const info = await running().info();
    const pack = JSON.parse(fs.readFileSync(path.join(POLICY_DIR, "package.json"), "utf8")) as {
      version: string;
    };
    assert.equal(info.getName(), "eks-calico");
    assert.equal(info.getVersion(), pack.version);
    const served = info.getPoliciesList().map((p) => [p.getName(), p.getEnforcementlevel()] as const);
    assert.deepEqual(
      served.sort(),
      policies.map((p) => [p.name, EnforcementLevel.MANDATORY] as const).sort(),
    );
  });

  it("finds nothing in prod, resource by resource and as a stack", async () => {
    const prod = await evaluated("prod");
    assert.deepEqual(await running().analyze(prod.resources), []);
    assert.deepEqual(await running().analyzeStack(prod.resources), []);
  });

  it("finds nothing in prod in operator mode, resource by resource and as a stack", async () => {
    const prod = await evaluatedWithOperator("prod");
    assert.deepEqual(await running().analyze(prod.resources), []);
    assert.deepEqual(await running().analyzeStack(prod.resources), []);
  });

  it("reports what the in-process run reports for broken records", async () => {
    const dev = await evaluated("dev");
    const eks = broken(one(dev, "eks:index:Cluster"), (i) => delete i.encryptionConfigKeyArn);
    const group = one(dev, "aws:eks/nodeGroup:NodeGroup");
    const moved = onSubnets(group, [one(dev, SUBNET, "network-public-us-west-2a")]);
    const records = replaced(replaced(dev.resources, eks), moved);
    const expected = await runPack(policies, records);
    assert.equal(expected.length, 2);
    const served = [...(await running().analyze(records)), ...(await running().analyzeStack(records))];
    const description = new Map(policies.map((p) => [p.name, p.description]));
    assert.deepEqual(
      served,
      expected.map((v) => ({ ...v, message: `${description.get(v.policy)}\n${v.message}` })),
    );
  });

  it("checks subnets whose tagsAll a preview does not know yet", async () => {
    const dev = await evaluated("dev");
    const moved = onSubnets(one(dev, "aws:eks/nodeGroup:NodeGroup"), [
      one(dev, SUBNET, "network-public-us-west-2a"),
    ]);
    const records = replaced(dev.resources, moved).map((r) =>
      r.type !== SUBNET
        ? r
        : broken(r, (i) => {
            i.tagsAll = unknownValue;
          }),
    );
    const served = await running().analyzeStack(records);
    assert.deepEqual(
      served.map((v) => [v.policy, v.urn]),
      [["nodes-private-subnets", moved.urn]],
    );
    assert.match(
      served[0].message,
      /network-public-us-west-2a \(no kubernetes\.io\/role\/internal-elb tag\)/,
    );
  });

  it("leaves an EC2NodeClass whose spec a preview does not know yet to up, and checks it once known", async () => {
    const plan = await evaluatedWith("dev", { config: { "eks-calico:karpenter.enabled": true } });
    const nodeClass = one(plan, "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "karpenter-class-general");
    const unknown = broken(nodeClass, (i) => {
      i.spec = unknownValue;
    });
    const open = broken(nodeClass, (i) => {
      (i.spec as { metadataOptions: Record<string, unknown> }).metadataOptions.httpTokens = "optional";
    });
    assert.deepEqual(await running().analyze([unknown]), []);
    assert.deepEqual(await running().analyzeStack(replaced(plan.resources, unknown)), []);
    assert.deepEqual(
      (await running().analyze([open])).map((v) => v.policy),
      ["nodes-imdsv2"],
    );
  });

  it("counts a KMS key ARN still unknown in a preview as set", async () => {
    const dev = await evaluated("dev");
    const eks = one(dev, "eks:index:Cluster");
    const unknown = broken(eks, (i) => {
      i.encryptionConfigKeyArn = unknownValue;
    });
    const unset = broken(eks, (i) => delete i.encryptionConfigKeyArn);
    assert.deepEqual(await running().analyze([unknown]), []);
    assert.deepEqual(
      (await running().analyze([unset])).map((v) => v.policy),
      ["eks-secrets-encryption"],
    );
  });
});
