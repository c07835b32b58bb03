/**
 * New code of a dynamic provider (`__provider`): a step whose diff compares only named inputs takes no
 * step for it, as the real dynamic provider host hands the diff to the provider; a checking step, whose
 * diff compares every input, updates.
 */
import * as assert from "node:assert/strict";
import type * as pulumi from "@pulumi/pulumi";
import { LINE_CHECK_TYPE, lineCheckProvider } from "../components/calico/line-check";
import { TAKEOVER_TYPE, takeoverProvider } from "../components/calico/takeover";
import { TYPHA_RETIREMENT_TYPE, retirementProvider } from "../components/calico/takeover/typha-retirement";
import { effectOf } from "../offline/diff-effects";
import type { ResourceEntry } from "../offline/plan";

const providers = { before: new Map(), after: new Map() };
const change = { path: "inputs.__provider", before: "<code a>", after: "<code b>" };

function entry(type: string): ResourceEntry {
  return {
    type,
    inputs: { __provider: "<code b>" },
    options: { ignoreChanges: [], replaceOnChanges: [] },
  } as unknown as ResourceEntry;
}

/** A dynamic provider's diff, as the host calls it, of inputs that differ only in `__provider`. */
const onlyProviderChanged = (provider: pulumi.dynamic.ResourceProvider, inputs: object) =>
  provider.diff!("id", { ...inputs, __provider: "a" }, { ...inputs, __provider: "b" });

describe("a dynamic provider's new code", () => {
  const inputs = { kubeconfig: "k", line: "3.31", kinds: [] };

  it("takes no step for the takeover and the line check, whose diffs ignore it", async () => {
    for (const type of [TAKEOVER_TYPE, LINE_CHECK_TYPE]) {
      assert.equal(effectOf(entry(type), change, providers).effect, "ignored", type);
    }
    // The providers' own diffs, as the host calls them: only __provider differs.
    const line = await onlyProviderChanged(lineCheckProvider, inputs);
    assert.equal(line.changes, false);
    const takeover = {
      kubeconfig: "k",
      fieldManager: "m",
      adopt: false,
      objects: [],
      openSchemas: [],
      calicoLine: "3.31",
    };
    const taken = await onlyProviderChanged(takeoverProvider, takeover);
    assert.equal(taken.changes, false);
  });

  it("takes no step for the line check's installer, which a step made before it was an input lacks", async () => {
    const added = { path: "inputs.installer", before: undefined, after: "manifest" };
    assert.equal(effectOf(entry(LINE_CHECK_TYPE), added, providers).effect, "ignored");
    const olds = { kubeconfig: "k", line: "3.31", kinds: [] };
    const diff = await lineCheckProvider.diff!("id", olds, { ...olds, installer: "manifest" });
    assert.equal(diff.changes, false);
  });

  it("updates a checking step, whose diff compares every input", async () => {
    assert.equal(effectOf(entry(TYPHA_RETIREMENT_TYPE), change, providers).effect, "update");
    const olds = { kubeconfig: "k", namespace: "kube-system", __provider: "a" };
    const diff = await retirementProvider.diff!("id", olds, { ...olds, __provider: "b" });
    assert.equal(diff.changes, true);
  });
});
