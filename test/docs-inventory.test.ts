/**
 * Every list the docs keep of something the code defines, compared with the code: the components and their
 * type tokens, each kind of stack's outputs and the `calico` output's keys, the policy pack's policies,
 * the stacks table, the folders of the layout and the Calico kinds with typed schemas.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { PROJECT_ROOT, type StackEvaluation } from "../offline/engine";
import { policies } from "../policy/policies";
import { TYPED_SPEC_KINDS } from "../components/calico/crd-schemas";
import { evaluated, evaluatedWith, evaluatedWithOperator, stackValue } from "./helpers";
import { readPage, tableRows } from "./docs-pages";

/** The code spans of `text` that are plain identifiers (output names, keys). */
const identifiers = (text: string) =>
  [...text.matchAll(/`([A-Za-z][A-Za-z0-9]*)`/g)].map((match) => match[1]).sort();

/** The paragraph of a page that starts with `opening`, whitespace collapsed. */
function paragraph(markdown: string, opening: string): string {
  const found = markdown.split(/\n\s*\n/).find((p) => p.startsWith(opening));
  assert.ok(found, `no paragraph starting "${opening}"`);
  return found.replace(/\s+/g, " ");
}

/** Every component type token an evaluation registered. */
const componentTypes = (evaluation: StackEvaluation) =>
  evaluation.resources.filter((r) => !r.custom && r.type.startsWith("eks-calico:")).map((r) => r.type);

describe("docs: the lists the code defines", () => {
  const components = readPage("docs/components.md");

  it("components.md's table is every component the stacks register, with its type token", async () => {
    const registered = new Set([
      ...componentTypes(await evaluated("dev")),
      ...componentTypes(await evaluatedWithOperator("dev")),
      ...componentTypes(await evaluated("existing.example")),
      ...componentTypes(await evaluated("kubeconfig.example")),
    ]);
    const documented = tableRows(components, "Component").map((cells) => cells[1].replaceAll("`", ""));
    assert.deepEqual([...documented].sort(), [...registered].sort());
  });

  for (const [stack, opening] of [
    ["dev", "A full EKS stack exports"],
    ["existing.example", "An existing-cluster stack exports"],
    ["kubeconfig.example", "A kubeconfig stack exports"],
  ] as const) {
    it(`components.md lists the outputs of ${stack}, exactly`, async () => {
      // As `pulumi up` exports them: only an update records clusterCreator.
      const outputs = Object.keys((await evaluatedWith(stack, { preview: false })).outputs).sort();
      assert.deepEqual(identifiers(paragraph(components, opening)), outputs);
    });
  }

  it("the README's table of outputs names each kind of stack's outputs, exactly", async () => {
    const rows = tableRows(readPage("README.md"), "Output").map(([output, kinds]) => ({
      output: output.replaceAll("`", ""),
      kinds: kinds.split(", "),
    }));
    for (const [stack, kind] of [
      ["dev", "full"],
      ["existing.example", "existing"],
      ["kubeconfig.example", "kubeconfig"],
    ] as const) {
      const outputs = Object.keys((await evaluatedWith(stack, { preview: false })).outputs).sort();
      const documented = rows.filter((row) => row.kinds.includes(kind)).map((row) => row.output);
      assert.deepEqual(documented.sort(), outputs, `README outputs of a ${kind} stack (${stack})`);
    }
    assert.ok(
      rows.every((row) => row.kinds.every((kind) => ["full", "existing", "kubeconfig"].includes(kind))),
      JSON.stringify(rows),
    );
  });

  it("components.md lists the keys of the calico output, in both install modes", async () => {
    const list =
      components.split("`calico` has the same keys in every kind of stack:")[1]?.split("\n\n")[1] ?? "";
    const documented = list
      .split(/\n(?=- )/)
      .flatMap((item) => identifiers(item.split(": ")[0]))
      .sort();
    for (const evaluation of [await evaluated("dev"), await evaluatedWithOperator("dev")]) {
      assert.deepEqual(documented, Object.keys(evaluation.outputs.calico as object).sort());
    }
  });

  it("policy-pack.md counts and names every policy of the pack, each mandatory", () => {
    const text = readPage("docs/policy-pack.md");
    assert.ok(text.includes(`of ${policies.length} mandatory policies:`), "the count of policies");
    assert.ok(policies.every((policy) => policy.enforcementLevel === "mandatory"));
    const names = tableRows(text, "Area").map((cells) => cells[1].replaceAll("`", ""));
    assert.deepEqual(
      names,
      policies.map((policy) => policy.name),
    );
  });

  it("stacks.md describes each stack as its Pulumi.<stack>.yaml configures it", () => {
    const rows = tableRows(readPage("docs/stacks.md"), "Stack");
    assert.ok(rows.length >= 3, "dev, staging and prod at least");
    for (const [name, zones, nat, groups, endpoint, protect] of rows) {
      const stack = name.replaceAll("`", "");
      const network = stackValue<{ availabilityZones: number; natGateways: string }>(stack, "network");
      const cluster = stackValue<{ publicAccessCidrs: string[] }>(stack, "cluster");
      const nodeGroups = stackValue<{ name: string; taints: unknown[] }[]>(stack, "nodeGroups");
      assert.equal(Number(zones), network.availabilityZones, `${stack}: AZs`);
      assert.equal(nat, network.natGateways === "perAz" ? "one per AZ" : "one", `${stack}: NAT gateways`);
      assert.deepEqual(
        [...groups.matchAll(/`([A-Za-z0-9_-]+)`( \(tainted)?/g)].map(
          (m) => `${m[1]}${m[2] ? " tainted" : ""}`,
        ),
        nodeGroups.map((g) => `${g.name}${g.taints.length > 0 ? " tainted" : ""}`),
        `${stack}: node groups`,
      );
      const open = cluster.publicAccessCidrs.includes("0.0.0.0/0");
      assert.equal(endpoint, open ? "0.0.0.0/0" : "listed CIDRs only", `${stack}: public API endpoint`);
      assert.equal(protect, stackValue<boolean>(stack, "protect") ? "yes" : "no", `${stack}: protected`);
    }
  });

  it("layout.md names every top-level folder", () => {
    const paths = tableRows(readPage("docs/layout.md"), "Path").map((cells) => cells[0].replaceAll("`", ""));
    const folders = fs
      .readdirSync(PROJECT_ROOT, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && ![".git", "node_modules", "out"].includes(entry.name))
      .map((entry) => `${entry.name}/`);
    for (const folder of folders) {
      assert.ok(
        paths.some((p) => p.startsWith(folder)),
        `docs/layout.md does not name ${folder}`,
      );
    }
  });

  it("adoption.md names the Calico kinds whose CRD schemas are typed", () => {
    const kinds = `${TYPED_SPEC_KINDS.slice(0, -1).join(", ")} and ${TYPED_SPEC_KINDS[TYPED_SPEC_KINDS.length - 1]}`;
    assert.ok(
      readPage("docs/adoption.md").replace(/\s+/g, " ").includes(`${kinds} have typed schemas`),
      `docs/adoption.md should say "${kinds} have typed schemas"`,
    );
  });
});
