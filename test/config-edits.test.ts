/**
 * Config edits the way Pulumi users make them: `pulumi config set --path` keys, the same paths in
 * `npm start --config` (merged into the stack's values), messages that say which command was meant, YAML
 * errors with file and line, and every problem at once, the region's AZ count included.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  ConfigFileError,
  PROJECT_ROOT,
  evaluateStackExpectingError,
  loadStackConfig,
} from "../offline/engine";
import { parseConfigPath } from "../offline/config";
import { main } from "../scripts/start";
import { ConfigError, validateConfig } from "../stacks";
import { maskedProblem } from "../stacks/problems";

const GROUP = { name: "general", minSize: 1, desiredSize: 1, maxSize: 3 };

function problems(raw: Record<string, unknown>) {
  const result = validateConfig(raw);
  return result.ok ? [] : result.problems;
}

describe("config edits", () => {
  it("says which command was meant for a dotted key set without --path", () => {
    const [problem] = problems({ "cluster.version": "1.36", nodeGroups: [GROUP] });
    assert.equal(problem.path, "cluster.version");
    assert.match(problem.rule, /one config key named "cluster\.version", not a path into cluster/);
    assert.equal(
      problem.hint,
      "run `pulumi config rm 'eks-calico:cluster.version'`, then `pulumi config set --path 'eks-calico:cluster.version' \"1.36\"`",
    );
    const [indexed] = problems({ "nodeGroups[0].maxSize": 6, nodeGroups: [GROUP] });
    assert.equal(indexed.path, "nodeGroups[0].maxSize");
    assert.match(String(indexed.hint), /pulumi config set --path 'eks-calico:nodeGroups\[0\]\.maxSize' 6/);
  });

  it("says how to give a value the type the key needs", () => {
    const found = problems({ nodeGroups: [{ ...GROUP, maxSize: "6" }], tags: { team: 5 } });
    assert.deepEqual(
      found.map((p) => [p.path, p.hint]),
      [
        [
          "nodeGroups[0].maxSize",
          "set it as a number: `pulumi config set --path --type int 'eks-calico:nodeGroups[0].maxSize' 6`, or write it unquoted in the stack file",
        ],
        [
          "tags.team",
          "set it as a string: `pulumi config set --path --type string 'eks-calico:tags.team' 5`, or quote it in the stack file",
        ],
      ],
    );
  });

  it("reads paths as pulumi config set --path does", () => {
    assert.deepEqual(parseConfigPath("nodeGroups[0].maxSize"), ["nodeGroups", 0, "maxSize"]);
    assert.deepEqual(parseConfigPath('tags["kubernetes.io/owner"]'), ["tags", "kubernetes.io/owner"]);
    assert.deepEqual(parseConfigPath("cluster.version"), ["cluster", "version"]);
  });

  it("sets a path into the stack's value and merges an object into it, keeping the rest", () => {
    const dev = loadStackConfig("dev");
    const edited = loadStackConfig("dev", {
      "eks-calico:nodeGroups[0].maxSize": 6,
      "eks-calico:network": { cidr: "10.50.0.0/16" },
      "eks-calico:tags.team": "platform",
    });
    const decode = (values: Record<string, string>, key: string) =>
      JSON.parse(values[`eks-calico:${key}`]) as Record<string, unknown>;
    const groups = decode(edited.values, "nodeGroups") as unknown as Record<string, unknown>[];
    const before = decode(dev.values, "nodeGroups") as unknown as Record<string, unknown>[];
    assert.deepEqual(groups[0], { ...before[0], maxSize: 6 });
    assert.deepEqual(decode(edited.values, "network"), {
      ...decode(dev.values, "network"),
      cidr: "10.50.0.0/16",
    });
    assert.deepEqual(decode(edited.values, "tags"), { ...decode(dev.values, "tags"), team: "platform" });
  });

  it("names the file, line and column of a YAML error, and npm start exits 2 on it", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "eks-calico-yaml-"));
    fs.writeFileSync(path.join(root, "Pulumi.yaml"), "name: eks-calico\n");
    fs.writeFileSync(
      path.join(root, "Pulumi.bad.yaml"),
      "config:\n  eks-calico:network:\n    cidr: [10.0.0.0/16\n",
    );
    try {
      assert.throws(
        () => loadStackConfig("bad", {}, root),
        (error: unknown) =>
          error instanceof ConfigFileError &&
          /^Pulumi\.bad\.yaml:\d+:\d+: /.test(error.message.replace(/^.*(Pulumi\.bad)/, "$1")),
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
    const file = path.join(PROJECT_ROOT, "Pulumi.yaml-error-test.yaml");
    fs.writeFileSync(file, "config:\n  aws:region: us-west-2\n  eks-calico:tags: {a: 1\n");
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args.join(" "));
    try {
      assert.equal(await main(["--stack", "yaml-error-test", "--out", os.tmpdir()]), 2);
    } finally {
      console.error = original;
      fs.rmSync(file, { force: true });
    }
    assert.match(errors.join("\n"), /^error: Pulumi\.yaml-error-test\.yaml:\d+:\d+: /);
  });

  it("reports the region's AZ count together with every other problem", async () => {
    const { error } = await evaluateStackExpectingError("dev", {
      config: {
        "eks-calico:network.availabilityZones": 5,
        "eks-calico:nodeGroups[0].capacityType": "SOMETIMES",
      },
    });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(error.problems.map((p) => p.path).sort(), [
      "network.availabilityZones",
      "nodeGroups[0].capacityType",
    ]);
    assert.match(error.message, /must be at most 4: us-west-2 offers/);
  });
});

describe("secret config values", () => {
  it("never echoes a secret value in a problem, its hint included", () => {
    const problem = {
      path: "cluster.version",
      value: "1.99-secret",
      rule: "is wrong",
      hint: 'set "1.99-secret" again',
    };
    const masked = maskedProblem(problem);
    assert.deepEqual(masked, {
      path: "cluster.version",
      value: "[secret]",
      rule: "is wrong",
      hint: "set [secret] again",
    });
    const text = new ConfigError("dev", [masked]).message;
    assert.match(text, /cluster\.version: is wrong \(got a secret value\)/);
    assert.doesNotMatch(text, /1\.99-secret/);
  });

  it("reports a key set with --secret by path and rule, without its ciphertext", async () => {
    const { error } = await evaluateStackExpectingError("dev", {
      config: { "eks-calico:tags": { secure: "v1:c2VjcmV0LWNpcGhlcnRleHQ=" } },
    });
    assert.ok(ConfigError.isConfigError(error));
    assert.deepEqual(
      error.problems.map((p) => [p.path, p.value]),
      [["tags", "[secret]"]],
    );
    assert.doesNotMatch(error.message, /c2VjcmV0/);
    assert.match(error.message, /tags: .*\(got a secret value\)/);
  });
});
