/**
 * The config schema's numbers as the docs state them: every bound and choice of a key (its JSON schema,
 * from zod) in its rule in docs/config-reference.md, the limits that come from AWS and EKS, and the
 * Kubernetes versions docs/upgrades.md walks through. A change on one side without the other fails here.
 */
import * as assert from "node:assert/strict";
import { z } from "zod";
import { stackConfigSchema } from "../stacks/schema";
import { EKS_QUOTAS } from "../stacks/schema/node-groups";
import { LOG_RETENTION_DAYS, MAX_PUBLIC_ACCESS_CIDRS } from "../stacks/schema/cluster";
import { MAX_TAGS, RESERVED_TAG_COUNT } from "../stacks/schema/tags";
import { configRule, readProse, says } from "./docs-pages";

interface JsonSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  maxLength?: number;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

/** Every schema key with its JSON schema, as the config reference names them (lists as `[]`). */
function schemaEntries(schema: JsonSchema, prefix = ""): [string, JsonSchema][] {
  const entries: [string, JsonSchema][] = prefix === "" ? [] : [[prefix, schema]];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    entries.push(...schemaEntries(child, prefix === "" ? name : `${prefix}.${name}`));
  }
  if (schema.type === "array" && schema.items?.type === "object") {
    entries.push(...schemaEntries(schema.items, `${prefix}[]`).filter(([key]) => key !== `${prefix}[]`));
  }
  return entries;
}

describe("docs: the config schema's numbers", () => {
  it("every bound of the config schema (config-reference.md)", () => {
    const schema = z.toJSONSchema(stackConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
    let checked = 0;
    for (const [key, entry] of schemaEntries(schema)) {
      const cell = () => configRule(key);
      const finite = (n: number | undefined): n is number => n !== undefined && n < Number.MAX_SAFE_INTEGER;
      if (finite(entry.minimum) && finite(entry.maximum)) {
        says(cell(), `${entry.minimum} to ${entry.maximum}`, key);
        checked++;
      }
      if (entry.enum !== undefined && key !== "cluster.version") {
        for (const value of entry.enum) says(cell(), `\`${String(value)}\``, key);
        checked++;
      }
      if (entry.items?.enum !== undefined) {
        for (const value of entry.items.enum) says(cell(), `\`${String(value)}\``, key);
        checked++;
      }
    }
    assert.ok(checked >= 10, `only ${checked} bounds checked`);
    const versions = (schema.properties?.cluster?.properties?.version?.enum ?? []) as string[];
    says(
      configRule("cluster.version"),
      `${versions[0]} to ${versions[versions.length - 1]}`,
      "cluster.version",
    );
    says(
      configRule("cluster.publicAccessCidrs"),
      `at most ${MAX_PUBLIC_ACCESS_CIDRS}`,
      "cluster.publicAccessCidrs",
    );
    says(
      configRule("cluster.logRetentionDays"),
      `one of ${LOG_RETENTION_DAYS.join(", ")}.`,
      "logRetentionDays",
    );
    const { nodeGroupsPerCluster, nodesPerNodeGroup } = EKS_QUOTAS;
    says(
      configRule("nodeGroups"),
      `at most ${nodeGroupsPerCluster.limit} (the EKS quota "${nodeGroupsPerCluster.name}")`,
      "nodeGroups",
    );
    says(
      configRule("nodeGroups[].maxSize"),
      `1 to ${nodesPerNodeGroup.limit} (the EKS quota "${nodesPerNodeGroup.name}")`,
      "maxSize",
    );
    const nameLength = schema.properties?.nodeGroups?.items?.properties?.name?.maxLength;
    says(configRule("nodeGroups[].name"), `at most ${String(nameLength)} characters`, "nodeGroups[].name");
    says(configRule("tags"), `at most ${MAX_TAGS - RESERVED_TAG_COUNT} (AWS allows ${MAX_TAGS};`, "tags");
  });

  it("the Kubernetes versions the upgrade walks through (upgrades.md)", () => {
    const schema = z.toJSONSchema(stackConfigSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
    const version = schema.properties?.cluster?.properties?.version as JsonSchema & { default: string };
    const [major, minor] = version.default.split(".").map(Number);
    const next = `${major}.${minor + 1}`;
    assert.ok(version.enum?.includes(next), `${next} is not a supported Kubernetes version`);
    const text = readProse("docs/upgrades.md");
    says(text, `one minor up in \`Pulumi.<stack>.yaml\` (\`version: "${next}"\``, "upgrades.md");
    says(text, `--kubernetes-version ${version.default}\``, "upgrades.md");
  });
});
