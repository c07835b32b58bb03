/**
 * The image reference grammar (stacks/schema/image-reference.ts) against the test tables of the module it
 * transcribes, github.com/distribution/reference v0.6.0: test/fixtures/distribution-reference.json holds them
 * as that module's tests write them, and each table is checked the way its Go test checks it.
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  ERRORS,
  ReferenceRegexp,
  anchoredDomainRegexp,
  anchoredIdentifierRegexp,
  anchoredNameRegexp,
  parse,
  parseNormalizedNamed,
  withName,
  type ReferenceError,
} from "../stacks/schema/image-reference";
import { MAX_PORT, hasIpv6LiteralHost } from "../stacks/schema/registry";
import { type ConfigProblem, validateConfig } from "../stacks";

interface Match {
  input: string;
  match: boolean;
  subs?: string[];
}
interface ParseCase {
  input: string;
  err?: ReferenceError | null;
  repository?: string;
  domain?: string;
  tag?: string;
  digest?: string;
}

const fixture = JSON.parse(
  readFileSync(join(__dirname, "fixtures", "distribution-reference.json"), "utf8"),
) as { source: { version: string }; tables: Record<string, Record<string, unknown[]>> };

function table<T>(test: string, name = "tests"): T[] {
  const rows = fixture.tables[test]?.[name];
  assert.ok(Array.isArray(rows) && rows.length > 0, `fixture has no table ${name} in ${test}`);
  return rows as T[];
}

/** regexp_test.go `checkRegexp`: the match, and on a match each expected submatch. */
function checkRegexp(re: RegExp, tc: Match): void {
  const matches = re.exec(tc.input);
  if (!tc.match) {
    assert.equal(matches, null, `unexpected match for ${JSON.stringify(tc.input)}`);
    return;
  }
  assert.notEqual(matches, null, `expected a match for ${JSON.stringify(tc.input)}`);
  (tc.subs ?? []).forEach((sub, i) => assert.equal(matches?.[i + 1] ?? "", sub, `submatch ${i + 1}`));
}

describe(`image reference grammar (distribution/reference ${fixture.source.version} test tables)`, () => {
  it("DomainRegexp, anchored (TestDomainRegexp)", () => {
    for (const tc of table<Match>("regexp_test.go TestDomainRegexp")) {
      assert.equal(anchoredDomainRegexp.test(tc.input), tc.match, JSON.stringify(tc.input));
    }
  });

  it("anchoredNameRegexp (TestFullNameRegexp)", () => {
    for (const tc of table<Match>("regexp_test.go TestFullNameRegexp")) checkRegexp(anchoredNameRegexp, tc);
  });

  it("ReferenceRegexp (TestReferenceRegexp)", () => {
    for (const tc of table<Match>("regexp_test.go TestReferenceRegexp")) checkRegexp(ReferenceRegexp, tc);
  });

  it("anchoredIdentifierRegexp (TestIdentifierRegexp)", () => {
    for (const tc of table<Match>("regexp_test.go TestIdentifierRegexp")) {
      assert.equal(anchoredIdentifierRegexp.test(tc.input), tc.match, JSON.stringify(tc.input));
    }
  });

  it("Parse: its error, or its name, domain, tag and digest (TestReferenceParse)", () => {
    for (const tc of table<ParseCase>("reference_test.go TestReferenceParse")) {
      const result = parse(tc.input);
      const label = JSON.stringify(tc.input);
      if (tc.err) {
        assert.ok(Object.hasOwn(ERRORS, tc.err), `unknown error ${tc.err}`);
        assert.deepEqual(result, { ok: false, error: tc.err }, label);
        continue;
      }
      assert.ok(result.ok, `${label}: ${result.ok ? "" : result.error}`);
      const { domain, path, tag, digest } = result.reference;
      assert.equal(domain === "" ? path : `${domain}/${path}`, tc.repository ?? "", `${label} repository`);
      assert.equal(domain, tc.domain ?? "", `${label} domain`);
      assert.equal(tag, tc.tag ?? "", `${label} tag`);
      assert.equal(digest, tc.digest ?? "", `${label} digest`);
    }
  });

  it("WithName (TestWithNameFailure)", () => {
    for (const tc of table<ParseCase>("reference_test.go TestWithNameFailure")) {
      assert.equal(withName(tc.input), tc.err, JSON.stringify(tc.input));
    }
  });

  for (const [test, valid, invalid] of [
    ["normalize_test.go TestValidateReferenceName", "validRepoNames", "invalidRepoNames"],
    ["normalize_test.go TestValidateRemoteName", "validRepositoryNames", "invalidRepositoryNames"],
  ] as const) {
    it(`ParseNormalizedNamed (${test.split(" ")[1]})`, () => {
      for (const name of table<string>(test, valid)) {
        const result = parseNormalizedNamed(name);
        assert.ok(result.ok, `${name}: ${result.ok ? "" : result.error}`);
      }
      for (const name of table<string>(test, invalid)) {
        assert.equal(parseNormalizedNamed(name).ok, false, `${name} should be refused`);
      }
    });
  }
});

