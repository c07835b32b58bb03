/**
 * What `pulumi destroy` does to each stack, computed from its offline plan as the diff against an empty
 * plan (offline/diff.ts: a protected resource deleted is blocked, one with retainOnDelete is retained):
 * only the protect a full production stack sets refuses it, lifting that protect unblocks it, and what
 * stays is exactly what docs/destroy.md's table says, for every stack file (full, existing-cluster and
 * kubeconfig modes).
 */
import * as assert from "node:assert/strict";
import { type PlanDiff, type ResourceDiff, diffDocuments } from "../offline/diff";
import { type StackEvaluation, listStacks, loadStackConfig } from "../offline/engine";
import { resourcesDocument } from "../offline/plan";
import { crdKindsFor } from "../components/calico/crds";
import { SUPPORTED_CALICO_MINORS, supportedMinorOf } from "../components/calico/defaults";
import { evaluated, evaluatedWith, one, stackValue } from "./helpers";
import { readPage } from "./docs-pages";

const CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";
const ADDON = "aws:eks/addon:Addon";

/** `pulumi destroy`: every resource of the plan removed. */
function destroyed(evaluation: StackEvaluation): PlanDiff {
  const plan = resourcesDocument(evaluation);
  return diffDocuments(plan, { ...plan, resources: [], outputs: {} });
}

const typeOf = (r: ResourceDiff) => r.heading.split(" ")[0];
const blocked = (diff: PlanDiff) => diff.removed.filter((r) => r.blocked !== undefined);
const retained = (diff: PlanDiff) => diff.removed.filter((r) => r.retained === true);

/** Whether a stack file sets `protect: true` (the key is absent from the examples). */
const protectedStack = (stack: string) => loadStackConfig(stack).values["eks-calico:protect"] === "true";

/** How the table names each protected resource. */
const PROTECTED: Readonly<Record<string, string>> = {
  "the VPC": "aws:ec2/vpc:Vpc",
  "the cluster": "eks:index:Cluster",
  "its KMS key": "aws:kms/key:Key",
  "its log group": "aws:cloudwatch/logGroup:LogGroup",
};

/** The stack modes docs/destroy.md's table has a row for. */
type Mode = "full" | "full, protected" | "existing" | "kubeconfig";

/** A stack's mode, read from its stack file: the cluster it targets, and `protect`. */
function modeOf(stack: string): Mode {
  const values = loadStackConfig(stack).values;
  const cluster = JSON.parse(values["eks-calico:cluster"] ?? "{}") as Record<string, unknown>;
  if (cluster.existing !== undefined) return "existing";
  if (cluster.kubeconfig !== undefined) return "kubeconfig";
  return protectedStack(stack) ? "full, protected" : "full";
}

/** The mode a row of the table describes, by the words of its first cell. */
function rowMode(cell: string): Mode | undefined {
  if (cell.includes("`cluster.existing`")) return "existing";
  if (cell.includes("`cluster.kubeconfig`")) return "kubeconfig";
  if (cell.includes("with `protect: true`")) return "full, protected";
  if (cell.includes("without `protect`")) return "full";
  return undefined;
}

/** docs/destroy.md's table: per row, the stack mode it describes, what refuses and what is kept. */
function documentedRows(): { mode: Mode | undefined; refuses: string; kept: string }[] {
  const lines = readPage("docs/destroy.md").split("\n");
  const start = lines.findIndex((line) => /^\| Stack +\|/.test(line));
  assert.ok(start >= 0, "docs/destroy.md has a table headed Stack");
  const rows: { mode: Mode | undefined; refuses: string; kept: string }[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const [stack, refuses, kept] = line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim());
    rows.push({ mode: rowMode(stack), refuses, kept });
  }
  return rows;
}

