/**
 * The creation and deletion order of test/ordering.ts, checked against the dependency graph the
 * engine records, for every stack: every row holds, and every explicit `dependsOn` edge that is the only
 * path between its ends is required by a row (so removing any such edge fails here).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { type FirstRolled, ORDERING, type OrderingRule, type ResourceSet } from "./ordering";
import { PROJECT_ROOT, type ResourceRecord, type StackEvaluation } from "../offline/engine";
import {
  type DependencyGraph,
  dependencyGraph,
  dependenciesOf,
  explicitDependencies,
} from "../offline/graph";
import { STACKS, evaluated, evaluatedWith, evaluatedWithOperator, stackValue } from "./helpers";
import { deploy } from "./deployed-stack";

function members(evaluation: StackEvaluation, set: ResourceSet): ResourceRecord[] {
  return evaluation.resources.filter(
    (r) => set.types.includes(r.type) && (set.name === undefined || set.name.test(r.name)),
  );
}

/** A case's evaluation, and which workload its update rolls first. */
interface Planned {
  readonly evaluation: StackEvaluation;
  readonly firstRolled: FirstRolled;
}

/** The (before, after) pairs a row requires, by URN. */
function requiredPairs({ evaluation, firstRolled }: Planned, rule: OrderingRule): [string, string][] {
  if (rule.firstRolled !== undefined && rule.firstRolled !== firstRolled) return [];
  if (rule.unlessPresent !== undefined && members(evaluation, rule.unlessPresent).length > 0) return [];
  const before = members(evaluation, rule.before);
  const after = members(evaluation, rule.after);
  return after.flatMap((a) =>
    before.filter((b) => !rule.pairByName || b.name === a.name).map((b): [string, string] => [b.urn, a.urn]),
  );
}

/** Rows whose pairs do not all hold in `graph`, with the first missing pair of each. */
function brokenRows(planned: Planned, graph: DependencyGraph): string[] {
  const closure = new Map<string, Set<string>>();
  const reach = (urn: string) => {
    let deps = closure.get(urn);
    if (deps === undefined) {
      deps = dependenciesOf(graph, urn);
      closure.set(urn, deps);
    }
    return deps;
  };
  return ORDERING.flatMap((rule) => {
    const missing = requiredPairs(planned, rule).find(([b, a]) => !reach(a).has(b));
    return missing === undefined
      ? []
      : [`${rule.before.label} before ${rule.after.label}: ${missing[1]} does not wait for ${missing[0]}`];
  });
}

/**
 * Stacks as configured, plus the rows no stack file exercises: a Calico namespace and access entries, and
 * the operator install mode with every custom resource.
 */
const CASES: { title: string; evaluation: () => Promise<StackEvaluation>; firstRolled?: FirstRolled }[] = [
  ...STACKS.map((stack) => ({ title: stack, evaluation: () => evaluated(stack) })),
  {
    title: "staging with a Calico namespace and access entries",
    evaluation: () =>
      evaluatedWith("staging", {
        config: {
          "eks-calico:calico": { ...stackValue<object>("staging", "calico"), namespace: "calico-system" },
          "eks-calico:cluster": {
            ...stackValue<object>("staging", "cluster"),
            access: [
              { principalArn: "arn:aws:iam::123456789012:role/platform-admins", level: "admin" },
              { principalArn: "arn:aws:iam::123456789012:user/auditor", level: "view" },
            ],
          },
        },
      }),
  },
  {
    title: "dev with security groups for pods and EKS Pod Identity",
    evaluation: () =>
      evaluatedWith("dev", {
        config: {
          "eks-calico:cluster.vpcCni.podSecurityGroups": true,
          "eks-calico:cluster.podIdentity": true,
        },
      }),
  },
  {
    title: "the existing-cluster example stack",
    evaluation: () => evaluated("existing.example"),
  },
  {
    title: "the existing-cluster example stack turning a running network-policy agent off",
    evaluation: () =>
      evaluatedWith("existing.example", {
        config: {
          "eks-calico:cluster": {
            existing: {
              ...stackValue<{ existing: object }>("existing.example", "cluster").existing,
              networkPolicyAgent: "off",
            },
          },
        },
        simulate: {
          existingCluster: {
            vpcCni: { managed: true, configurationValues: '{"enableNetworkPolicy":"true"}' },
          },
        },
      }),
  },
  {
    title: "the existing-cluster example stack in operator mode turning the agent off",
    evaluation: async () => {
      const existing = stackValue<{ existing: object }>("existing.example", "cluster").existing;
      return evaluatedWith("existing.example", {
        config: {
          "eks-calico:cluster": { existing: { ...existing, networkPolicyAgent: "off" } },
          "eks-calico:calico": { ...stackValue<object>("existing.example", "calico"), installer: "operator" },
        },
        simulate: {
          existingCluster: {
            vpcCni: { managed: true, configurationValues: '{"enableNetworkPolicy":"true"}' },
          },
        },
      });
    },
  },
  {
    title: "dev taking over a Calico installed with kubectl (calico.adopt)",
    evaluation: () =>
      evaluatedWith("dev", {
        config: { "eks-calico:calico": { ...stackValue<object>("dev", "calico"), adopt: true } },
      }),
  },
  {
    title: "the kubeconfig example stack",
    evaluation: () => evaluated("kubeconfig.example"),
  },
  {
    title: "prod in operator mode with the API server, Goldmane and Whisker",
    evaluation: () => evaluatedWithOperator("prod"),
  },
  // A v3.32 Typha disconnects a v3.31 Felix; a v3.32 Felix keeps a v3.31 Typha (projectcalico/calico
  // v3.32.1 typha/pkg/syncserver/sync_server.go, typha/pkg/syncclient/sync_client.go).
  {
    title: "dev upgrading Calico from v3.31.7 to v3.32.1",
    evaluation: () => lineChange("v3.31.7", "v3.32.1"),
    firstRolled: "calico-node",
  },
  {
    title: "dev rolling Calico back from v3.32.1 to v3.31.7",
    evaluation: () => lineChange("v3.32.1", "v3.31.7"),
  },
];

