/** Two stacks of the project that derive one cluster name in one region are refused, naming both. */
import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PROJECT_ROOT, evaluateStackExpectingError, listStacks } from "../offline/engine";
import { ConfigError } from "../stacks";
import { type SiblingStack, clusterNameFor, nameCollisions, siblingStacks } from "../stacks/collisions";
import { unwrapped } from "./helpers";

describe("stacks that derive the same names", () => {
  const cases: { title: string; stack: string; region: string; siblings: SiblingStack[]; clash: string[] }[] =
    [
      {
        title: "a dot and a dash",
        stack: "qa-eu",
        region: "eu-west-1",
        siblings: [{ stack: "qa.eu", region: "eu-west-1" }],
        clash: ["qa.eu"],
      },
      {
        title: "names that differ only in case (one file on macOS and Windows)",
        stack: "prod",
        region: "us-east-1",
        siblings: [{ stack: "Prod", region: "us-east-1" }],
        clash: ["Prod"],
      },
      {
        title: "a sibling that names no region (it may deploy anywhere)",
        stack: "a.b",
        region: "us-east-1",
        siblings: [{ stack: "a-b", region: undefined }],
        clash: ["a-b"],
      },
      {
        title: "every clashing sibling, each once",
        stack: "x-y",
        region: "us-east-1",
        siblings: [
          { stack: "x.y", region: "us-east-1" },
          { stack: "X-Y", region: "us-east-1" },
          { stack: "x-y", region: "us-east-1" },
        ],
        clash: ["x.y", "X-Y"],
      },
      {
        title: "no clash across regions (cluster and log group names are per region)",
        stack: "qa-eu",
        region: "eu-west-1",
        siblings: [{ stack: "qa.eu", region: "us-east-1" }],
        clash: [],
      },
      {
        title: "no clash between different names",
        stack: "dev",
        region: "us-west-2",
        siblings: [
          { stack: "dev", region: "us-west-2" },
          { stack: "dev2", region: "us-west-2" },
          { stack: "staging", region: "us-west-2" },
        ],
        clash: [],
      },
    ];
  for (const row of cases) {
    it(`${row.clash.length > 0 ? "refuses" : "accepts"} ${row.title}`, () => {
      const problems = nameCollisions("eks-calico", row.stack, row.region, row.siblings);
      assert.equal(problems.length, row.clash.length);
      problems.forEach((problem, index) => {
        assert.equal(problem.path, "(stack name)");
        assert.equal(problem.value, row.stack);
        const name = clusterNameFor("eks-calico", row.stack);
        assert.ok(problem.rule.includes(`EKS cluster name "${name}"`), problem.rule);
        assert.ok(problem.rule.includes(`log group "/aws/eks/${name}/cluster"`), problem.rule);
        assert.ok(problem.rule.includes(`stack "${row.clash[index]}" (Pulumi.${row.clash[index]}.yaml)`));
      });
    });
  }

  it("reads each stack file's region and config, and skips what is not a stack file", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "stacks-"));
    try {
      fs.writeFileSync(path.join(root, "Pulumi.yaml"), "name: eks-calico\n");
      fs.writeFileSync(path.join(root, "Pulumi.a.yaml"), "config:\n  aws:region: eu-west-1\n");
      fs.writeFileSync(path.join(root, "Pulumi.b.yaml"), "config:\n  eks-calico:protect: true\n");
      fs.writeFileSync(path.join(root, "Pulumi.c.yaml"), "config: [unclosed\n");
      fs.writeFileSync(path.join(root, "notes.yaml"), "config: {}\n");
      assert.deepEqual(
        siblingStacks(root).sort((x, y) => x.stack.localeCompare(y.stack)),
        [
          { stack: "a", region: "eu-west-1", config: { "aws:region": "eu-west-1" } },
          { stack: "b", region: undefined, config: { "eks-calico:protect": true } },
          { stack: "c", region: undefined },
        ],
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("the repository's own stacks derive distinct names", () => {
    const names = listStacks().map((stack) => clusterNameFor("eks-calico", stack).toLowerCase());
    assert.equal(new Set(names).size, names.length);
  });

  it("the program refuses a stack whose twin file sits beside it, before any resource", async () => {
    const dev = fs.readFileSync(path.join(PROJECT_ROOT, "Pulumi.dev.yaml"), "utf8");
    const files = ["Pulumi.twin.check.yaml", "Pulumi.twin-check.yaml"].map((f) => path.join(PROJECT_ROOT, f));
    try {
      for (const file of files) fs.writeFileSync(file, dev);
      const { error, resources } = await evaluateStackExpectingError("twin-check");
      assert.ok(ConfigError.isConfigError(error), String(error));
      assert.deepEqual(
        error.problems.map((p) => p.path),
        ["(stack name)"],
      );
      assert.match(
        unwrapped(error.message),
        /and so does stack "twin\.check" \(Pulumi\.twin\.check\.yaml\) in us-west-2/,
      );
      assert.deepEqual(
        resources.filter((r) => r.type !== "pulumi:pulumi:Stack"),
        [],
      );
    } finally {
      for (const file of files) fs.rmSync(file, { force: true });
    }
  });
});
