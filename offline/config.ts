/**
 * Stack configuration as the Pulumi CLI would hand it to the program: Pulumi.yaml's project settings
 * and config defaults, overlaid by Pulumi.<stack>.yaml, each value a string (structured values as JSON).
 */
import * as fs from "fs";
import * as path from "path";
import YAML from "yaml";
import { decodeConfigValue } from "../stacks/config-values";

export const PROJECT_ROOT = path.resolve(__dirname, "..");

export interface StackConfigFile {
  readonly project: string;
  readonly stack: string;
  /** Fully qualified key (`eks-calico:network`) to the string the CLI passes. */
  readonly values: Record<string, string>;
  /** Keys whose values are secret. */
  readonly secretKeys: string[];
}

/**
 * Overrides for a stack's config: a key to a value, or undefined to remove the key. A key may be a path
 * into a structured value, as `pulumi config set --path` takes it (`eks-calico:nodeGroups[0].maxSize`);
 * an object value is merged into the stack's object (arrays and other values replace).
 */
export type ConfigOverrides = Record<string, unknown>;

/** A stack or project file that cannot be read as YAML: names the file, line and column. */
export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigFileError";
  }
}

function readYaml(file: string): Record<string, unknown> {
  const shown = path.relative(PROJECT_ROOT, file);
  if (!fs.existsSync(file)) throw new ConfigFileError(`${shown} does not exist`);
  let parsed: unknown;
  try {
    parsed = YAML.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    const where = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    const first = String((error as Error).message).split("\n")[0];
    throw new ConfigFileError(`${shown}${where ? `:${where.line}:${where.col}` : ""}: ${first}`);
  }
  return parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `nodeGroups[0].maxSize` to ["nodeGroups", 0, "maxSize"], as `pulumi config set --path` reads it. */
export function parseConfigPath(text: string): (string | number)[] {
  const parts: (string | number)[] = [];
  const pattern = /([^.[\]]+)|\[(\d+)\]|\["([^"]+)"\]/g;
  for (const match of text.matchAll(pattern)) {
    parts.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? match[3]));
  }
  return parts;
}

/** `target` with `value` set at `path`, creating objects and lists on the way. */
function setAt(target: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const container: Record<string | number, unknown> = (
    typeof head === "number"
      ? Array.isArray(target)
        ? [...(target as unknown[])]
        : []
      : isPlainObject(target)
        ? { ...target }
        : {}
  ) as Record<string | number, unknown>;
  container[head] = setAt(container[head], rest, value);
  return container;
}

/** Objects merged key by key; anything else replaced. */
function merged(base: unknown, value: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(value)) return value;
  const out: Record<string, unknown> = { ...base };
  for (const [key, v] of Object.entries(value)) out[key] = merged(base[key], v);
  return out;
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

/**
 * An example stack (Pulumi.<name>.example.yaml): a template for a stack of one's own in another mode
 * (an existing cluster, a kubeconfig), planned by its own tests, never deployed by the workflows.
 */
export function isExampleStack(stack: string): boolean {
  return stack.endsWith(".example");
}

/**
 * The stacks that are deployed, and planned and tested alike: every Pulumi.<stack>.yaml but the examples,
 * sorted. A new stack file is one of them without editing a list (.github/scripts/list-stacks.js is the
 * workflows' copy of this rule).
 */
export function deployableStacks(root = PROJECT_ROOT): string[] {
  return listStacks(root).filter((stack) => !isExampleStack(stack));
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
    const full = qualify(key);
    const [namespace, ...restParts] = full.split(":");
    const [top, ...path] = parseConfigPath(restParts.join(":"));
    const topKey = `${namespace}:${String(top)}`;
    if (path.length > 0) set(topKey, setAt(decodeConfigValue(values[topKey]), path, value));
    else if (value === undefined) delete values[topKey];
    else set(topKey, merged(decodeConfigValue(values[topKey]), value));
  }
  return { project, stack, values, secretKeys: [...secretKeys].sort() };
}
