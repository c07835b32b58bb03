/**
 * A plan a reviewer reads in one screen: the diff opens with what the change does per component, the
 * probe's re-run is one labelled line, a CRD's schema changes are one line, and resources with no step
 * are counted; `--verbose` lists everything (offline/diff-lead.ts, offline/diff-render.ts).
 */
import * as assert from "node:assert/strict";
import { diffDocuments } from "../offline/diff";
import { renderDiff } from "../offline/diff-render";
import { resourcesDocument } from "../offline/plan";
import { evaluated, evaluatedWith, stackValue } from "./helpers";

async function lineChange() {
  const calico = stackValue<Record<string, unknown>>("dev", "calico");
  return diffDocuments(
    resourcesDocument(await evaluated("dev")),
    resourcesDocument(
      await evaluatedWith("dev", { config: { "eks-calico:calico": { ...calico, version: "v3.32.1" } } }),
    ),
  );
}

describe("offline diff: one screen", () => {
  it("a Calico line change leads with what rolls and that the probe runs again, in under 120 lines", async () => {
    const diff = await lineChange();
    const lines = renderDiff(diff, "dev.json").split("\n");
    assert.ok(lines.length < 120, `${lines.length} lines`);
    const lead = lines.indexOf("What it does:");
    assert.ok(lead > 0 && lead < 12, "the lead comes right after the counts");
    const body = lines.slice(
      lead + 1,
      lines.findIndex((l, i) => i > lead && !l.startsWith("  ")),
    );
    assert.match(
      body[0],
      /^ {2}Calico: \d+ new, \d+ removed, \d+ updated \(2 removed from the stack only, kept\)$/,
    );
    assert.ok(body.includes("    calico-daemonset-calico-node rolls its pods"));
    assert.ok(
      body.some((l) => /^ {2}the enforcement probe runs again \(4 replaced, 3 may be replaced\)/.test(l)),
    );
    assert.deepEqual(
      lines.filter((l) => l.includes("calico-probe")),
      [],
      "the probe's resources are listed only with --verbose",
    );
    assert.ok(lines.includes("+- the enforcement probe: 7 resources run again (--verbose lists them)"));
    assert.ok(lines.includes("    inputs.spec: 62 paths change in place (--verbose lists them)"));
    assert.deepEqual(
      lines.filter((l) => l.startsWith("= ") && !l.includes("[known only in up")),
      ["= 1 with only ignored changes or options: no step (--verbose lists them)"],
      "no-step resources are one counted line",
    );
  });

  it("lists every resource and path with --verbose", async () => {
    const diff = await lineChange();
    const verbose = renderDiff(diff, "dev.json", { verbose: true });
    assert.match(verbose, /\n\+- kubernetes:batch\/v1:Job calico-probe-allowed-client\n/);
    assert.doesNotMatch(verbose, /paths change in place/);
    assert.ok(verbose.split("\n").length > renderDiff(diff, "dev.json").split("\n").length * 2);
  });

  it("a node group version change says what happens to its nodes, under the cluster", async () => {
    const before = resourcesDocument(await evaluated("dev"));
    const after = resourcesDocument(
      await evaluatedWith("dev", { config: { "eks-calico:cluster.version": "1.36" } }),
    );
    const lines = renderDiff(diffDocuments(before, after), "dev.json").split("\n");
    const at = lines.findIndex((l) => l.startsWith("  cluster: "));
    assert.ok(at > 0, lines.slice(0, 20).join("\n"));
    assert.match(
      lines.slice(at).find((l) => l.startsWith("    cluster-general: ")) ?? "",
      /^ {4}cluster-general: rolling update \(UpdateNodegroupVersion\): EKS replaces all 2 nodes .*, within `pulumi up`'s 60 min wait$/,
    );
  });
});
