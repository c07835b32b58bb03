/**
 * `npm test [-- STEP...]`: the offline checks, each a package.json script run in turn with its progress
 * (scripts/progress.ts): what runs, a heartbeat while a step is silent, how long each took. Stops at the
 * first step that fails, with its exit code. Names given after -- run only those steps, in this order.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type Step, runSteps, stdoutProgress } from "./progress";
import { runMain } from "./entry";

const ROOT = path.resolve(__dirname, "..");

/** The package.json scripts `npm test` runs, in order: the quick checks first. */
export const TEST_STEPS = ["typecheck", "lint", "format:check", "lint:workflows", "test:unit"] as const;

/** `names`, in TEST_STEPS order, as steps running their package.json scripts; throws for an unknown name. */
export function testSteps(
  scripts: Readonly<Record<string, string>>,
  names: readonly string[] = TEST_STEPS,
): Step[] {
  const unknown = names.filter((name) => !(TEST_STEPS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown step ${unknown.map((name) => `"${name}"`).join(", ")}: the steps are ${TEST_STEPS.join(", ")}`,
    );
  }
  return TEST_STEPS.filter((name) => names.includes(name)).map((name) => {
    const command = scripts[name];
    if (command === undefined) throw new Error(`package.json has no "${name}" script`);
    return { name, command };
  });
}

async function main(argv: string[]): Promise<number> {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  let steps: Step[];
  let progress;
  try {
    steps = testSteps(scripts, argv.length > 0 ? argv : TEST_STEPS);
    progress = stdoutProgress();
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    return 2;
  }
  return runSteps("npm test", steps, { cwd: ROOT, progress });
}

if (require.main === module) {
  runMain(main);
}