describe("registry keys judged by the image reference grammar", () => {
  const GROUP = { name: "general", instanceTypes: ["t3.large"], minSize: 1, desiredSize: 2, maxSize: 3 };
  const rows = (
    fixture as unknown as {
      registryPrefixes: { rows: { prefix: string; error?: string; domain?: string }[] };
    }
  ).registryPrefixes.rows;

  function registryProblem(key: string, value: string): ConfigProblem | undefined {
    const result = validateConfig({ calico: { [key]: value }, nodeGroups: [GROUP] });
    return result.ok ? undefined : result.problems.find((p) => p.path === `calico.${key}`);
  }

  it("refuses a prefix exactly when the kubelet's parser refuses <prefix>/node, its port is above 65535, or its host is an IPv6 address the IPv4 cluster's nodes cannot reach", () => {
    assert.ok(rows.length > 100);
    for (const row of rows) {
      const port = /:([0-9]+)$/.exec(row.domain ?? "")?.[1];
      const refused =
        row.error !== undefined ||
        (port !== undefined && Number(port) > MAX_PORT) ||
        hasIpv6LiteralHost(row.prefix);
      const problem = registryProblem("registry", row.prefix);
      assert.equal(
        problem !== undefined,
        refused,
        `${JSON.stringify(row.prefix)}: ${row.error ?? "accepted"}`,
      );
    }
  });

  const refusals: { key: string; value: string; rule: RegExp }[] = [
    // From the upstream tables: TestDomainRegexp's "-ab.com" and TestValidateReferenceName's "docker/Docker".
    { key: "registry", value: "-ab.com", rule: /its host is not a host name.*domain-component/ },
    { key: "autoscalerRegistry", value: "docker/Docker", rule: /its path component 2 has uppercase letters/ },
    { key: "startupTaintRegistry", value: "-ab.com", rule: /its host is not a host name.*domain-component/ },
    // TestValidateRemoteName's "docker///docker", TestReferenceParse's "aa/asdf$$^/aa".
    { key: "operatorRegistry", value: "docker///docker", rule: /empty component/ },
    {
      key: "probe.registry",
      value: "aa/asdf$$^/aa",
      rule: /its path component 2 is not lowercase .*path-component/,
    },
    // TestDomainRegexp's "[fd00:1:2::3]:75050": the grammar takes the port, the dialer does not.
    { key: "registry", value: "[fd00:1:2::3]:75050", rule: /its port is above 65535/ },
    // TestReferenceParse's 256-character path, as a prefix: "domain" has no dot, so it is a Docker Hub path.
    {
      key: "registry",
      value: `domain/${"a".repeat(256)}`,
      rule: /repository path of 268 characters, and at most 255/,
    },
  ];
  for (const { key, value, rule } of refusals) {
    it(`refuses calico.${key} ${JSON.stringify(value.slice(0, 30))} with its rule`, () => {
      const [parent, child] = key.split(".");
      const raw = child === undefined ? { [parent]: value } : { [parent]: { [child]: value } };
      const result = validateConfig({ calico: raw, nodeGroups: [GROUP] });
      assert.equal(result.ok, false);
      const problem = result.ok ? undefined : result.problems.find((p) => p.path === `calico.${key}`);
      assert.ok(problem, `no problem at calico.${key}`);
      assert.equal(problem.value, value);
      assert.match(problem.rule, rule);
      assert.match(problem.rule, /distribution\/reference v0\.6\.0/);
    });
  }
});
