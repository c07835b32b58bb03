/**
 * "Did you mean": an unknown config key gets the closest key its place takes, an instance type the
 * instance table lacks the closest types it has; each problem keeps its key path, value and rule, and
 * every problem is reported at once.
 */
import * as assert from "node:assert/strict";
import { ENI_LIMIT_ROWS } from "../components/cluster/eni-limits";
import { loadStackConfig } from "../offline/engine";
import {
  type ConfigProblem,
  type StackConfig,
  knownKeysAt,
  stackConfigSchema,
  validateConfig,
} from "../stacks";
import { SUPPORTED_KUBERNETES_VERSIONS } from "../stacks/schema";
import { newerThanTables } from "../stacks/table-notices";
import { evaluateStack } from "../offline/engine";
import { formatProblems, problemsFromIssues } from "../stacks/problems";
import { familySizes, instanceTypeProblem, unknownInstanceTypeNotice } from "../stacks/schema/instance-types";
import { closestNames, didYouMean, orList } from "../stacks/suggest";

const GROUP = { name: "general", instanceTypes: ["t3.large"], minSize: 1, desiredSize: 2, maxSize: 3 };

function problemsFor(raw: Record<string, unknown>): ConfigProblem[] {
  const result = validateConfig(raw);
  assert.equal(result.ok, false, "expected the configuration to be refused");
  return result.ok ? [] : result.problems;
}

function problemAt(raw: Record<string, unknown>, path: string): ConfigProblem {
  const problems = problemsFor(raw);
  const found = problems.filter((p) => p.path === path);
  assert.equal(found.length, 1, `one problem at ${path}; got ${JSON.stringify(problems)}`);
  return found[0];
}

describe("closest names", () => {
  it("finds a name one edit away, whatever its case, dashes or underscores", () => {
    const keys = ["name", "instanceTypes", "minSize", "desiredSize", "maxSize"];
    assert.deepEqual(closestNames("instanceType", keys), ["instanceTypes"]);
    assert.deepEqual(closestNames("instance_types", keys), ["instanceTypes"]);
    assert.deepEqual(closestNames("InstanceTypes", keys), ["instanceTypes"]);
    assert.deepEqual(closestNames("max-size", keys), ["maxSize"]);
  });

  it("keeps every tie, in the candidates' order, up to the limit", () => {
    assert.deepEqual(closestNames("xat", ["cat", "bat", "hat", "dog"]), ["cat", "bat", "hat"]);
    assert.deepEqual(closestNames("xat", ["cat", "bat", "hat"], { limit: 2 }), ["cat", "bat"]);
  });

  it("prefers the longer shared beginning among equally near names", () => {
    assert.deepEqual(closestNames("m7.large", ["m5.large", "m7g.large", "m7a.large", "m6.large"]), [
      "m7g.large",
      "m7a.large",
    ]);
  });

  it("suggests nothing farther than a third of the word, nor the word itself", () => {
    assert.deepEqual(closestNames("zone", ["name", "tags"]), []);
    assert.deepEqual(closestNames("desired", ["desiredSize"]), []);
    assert.deepEqual(closestNames("tags", ["tags"]), []);
    assert.deepEqual(closestNames("anything", []), []);
    assert.deepEqual(closestNames("t3.huge", ["t3.large", "t3.nano"], { maxDistance: Infinity, limit: 1 }), [
      "t3.large",
    ]);
  });

  it("words the suggestion as a question", () => {
    assert.equal(orList(["a"]), "a");
    assert.equal(orList(["a", "b", "c"]), "a, b or c");
    assert.equal(didYouMean([]), "");
    assert.equal(didYouMean(["a", "b"]), "; did you mean a or b?");
  });
});

