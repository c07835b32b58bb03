/**
 * The CrossGuard pack in policy/: every policy passes on every stack as the offline engine evaluates it;
 * each rule catches a record broken in exactly the property it checks, once, with a message that says
 * what to change; and the pack loads and answers the way `pulumi preview --policy-pack policy` runs it.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PolicyResourceOptions } from "@pulumi/policy";
import { AnalyzerResourceOptions, EnforcementLevel } from "@pulumi/pulumi/proto/analyzer_pb";
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import {
  CALICO_NODE,
  REMOVED_APIS,
  calicoNodeEverywhere,
  eksAccessEntries,
  eksControlPlaneLogging,
  eksEndpointExposure,
  eksSecretsEncryption,
  nodesImdsv2,
  nodesInPrivateSubnets,
  noRemovedApis,
  noWildcardRbac,
  policies,
  removedApi,
  typeOfUrn,
  vpcCniNetworkPolicyOff,
} from "../policy/policies";
import { PROJECT_ROOT, type ResourceRecord, type StackEvaluation, placeholder } from "../offline/engine";
import { STACKS, evaluated, input, ofType, one } from "./helpers";
import {
  POLICY_DIR,
  type Policy,
  PolicyServer,
  policyOptions,
  runPack,
  runPolicy,
  runPolicyPackScript,
} from "./policy-harness";

const CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";
const DAEMON_SET = "kubernetes:apps/v1:DaemonSet";
const CLUSTER_ROLE = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole";
const SUBNET = "aws:ec2/subnet:Subnet";
const ADDON = "aws:eks/addon:Addon";

type Inputs = Record<string, unknown>;

/** A copy of `record` with its inputs changed by `edit` (and any other fields replaced). */
function broken(
  record: ResourceRecord,
  edit: (inputs: Inputs) => void,
  fields: Partial<ResourceRecord> = {},
): ResourceRecord {
  const inputs = structuredClone(record.inputs);
  edit(inputs);
  return { ...record, ...fields, inputs };
}

/** `records` with `replacement` in place of the record with the same URN (or `original`'s). */
function replaced(
  records: readonly ResourceRecord[],
  replacement: ResourceRecord,
  original = replacement,
): ResourceRecord[] {
  return records.map((r) => (r.urn === original.urn ? replacement : r));
}

/**
 * `group` placed on `subnets`: its subnetIds become their ids (or `ids`), and its dependencies on subnets
 * exactly `subnets`, as the engine would record them.
 */
/**
 * `group` moved onto `subnets`. With plain `ids` (not produced by any subnet of the stack) the group
 * keeps only its dependency list, as when an id is typed into config.
 */
function onSubnets(group: ResourceRecord, subnets: ResourceRecord[], ids?: string[]): ResourceRecord {
  const others = group.dependencies.filter((urn) => typeOfUrn(urn) !== SUBNET);
  const otherProperties = Object.fromEntries(
    Object.entries(group.propertyDependencies).filter(([key]) => key !== "subnetIds"),
  );
  return broken(
    group,
    (i) => {
      i.subnetIds = ids ?? subnets.map((s) => placeholder("subnet-id", s.name));
    },
    {
      dependencies: [...others, ...subnets.map((s) => s.urn)].sort(),
      propertyDependencies:
        ids === undefined
          ? { ...otherProperties, subnetIds: subnets.map((s) => s.urn).sort() }
          : otherProperties,
    },
  );
}

function calicoNode(evaluation: StackEvaluation): ResourceRecord {
  const matches = ofType(evaluation, DAEMON_SET).filter(
    (r) => (r.inputs.metadata as { name?: string }).name === CALICO_NODE,
  );
  assert.equal(matches.length, 1);
  return matches[0];
}

/** Runs `policy` and asserts it reports exactly one violation, about `urn`, matching `message`. */
async function expectOne(policy: Policy, records: ResourceRecord[], urn: string, message: RegExp) {
  const { violations } = await runPolicy(policy, records);
  assert.equal(violations.length, 1, JSON.stringify(violations, null, 2));
  assert.equal(violations[0].policy, policy.name);
  assert.equal(violations[0].urn, urn);
  assert.match(violations[0].message, message);
}

