/**
 * The keys of docs/config-reference.md, read from the config schema's JSON Schema (zod's `toJSONSchema`,
 * input side): each key a stack file sets gets a `#### \`key\`` heading, its default line, the values it
 * takes (choices, bounds, lengths) and its description, one bullet per line of it. Descriptions are the
 * schema's own (`.meta({ description })` next to each key, stacks/schema/); a key without one is an error.
 */
import { wrap } from "./markdown-wrap";

/** The parts of a JSON Schema (draft 2020-12) that zod writes for this schema and the page reads. */
export interface JsonSchema {
  type?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
}

export interface ConfigKey {
  /** As the page and the problems name it: `nodeGroups[].taints[].key`. */
  readonly path: string;
  readonly schema: JsonSchema;
  /** Required where its parent is set. */
  readonly required: boolean;
}

/**
 * Every key of `schema` a stack file sets, in the schema's order: an object's fields (the object itself is
 * none), a list of objects as a key of its own and its fields as `key[].field`, and a map of objects as a
 * key of its own and its fields as `key.<name>.field`.
 */
export function configKeys(schema: JsonSchema, prefix: string, required: boolean): ConfigKey[] {
  if (schema.type === "object" && schema.properties !== undefined) {
    return Object.entries(schema.properties).flatMap(([name, child]) =>
      configKeys(child, prefix === "" ? name : `${prefix}.${name}`, schema.required?.includes(name) ?? false),
    );
  }
  const key = { path: prefix, schema, required };
  const items = schema.items;
  if (schema.type === "array" && items?.type === "object") {
    return [key, ...configKeys(items, `${prefix}[]`, true)];
  }
  const values = schema.additionalProperties;
  if (schema.type === "object" && typeof values === "object" && values.properties !== undefined) {
    return [key, ...configKeys(values, `${prefix}.<name>`, true)];
  }
  return [key];
}

/** zod writes an unbounded integer's bounds as the safe-integer limits. */
const bounded = (n: number | undefined): n is number =>
  n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER;

const numeral = (n: number) => n.toLocaleString("en-US");

/** `a or b`, `One of a, b or c` (`oneOf` leads): a JSON Schema enum's values, strings as code. */
function choices(values: readonly unknown[], oneOf = "One of"): string {
  const shown = values.map((value) => (typeof value === "string" ? `\`${value}\`` : JSON.stringify(value)));
  const listed = `${shown.slice(0, -1).join(", ")} or ${shown[shown.length - 1]}`;
  return shown.length === 1 ? shown[0] : shown.length === 2 ? listed : `${oneOf} ${listed}`;
}

/** `from 1 to 6`, `at least 0`, `at most 40`, or undefined without a bound. */
function range(min: number | undefined, max: number | undefined): string | undefined {
  if (bounded(min) && bounded(max)) return `from ${numeral(min)} to ${numeral(max)}`;
  if (bounded(min)) return `at least ${numeral(min)}`;
  if (bounded(max)) return `at most ${numeral(max)}`;
  return undefined;
}