/** The plan of dev deployed at Calico `from` and updated to `to`. */
async function lineChange(from: string, to: string): Promise<StackEvaluation> {
  const version = (v: string) => ({ "eks-calico:calico.version": v });
  const deployed = await deploy({ stack: "dev", config: version(from) });
  return evaluatedWith("dev", { config: version(to), previousOutputs: deployed.outputs });
}

describe("creation and deletion order", () => {
  const evaluations = new Map<string, Planned>();
  before(async () => {
    for (const c of CASES) {
      evaluations.set(c.title, { evaluation: await c.evaluation(), firstRolled: c.firstRolled ?? "Typha" });
    }
  });

  for (const c of CASES) {
    it(`holds every row of test/ordering.ts in ${c.title}`, () => {
      const planned = evaluations.get(c.title) as Planned;
      assert.deepEqual(brokenRows(planned, dependencyGraph(planned.evaluation)), []);
    });

    it(`needs every explicit dependsOn edge of ${c.title} for some row, or has another path for it`, () => {
      const planned = evaluations.get(c.title) as Planned;
      const { evaluation } = planned;
      const graph = dependencyGraph(evaluation);
      const unexplained: string[] = [];
      for (const resource of evaluation.resources) {
        for (const dependency of explicitDependencies(resource)) {
          const without = new Map(graph);
          without.set(
            resource.urn,
            new Set([...(graph.get(resource.urn) ?? [])].filter((u) => u !== dependency)),
          );
          if (dependenciesOf(without, resource.urn).has(dependency)) continue; // redundant: another path
          if (brokenRows(planned, without).length === 0) {
            unexplained.push(`${resource.name} -> ${dependency.split("::").pop()}`);
          }
        }
      }
      assert.deepEqual(unexplained, [], "explicit edges no row of test/ordering.ts needs");
    });
  }

  it("exercises every row in some case, so none checks nothing", () => {
    for (const rule of ORDERING) {
      const exercised = [...evaluations.values()].some((e) => requiredPairs(e, rule).length > 0);
      assert.ok(exercised, `${rule.before.label} before ${rule.after.label} matches no resources`);
    }
  });

  it("fails a row when one of its edges is removed from the graph", () => {
    const planned = evaluations.get("staging") as Planned;
    const { evaluation } = planned;
    const graph = dependencyGraph(evaluation);
    const group = evaluation.resources.find(
      (r) => r.type === "aws:eks/nodeGroup:NodeGroup",
    ) as ResourceRecord;
    const association = evaluation.resources.find(
      (r) => r.name === "network-private-us-west-2a" && r.type.endsWith("RouteTableAssociation"),
    ) as ResourceRecord;
    graph.set(group.urn, new Set([...(graph.get(group.urn) ?? [])].filter((u) => u !== association.urn)));
    assert.match(
      brokenRows(planned, graph).join("\n"),
      /every private subnet's route-table association before every node group/,
    );
  });

  it("fails the operator row when the Installation does not wait for the operator", () => {
    const planned = evaluations.get(
      "prod in operator mode with the API server, Goldmane and Whisker",
    ) as Planned;
    const { evaluation } = planned;
    const graph = dependencyGraph(evaluation);
    const operator = evaluation.resources.find((r) => r.name === "calico-deployment-tigera-operator");
    const installation = evaluation.resources.find(
      (r) => r.type === "kubernetes:operator.tigera.io/v1:Installation",
    );
    assert.ok(operator && installation);
    const edges = graph.get(installation.urn) ?? [];
    graph.set(installation.urn, new Set([...edges].filter((u) => u !== operator.urn)));
    assert.match(
      brokenRows(planned, graph).join("\n"),
      /the operator's Deployment before every operator custom resource/,
    );
  });

  it("is the table of docs/ordering.md, row for row", () => {
    const section = fs.readFileSync(path.join(PROJECT_ROOT, "docs", "ordering.md"), "utf8");
    const rows = [...section.matchAll(/^\| ([^|]+?) +\| ([^|]+?) +\|/gm)]
      .map((m) => `${m[1]} | ${m[2]}`)
      .filter((row) => !row.startsWith("Exists first") && !row.startsWith("---"));
    assert.deepEqual(
      rows,
      ORDERING.map((rule) => `${rule.before.label} | ${rule.after.label}`),
    );
  });
});