describe("pulumi destroy, per stack mode", () => {
  const rows = documentedRows();
  const page = readPage("docs/destroy.md").replace(/\s+/g, " ");

  it("docs/destroy.md's table has one row per stack mode, so every stack file has its row", () => {
    assert.deepEqual(
      rows.map((row) => row.mode),
      ["full", "full, protected", "existing", "kubeconfig"],
    );
    for (const stack of listStacks())
      assert.ok(
        rows.some((row) => row.mode === modeOf(stack)),
        stack,
      );
  });

  it("states how many CRDs each supported Calico line keeps", () => {
    for (const line of SUPPORTED_CALICO_MINORS)
      assert.ok(page.includes(`${crdKindsFor(`v${line}.0`).length} on v${line}`), `v${line}`);
  });

  for (const stack of listStacks()) {
    describe(stack, () => {
      let diff: PlanDiff;
      let count: number;
      before(async () => {
        const evaluation = await evaluated(stack);
        count = evaluation.resources.length;
        diff = destroyed(evaluation);
      });
      const row = () => rows.find((r) => r.mode === modeOf(stack)) as (typeof rows)[number];

      it("removes every resource, and is refused only by the protect the docs tell you to lift", () => {
        assert.equal(diff.removed.length, count);
        assert.deepEqual([diff.added.length, diff.changed.length], [0, 0]);
        const refused = blocked(diff);
        if (!protectedStack(stack)) {
          assert.deepEqual(
            refused.map((r) => r.heading),
            [],
            `${stack} is not protected`,
          );
          assert.match(row().refuses, /^nothing/);
          return;
        }
        const named = Object.keys(PROTECTED).filter((phrase) => row().refuses.includes(phrase));
        assert.deepEqual(
          refused.map(typeOf).sort(),
          named.map((phrase) => PROTECTED[phrase]).sort(),
          "the protected resources, as the table names them",
        );
        assert.ok(row().refuses.includes(`(${refused.length} protected resources)`), row().refuses);
        assert.match(row().refuses, /`protect: false`/);
      });

      it("keeps exactly what the docs say: Calico's CRDs, and an existing cluster's vpc-cni add-on", () => {
        const kept = retained(diff);
        const crds = kept.filter((r) => typeOf(r) === CRD);
        assert.ok(row().kept.includes("Calico's CRDs"), `${stack}: ${row().kept}`);
        // The count is the stack's own Calico line's, as the page states it per line.
        const line = supportedMinorOf(stackValue<{ version: string }>(stack, "calico").version);
        assert.ok(page.includes(`${crds.length} on v${line}`), `${stack}: ${crds.length} CRDs on v${line}`);
        const others = kept.filter((r) => typeOf(r) !== CRD).map((r) => r.heading);
        assert.deepEqual(
          others,
          row().kept.includes("the `vpc-cni` add-on") ? [`${ADDON} cluster-vpc-cni`] : [],
        );
      });
    });
  }

  it("warns that an existing cluster's NetworkPolicies go unenforced, and says how to keep them", async () => {
    // The retained add-on keeps the agent off: with Calico deleted, nothing enforces NetworkPolicies.
    const addon = one(await evaluated("existing.example"), ADDON, "cluster-vpc-cni");
    const values = JSON.parse(String(addon.inputs.configurationValues)) as Record<string, unknown>;
    assert.equal(values.enableNetworkPolicy, "false");
    const page = readPage("docs/destroy.md").replace(/\s+/g, " ");
    const before = page.slice(page.indexOf("## Before you run it"));
    assert.match(
      before,
      /^## Before you run it - \*\*An existing-cluster stack ends NetworkPolicy enforcement\.\*\*/,
    );
    for (const phrase of [
      "aws eks update-addon --cluster-name <cluster> --addon-name vpc-cni",
      `jq -c '.enableNetworkPolicy = "true"'`,
      "--configuration-values file://values.json",
      "before `pulumi destroy`",
    ]) {
      assert.ok(before.includes(phrase), `docs/destroy.md says "${phrase}"`);
    }
    const existing = readPage("docs/existing-clusters.md").replace(/\s+/g, " ");
    assert.ok(existing.includes("**The destroy ends NetworkPolicy enforcement**"));
  });

  it("is unblocked on a protected stack once protect: false is applied", async () => {
    for (const stack of listStacks().filter(protectedStack)) {
      const lifted = destroyed(await evaluatedWith(stack, { config: { "eks-calico:protect": false } }));
      assert.deepEqual(blocked(lifted), [], stack);
    }
  });

  it("never blocks an existing-cluster stack, whichever step of the agent's hand-over it is at", async () => {
    const agentOn = {
      vpcCni: { managed: true as const, configurationValues: '{"enableNetworkPolicy":"true"}' },
    };
    for (const networkPolicyAgent of ["on", "off"]) {
      const plan = await evaluatedWith("existing.example", {
        config: {
          "eks-calico:cluster": { existing: { name: "platform-prod", maxNodes: 20, networkPolicyAgent } },
        },
        simulate: { existingCluster: agentOn },
      });
      const diff = destroyed(plan);
      assert.deepEqual(blocked(diff), [], networkPolicyAgent);
      assert.deepEqual(
        retained(diff)
          .filter((r) => typeOf(r) !== CRD)
          .map((r) => r.heading),
        [`${ADDON} cluster-vpc-cni`],
      );
    }
  });
});
