import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { z } from "zod";
import { stackConfigSchema } from "../stacks/schema";
import { PROJECT_ROOT } from "../offline/engine";
import { configReference } from "./docs-pages";

interface JsonSchema {
  type?: string;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

/** Every documented key of the schema: objects expand into their fields, lists of objects into `[]`. */
function schemaKeys(schema: JsonSchema, prefix = "", required = true): Map<string, string> {
  const keys = new Map<string, string>();
  const describe = (s: JsonSchema, isRequired: boolean) =>
    s.default !== undefined ? JSON.stringify(s.default) : isRequired ? "required" : "optional";
  if (schema.type === "object" && schema.properties !== undefined) {
    for (const [name, child] of Object.entries(schema.properties)) {
      const childPath = prefix === "" ? name : `${prefix}.${name}`;
      const childRequired = schema.required?.includes(name) ?? false;
      const nested = schemaKeys(child, childPath, childRequired);
      if (nested.size === 0) keys.set(childPath, describe(child, childRequired));
      nested.forEach((value, key) => keys.set(key, value));
    }
  } else if (schema.type === "array" && schema.items?.type === "object") {
    keys.set(prefix, describe(schema, required));
    schemaKeys(schema.items, `${prefix}[]`, true).forEach((value, key) => keys.set(key, value));
  }
  return keys;
}

/** The config reference (docs/config-reference.md): key -> its default line. */
function referenceKeys(): Map<string, string> {
  return new Map([...configReference()].map(([key, entry]) => [key, entry.default]));
}

describe("README and the config reference", () => {
  const schema = z.toJSONSchema(stackConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;

  it("documents exactly the keys the config schema accepts", () => {
    assert.deepEqual([...referenceKeys().keys()].sort(), [...schemaKeys(schema).keys()].sort());
  });

  it("states each default exactly as the schema defines it", () => {
    const documented = referenceKeys();
    for (const [key, expected] of schemaKeys(schema)) {
      const actual = documented.get(key);
      const normalized =
        actual === "required" || actual === "optional"
          ? actual
          : JSON.stringify(JSON.parse(actual ?? "null"));
      assert.equal(normalized, expected, `documented default of ${key}`);
    }
  });

  it("gives the two quick-start commands and the real deployment path", () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, "README.md"), "utf8");
    for (const command of [
      "npm ci && npm start",
      "npm ci && npm test",
      "npm run test:cluster",
      "pulumi login",
      "pulumi stack select dev",
      "pulumi up",
    ]) {
      assert.ok(readme.includes(command), `README lacks \`${command}\``);
    }
    assert.match(readme, /```mermaid\n/);
  });
});
