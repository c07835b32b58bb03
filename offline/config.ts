/**
 * Stack configuration as the Pulumi CLI would hand it to the program: Pulumi.yaml's project settings
 * and config defaults, overlaid by Pulumi.<stack>.yaml, each value a string (structured values as JSON).
 */
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";

export const PROJECT_ROOT = path.resolve(__dirname, "..");

export interface StackConfigFile {
  readonly project: string;
  readonly stack: string;
  /** Fully qualified key (`eks-calico:network`) to the string the CLI passes. */
  readonly values: Record<string, string>;
  /** Keys whose values are secret. */
  readonly secretKeys: string[];
}

/** Overrides for a stack's config: a fully qualified key to a value, or undefined to remove the key. */
export type ConfigOverrides = Record<string, unknown>;

function readYaml(file: string): Record<string, unknown> {
  if (!fs.existsSync(file)) throw new Error(`${path.relative(PROJECT_ROOT, file)} does not exist`);
  const parsed: unknown = YAML.parse(fs.readFileSync(file, "utf8"));
  return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
}

/** The project name from Pulumi.yaml. */
export function projectName(root = PROJECT_ROOT): string {
  const name = readYaml(path.join(root, "Pulumi.yaml")).name;
  if (typeof name !== "string") throw new Error("Pulumi.yaml has no project name");
  return name;
}

/** Stacks with a Pulumi.<stack>.yaml file, sorted. */
export function listStacks(root = PROJECT_ROOT): string[] {
  return fs
    .readdirSync(root)
    .map((file) => /^Pulumi\.(.+)\.yaml$/.exec(file)?.[1])
    .filter((stack): stack is string => stack !== undefined)
    .sort();
}

/** Loads a stack's configuration the way the Pulumi CLI resolves it, plus optional overrides. */
export function loadStackConfig(
  stack: string,
  overrides: ConfigOverrides = {},
  root = PROJECT_ROOT,
): StackConfigFile {
  const project = projectName(root);
  const values: Record<string, string> = {};
  const secretKeys = new Set<string>();
  const qualify = (key: string) => (key.includes(":") ? key : `${project}:${key}`);
  const set = (key: string, value: unknown) => {
    const full = qualify(key);
    if (value !== null && typeof value === "object" && "secure" in value) {
      // Ciphertext cannot be decrypted offline; the program sees a marked stand-in.
      values[full] = "[secret]";
      secretKeys.add(full);
    } else {
      values[full] = typeof value === "string" ? value : JSON.stringify(value);
      secretKeys.delete(full);
    }
  };

  const projectConfig = readYaml(path.join(root, "Pulumi.yaml")).config;
  if (projectConfig !== null && typeof projectConfig === "object") {
    for (const [key, spec] of Object.entries(projectConfig as Record<string, unknown>)) {
      const fallback = spec !== null && typeof spec === "object" && "default" in spec ? spec.default : spec;
      if (fallback !== undefined) set(key, fallback);
    }
  }
  const stackConfig = readYaml(path.join(root, `Pulumi.${stack}.yaml`)).config;
  if (stackConfig !== null && typeof stackConfig === "object") {
    for (const [key, value] of Object.entries(stackConfig as Record<string, unknown>)) set(key, value);
  }
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete values[qualify(key)];
    else set(key, value);
  }
  return { project, stack, values, secretKeys: [...secretKeys].sort() };
}
