/**
 * What client-go refuses for the context in use (components/kubeconfig-cluster/check.ts), each rule tested
 * from its definition in k8s.io/client-go@v0.35.4: the combinations a rule is about are enumerated and
 * the verdict is the rule's, e.g. validateAuthInfo's "more than one authentication method" over every set
 * of token, username and password. test/cluster/kubeconfig-corpus.test.ts holds the same rules to kubectl.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { type KubeconfigProblem, checkKubeconfig } from "../components/kubeconfig-cluster/check";
import { KUBECONFIG_RULES } from "../components/kubeconfig-cluster/rules";
import { type ClientPki, clientPki } from "./kubeconfig-pki";
import { tableRows } from "./docs-pages";

type Entry = Record<string, unknown>;

/** Files a kubeconfig may name, under /k (its directory); any other path does not exist. */
const FILES = new Map<string, Buffer>();
const readFile = (file: string): Buffer => {
  if (file === "/k/dir") throw Object.assign(new Error("EISDIR"), { code: "EISDIR" });
  const found = FILES.get(file);
  if (found === undefined) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
  return found;
};

interface Parts {
  cluster?: Entry;
  user?: Entry;
  context?: Entry;
  current?: string | null;
  extra?: Entry;
}

/** One cluster c, user u and context x (the current one), each with `parts` merged in. */
function check(parts: Parts = {}, context?: string): KubeconfigProblem[] {
  const doc = {
    clusters: [{ name: "c", cluster: { server: "https://k.example.com", ...parts.cluster } }],
    users: [{ name: "u", user: parts.user ?? { token: "t" } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u", ...parts.context } }],
    ...(parts.current === null ? {} : { "current-context": parts.current ?? "x" }),
    ...parts.extra,
  };
  return checkKubeconfig(JSON.stringify(doc), { context, directory: "/k", readFile }).problems;
}

/** The rules of `problems`, sorted. */
const ruled = (problems: readonly KubeconfigProblem[]) => problems.map((p) => p.rule).sort();

/** Every subset of `keys`. */
function subsets<T>(keys: readonly T[]): T[][] {
  return keys.reduce<T[][]>((all, key) => [...all, ...all.map((s) => [...s, key])], [[]]);
}

const b64 = (text: string) => Buffer.from(text).toString("base64");

describe("kubeconfig checks for the context in use, as client-go makes them", () => {
  let pki: ClientPki;
  before(async () => {
    pki = await clientPki();
    FILES.set("/k/ca.crt", Buffer.from(pki.cert));
    FILES.set("/k/client.crt", Buffer.from(pki.cert));
    FILES.set("/k/client.key", Buffer.from(pki.key));
    FILES.set("/k/token", Buffer.from("from-file"));
    FILES.set("/k/empty", Buffer.alloc(0));
  });

  it("has a rule text and a source for every rule it applies, each in docs/kubeconfig-clusters.md", () => {
    const doc = fs.readFileSync(path.join(__dirname, "..", "docs", "kubeconfig-clusters.md"), "utf8");
    const rows = tableRows(doc, "At").map((cells) => `${cells[1]} | ${cells[2]}`);
    for (const [id, rule] of Object.entries(KUBECONFIG_RULES)) {
      assert.ok(/\.go /.test(rule.source), id);
      assert.ok(rows.includes(`${rule.rule} | ${rule.source}`), `${id} in the doc`);
    }
    assert.equal(rows.length, Object.keys(KUBECONFIG_RULES).length);
  });

  it("picks the context as the provider does: the one given, else current-context, which must exist either way", () => {
    for (const given of [undefined, "x", "gone"]) {
      for (const current of [null, "x", "gone"]) {
        const problems = check({ current }, given);
        let expected: string[] = [];
        if (given === "gone") expected = ["contextMissing"];
        else if (given === undefined && current === null) expected = ["noContext"];
        else if (current === "gone")
          expected = [given === undefined ? "contextMissing" : "currentContextMissing"];
        assert.deepEqual(ruled(problems), expected, `context ${given}, current-context ${current}`);
        const key = problems[0]?.key;
        if (given !== undefined && expected[0] === "contextMissing") assert.equal(key, "context");
      }
    }
    const empty = checkKubeconfig("", { directory: "/k", readFile });
    assert.deepEqual(ruled(empty.problems), ["empty"]);
  });

  it("refuses a context's cluster or user that is unset or missing, and checks only that context's entries", () => {
    for (const key of ["cluster", "user"]) {
      const unset = ruled(check({ context: { [key]: "" } }));
      assert.deepEqual(unset, [key === "cluster" ? "clusterUnset" : "userUnset"]);
      assert.deepEqual(ruled(check({ context: { [key]: "gone" } })), [`${key}Missing`]);
    }
    const others = {
      clusters: [
        { name: "c", cluster: { server: "https://k.example.com" } },
        { name: "o", cluster: {} },
      ],
      users: [
        { name: "u", user: { token: "t" } },
        { name: "o", user: { token: "t", username: "n" } },
      ],
      contexts: [
        { name: "x", context: { cluster: "c", user: "u" } },
        { name: "o", context: { cluster: "gone", user: "o", namespace: "Not_A_Label" } },
      ],
    };
    assert.deepEqual(check({ extra: others }), []);
  });

  it("does not apply validateContext's DNS label rule to the namespace, as neither kubectl nor the provider does", () => {
    for (const namespace of [
      "default",
      "a".repeat(63),
      "a".repeat(64),
      "Upper",
      "under_score",
      "-lead",
      "dot.ted",
    ]) {
      assert.deepEqual(check({ context: { namespace } }), [], namespace);
    }
  });

  it("requires a server, with an https:// or http:// scheme; reads the CA and credentials only for https", () => {
    for (const server of [
      "",
      "k.example.com",
      "127.0.0.1:6443",
      "k.example.com:443",
      "ftp://k.example.com",
    ]) {
      const expected = server === "" ? ["server"] : ["serverScheme"];
      assert.deepEqual(ruled(check({ cluster: { server } })), expected, server);
    }
    const insecureWithCa = { "insecure-skip-tls-verify": true, "certificate-authority-data": b64(pki.cert) };
    assert.deepEqual(ruled(check({ cluster: { ...insecureWithCa, server: "http://k.example.com" } })), []);
    assert.deepEqual(ruled(check({ cluster: { server: "http://k.example.com" }, user: {} })), []);
    assert.deepEqual(ruled(check({ cluster: insecureWithCa })), ["insecureWithCa"]);
  });

  it("takes a proxy-url of scheme http, https or socks5 only", () => {
    for (const scheme of ["http", "https", "socks5", "HTTP", "socks4", "ftp"]) {
      const ok = ["http", "https", "socks5"].includes(scheme.toLowerCase());
      const problems = check({ cluster: { "proxy-url": `${scheme}://proxy:3128` } });
      assert.deepEqual(ruled(problems), ok ? [] : ["proxyUrl"], scheme);
    }
  });

  it("refuses each combination of CA file, CA data and insecure-skip-tls-verify validation.go and TLSConfigFor refuse", () => {
    for (const set of subsets(["file", "data", "insecure"] as const)) {
      const cluster: Entry = {
        ...(set.includes("file") ? { "certificate-authority": "ca.crt" } : {}),
        ...(set.includes("data") ? { "certificate-authority-data": b64(pki.cert) } : {}),
        ...(set.includes("insecure") ? { "insecure-skip-tls-verify": true } : {}),
      };
      const both = set.includes("file") && set.includes("data");
      const withCa = set.includes("insecure") && (set.includes("file") || set.includes("data"));
      const expected = [...(both ? ["caBoth"] : []), ...(withCa ? ["insecureWithCa"] : [])].sort();
      assert.deepEqual(ruled(check({ cluster })), expected, set.join("+"));
    }
  });

  it("reads the CA, client certificate, key and token files relative to the kubeconfig, with Go's error", () => {
    const cases: [Parts, string, string][] = [
      [
        { cluster: { "certificate-authority": "absent.crt" } },
        "caFile",
        "unable to read certificate-authority /k/absent.crt for c due to open /k/absent.crt: no such file or directory",
      ],
      [{ cluster: { "certificate-authority": "dir" } }, "caFile", "read /k/dir: is a directory"],
      [
        { user: { "client-certificate": "client.crt", "client-key": "absent.key" } },
        "certFile",
        "unable to read client-key /k/absent.key for u due to open /k/absent.key: no such file or directory",
      ],
      [{ user: { tokenFile: "absent" } }, "tokenFile", "open /k/absent: no such file or directory"],
    ];
    for (const [parts, rule, reason] of cases) {
      assert.deepEqual(
        check(parts).map((p) => [p.rule, p.reason]),
        [[rule, reason]],
      );
    }
    assert.deepEqual(
      check({ cluster: { "certificate-authority": "/k/ca.crt" }, user: { tokenFile: "token" } }),
      [],
    );
  });

  it("refuses CA data that holds no certificate, as x509 AppendCertsFromPEM and createErrorParsingCAData", () => {
    const garbage = "-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n";
    const cases: [string, string | undefined][] = [
      [pki.cert, undefined],
      [`${pki.key}${pki.cert}`, undefined],
      ["hello", "unable to parse bytes as PEM block"],
      [pki.key, "no valid certificate authority data seen"],
      [garbage, "failed to parse certificate"],
    ];
    for (const [ca, reason] of cases) {
      const problems = check({ cluster: { "certificate-authority-data": b64(ca) } });
      assert.deepEqual(
        problems.map((p) => p.reason),
        reason === undefined ? [] : [`unable to load root certificates: ${reason}`],
      );
    }
  });

  it("allows one of token and username/password at most, and needs some credential", () => {
    for (const set of subsets(["token", "username", "password"] as const)) {
      const user = Object.fromEntries(set.map((key) => [key, "v"]));
      const methods =
        (set.includes("token") ? 1 : 0) + (set.includes("username") || set.includes("password") ? 1 : 0);
      // canIdentifyUser: a username, a token, a certificate, an exec plugin or an auth-provider.
      const identified = set.includes("token") || set.includes("username");
      const expected = [...(methods > 1 ? ["authMethods"] : []), ...(identified ? [] : ["noCredentials"])];
      assert.deepEqual(ruled(check({ user })), expected, set.join("+") || "none");
    }
    assert.deepEqual(
      ruled(check({ user: { tokenFile: "empty" } })),
      ["noCredentials"],
      "an empty token file",
    );
    assert.deepEqual(ruled(check({ context: { user: "" } })), ["userUnset"]);
  });

  it("refuses each combination of client certificate and key fields validateAuthInfo refuses", () => {
    const fields = [
      "client-certificate",
      "client-certificate-data",
      "client-key",
      "client-key-data",
    ] as const;
    for (const set of subsets(fields)) {
      const values = {
        "client-certificate": "client.crt",
        "client-certificate-data": b64(pki.cert),
        "client-key": "client.key",
        "client-key-data": b64(pki.key),
      };
      const user: Entry = Object.fromEntries(set.map((key) => [key, values[key]]));
      const has = (key: (typeof fields)[number]) => set.includes(key);
      const cert = has("client-certificate") || has("client-certificate-data");
      const key = has("client-key") || has("client-key-data");
      const expected = cert
        ? [
            ...(has("client-certificate") && has("client-certificate-data") ? ["certBoth"] : []),
            ...(has("client-key") && has("client-key-data") ? ["keyBoth"] : []),
            ...(key ? [] : ["keyMissing"]),
          ]
        : ["noCredentials"];
      assert.deepEqual(ruled(check({ user })), expected.sort(), set.join("+") || "none");
    }
  });

  it("checks a certificate and key from -data fields as crypto/tls X509KeyPair, and leaves two files to the handshake", () => {
    const data = (cert: string, key: string) => ({
      "client-certificate-data": b64(cert),
      "client-key-data": b64(key),
    });
    const cases: [Entry, string | undefined][] = [
      [data(pki.cert, pki.key), undefined],
      [data(pki.cert, pki.otherKey), "tls: private key does not match public key"],
      [
        data(pki.key, pki.cert),
        "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched",
      ],
      [data(pki.cert, pki.cert), "tls: found a certificate rather than a key in the PEM for the private key"],
      [data("hello", pki.key), "tls: failed to find any PEM data in certificate input"],
      [
        { "client-certificate": "client.crt", "client-key-data": b64(pki.otherKey) },
        "tls: private key does not match public key",
      ],
      [{ "client-certificate": "client.crt", "client-key": "/k/ca.crt" }, undefined],
    ];
    for (const [user, reason] of cases) {
      assert.deepEqual(
        check({ user }).map((p) => p.reason),
        reason === undefined ? [] : [reason],
      );
    }
  });

  it("checks exec plugins per apiVersion: v1 requires interactiveMode, v1beta1 defaults it, v1alpha1 is gone", () => {
    const versions = [
      "",
      "client.authentication.k8s.io/v1alpha1",
      "client.authentication.k8s.io/v1beta1",
      "client.authentication.k8s.io/v1",
      "example.com/v1",
    ];
    for (const apiVersion of versions) {
      for (const interactiveMode of ["", "Never", "IfAvailable", "Always", "Sometimes"]) {
        const problems = check({ user: { exec: { command: "plugin", apiVersion, interactiveMode } } });
        const defaulted =
          interactiveMode === "" && /\/v1(alpha|beta)1$/.test(apiVersion) ? "IfAvailable" : interactiveMode;
        const expected = [
          ...(apiVersion === "" ? ["execApiVersionUnset"] : []),
          ...(apiVersion !== "" && !/k8s\.io\/v1(beta1)?$/.test(apiVersion) ? ["execApiVersion"] : []),
          ...(defaulted === "" ? ["execInteractiveUnset"] : []),
          ...(defaulted === "Sometimes" ? ["execInteractive"] : []),
          ...(defaulted === "Always" ? ["execInteractiveAlways"] : []),
        ];
        assert.deepEqual(ruled(problems), expected.sort(), `${apiVersion} ${interactiveMode}`);
      }
    }
    const v1 = { apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never" };
    assert.deepEqual(ruled(check({ user: { exec: { ...v1 } } })), ["execCommand"]);
    const env = [{ name: "A", value: "" }, { value: "b" }];
    assert.deepEqual(
      check({ user: { exec: { ...v1, command: "p", env } } }).map((p) => p.at),
      ["users[0].user.exec.env[1].name"],
    );
    const both = {
      exec: { ...v1, command: "p" },
      "auth-provider": { name: "oidc", config: { "idp-issuer-url": "https://i", "client-id": "c" } },
    };
    assert.deepEqual(ruled(check({ user: both })), ["execWithAuthProvider"]);
  });

  it("takes the auth-provider plugins kubectl and the provider register: oidc with an issuer and client id", () => {
    const config = { "idp-issuer-url": "https://issuer", "client-id": "c" };
    const cases: [Entry, string | undefined][] = [
      [{ name: "oidc", config }, undefined],
      [{ name: "oidc", config: { "client-id": "c" } }, "Must provide idp-issuer-url"],
      [{ name: "oidc", config: { "idp-issuer-url": "https://issuer" } }, "Must provide client-id"],
      [{ name: "gcp" }, "The gcp auth plugin has been removed."],
      [{ name: "azure" }, "The azure auth plugin has been removed."],
      [{ name: "custom", config }, 'no Auth Provider found for name "custom"'],
    ];
    for (const [provider, reason] of cases) {
      assert.deepEqual(
        check({ user: { "auth-provider": provider } }).map((p) => p.reason),
        reason === undefined ? [] : [reason],
      );
    }
  });

  it("refuses impersonating a uid, groups or extra without a user to impersonate", () => {
    for (const key of ["as-uid", "as-groups", "as-user-extra"]) {
      const value = key === "as-uid" ? "1" : key === "as-groups" ? ["g"] : { k: ["v"] };
      assert.deepEqual(ruled(check({ user: { token: "t", [key]: value } })), ["impersonate"], key);
      assert.deepEqual(
        ruled(check({ user: { token: "t", as: "someone", [key]: value } })),
        [],
        `${key} with as`,
      );
    }
  });
});
