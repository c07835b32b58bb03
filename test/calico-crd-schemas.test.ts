/**
 * The typed `spec` schemas of the crd.projectcalico.org CRDs (components/calico/crd-schemas/): structural
 * on every line, typed for exactly the seven hand-written kinds, and tied to facts of Calico's Go types
 * (api/pkg/apis/projectcalico/v3 at v3.31.7 and v3.32.1). The fixtures under test/fixtures/crd-objects/
 * are what a real API server is shown; here they are held to the schemas' field names offline.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseAllDocuments } from "yaml";
import { CALICO_CRD_GROUP } from "../components/calico/crds";
import { SUPPORTED_CALICO_MINORS, supportedMinorOf, type CalicoMinor } from "../components/calico/defaults";
import {
  TYPED_SPEC_KINDS,
  objectValidationsFor,
  specSchemaFor,
  type JsonSchema,
} from "../components/calico/crd-schemas";
import { DURATION_PATTERN } from "../components/calico/crd-schemas/felix-common";
import { VERSIONS, ofKind, render } from "./calico-fixtures";

const OPEN = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
const SCALARS = new Set(["string", "integer", "number", "boolean"]);

/** Every way `schema` breaks Kubernetes' structural-schema rules or this repo's typed-spec rules. */
function structuralProblems(schema: JsonSchema, at: string): string[] {
  const problems: string[] = [];
  const problem = (text: string) => problems.push(`${at}: ${text}`);
  if (schema["x-kubernetes-int-or-string"] === true) {
    if (schema.type !== undefined) problem("int-or-string with a type");
  } else if (schema.type === undefined) {
    problem("no type");
  }
  if (schema["x-kubernetes-preserve-unknown-fields"] !== undefined) problem("open inside a typed spec");
  if (schema.properties !== undefined && schema.additionalProperties !== undefined) {
    problem("properties and additionalProperties together");
  }
  if (
    schema.type === "object" &&
    schema.properties === undefined &&
    schema.additionalProperties === undefined
  ) {
    problem("object with neither properties nor additionalProperties");
  }
  if (schema.type === "array" && schema.items === undefined) problem("array without items");
  if ((schema.type === undefined || SCALARS.has(schema.type)) && (schema.properties || schema.items)) {
    problem("scalar with properties or items");
  }
  for (const name of schema.required ?? []) {
    if (schema.properties?.[name] === undefined) problem(`required ${name} is not a property`);
  }
  for (const value of schema.enum ?? []) {
    const ok = schema.type === "string" ? typeof value === "string" : Number.isInteger(value);
    if (!ok) problem(`enum value ${JSON.stringify(value)} is not a ${schema.type}`);
  }
  if (schema["x-kubernetes-list-type"] === "set" && !SCALARS.has(schema.items?.type ?? "")) {
    problem("set of non-scalar items");
  }
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    problems.push(...structuralProblems(child, `${at}.${name}`));
  }
  if (schema.additionalProperties)
    problems.push(...structuralProblems(schema.additionalProperties, `${at}[*]`));
  if (schema.items) problems.push(...structuralProblems(schema.items, `${at}[]`));
  return problems;
}

/** The schema at a dotted path of property names (`[]` steps into array items). */
function at(schema: JsonSchema | undefined, dotted: string): JsonSchema {
  let node = schema;
  for (const step of dotted.split(".")) {
    node = step === "[]" ? node?.items : node?.properties?.[step];
  }
  assert.ok(node, `no schema at ${dotted}`);
  return node;
}

function spec(kind: string, minor: CalicoMinor): JsonSchema {
  const schema = specSchemaFor(kind, minor);
  assert.ok(schema, `${kind} has a typed spec on ${minor}`);
  return schema;
}

/** Paths in `value` that `schema` does not declare (what the API server refuses under Strict validation). */
function undeclaredFields(value: unknown, schema: JsonSchema, where: string): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, i) =>
      schema.items ? undeclaredFields(item, schema.items, `${where}[${i}]`) : [],
    );
  }
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const childSchema = schema.properties?.[key] ?? schema.additionalProperties;
    return childSchema ? undeclaredFields(child, childSchema, `${where}.${key}`) : [`${where}.${key}`];
  });
}

interface FixtureObject {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: unknown;
}

function fixture(file: string): FixtureObject[] {
  const text = fs.readFileSync(path.join(__dirname, "fixtures", "crd-objects", file), "utf8");
  return parseAllDocuments(text).map((doc) => doc.toJS() as FixtureObject);
}

const SEVEN = [
  "NetworkPolicy",
  "GlobalNetworkPolicy",
  "NetworkSet",
  "GlobalNetworkSet",
  "Tier",
  "HostEndpoint",
  "FelixConfiguration",
];

