/**
 * Stacks of this project that would derive the same physical names. The EKS cluster and its
 * control-plane log group are the two resources named outright (everything else is auto-named with a
 * random suffix), and both come from the cluster name `<project>-<stack>`, dots turned into dashes. Two
 * stacks deriving one name in one region would take over each other's cluster: the second `pulumi up`
 * fails with ResourceInUseException, or a destroy of one removes the other's logs.
 */
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";
import * as pulumi from "@pulumi/pulumi";
import type { ConfigProblem } from "./problems";

/** A stack file beside this one: its name, the region it deploys to when it says, and its config. */
/** The name of the stack's Network component (index.ts): its route tables' names start with it. */
export const NETWORK_NAME = "network";

export interface SiblingStack {
  readonly stack: string;
  readonly region: string | undefined;
  /** The file's `config` map as written (keys with their namespace); absent when unreadable. */
  readonly config?: Readonly<Record<string, unknown>>;
}

/** The EKS cluster name a stack derives. */
export function clusterNameFor(project: string, stack: string): string {
  return `${project}-${stack}`.replace(/\./g, "-");
}

/** The stacks with a Pulumi.<stack>.yaml in `root`, each with its `aws:region`. Unreadable files are skipped. */
export function siblingStacks(root: string): SiblingStack[] {
  let files: string[];
  try {
    files = fs.readdirSync(root);
  } catch {
    return [];
  }
  return files.flatMap((file): SiblingStack[] => {
    const stack = /^Pulumi\.(.+)\.yaml$/.exec(file)?.[1];
    if (stack === undefined) return [];
    let config: Record<string, unknown> | undefined;
    try {
      const parsed = YAML.parse(fs.readFileSync(path.join(root, file), "utf8")) as unknown;
      config = (parsed as { config?: Record<string, unknown> } | null)?.config ?? {};
    } catch {
      return [{ stack, region: undefined }];
    }
    const region = config["aws:region"];
    return [{ stack, region: typeof region === "string" ? region : undefined, config }];
  });
}

/**
 * The stacks that derive this stack's names in its region. Compared without case: on macOS and Windows,
 * Pulumi.QA.yaml and Pulumi.qa.yaml are one file. A sibling that names no region may deploy anywhere, so
 * it counts as the same region.
 */
export function nameCollisions(
  project: string,
  stack: string,
  region: string,
  siblings: readonly SiblingStack[],
): ConfigProblem[] {
  const name = clusterNameFor(project, stack);
  const clashing = siblings.filter(
    (other) =>
      other.stack !== stack &&
      clusterNameFor(project, other.stack).toLowerCase() === name.toLowerCase() &&
      (other.region === undefined || other.region === region),
  );
  return clashing.map((other) => ({
    path: "(stack name)",
    value: stack,
    rule:
      `derives the EKS cluster name "${name}" and log group "/aws/eks/${name}/cluster", and so does stack "${other.stack}" ` +
      `(Pulumi.${other.stack}.yaml) in ${other.region ?? "an unstated region"}: in one account the second stack would take over the first one's cluster`,
    hint: `rename one of the stacks (\`pulumi stack rename\`, then rename its Pulumi.<stack>.yaml) so that their names differ in more than dots, dashes or case`,
  }));
}

/**
 * The directory of Pulumi.yaml, beside every stack's file: the CLI's root directory, or the working
 * directory the program runs in (the mock runtime reports a placeholder root).
 */
export function projectDirectory(): string {
  const root = pulumi.runtime.getRootDirectory();
  return root !== "" && fs.existsSync(path.join(root, "Pulumi.yaml")) ? root : process.cwd();
}
