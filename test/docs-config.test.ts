/**
 * docs/config-reference.md's keys are what `npm run docs:config` writes from the config schema
 * (scripts/config-reference.ts), and the rules the writer follows: every key described in the schema, the
 * values it takes read from its JSON Schema, lines wrapped where markdown reads them as written.
 */
import * as assert from "node:assert/strict";
import { CONFIG_REFERENCE, renderConfigReference } from "../scripts/config-reference";
import { configKeys, keyMarkdown, takes } from "../scripts/config-keys";
import { wrap } from "../scripts/markdown-wrap";
import { readPage } from "./docs-pages";

describe("docs/config-reference.md", () => {
  it("has the keys npm run docs:config writes from the config schema", () => {
    const page = readPage(CONFIG_REFERENCE).split("\n");
    const written = renderConfigReference(page.join("\n")).split("\n");
    const line = page.findIndex((text, index) => text !== written[index]);
    const differs = line >= 0 || page.length !== written.length;
    const at = line >= 0 ? line : Math.min(page.length, written.length);
    assert.ok(
      !differs,
      `docs/config-reference.md is out of date: run npm run docs:config (line ${at + 1} is ${JSON.stringify(page[at])}, the schema writes ${JSON.stringify(written[at])})`,
    );
  });

  it("writes between the BEGIN KEYS and END KEYS comments, and refuses a page without them", () => {
    const page =
      "# Config reference\n\n<!-- BEGIN KEYS: here -->\n\nSTALE KEYS\n\n<!-- END KEYS -->\n\n## Scaling\n";
    const written = renderConfigReference(page);
    assert.ok(written.startsWith("# Config reference\n\n<!-- BEGIN KEYS: here -->\n\nThe keys by section: "));
    assert.ok(written.endsWith("\n\n<!-- END KEYS -->\n\n## Scaling\n") && !written.includes("STALE KEYS"));
    assert.equal(renderConfigReference(written), written);
    assert.throws(() => renderConfigReference("# Config reference\n"), /needs a line <!-- BEGIN KEYS/);
  });

  it("refuses a key without a description", () => {
    assert.throws(
      () => keyMarkdown({ path: "calico.nope", schema: { type: "boolean" }, required: false }, 105),
      /calico\.nope has no description: give it \.meta\(\{ description \}\) in stacks\/schema\//,
    );
  });

  it("writes a key's heading, default line and bullets, a line starting with - nested", () => {
    const schema = { type: "integer", minimum: 1, maximum: 13500, description: "Nodes:\n- the most" };
    assert.equal(
      keyMarkdown({ path: "cluster.existing.maxNodes", schema, required: true }, 105),
      "#### `cluster.existing.maxNodes`\n\nRequired, no default.\n\n- A whole number from 1 to 13,500.\n- Nodes:\n  - the most",
    );
    assert.match(
      keyMarkdown({ path: "a", schema: { default: ["x"], description: "d" }, required: true }, 105),
      /^#### `a`\n\nDefault: `\["x"\]`\n\n- d$/,
    );
    assert.match(keyMarkdown({ path: "a", schema: { description: "d" }, required: false }, 105), /Optional/);
  });

  it("documents a map of objects by its entries' fields, and names a default too wide for a line by its keys", () => {
    const field = { type: "integer", default: 2, description: "vCPUs" };
    const map = {
      type: "object",
      additionalProperties: { type: "object", properties: { minVcpus: field }, required: [] },
      default: { general: { minVcpus: 2 }, batch: { minVcpus: 8 } },
      description: "Pools",
    };
    const schema = { type: "object", properties: { nodePools: map } };
    assert.deepEqual(
      configKeys(schema, "karpenter", false).map((key) => key.path),
      ["karpenter.nodePools", "karpenter.nodePools.<name>.minVcpus"],
    );
    assert.match(keyMarkdown({ path: "p", schema: map, required: false }, 105), /Default: `\{"general"/);
    assert.match(
      keyMarkdown({ path: "p", schema: map, required: false }, 40),
      /\n\nDefault: `general`, `batch`, each with the defaults of the keys below\.\n\n/,
    );
  });

  it("states the values a key takes from its JSON Schema, unbounded integers as unbounded", () => {
    assert.equal(
      takes({ type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
      "A whole number, at least 0.",
    );
    assert.equal(takes({ type: "string", enum: ["on", "off"] }), "`on` or `off`.");
    assert.equal(takes({ type: "number", enum: [1, 3, 5] }), "One of 1, 3 or 5.");
    assert.equal(takes({ type: "string", enum: ["on", "off"], description: "`on` or `off`" }), undefined);
    assert.equal(
      takes({ type: "array", maxItems: 40, items: { format: "cidrv4" } }),
      "A list of at most 40 IPv4 CIDR blocks.",
    );
    assert.equal(takes({ type: "array", minItems: 1, items: {} }), "A list of at least 1 entry.");
    assert.equal(takes({ type: "string", maxLength: 47 }), "At most 47 characters.");
    assert.equal(
      takes({
        type: "object",
        propertyNames: { minLength: 1, maxLength: 128 },
        additionalProperties: { maxLength: 256 },
      }),
      "Keys of 1 to 128 characters, values of at most 256 characters.",
    );
    assert.equal(takes({ type: "boolean" }), undefined);
  });

  it("wraps at spaces outside code spans, and never starts a line with what opens a block", () => {
    assert.deepEqual(wrap("one `two three` four", 12, "- ", "  "), ["- one", "  `two three`", "  four"]);
    assert.deepEqual(wrap("aaaa - bbbb 1. cccc > dddd", 6), ["aaaa -", "bbbb 1.", "cccc >", "dddd"]);
    assert.deepEqual(wrap("averyveryverylongword x", 5), ["averyveryverylongword", "x"]);
  });
});