describe("calico CRD spec schemas", () => {
  it("types exactly the seven hand-written kinds", () => {
    assert.deepEqual([...TYPED_SPEC_KINDS].sort(), [...SEVEN].sort());
    for (const minor of SUPPORTED_CALICO_MINORS) {
      assert.equal(specSchemaFor("IPPool", minor), undefined);
      assert.equal(specSchemaFor("toString", minor), undefined);
    }
  });

  for (const minor of SUPPORTED_CALICO_MINORS) {
    it(`${minor}: every typed spec is structural and closed`, () => {
      for (const kind of SEVEN) assert.deepEqual(structuralProblems(spec(kind, minor), kind), []);
    });
  }

  for (const version of VERSIONS) {
    it(`${version}: the seven kinds' CRDs carry their typed spec, every other spec and status stays open`, () => {
      const minor = supportedMinorOf(version);
      for (const crd of ofKind(render({ version }), "CustomResourceDefinition")) {
        const { group, names } = crd.spec;
        const properties = crd.spec.versions[0].schema?.openAPIV3Schema?.properties;
        const typed = group === CALICO_CRD_GROUP && SEVEN.includes(names.kind);
        assert.deepEqual(properties?.spec, typed ? spec(names.kind, minor) : OPEN, crd.metadata.name);
        assert.deepEqual(properties?.status, OPEN, crd.metadata.name);
      }
    });
  }

  it("a rule's action is required and one of Allow, Deny, Log, Pass on both lines (type Action)", () => {
    for (const minor of SUPPORTED_CALICO_MINORS) {
      for (const kind of ["NetworkPolicy", "GlobalNetworkPolicy"]) {
        for (const direction of ["ingress", "egress"]) {
          const rule = at(spec(kind, minor), `${direction}.[]`);
          assert.deepEqual(rule.required, ["action"]);
          assert.deepEqual(at(rule, "action"), { type: "string", enum: ["Allow", "Deny", "Log", "Pass"] });
        }
      }
    }
  });

  it("ports and protocols are numorstring: int-or-string with no type", () => {
    for (const minor of SUPPORTED_CALICO_MINORS) {
      const rule = at(spec("NetworkPolicy", minor), "ingress.[]");
      for (const dotted of ["protocol", "notProtocol", "destination.ports.[]", "source.notPorts.[]"]) {
        assert.deepEqual(at(rule, dotted), { "x-kubernetes-int-or-string": true }, dotted);
      }
      assert.deepEqual(at(rule, "icmp.type"), { type: "integer", minimum: 0, maximum: 254 });
      assert.deepEqual(at(rule, "icmp.code"), { type: "integer", minimum: 0, maximum: 255 });
      assert.deepEqual(at(rule, "ipVersion"), { type: "integer", enum: [4, 6] });
    }
  });

  it("Tier: order is a number (*float64), defaultAction Pass or Deny (Deny when absent on 3.32)", () => {
    for (const minor of SUPPORTED_CALICO_MINORS) {
      assert.deepEqual(spec("Tier", minor), {
        type: "object",
        properties: {
          order: { type: "number" },
          defaultAction: {
            type: "string",
            enum: ["Pass", "Deny"],
            ...(minor === "3.32" ? { default: "Deny" } : {}),
          },
        },
      });
    }
  });

  it("NetworkSet and GlobalNetworkSet: nets is a list of strings, a set on 3.32 (+listType=set)", () => {
    for (const kind of ["NetworkSet", "GlobalNetworkSet"]) {
      assert.deepEqual(at(spec(kind, "3.31"), "nets"), { type: "array", items: { type: "string" } });
      assert.deepEqual(at(spec(kind, "3.32"), "nets"), {
        type: "array",
        items: { type: "string" },
        "x-kubernetes-list-type": "set",
      });
    }
  });

  it("HostEndpoint: a named port needs name, protocol and a port in 1-65535", () => {
    for (const minor of SUPPORTED_CALICO_MINORS) {
      const port = at(spec("HostEndpoint", minor), "ports.[]");
      assert.deepEqual(port.required, ["name", "protocol", "port"]);
      assert.deepEqual(at(port, "port"), { type: "integer", minimum: 1, maximum: 65535 });
    }
    assert.equal(at(spec("HostEndpoint", "3.32"), "interfaceName").maxLength, 15);
    assert.equal(at(spec("HostEndpoint", "3.31"), "interfaceName").maxLength, undefined);
  });

  it("FelixConfiguration: 170 fields on v3.31.7, 181 on v3.32.1, line-only fields on their line", () => {
    const fields = (minor: CalicoMinor) => Object.keys(spec("FelixConfiguration", minor).properties ?? {});
    assert.equal(fields("3.31").length, 170);
    assert.equal(fields("3.32").length, 181);
    const only = (a: CalicoMinor, b: CalicoMinor) =>
      fields(a)
        .filter((f) => !fields(b).includes(f))
        .sort();
    assert.deepEqual(only("3.31", "3.32"), [
      "bpfKubeProxyEndpointSlicesEnabled",
      "iptablesLockFilePath",
      "iptablesLockTimeout",
    ]);
    assert.deepEqual(only("3.32", "3.31"), [
      "bpfMaglevMaxEndpointsPerService",
      "bpfMaglevMaxServices",
      "ipv4ElevatedRoutePriority",
      "ipv4NormalRoutePriority",
      "ipv6ElevatedRoutePriority",
      "ipv6NormalRoutePriority",
      "istioAmbientMode",
      "istioDSCPMark",
      "liveMigrationRouteConvergenceTime",
      "nodeSelector",
      "prometheusMetricsCAFile",
      "prometheusMetricsCertFile",
      "prometheusMetricsClientAuth",
      "prometheusMetricsKeyFile",
    ]);
    assert.deepEqual(at(spec("FelixConfiguration", "3.31"), "bpfRedirectToPeer").enum, [
      "Enabled",
      "Disabled",
      "L2Only",
    ]);
    assert.deepEqual(at(spec("FelixConfiguration", "3.32"), "bpfRedirectToPeer").enum, [
      "Enabled",
      "Disabled",
    ]);
  });

  it("FelixConfiguration: durations are strings with felixconfig.go's pattern, as written there", () => {
    // The Go raw string `^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`: two backslashes, so "1.5s" does not match.
    assert.equal(DURATION_PATTERN, "^([0-9]+(\\\\.[0-9]+)?(ms|s|m|h))*$");
    for (const minor of SUPPORTED_CALICO_MINORS) {
      const felix = spec("FelixConfiguration", minor);
      assert.deepEqual(at(felix, "iptablesRefreshInterval"), { type: "string", pattern: DURATION_PATTERN });
      assert.deepEqual(at(felix, "dataplaneWatchdogTimeout"), { type: "string" });
      assert.deepEqual(at(felix, "healthTimeoutOverrides.[]").required, ["name", "timeout"]);
      assert.deepEqual(at(felix, "awsSrcDstCheck").enum, ["DoNothing", "Enable", "Disable"]);
      assert.deepEqual(at(felix, "natPortRange"), { "x-kubernetes-int-or-string": true });
      assert.deepEqual(at(felix, "failsafeInboundHostPorts.[]").required, ["port"]);
      assert.equal(at(felix, "iptablesMarkMask").maximum, 4294967295);
    }
    assert.equal(at(spec("FelixConfiguration", "3.31"), "iptablesBackend").enum, undefined);
    assert.deepEqual(at(spec("FelixConfiguration", "3.32"), "iptablesBackend").enum, [
      "Legacy",
      "NFT",
      "Auto",
    ]);
  });

  it("good.yaml: every typed kind, every field declared on both lines", () => {
    const objects = fixture("good.yaml");
    assert.deepEqual([...new Set(objects.map((o) => o.kind))].sort(), [...SEVEN].sort());
    for (const minor of SUPPORTED_CALICO_MINORS) {
      for (const o of objects) {
        assert.deepEqual(
          undeclaredFields(o.spec, spec(o.kind, minor), "spec"),
          [],
          `${o.kind} ${o.metadata.name}`,
        );
      }
    }
  });

  it("v3.32 states CEL rules (XValidation) on the policies, rules, ICMP, host endpoints, tiers and Felix settings; v3.31 none", () => {
    const rulesIn = (node: unknown): string[] => {
      if (typeof node !== "object" || node === null) return [];
      const own = ((node as JsonSchema)["x-kubernetes-validations"] ?? []).map((v) => v.message);
      return [...own, ...Object.values(node).flatMap(rulesIn)];
    };
    const count = (minor: CalicoMinor) =>
      SEVEN.map(
        (kind) => rulesIn(specSchemaFor(kind, minor)).length + objectValidationsFor(kind, minor).length,
      );
    assert.deepEqual(
      count("3.31"),
      SEVEN.map(() => 0),
    );
    const on32 = new Set(
      SEVEN.flatMap((kind) => [
        ...rulesIn(specSchemaFor(kind, "3.32")),
        ...objectValidationsFor(kind, "3.32").map((v) => v.message),
      ]),
    );
    for (const message of [
      "preDNAT and doNotTrack cannot both be true",
      "HTTP match is only valid on Allow rules",
      "ICMP code specified without an ICMP type",
      "node must be specified",
      "The 'default' tier must have default action 'Deny'",
      "routeTableRange and routeTableRanges cannot both be set",
      "nodeSelector must not be set on the 'default' or per-node ('node.*') FelixConfiguration",
    ]) {
      assert.ok(on32.has(message), message);
    }
  });

  it("bad.yaml: at least ten objects over the seven kinds, each naming its one mistake", () => {
    const objects = fixture("bad.yaml");
    const everywhere = objects.filter(
      (o) => o.metadata.annotations?.["eks-calico.test/refused-on-line"] === undefined,
    );
    assert.ok(everywhere.length >= 10, `${everywhere.length} objects refused on every line`);
    assert.deepEqual([...new Set(everywhere.map((o) => o.kind))].sort(), [...SEVEN].sort());
    for (const o of objects) {
      assert.match(o.metadata.annotations?.["eks-calico.test/refused-because"] ?? "", /\S/, o.metadata.name);
      const line = o.metadata.annotations?.["eks-calico.test/refused-on-line"];
      if (line !== undefined) assert.ok((SUPPORTED_CALICO_MINORS as readonly string[]).includes(line), line);
    }
    assert.equal(new Set(objects.map((o) => `${o.kind}/${o.metadata.name}`)).size, objects.length);
  });
});