describe("unknown config keys", () => {
  it("names the closest key of a node group, keeping the path, the value and every key the group takes", () => {
    const raw = { nodeGroups: [{ name: "general", instanceType: ["m6i.large"] }] };
    const problem = problemAt(raw, "nodeGroups[0].instanceType");
    assert.deepEqual(problem, {
      path: "nodeGroups[0].instanceType",
      value: ["m6i.large"],
      rule: "is not a known key; did you mean instanceTypes?",
      hint: "rename it to instanceTypes; nodeGroups[0] takes name, instanceTypes, capacityType, amiType, amiReleaseVersion, diskSizeGiB, minSize, desiredSize, maxSize, labels, taints, clusterAddons (see docs/config-reference.md)",
    });
    assert.ok(
      formatProblems("dev", problemsFor(raw)).includes(
        '  - nodeGroups[0].instanceType: is not a known key; did you mean instanceTypes? (got ["m6i.large"])\n      hint: rename it to instanceTypes; ',
      ),
    );
  });

  for (const [title, raw, path, rule] of [
    [
      "a top-level key",
      { nodegroups: [GROUP] },
      "nodegroups",
      "is not a known key; did you mean nodeGroups?",
    ],
    [
      "a boolean",
      { nodeGroups: [GROUP], protected: true },
      "protected",
      "is not a known key; did you mean protect?",
    ],
    [
      "a Calico key",
      { nodeGroups: [GROUP], calico: { namepsace: "calico-system" } },
      "calico.namepsace",
      "is not a known key; did you mean namespace?",
    ],
    [
      "a key two objects down",
      { nodeGroups: [GROUP], calico: { probe: { enable: false } } },
      "calico.probe.enable",
      "is not a known key; did you mean enabled?",
    ],
    [
      "a key in a list's object",
      {
        nodeGroups: [
          { ...GROUP, taints: [{ key: "a", value: "b", efect: "NoSchedule", effect: "NoSchedule" }] },
        ],
      },
      "nodeGroups[0].taints[0].efect",
      "is not a known key; did you mean effect?",
    ],
    [
      "an add-on",
      { nodeGroups: [GROUP], cluster: { addons: { coredns: {} } } },
      "cluster.addons.coredns",
      "is not a known key; did you mean coreDns?",
    ],
  ] as const) {
    it(`names the closest key for ${title}`, () => {
      assert.equal(problemAt(raw, path).rule, rule);
    });
  }

  it("lists the keys it takes when no key is near", () => {
    const problem = problemAt({ nodeGroups: [GROUP], network: { subnets: 4 } }, "network.subnets");
    assert.equal(problem.rule, "is not a known key");
    assert.equal(problem.value, 4);
    assert.equal(
      problem.hint,
      "network takes cidr, availabilityZones, zones, excludeZones, natGateways, endpoints (see docs/config-reference.md)",
    );
  });

  it("points to docs/config-reference.md where the keys of a place are not known", () => {
    const parsed = stackConfigSchema.safeParse(
      { nodeGroups: [GROUP], protected: true },
      { reportInput: true },
    );
    assert.deepEqual(parsed.success ? [] : problemsFromIssues(parsed.error.issues), [
      {
        path: "protected",
        value: true,
        rule: "is not a known key (check its spelling against docs/config-reference.md)",
      },
    ]);
  });

  it("knows the keys of every object a stack file sets, and of none where a map takes any key", () => {
    assert.deepEqual(knownKeysAt([]), [
      "network",
      "cluster",
      "nodeGroups",
      "calico",
      "karpenter",
      "tags",
      "deploy",
      "protect",
    ]);
    assert.deepEqual(knownKeysAt(["tags"]), []);
    assert.deepEqual(knownKeysAt(["nodeGroups", 0, "labels"]), []);
    assert.deepEqual(knownKeysAt(["nope"]), []);
    assert.deepEqual(knownKeysAt(["cluster", "existing"]), [
      "name",
      "maxNodes",
      "minNodes",
      "vpcCniConfigured",
      "networkPolicyAgent",
    ]);
    // Every object in the stack files: a misspelt key there is answered with the keys of its place.
    for (const stack of ["staging", "existing.example", "kubeconfig.example"]) {
      const raw: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(loadStackConfig(stack).values)) {
        if (key.startsWith("eks-calico:")) raw[key.slice("eks-calico:".length)] = JSON.parse(value);
      }
      const objects: (string | number)[][] = [[]];
      const walk = (value: unknown, at: (string | number)[]) => {
        if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...at, i]));
        else if (value !== null && typeof value === "object") {
          if (at.length > 0 && !["tags", "labels"].includes(String(at[at.length - 1]))) objects.push(at);
          for (const [k, v] of Object.entries(value)) walk(v, [...at, k]);
        }
      };
      walk(raw, []);
      assert.ok(objects.length >= 3, `${stack}: ${objects.length} objects`);
      for (const at of objects) {
        const keys = knownKeysAt(at);
        assert.ok(keys.length > 0, `${stack}: no keys at ${JSON.stringify(at)}`);
        const own = at.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], raw);
        for (const key of Object.keys(own as object))
          assert.ok(keys.includes(key), `${stack}: ${key} at ${JSON.stringify(at)}`);
      }
    }
  });
});

