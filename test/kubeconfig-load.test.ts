/**
 * Loading a kubeconfig as clientcmd.Load does (components/kubeconfig-cluster/load.ts), each rule tested
 * from its definition in k8s.io/client-go@v0.35.4 rather than from sample files: every field of
 * tools/clientcmd/api/v1/types.go with each JSON type it does not take; base64.StdEncoding's grammar; the
 * duplicate names of each list conversion.go converts; the version and kind the codec knows; YAML 1.1
 * scalars as go-yaml v2 resolves them. test/cluster/kubeconfig-corpus.test.ts holds the same rules to
 * kubectl itself.
 */
import * as assert from "node:assert/strict";
import * as crypto from "node:crypto";
import YAML from "yaml";
import { filePath, loadKubeconfig } from "../components/kubeconfig-cluster/load";
import { goBase64Decode } from "../components/kubeconfig-cluster/go-encodings";
import { withAbsoluteFileReferences } from "../components/kubeconfig-cluster/kubeconfig";

/** A kubeconfig every load rule accepts, with `edit` applied to its parsed form. */
function text(edit: (doc: Record<string, unknown>) => void = () => undefined): string {
  const doc: Record<string, unknown> = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "https://k.example.com" } }],
    users: [{ name: "u", user: { token: "t" } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  };
  edit(doc);
  return JSON.stringify(doc);
}

const rules = (t: string) => loadKubeconfig(t).problems.map((p) => `${p.rule} ${p.at}`);

/** Sets `value` at `at` (keys and list indexes), making the objects on the way. */
function setIn(doc: Record<string, unknown>, at: readonly (string | number)[], value: unknown): void {
  type Node = Record<string | number, unknown>;
  let node = doc as Node;
  at.slice(0, -1).forEach((key, i) => {
    node[key] ??= typeof at[i + 1] === "number" ? [] : {};
    node = node[key] as Node;
  });
  node[at[at.length - 1]] = value;
}

/** Every field of api/v1 Config with its Go type, as types.go declares it (tags are the JSON keys). */
type GoType = "string" | "bool" | "[]uint8" | "[]string" | "map[string]string" | "map[string][]string";
const FIELDS: [(string | number)[], GoType][] = [
  [["kind"], "string"],
  [["apiVersion"], "string"],
  [["current-context"], "string"],
  [["preferences", "colors"], "bool"],
  [["clusters", 0, "name"], "string"],
  ...(
    [
      ["server", "string"],
      ["tls-server-name", "string"],
      ["insecure-skip-tls-verify", "bool"],
      ["certificate-authority", "string"],
      ["certificate-authority-data", "[]uint8"],
      ["proxy-url", "string"],
      ["disable-compression", "bool"],
    ] as const
  ).map(([k, t]): [(string | number)[], GoType] => [["clusters", 0, "cluster", k], t]),
  [["users", 0, "name"], "string"],
  ...(
    [
      ["client-certificate", "string"],
      ["client-certificate-data", "[]uint8"],
      ["client-key", "string"],
      ["client-key-data", "[]uint8"],
      ["token", "string"],
      ["tokenFile", "string"],
      ["as", "string"],
      ["as-uid", "string"],
      ["as-groups", "[]string"],
      ["as-user-extra", "map[string][]string"],
      ["username", "string"],
      ["password", "string"],
    ] as const
  ).map(([k, t]): [(string | number)[], GoType] => [["users", 0, "user", k], t]),
  [["users", 0, "user", "auth-provider", "name"], "string"],
  [["users", 0, "user", "auth-provider", "config"], "map[string]string"],
  ...(
    [
      ["command", "string"],
      ["args", "[]string"],
      ["apiVersion", "string"],
      ["installHint", "string"],
      ["provideClusterInfo", "bool"],
      ["interactiveMode", "string"],
    ] as const
  ).map(([k, t]): [(string | number)[], GoType] => [["users", 0, "user", "exec", k], t]),
  [["users", 0, "user", "exec", "env", 0, "name"], "string"],
  [["users", 0, "user", "exec", "env", 0, "value"], "string"],
  [["contexts", 0, "name"], "string"],
  [["contexts", 0, "context", "cluster"], "string"],
  [["contexts", 0, "context", "user"], "string"],
  [["contexts", 0, "context", "namespace"], "string"],
];

