/**
 * Switching a deployed manifest install to the operator, as the offline diff shows it: refused in place
 * (the operator cannot convert this program's calico-node), and with `calico.reinstall` two updates, the
 * first removing the manifest install with its CRDs retained, the second installing the operator.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { diffDocuments } from "../offline/diff";
import { renderDiff } from "../offline/diff-render";
import { resourcesDocument } from "../offline/plan";
import type { StackEvaluation } from "../offline/engine";
import { evaluated, evaluatedWith } from "./helpers";
import { runStart } from "./start-runner";

const CRD = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition";
const REINSTALL = { "eks-calico:calico": { installer: "operator", reinstall: true } };

/** Whether a resource (by its identity, the URN's type path and name) is the Calico component or in it. */
function isCalico(identity: string): boolean {
  return identity
    .split("::")[0]
    .split("$")
    .some((type) => type.startsWith("eks-calico:calico:"));
}

describe("switching the manifest install to the operator", () => {
  let manifest: StackEvaluation;
  let removal: StackEvaluation;
  let operator: StackEvaluation;
  before(async () => {
    manifest = await evaluated("dev");
    removal = await evaluatedWith("dev", { config: REINSTALL, previousOutputs: manifest.outputs });
    operator = await evaluatedWith("dev", { config: REINSTALL, previousOutputs: removal.outputs });
  });

  it("first removes only Calico, every CRD retained in the cluster, and nothing is created", () => {
    const diff = diffDocuments(resourcesDocument(manifest), resourcesDocument(removal));
    assert.deepEqual(diff.added, []);
    assert.ok(diff.removed.length > 0);
    assert.deepEqual(
      diff.removed.filter((r) => !isCalico(r.identity)).map((r) => r.heading),
      [],
      "only Calico goes",
    );
    const crds = diff.removed.filter((r) => r.heading.startsWith(`${CRD} `));
    assert.equal(crds.length, manifest.resources.filter((r) => r.type === CRD).length);
    assert.ok(crds.length > 0);
    assert.ok(crds.every((r) => r.retained === true));
    assert.ok(diff.removed.filter((r) => !r.heading.startsWith(`${CRD} `)).every((r) => r.retained !== true));
    const text = renderDiff(diff, "deployed");
    for (const crd of crds) {
      assert.ok(
        text.includes(`- ${crd.heading}  [retained: removed from the stack, kept in the cluster]`),
        crd.heading,
      );
    }
  });

  it("then installs the operator, deleting nothing", () => {
    const diff = diffDocuments(resourcesDocument(removal), resourcesDocument(operator));
    assert.deepEqual(diff.removed, []);
    const added = diff.added.map((r) => r.heading);
    assert.ok(added.includes("eks-calico:calico:Operator calico"));
    assert.ok(added.includes("kubernetes:operator.tigera.io/v1:Installation calico-installation-default"));
    assert.equal((operator.outputs.calico as { installer: string }).installer, "operator");
  });

  describe("through npm start --diff", () => {
    let tmp: string;
    before(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-switch-"));
    });
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it("refuses the switch in place with the operator's blockers, and plans the reinstall's first step", async () => {
      assert.equal((await runStart("--out", tmp)).code, 0);
      const baseline = path.join(tmp, "dev", "resources.json");
      const refused = await runStart(
        "--out",
        tmp,
        "--diff",
        baseline,
        "--config",
        'eks-calico:calico={"installer":"operator"}',
      );
      assert.equal(refused.code, 2);
      assert.match(refused.err, /calico\.installer/);
      assert.match(refused.err, /CALICO_MANAGE_CNI/);

      const first = await runStart(
        "--out",
        tmp,
        "--diff",
        baseline,
        "--config",
        'eks-calico:calico={"installer":"operator","reinstall":true}',
      );
      assert.equal(first.code, 0, first.err);
      assert.match(first.out, /: \+ 0 to create, ~ 0 to update, [^\n]*- \d+ to delete/);
      assert.match(first.out, /\[retained: removed from the stack, kept in the cluster\]/);
    });
  });
});