describe("instance types the table lacks", () => {
  const tableSize = ENI_LIMIT_ROWS.flatMap(([, , types]) => types.split(" ")).length;

  it("warns of m7.large (no m7 family), with the nearest m7 types and the table's date, and refuses nothing", () => {
    assert.ok(validateConfig({ nodeGroups: [{ ...GROUP, instanceTypes: ["t3.large", "m7.large"] }] }).ok);
    assert.equal(
      unknownInstanceTypeNotice("nodeGroups[0].instanceTypes[1]", "m7.large"),
      `nodeGroups[0].instanceTypes[1]: m7.large is not in components/cluster/eni-limits.ts (the types EC2 listed in August 2026, as amazon-vpc-cni-k8s records them). If EC2 released it since, EC2 answers at \`up\`, and its pods' addresses and max pods are not checked here; did you mean m7a.large, m7g.large or m7i.large?`,
    );
    assert.equal(tableSize > 1000, true);
    assert.equal(unknownInstanceTypeNotice("x", "t3.large"), undefined, "a type of the table");
    assert.equal(unknownInstanceTypeNotice("x", "t3.huge"), undefined, "refused, not warned");
  });

  it("refuses t3.huge (no such size) with t3's nearest size and every size it comes in", () => {
    const problem = problemAt(
      { nodeGroups: [{ ...GROUP, instanceTypes: ["t3.huge"] }] },
      "nodeGroups[0].instanceTypes[0]",
    );
    assert.equal(problem.value, "t3.huge");
    assert.equal(
      problem.rule,
      "must be an EC2 instance type: family, generation and size, such as t3.large or m7g.2xlarge; did you mean t3.large? (t3 comes in nano, micro, small, medium, large, xlarge, 2xlarge)",
    );
  });

  it("lists a family's sizes, smallest first, metal last", () => {
    assert.deepEqual(familySizes("t3"), ["nano", "micro", "small", "medium", "large", "xlarge", "2xlarge"]);
    const c7i = familySizes("c7i");
    assert.deepEqual(c7i.slice(0, 3), ["large", "xlarge", "2xlarge"]);
    assert.deepEqual(c7i.slice(-2), ["metal-24xl", "metal-48xl"]);
    assert.deepEqual(familySizes("m7"), []);
  });

  it("warns of a well-formed name of a size the family lacks, and refuses a family alone", () => {
    assert.equal(instanceTypeProblem("c7i.metal-96xl"), undefined);
    assert.match(
      unknownInstanceTypeNotice("x", "c7i.metal-96xl") ?? "",
      /did you mean c7i\.metal-24xl\? \(c7i comes in large, /,
    );
    const bare = instanceTypeProblem("t3");
    assert.equal(
      bare?.rule,
      "must be an EC2 instance type: family, generation and size, such as t3.large or m7g.2xlarge (t3 comes in nano, micro, small, medium, large, xlarge, 2xlarge)",
    );
    assert.equal(
      instanceTypeProblem("banana")?.rule,
      "must be an EC2 instance type: family, generation and size, such as t3.large or m7g.2xlarge",
    );
  });

  it("accepts every type of the table", () => {
    for (const [, , types] of ENI_LIMIT_ROWS) {
      for (const type of types.split(" ")) assert.equal(instanceTypeProblem(type), undefined, type);
    }
  });
});

describe("every problem at once", () => {
  it("reports a misspelt key, a made-up instance type and a bad value together, each with its path, value and rule", () => {
    const problems = problemsFor({
      network: { cidr: "10.0.0.0/33" },
      nodeGroups: [{ ...GROUP, instanceTypes: ["t3.huge"], desiredSiz: 2 }],
      protected: true,
    });
    assert.deepEqual(
      problems.map((p) => [p.path, p.value]),
      [
        ["network.cidr", "10.0.0.0/33"],
        ["nodeGroups[0].instanceTypes[0]", "t3.huge"],
        ["nodeGroups[0].desiredSiz", 2],
        ["protected", true],
      ],
    );
    assert.deepEqual(
      problems.slice(1).map((p) => /did you mean ([^?]+)\?/.exec(p.rule)?.[1]),
      ["t3.large", "desiredSize", "protect"],
    );
  });
});

describe("values newer than the program's tables", () => {
  const stack = (nodeGroups: unknown[], version?: string): StackConfig => {
    const parsed = validateConfig({ nodeGroups, ...(version === undefined ? {} : { cluster: { version } }) });
    assert.ok(parsed.ok, JSON.stringify(parsed));
    return parsed.config;
  };

  it("warns of a Kubernetes version newer than the table, and of instance types it lacks, each at its key", () => {
    const notices = newerThanTables(stack([{ ...GROUP, instanceTypes: ["t3.large", "m9i.large"] }], "1.37"));
    assert.equal(notices.length, 2);
    assert.match(
      notices[0],
      /^cluster\.version: 1\.37 is newer than the versions recorded in stacks\/schema\/cluster\.ts \(1\.32, .*1\.36, EKS's release calendar in November 2026\): EKS answers at `up`/,
    );
    assert.match(
      notices[1],
      /^nodeGroups\[0\]\.instanceTypes\[1\]: m9i\.large is not in components\/cluster\/eni-limits\.ts/,
    );
  });

  it("is silent for the versions and types the tables hold", () => {
    for (const version of SUPPORTED_KUBERNETES_VERSIONS) {
      assert.deepEqual(newerThanTables(stack([GROUP], version)), [], version);
    }
  });

  it("plans a newer Kubernetes version offline, with its add-ons' versions marked as not known", async () => {
    const plan = await evaluateStack("dev", { config: { "eks-calico:cluster.version": "1.37" } });
    const addon = plan.resources.find(
      (r) => r.type === "aws:eks/addon:Addon" && r.name === "cluster-kube-proxy",
    );
    assert.equal(addon?.inputs.addonVersion, "<addon-version:kube-proxy:1.37>");
  });
});
