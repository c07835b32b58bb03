/**
 * How a refusal reads (stacks/problems.ts formatProblems): a list with a line per problem, the reasons
 * behind it, its hint and numbered steps under it, no line wider than MESSAGE_WIDTH, and nothing lost in
 * the wrapping.
 */
import * as assert from "node:assert/strict";
import { evaluateStackExpectingError } from "../offline/engine";
import { ConfigError, type ConfigProblem, validateConfig } from "../stacks";
import { MESSAGE_WIDTH, formatProblems, hintFor, wrapLines } from "../stacks/problems";
import { unwrapped } from "./helpers";

/** The problems of a refused evaluation. */
async function refused(...args: Parameters<typeof evaluateStackExpectingError>): Promise<ConfigError> {
  const { error } = await evaluateStackExpectingError(...args);
  assert.ok(ConfigError.isConfigError(error), String(error));
  return error;
}

/** Each line of `text` is at most MESSAGE_WIDTH characters. */
function assertWidth(text: string): void {
  for (const line of text.split("\n")) {
    assert.ok(line.length <= MESSAGE_WIDTH, `${line.length} characters: ${line}`);
  }
}

describe("refusal text", () => {
  it("lists a refusal of several problems a line each, hints wrapped under them, no line over 100", async () => {
    // The hand-over refusal of an existing cluster whose agent runs (its hint has five steps, ~1,000
    // characters), and unknown and bad keys, whose hints list every key their place takes.
    const handOver = await refused("existing.example", {
      config: { "eks-calico:cluster": { existing: { name: "platform-prod", maxNodes: 20 } } },
      simulate: {
        existingCluster: { vpcCni: { managed: true, configurationValues: '{"enableNetworkPolicy":"true"}' } },
      },
    });
    const config = validateConfig({
      network: { cidr: "10.0.0.0/33" },
      nodeGroups: [{ name: "general", instanceType: ["m6i.large"], minSize: 1, desiredSize: 2, maxSize: 3 }],
      clusterr: {},
    });
    assert.ok(!config.ok);
    const problems: ConfigProblem[] = [...handOver.problems, ...config.problems];
    assert.ok(problems.length >= 4, `${problems.length} problems`);
    const remedy = (p: ConfigProblem) => [p.hint ?? hintFor(p.path), ...(p.steps ?? [])].join(" ");
    const longest = Math.max(...problems.map((p) => remedy(p).length));
    assert.ok(longest > 1000, `a remedy of ${longest} characters, wrapped`);

    const text = formatProblems("dev", problems);
    assertWidth(text);
    const lines = text.split("\n");
    assert.equal(lines[0], `Stack "dev" has invalid configuration (${problems.length} problems):`);
    // A line per problem, starting with `- ` and its key path, in order; a hint under each.
    assert.deepEqual(
      lines.filter((line) => line.startsWith("  - ")).map((line) => line.slice(4).split(": ")[0]),
      problems.map((p) => p.path),
    );
    assert.equal(lines.filter((line) => line.startsWith("      hint: ")).length, problems.length);
    // Joined again, each problem, hint and step is the one line it was before wrapping: nothing lost.
    const joined = unwrapped(text).split("\n").slice(1);
    let at = 0;
    for (const p of problems) {
      assert.ok(joined[at].startsWith(`  - ${p.path}: ${p.rule} (got `), joined[at]);
      assert.equal(joined[at + 1], `      hint: ${p.hint ?? hintFor(p.path)}`);
      const steps = (p.steps ?? []).map((step, i) => `        (${i + 1}) ${step}`);
      assert.deepEqual(joined.slice(at + 2, at + 2 + steps.length), steps);
      at += 2 + steps.length;
    }
    assert.equal(at, joined.length);
    assert.equal(handOver.problems[0].steps?.length, 5);
  });

  it("lists each reason of the install-mode refusal on its own line under it, then the hint", async () => {
    const error = await refused("dev", {
      config: { "eks-calico:calico": { installer: "operator" } },
      previousOutputs: { calico: { installer: "manifest", version: "v3.31.7", namespace: "kube-system" } },
    });
    assertWidth(error.message);
    const [problem] = error.problems;
    const reasons = problem.details ?? [];
    assert.ok(reasons.length >= 2, reasons.join("\n"));
    assert.deepEqual(unwrapped(error.message).split("\n"), [
      'Stack "dev" has invalid configuration (1 problem):',
      `  - calico.installer: ${problem.rule} (got "operator")`,
      ...reasons.map((reason) => `      - ${reason}`),
      `      hint: ${problem.hint}`,
    ]);
  });

  it("breaks at spaces, keeps a command in backticks on one line, and a URL whole", () => {
    const command = "`pulumi config set --path --type int 'eks-calico:nodeGroups[0].maxSize' 6`";
    const text = `set it as a number: ${command}, or write it unquoted in the stack file`;
    // Without the backticks the first line would take `pulumi config set --path --type` and break the rest.
    assert.deepEqual(wrapLines(text, "      hint: ", " ".repeat(12)), [
      "      hint: set it as a number:",
      `            ${command}, or write it`,
      "            unquoted in the stack file",
    ]);

    const url = "https://docs.aws.amazon.com/eks/latest/userguide/network-policy-disable.html";
    assert.deepEqual(wrapLines(`see ${url} first`, "- ", "  ", 40), ["- see", `  ${url}`, "  first"]);
    // A command longer than a line is broken at its spaces rather than overflow.
    const long = wrapLines(`run \`${"word ".repeat(20).trim()}\``, "- ", "  ", 40);
    assert.ok(
      long.every((line) => line.length <= 40),
      long.join("\n"),
    );
  });
});
