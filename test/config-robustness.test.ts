/**
 * Never a crash: any key of a stack's configuration set to null, or to a value of the wrong type, is a
 * configuration problem naming the key, never a TypeError. Tried at every key path of every stack file.
 */
import * as assert from "node:assert/strict";
import { evaluateStackExpectingError, loadStackConfig } from "../offline/engine";
import { ConfigError, validateConfig } from "../stacks";
import { STACKS } from "./helpers";

type Path = (string | number)[];

/** The stack's `eks-calico:*` keys, decoded as the program decodes them. */
function namespaceOf(stack: string): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(loadStackConfig(stack).values)) {
    if (key.startsWith("eks-calico:")) raw[key.slice("eks-calico:".length)] = JSON.parse(value);
  }
  return raw;
}

/** Every path to a value inside `value`, containers included. */
function paths(value: unknown, prefix: Path = []): Path[] {
  const children: Path[] = Array.isArray(value)
    ? value.flatMap((v, i) => paths(v, [...prefix, i]))
    : value !== null && typeof value === "object"
      ? Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))
      : [];
  return prefix.length === 0 ? children : [prefix, ...children];
}

function replaced(root: Record<string, unknown>, path: Path, value: unknown): Record<string, unknown> {
  const copy = structuredClone(root);
  let node: Record<string | number, unknown> = copy;
  for (const part of path.slice(0, -1)) node = node[part] as Record<string | number, unknown>;
  node[path[path.length - 1]] = value;
  return copy;
}

function formatted(path: Path): string {
  return path.reduce<string>(
    (acc, p) => (typeof p === "number" ? `${acc}[${p}]` : acc === "" ? p : `${acc}.${p}`),
    "",
  );
}

const WRONG = [null, 7, "text", true, [], {}, [null], { unexpected: 1 }];

describe("configuration robustness", () => {
  // The kubeconfig example too (its keys checked without reading its file), which has fewer keys.
  const files: [string, number][] = [
    ...STACKS.map((s): [string, number] => [s, 30]),
    ["kubeconfig.example", 10],
  ];
  for (const [stack, least] of files) {
    it(`refuses null at every key of Pulumi.${stack}.yaml with a problem at that key, and never throws on wrong types`, () => {
      const base = namespaceOf(stack);
      const all = paths(base);
      assert.ok(all.length > least, `${all.length} paths`);
      for (const path of all) {
        for (const bad of WRONG) {
          let result: ReturnType<typeof validateConfig>;
          try {
            result = validateConfig(replaced(base, path, bad));
          } catch (error) {
            assert.fail(`${formatted(path)} = ${JSON.stringify(bad)} threw ${String(error)}`);
          }
          // Every rule is in a stack file's words, never zod's generic "Invalid input: expected ...".
          const generic = result.ok ? [] : result.problems.filter((p) => p.rule.startsWith("Invalid input"));
          assert.deepEqual(generic, [], `${formatted(path)} = ${JSON.stringify(bad)}`);
          if (bad !== null) continue;
          assert.equal(result.ok, false, `${formatted(path)} = null was accepted`);
          const at = formatted(path);
          assert.ok(
            !result.ok &&
              result.problems.some(
                (p) =>
                  p.path === at ||
                  at.startsWith(`${p.path}.`) ||
                  at.startsWith(`${p.path}[`) ||
                  p.path.startsWith(at),
              ),
            `${at} = null: ${JSON.stringify(!result.ok && result.problems)}`,
          );
        }
      }
    });
  }

  for (const [key, value] of [
    ["eks-calico:network", null],
    ["eks-calico:nodeGroups", [null]],
    ["eks-calico:nodeGroups[0].taints", [null]],
    ["eks-calico:calico", null],
    ["eks-calico:cluster", "x"],
  ] as const) {
    it(`plans ${key} = ${JSON.stringify(value)} into a configuration error, not a crash`, async () => {
      const { error, resources } = await evaluateStackExpectingError("staging", { config: { [key]: value } });
      assert.ok(ConfigError.isConfigError(error), String(error));
      assert.ok(error.problems.length > 0);
      assert.deepEqual(
        resources.filter((r) => r.custom),
        [],
      );
    });
  }
});
