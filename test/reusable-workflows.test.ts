/**
 * Every workflow that calls another of this repository's workflows keeps GitHub's rules for reusable
 * workflows (test/reusable-workflows.ts): permissions only ever lowered, inputs declared and given,
 * secrets passed. actionlint does not check the permissions rule; GitHub refuses the whole workflow.
 */
import * as assert from "node:assert/strict";
import { WORKFLOWS_DIR } from "../scripts/lint-workflows";
import {
  type WorkflowFile,
  allCallProblems,
  callProblems,
  localCallee,
  readWorkflows,
} from "./reusable-workflows";

const WORKFLOWS = readWorkflows(WORKFLOWS_DIR);

/** The workflows with one caller job changed by `mutate` (a deep copy: the others stay as read). */
function mutated(caller: string, mutate: (w: WorkflowFile["parsed"]) => void): WorkflowFile[] {
  return WORKFLOWS.map((w) => {
    if (w.name !== caller) return w;
    const parsed = structuredClone(w.parsed);
    mutate(parsed);
    return { ...w, parsed };
  });
}

/** Every caller job of a local reusable workflow: [caller file, job id, called file]. */
const CALLS = WORKFLOWS.flatMap((w) =>
  Object.entries(w.parsed.jobs).flatMap(([id, job]) => {
    const callee = localCallee(job.uses);
    return callee === undefined ? [] : [[w.name, id, callee] as const];
  }),
);

describe("workflows: calls to reusable workflows keep GitHub's rules", () => {
  it("finds every call and no problem", () => {
    const { calls, problems } = allCallProblems(WORKFLOWS);
    assert.equal(calls, CALLS.length);
    assert.ok(calls >= 4, `${calls} calls`);
    assert.deepEqual(problems, []);
  });

  it("refuses a caller that gives a called job less than it asks for, as GitHub does", () => {
    const [caller, callee] = ["caller.yml", "callee.yml"].map((name) => ({ name, text: "" }));
    const called: WorkflowFile = {
      ...callee,
      parsed: {
        on: { workflow_call: {} },
        permissions: { contents: "read" },
        jobs: { up: { permissions: { contents: "read", "id-token": "write" } } },
      },
    };
    const calling = (permissions: unknown, job?: unknown): WorkflowFile => ({
      ...caller,
      parsed: { permissions, jobs: { deploy: { uses: "./.github/workflows/callee.yml", permissions: job } } },
    });
    assert.deepEqual(callProblems(calling({ contents: "read" }), "deploy", called), [
      "caller.yml job deploy calling callee.yml: job up asks for 'id-token: write', but is only allowed 'id-token: none'",
    ]);
    assert.deepEqual(
      callProblems(
        calling({ contents: "read" }, { contents: "read", "id-token": "write" }),
        "deploy",
        called,
      ),
      [],
    );
    assert.deepEqual(callProblems(calling("write-all"), "deploy", called), []);
    assert.equal(callProblems(calling("read-all"), "deploy", called).length, 1);
    // Neither sets permissions: the restricted default has no id-token.
    assert.equal(callProblems(calling(undefined), "deploy", called).length, 1);
  });

  for (const [caller, id, callee] of CALLS) {
    it(`${caller} job ${id}: taking away what it gives ${callee} fails the rule`, () => {
      const called = WORKFLOWS.find((w) => w.name === callee);
      assert.ok(called);
      const failsWith = (mutate: (w: WorkflowFile["parsed"]) => void) =>
        allCallProblems(mutated(caller, mutate)).problems.length > 0;
      // Its permissions lowered to nothing: the called jobs that ask for any permission are refused.
      const asks = Object.values(called.parsed.jobs).some(
        (j) => j.permissions !== undefined && Object.keys(j.permissions as object).length > 0,
      );
      if (asks || called.parsed.permissions !== undefined) {
        assert.ok(
          failsWith((w) => {
            w.permissions = {};
            w.jobs[id].permissions = {};
          }),
          "no permissions",
        );
      }
      const inputs = Object.entries(called.parsed.on?.workflow_call?.inputs ?? {});
      for (const [name] of inputs.filter(([, i]) => i.required === true && i.default === undefined)) {
        assert.ok(
          failsWith((w) => delete w.jobs[id].with?.[name]),
          `without input ${name}`,
        );
      }
      assert.ok(
        failsWith((w) => {
          w.jobs[id].with = { ...w.jobs[id].with, "not-an-input": "x" };
        }),
        "an undeclared input",
      );
      if (/secrets\.(?!GITHUB_TOKEN)/.test(called.text)) {
        assert.ok(
          failsWith((w) => delete w.jobs[id].secrets),
          "no secrets passed",
        );
      }
    });
  }
});