/** A value of each JSON type, and the Go types encoding/json decodes it into. */
const SAMPLES: [unknown, (t: GoType) => boolean][] = [
  ["text", (t) => t === "string" || t === "[]uint8"],
  [7, () => false],
  [true, (t) => t === "bool"],
  [["a"], (t) => t === "[]string"],
  [{ k: "v" }, (t) => t === "map[string]string"],
  [{ k: ["v"] }, (t) => t === "map[string][]string"],
];

describe("kubeconfig loading, as clientcmd.Load", () => {
  it("takes each api/v1 field in its Go type only, and null anywhere", () => {
    for (const [at, goType] of FIELDS) {
      for (const [value, takes] of SAMPLES) {
        // A []uint8 field takes base64 text ("dGV4dA==" is "text"); kind and apiVersion, Config and v1.
        const strings: Record<string, string> = { "[]uint8": "dGV4dA==", kind: "Config", apiVersion: "v1" };
        const sample = value === "text" ? (strings[goType] ?? strings[String(at[0])] ?? value) : value;
        const problems = loadKubeconfig(text((doc) => setIn(doc, at, sample))).problems;
        const where = `${at.join(".")} = ${JSON.stringify(sample)}`;
        if (takes(goType)) {
          assert.deepEqual(problems, [], where);
          continue;
        }
        const field = filePath(at);
        assert.ok(problems.length > 0, where);
        for (const problem of problems) {
          assert.equal(problem.rule, "type", where);
          assert.ok(problem.at.startsWith(field), `${where}: at ${problem.at}`);
          // At the field itself, the Go type is the field's; deeper, an element's: map[string][]string
          // holds []string, whose elements, like those of []string and map[string]string, are strings.
          const types =
            problem.at === field
              ? [goType]
              : goType === "map[string][]string"
                ? ["[]string", "string"]
                : ["string"];
          const reason = problem.reason ?? "";
          assert.ok(
            types.some((t) => reason.endsWith(` of type ${t}`)),
            `${where}: ${reason}`,
          );
        }
      }
      assert.deepEqual(
        loadKubeconfig(text((doc) => setIn(doc, at, null))).problems,
        [],
        `${at.join(".")} = null`,
      );
    }
  });

  it("names the Go struct and JSON path of a field of the wrong type, as encoding/json does", () => {
    const problem = loadKubeconfig(text((doc) => setIn(doc, ["users", 0, "user", "token"], 12345)))
      .problems[0];
    assert.equal(problem.at, "users[0].user.token");
    assert.equal(
      problem.reason,
      "json: cannot unmarshal number into Go struct field AuthInfo.users.user.token of type string",
    );
    assert.equal(problem.value, undefined, "a token is never shown");
    assert.equal(problem.credential, true);
  });

  it("decodes -data fields with base64.StdEncoding: padding required, newlines skipped, nothing after the padding", () => {
    for (let length = 0; length <= 9; length++) {
      const bytes = crypto.randomBytes(length);
      const encoded = bytes.toString("base64");
      const accept = (s: string) =>
        assert.deepEqual(goBase64Decode(Buffer.from(s)), { bytes }, JSON.stringify(s));
      const refuse = (s: string, at: number) =>
        assert.deepEqual(
          goBase64Decode(Buffer.from(s)),
          { error: `illegal base64 data at input byte ${at}` },
          JSON.stringify(s),
        );
      accept(encoded);
      accept(encoded.replace(/(.{2})/g, "$1\r\n"));
      if (encoded.endsWith("=")) {
        // Without its padding, the last quantum is short: the error is at its start.
        const bare = encoded.replace(/=+$/, "");
        refuse(bare, bare.length - (bare.length % 4));
        refuse(`${encoded}A`, encoded.length);
      }
      if (length > 0) refuse(`${encoded.slice(0, 1)}!${encoded.slice(2)}`, 1);
    }
    const problems = loadKubeconfig(
      text((doc) => setIn(doc, ["users", 0, "user", "client-key-data"], "aGVsbG8")),
    ).problems;
    assert.deepEqual(
      problems.map((p) => [p.rule, p.at, p.reason, p.value]),
      [["base64", "users[0].user.client-key-data", "illegal base64 data at input byte 4", undefined]],
    );
  });

  it("refuses a name repeated in any list conversion.go turns into a map, and only a repeated one", () => {
    const lists: [(string | number)[], string][] = [
      [["clusters"], "cluster"],
      [["users"], "user"],
      [["contexts"], "context"],
      [["extensions"], "extension"],
      [["preferences", "extensions"], "extension"],
      [["clusters", 0, "cluster", "extensions"], "extension"],
      [["users", 0, "user", "extensions"], "extension"],
      [["contexts", 0, "context", "extensions"], "extension"],
    ];
    const base = JSON.parse(text()) as Record<string, { name: string }[] | undefined>;
    for (const [at, key] of lists) {
      const first = at.length === 1 ? base[at[0]]?.[0] : undefined;
      const named = (second: string) =>
        text((doc) => setIn(doc, at, [first ?? { name: "a", [key]: {} }, { name: second, [key]: {} }]));
      const name = first?.name ?? "a";
      assert.deepEqual(rules(named(`${name}2`)), [], at.join("."));
      assert.deepEqual(rules(named(name)), [`duplicate ${filePath([...at, 1, "name"])}`], at.join("."));
    }
  });

  it("knows Config in version v1 only, either defaulted when unset", () => {
    for (const apiVersion of [undefined, "", "v1", "v2", "v1beta1", "apps/v1"]) {
      for (const kind of [undefined, "", "Config", "config", "Pod"]) {
        const known = [undefined, "", "v1"].includes(apiVersion) && [undefined, "", "Config"].includes(kind);
        const t = text((doc) => Object.assign(doc, { apiVersion, kind }));
        assert.deepEqual(
          rules(t).map((r) => r.split(" ")[0]),
          known ? [] : ["version"],
          `${apiVersion}/${kind}`,
        );
      }
    }
  });

  it("reads YAML 1.1 scalars as go-yaml v2: y/yes/on... are booleans; timestamps and base-60 numbers stay strings", () => {
    const yaml = (field: string, scalar: string) =>
      `clusters: [{name: c, cluster: {server: "https://k.example.com", ${field}: ${scalar}}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`;
    for (const word of "y Y yes Yes YES on On ON true True TRUE n N no No NO off Off OFF false False FALSE".split(
      " ",
    )) {
      assert.deepEqual(
        rules(yaml("insecure-skip-tls-verify", word)),
        [],
        `insecure-skip-tls-verify: ${word}`,
      );
      assert.deepEqual(
        rules(yaml("tls-server-name", word)),
        ["type clusters[0].cluster.tls-server-name"],
        `tls-server-name: ${word}`,
      );
    }
    for (const scalar of ["2001-12-14", "12:30:45", "1:20.5", "k.example.com", "0x1p-2"]) {
      assert.deepEqual(rules(yaml("tls-server-name", scalar)), [], `tls-server-name: ${scalar}`);
    }
    // Go's strconv.ParseInt base 0 also reads 0o17, 0X1F and 0B11.
    for (const scalar of ["0777", "0x1F", "0o17", "0X1F", "0B11", "1_000", "1e3", ".inf", "1.5"]) {
      assert.deepEqual(
        rules(yaml("tls-server-name", scalar)),
        ["type clusters[0].cluster.tls-server-name"],
        scalar,
      );
    }
  });

  it("reads the first YAML document only, a repeated key's last value, and an empty file as an empty config", () => {
    assert.deepEqual(rules(`${text()}\n---\n[not, a kubeconfig\n`), []);
    assert.equal(
      loadKubeconfig(`current-context: a\n${YAML.stringify(JSON.parse(text()))}`).config?.currentContext,
      "x",
    );
    for (const empty of ["", "# a comment\n", "~\n", "{}\n"])
      assert.equal(loadKubeconfig(empty).config?.empty, true, JSON.stringify(empty));
    assert.deepEqual(rules("- a list\n"), ["topLevel "]);
    assert.deepEqual(rules("clusters: [unclosed\n"), ["yaml "]);
  });

  it("resolves the references LoadFromFile resolves against the kubeconfig's directory, and only those", () => {
    const source = [
      "clusters: [{name: c, cluster: {server: 'https://k', certificate-authority: ca.crt}}]",
      "users:",
      "- {name: a, user: {client-certificate: certs/a.crt, client-key: /abs/a.key, tokenFile: token}}",
      "- {name: b, user: {exec: {command: bin/plugin, apiVersion: v}}}",
      "- {name: c, user: {exec: {command: aws, apiVersion: v}}}",
      "",
    ].join("\n");
    assert.equal(
      withAbsoluteFileReferences(source, "/dir"),
      source
        .replace("ca.crt", '"/dir/ca.crt"')
        .replace("certs/a.crt", '"/dir/certs/a.crt"')
        .replace("tokenFile: token", 'tokenFile: "/dir/token"')
        .replace("bin/plugin", '"/dir/bin/plugin"'),
    );
  });
});