describe("policy pack: shape", () => {
  it("names each of its ten policies once, each with a description and an enforcement level", () => {
    const names = policies.map((p) => p.name);
    assert.equal(names.length, 10);
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
      const groups = ofType(evaluation, "eks:index:ManagedNodeGroup");
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

describe("policy pack: a broken record per rule, one violation each", () => {
  let dev: StackEvaluation;
  let prod: StackEvaluation;
  before(async () => {
    dev = await evaluated("dev");
    prod = await evaluated("prod");
  });

  describe("EKS", () => {
    it("eks-secrets-encryption: a cluster without encryptionConfigKeyArn", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => delete i.encryptionConfigKeyArn);
      await expectOne(
        eksSecretsEncryption,
        replaced(dev.resources, eks),
        eks.urn,
        /sets no encryptionConfigKeyArn/,
      );
    });

    it("eks-control-plane-logging: a cluster that stopped logging audit", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.enabledClusterLogTypes = ["api", "authenticator"];
      });
      await expectOne(eksControlPlaneLogging, replaced(dev.resources, eks), eks.urn, /does not log audit \(/);
    });

    it("eks-endpoint-exposure: a cluster with the private endpoint off", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.endpointPrivateAccess = false;
      });
      await expectOne(eksEndpointExposure, replaced(dev.resources, eks), eks.urn, /private endpoint off/);
    });

    it("eks-endpoint-exposure: prod's protected cluster opened to 0.0.0.0/0", async () => {
      const eks = broken(one(prod, "eks:index:Cluster"), (i) => {
        i.publicAccessCidrs = ["203.0.113.0/24", "0.0.0.0/0"];
      });
      assert.equal(eks.options.protect, true);
      await expectOne(
        eksEndpointExposure,
        replaced(prod.resources, eks),
        eks.urn,
        /whole internet \(203\.0\.113\.0\/24, 0\.0\.0\.0\/0\) and the cluster is protected/,
      );
    });

    it("eks-endpoint-exposure: prod's cluster with no CIDRs, which EKS opens to 0.0.0.0/0", async () => {
      const eks = broken(one(prod, "eks:index:Cluster"), (i) => delete i.publicAccessCidrs);
      await expectOne(
        eksEndpointExposure,
        replaced(prod.resources, eks),
        eks.urn,
        /exposes its public API endpoint/,
      );
    });

    it("eks-access-entries-only: a cluster back on API_AND_CONFIG_MAP", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.authenticationMode = "API_AND_CONFIG_MAP";
      });
      await expectOne(
        eksAccessEntries,
        replaced(dev.resources, eks),
        eks.urn,
        /"API_AND_CONFIG_MAP"; set API/,
      );
    });

    it("eks-access-entries-only: a cluster mapping a role through aws-auth", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.roleMappings = [{ roleArn: "arn:aws:iam::000000000000:role/admin", username: "admin", groups: [] }];
      });
      await expectOne(eksAccessEntries, replaced(dev.resources, eks), eks.urn, /sets roleMappings/);
    });

    it("says which rule it cannot check when a component reaches the policy with no inputs", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        for (const key of Object.keys(i)) delete i[key];
      });
      await expectOne(
        eksSecretsEncryption,
        replaced(dev.resources, eks),
        eks.urn,
        /no inputs, so secrets encryption/,
      );
    });
  });

  describe("nodes", () => {
    it("nodes-private-subnets: a node group moved to a public subnet", async () => {
      const group = one(dev, "eks:index:ManagedNodeGroup");
      const moved = onSubnets(group, [one(dev, SUBNET, "network-public-us-west-2a")]);
      await expectOne(
        nodesInPrivateSubnets,
        replaced(dev.resources, moved),
        group.urn,
        /not private: network-public-us-west-2a \(no kubernetes\.io\/role\/internal-elb tag\)/,
      );
    });

    it("nodes-private-subnets: a private subnet that starts mapping public addresses", async () => {
      const subnet = broken(one(dev, SUBNET, "network-private-us-west-2b"), (i) => {
        i.mapPublicIpOnLaunch = true;
      });
      const group = one(dev, "eks:index:ManagedNodeGroup");
      await expectOne(
        nodesInPrivateSubnets,
        replaced(dev.resources, subnet),
        group.urn,
        /not private: network-private-us-west-2b \(mapPublicIpOnLaunch is true\)\.$/,
      );
    });

    it("nodes-private-subnets: without per-property dependencies, the subnets the group depends on", async () => {
      // Plain subnet ids name no resource, so only the dependency list links the group to a subnet.
      const group = one(dev, "eks:index:ManagedNodeGroup");
      const moved = onSubnets(
        group,
        [one(dev, SUBNET, "network-public-us-west-2b")],
        ["subnet-0123456789abcdef0"],
      );
      await expectOne(
        nodesInPrivateSubnets,
        replaced(dev.resources, moved),
        group.urn,
        /not private: network-public-us-west-2b/,
      );
    });

    it("nodes-private-subnets: subnet ids that come from no subnet of the stack", async () => {
      const group = one(dev, "eks:index:ManagedNodeGroup");
      const external = onSubnets(group, [], ["subnet-0123456789abcdef0"]);
      await expectOne(
        nodesInPrivateSubnets,
        replaced(dev.resources, external),
        group.urn,
        /cannot be shown to be private/,
      );
    });

    it("nodes-imdsv2: a launch template that allows IMDSv1", async () => {
      const template = broken(one(dev, "aws:ec2/launchTemplate:LaunchTemplate"), (i) => {
        i.metadataOptions = { httpEndpoint: "enabled", httpTokens: "optional", httpPutResponseHopLimit: 1 };
      });
      await expectOne(
        nodesImdsv2,
        replaced(dev.resources, template),
        template.urn,
        /httpTokens is "optional", not "required"/,
      );
    });

    it("nodes-imdsv2: a launch template with hop limit 2", async () => {
      const template = broken(one(dev, "aws:ec2/launchTemplate:LaunchTemplate"), (i) => {
        i.metadataOptions = { httpEndpoint: "enabled", httpTokens: "required", httpPutResponseHopLimit: 2 };
      });
      await expectOne(
        nodesImdsv2,
        replaced(dev.resources, template),
        template.urn,
        /httpPutResponseHopLimit is 2, not 1/,
      );
    });

    it("nodes-imdsv2: a managed node group without a launch template", async () => {
      const group = broken(one(dev, "eks:index:ManagedNodeGroup"), (i) => delete i.launchTemplate);
      await expectOne(nodesImdsv2, replaced(dev.resources, group), group.urn, /sets no launchTemplate/);
    });

    it("nodes-imdsv2: an aws.eks.NodeGroup checks on its own, but not inside a @pulumi/eks node group", async () => {
      const group = one(dev, "eks:index:ManagedNodeGroup");
      const inner = broken(group, (i) => delete i.launchTemplate, {
        type: "aws:eks/nodeGroup:NodeGroup",
        urn: group.urn.replace(
          "eks:index:ManagedNodeGroup::",
          "eks:index:ManagedNodeGroup$aws:eks/nodeGroup:NodeGroup::",
        ),
        parent: group.urn,
        custom: true,
        remote: false,
      });
      assert.deepEqual((await runPolicy(nodesImdsv2, [...dev.resources, inner])).violations, []);
      const direct = {
        ...inner,
        urn: group.urn.replace("eks:index:ManagedNodeGroup::", "aws:eks/nodeGroup:NodeGroup::"),
        parent: group.parent,
      };
      await expectOne(nodesImdsv2, [...dev.resources, direct], direct.urn, /sets no launchTemplate/);
    });
  });

  describe("Calico", () => {
    it("calico-node-on-every-node: calico-node tolerating only one taint", async () => {
      const node = broken(calicoNode(dev), (i) => {
        const pod = (i.spec as { template: { spec: Inputs } }).template.spec;
        pod.tolerations = [{ key: "dedicated", operator: "Exists", effect: "NoSchedule" }];
      });
      await expectOne(
        calicoNodeEverywhere,
        replaced(dev.resources, node),
        node.urn,
        /does not tolerate every taint/,
      );
    });

    it("calico-node-on-every-node: calico-node without a priority class", async () => {
      const node = broken(calicoNode(dev), (i) => {
        delete (i.spec as { template: { spec: Inputs } }).template.spec.priorityClassName;
      });
      await expectOne(
        calicoNodeEverywhere,
        replaced(dev.resources, node),
        node.urn,
        /priorityClassName unset: .*system-node-critical/,
      );
    });

    it("k8s-no-wildcard-rbac: calico-node's ClusterRole granting every verb", async () => {
      const role = broken(one(dev, CLUSTER_ROLE, "calico-role-calico-node"), (i) => {
        (i.rules as { verbs: string[] }[])[0].verbs = ["*"];
      });
      await expectOne(
        noWildcardRbac,
        replaced(dev.resources, role),
        role.urn,
        /ClusterRole calico-role-calico-node grants wildcards: rules\[0\]\.verbs \["\*"\]/,
      );
    });

    it("k8s-no-wildcard-rbac: a Role on every resource's scale subresource", async () => {
      const role = broken(
        one(dev, CLUSTER_ROLE, "calico-role-calico-typha"),
        (i) => {
          i.kind = "Role";
          i.rules = [{ apiGroups: ["apps"], resources: ["*/scale"], verbs: ["get"] }];
        },
        { type: "kubernetes:rbac.authorization.k8s.io/v1:Role" },
      );
      await expectOne(
        noWildcardRbac,
        replaced(dev.resources, role),
        role.urn,
        /Role calico-role-calico-typha grants wildcards: rules\[0\]\.resources \["\*\/scale"\]/,
      );
    });

    it("k8s-no-removed-apis: calico-node on extensions/v1beta1", async () => {
      const node = calicoNode(dev);
      const old = broken(
        node,
        (i) => {
          i.apiVersion = "extensions/v1beta1";
        },
        { type: "kubernetes:extensions/v1beta1:DaemonSet" },
      );
      await expectOne(
        noRemovedApis,
        replaced(dev.resources, old, node),
        node.urn,
        /DaemonSet .* uses extensions\/v1beta1, which Kubernetes 1\.16 stopped serving; use apps\/v1/,
      );
    });

    it("k8s-no-removed-apis: a schema-less v1beta1 CRD, as upstream once shipped them", async () => {
      const crd = ofType(dev, CRD)[0];
      const old = broken(
        crd,
        (i) => {
          i.apiVersion = "apiextensions.k8s.io/v1beta1";
        },
        { type: "kubernetes:apiextensions.k8s.io/v1beta1:CustomResourceDefinition" },
      );
      await expectOne(
        noRemovedApis,
        replaced(dev.resources, old, crd),
        crd.urn,
        /Kubernetes 1\.22 stopped serving; use apiextensions\.k8s\.io\/v1/,
      );
    });
  });

  describe("VPC CNI beside Calico", () => {
    it("vpc-cni-network-policy-off-with-calico: the vpc-cni add-on's configurationValues turning it on", async () => {
      const addon = broken(one(dev, ADDON, "cluster-vpc-cni"), (i) => {
        i.configurationValues = JSON.stringify({
          env: { ANNOTATE_POD_IP: "true" },
          enableNetworkPolicy: "true",
        });
      });
      await expectOne(
        vpcCniNetworkPolicyOff,
        replaced(dev.resources, addon),
        addon.urn,
        /\(configurationValues\.enableNetworkPolicy\) while Calico enforces policy/,
      );
      const unreadable = broken(addon, (i) => {
        i.configurationValues = "enableNetworkPolicy: true";
      });
      await expectOne(
        vpcCniNetworkPolicyOff,
        replaced(dev.resources, unreadable),
        addon.urn,
        /not a JSON object/,
      );
    });

    it("vpc-cni-network-policy-off-with-calico: an eks:index:VpcCniAddon component turning it on", async () => {
      const addon = one(dev, ADDON, "cluster-vpc-cni");
      const component: ResourceRecord = {
        ...addon,
        type: "eks:index:VpcCniAddon",
        urn: addon.urn.replace("aws:eks/addon:Addon::", "eks:index:VpcCniAddon::"),
        custom: false,
        remote: true,
        inputs: { clusterName: addon.inputs.clusterName, enableNetworkPolicy: true },
      };
      await expectOne(
        vpcCniNetworkPolicyOff,
        [...dev.resources, component],
        component.urn,
        /\(enableNetworkPolicy\) while Calico enforces policy/,
      );
    });

    it("vpc-cni-network-policy-off-with-calico: the cluster's vpcCniOptions", async () => {
      const eks = broken(one(dev, "eks:index:Cluster"), (i) => {
        i.vpcCniOptions = { enableNetworkPolicy: true };
      });
      await expectOne(
        vpcCniNetworkPolicyOff,
        replaced(dev.resources, eks),
        eks.urn,
        /\(vpcCniOptions\.enableNetworkPolicy\)/,
      );
    });

    it("vpc-cni-network-policy-off-with-calico: not applicable to a stack without calico-node", async () => {
      const addon = broken(one(dev, ADDON, "cluster-vpc-cni"), (i) => {
        i.configurationValues = JSON.stringify({ enableNetworkPolicy: "true" });
      });
      const withoutCalico = replaced(dev.resources, addon).filter((r) => r.urn !== calicoNode(dev).urn);
      assert.deepEqual(await runPolicy(vpcCniNetworkPolicyOff, withoutCalico), {
        violations: [],
        notApplicable: [`no ${CALICO_NODE} DaemonSet in this stack`],
      });
    });
  });
});

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

  it("reports what the in-process run reports for broken records", async () => {
    const dev = await evaluated("dev");
    const eks = broken(one(dev, "eks:index:Cluster"), (i) => delete i.encryptionConfigKeyArn);
    const group = one(dev, "eks:index:ManagedNodeGroup");
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
    const moved = onSubnets(one(dev, "eks:index:ManagedNodeGroup"), [
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