/** A string's length bounds: `1 to 63 characters`, `at most 47 characters`, `not empty`. */
function length(schema: JsonSchema | undefined): string | undefined {
  const { minLength: min, maxLength: max } = schema ?? {};
  if (bounded(max)) return `${min !== undefined && min > 0 ? `${min} to ` : "at most "}${max} characters`;
  return min === 1 ? "not empty" : undefined;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A list's length and its entries: `2 to 6 entries`, `at most 40 IPv4 CIDR blocks`, `at least 1 entry`. */
function listed(schema: JsonSchema): string | undefined {
  const cidrs = schema.items?.format === "cidrv4";
  const noun = (n: number | undefined) =>
    cidrs ? `IPv4 CIDR block${n === 1 ? "" : "s"}` : `entr${n === 1 ? "y" : "ies"}`;
  const { minItems: min, maxItems: max } = schema;
  const count =
    bounded(min) && bounded(max) && min > 0
      ? `${min} to ${max} ${noun(max)}`
      : bounded(max)
        ? `at most ${max} ${noun(max)}`
        : bounded(min) && min > 0
          ? `at least ${min} ${noun(min)}`
          : undefined;
  const each = schema.items?.enum !== undefined ? `, each ${choices(schema.items.enum, "one of")}` : "";
  if (count === undefined && !cidrs && each === "") return undefined;
  return `A list of ${count ?? noun(undefined)}${each}.`;
}

/**
 * The values a key takes, as the schema bounds them, or undefined where its type says all there is. The
 * choices of an enum whose description names each of them (as code) are not listed twice.
 */
export function takes(schema: JsonSchema): string | undefined {
  if (schema.enum !== undefined) {
    const named = schema.enum.every((value) => schema.description?.includes(`\`${String(value)}\``));
    return named ? undefined : `${choices(schema.enum)}.`;
  }
  switch (schema.type) {
    case "integer":
    case "number": {
      const within = range(schema.minimum, schema.maximum);
      const kind = schema.type === "integer" ? "A whole number" : "A number";
      return within === undefined ? undefined : `${kind}${within.startsWith("from") ? " " : ", "}${within}.`;
    }
    case "string": {
      if (schema.format === "cidrv4") return "An IPv4 CIDR block.";
      const bounds = length(schema);
      return bounds === undefined ? undefined : `${capitalized(bounds)}.`;
    }
    case "array":
      return listed(schema);
    case "object": {
      const values = typeof schema.additionalProperties === "object" ? schema.additionalProperties : {};
      const parts = [length(schema.propertyNames), length(values)];
      const words = [parts[0] && `keys of ${parts[0]}`, parts[1] && `values of ${parts[1]}`].filter(Boolean);
      return words.length === 0 ? undefined : `${capitalized(words.join(", "))}.`;
    }
    default:
      return undefined;
  }
}

/**
 * `Default: \`value\`` (as JSON), or whether the key is required without one. A map's default too wide for
 * a line is named by its keys: their fields' defaults are the keys documented under it.
 */
function defaultLine(key: ConfigKey, width: number): string {
  const value: unknown = key.schema.default;
  if (value === undefined) return key.required ? "Required, no default." : "Optional, no default.";
  const line = `Default: \`${JSON.stringify(value)}\``;
  if (line.length <= width || typeof value !== "object" || value === null || Array.isArray(value))
    return line;
  const names = Object.keys(value).map((name) => `\`${name}\``);
  return `Default: ${names.join(", ")}, each with the defaults of the keys below.`;
}

/**
 * A key's bullets: the values it takes, then each line of its description; a line that starts with `- `
 * nests under the one before it.
 */
function bullets(key: ConfigKey, width: number): string[] {
  const description = key.schema.description;
  if (description === undefined || description.trim() === "") {
    throw new Error(`${key.path} has no description: give it .meta({ description }) in stacks/schema/`);
  }
  const lines = [takes(key.schema), ...description.split("\n")].filter((line) => line !== undefined);
  return lines.flatMap((line) =>
    line.startsWith("- ") ? wrap(line.slice(2), width, "  - ", "    ") : wrap(line, width, "- ", "  "),
  );
}

/** The markdown of one key: its heading, default line and bullets. */
export function keyMarkdown(key: ConfigKey, width: number): string {
  return [`#### \`${key.path}\``, "", defaultLine(key, width), "", ...bullets(key, width)].join("\n");
}

/** The top-level keys of the schema, each a section of the page (`### network`). */
export function sections(schema: JsonSchema): string[] {
  return Object.keys(schema.properties ?? {});
}

/** The `## Keys` part of the page: a `###` section per top-level key, holding its keys. */
export function keysMarkdown(schema: JsonSchema, width: number): string {
  return Object.entries(schema.properties ?? {})
    .map(([name, child]) => {
      const keys = configKeys(child, name, schema.required?.includes(name) ?? false);
      return [`### ${name}`, ...keys.map((key) => keyMarkdown(key, width))].join("\n\n");
    })
    .join("\n\n");
}
