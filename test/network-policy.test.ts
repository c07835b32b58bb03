/**
 * The NetworkPolicy ingress evaluator (offline/world/network-policy.ts) against the semantics documented at
 * https://kubernetes.io/docs/concepts/services-networking/network-policies/: isolation, peers, ports,
 * selectors, policyTypes defaulting, namespaces, and the refusal to guess about ipBlock peers.
 */
import * as assert from "node:assert/strict";
import {
  type LabelSelector,
  type NamespaceRef,
  type NetworkPolicyObject,
  type PodRef,
  ingressAllowed,
  isolatingPolicies,
  policyTypesOf,
  selects,
} from "../offline/world/network-policy";

const NAMESPACES: NamespaceRef[] = [
  { name: "shop", labels: { team: "shop" } },
  { name: "ops", labels: { team: "ops", env: "prod" } },
  { name: "dev", labels: { team: "dev", env: "test" } },
];

const api: PodRef = { namespace: "shop", labels: { app: "api" }, namedPorts: { http: 8080, metrics: 9090 } };
const web: PodRef = { namespace: "shop", labels: { app: "web" } };
const shopMonitor: PodRef = { namespace: "shop", labels: { app: "monitor" } };
const opsWeb: PodRef = { namespace: "ops", labels: { app: "web" } };
const opsMonitor: PodRef = { namespace: "ops", labels: { app: "monitor" } };
const devClient: PodRef = { namespace: "dev", labels: { app: "client" } };

type Spec = NetworkPolicyObject["spec"];
type Rule = NonNullable<Spec["ingress"]>[number];

function policy(name: string, spec: Partial<Spec>, namespace = "shop"): NetworkPolicyObject {
  return { metadata: { name, namespace }, spec: { podSelector: {}, ...spec } };
}

/** A policy in shop selecting the api pods with the given ingress rules. */
const toApi = (name: string, ...ingress: Rule[]) =>
  policy(name, { podSelector: { matchLabels: { app: "api" } }, ingress });

const DENY_ALL = policy("deny-all", { policyTypes: ["Ingress"] });
const FROM_WEB = toApi("from-web", { from: [{ podSelector: { matchLabels: { app: "web" } } }] });
const FROM_OPS = toApi("from-ops", { from: [{ namespaceSelector: { matchLabels: { team: "ops" } } }] });
const OPS_MONITOR = toApi("ops-monitor", {
  from: [
    { namespaceSelector: { matchLabels: { team: "ops" } }, podSelector: { matchLabels: { app: "monitor" } } },
  ],
});
const OPS_OR_MONITOR = toApi("ops-or-monitor", {
  from: [
    { namespaceSelector: { matchLabels: { team: "ops" } } },
    { podSelector: { matchLabels: { app: "monitor" } } },
  ],
});
const BY_NAME = toApi("by-name", {
  from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "dev" } } }],
});
const ANY_NS = toApi("any-ns", { from: [{ namespaceSelector: {} }] });
const NOT_WEB = toApi("not-web", {
  from: [{ podSelector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["web"] }] } }],
});
const DB_ONLY = policy("db", { podSelector: { matchLabels: { app: "db" } } });
const EMPTY = policy("empty", { ingress: [] });
const ALL = toApi("all", {});
const ALL_EMPTY_LISTS = toApi("all", { from: [], ports: [] });
const THREE = [DENY_ALL, FROM_OPS, FROM_WEB];
const BY_ALL_THREE =
  /isolated by shop\/deny-all, shop\/from-ops, shop\/from-web and no rule admits the client/;
const EGRESS_ONLY = policy("egress", { policyTypes: ["Egress"] });
const EGRESS_RULES = policy("egress", { egress: [{}] });
const OPS_DENY_ALL = policy("deny-all", {}, "ops");
const NO_NAMESPACE: NetworkPolicyObject = { metadata: { name: "deny-all" }, spec: { podSelector: {} } };
const DEFAULT = { server: { namespace: "default", labels: {} } };
const PORTS = toApi(
  "ports",
  { ports: [{ port: 443 }] },
  { ports: [{ port: 32000, endPort: 32768 }] },
  { ports: [{ port: "http" }, { port: "grpc" }] },
  { ports: [{ protocol: "UDP", port: 53 }] },
  { ports: [{ protocol: "SCTP" }] },
);

/** Connections to the api pod on TCP 8080 unless `port`, `protocol` or `server` say otherwise. */
type Options = { server?: PodRef; port?: number; protocol?: string };
type Case = [
  name: string,
  policies: NetworkPolicyObject[],
  client: PodRef,
  allowed: boolean,
  reason: RegExp,
  options?: Options,
];

const P = (port: number, protocol?: string): Options => ({ port, protocol });
const NOT_ISOLATED = /not isolated/;
const DENIED = /isolated by .* and no rule admits the client/;
const CASES: Case[] = [
  ["no policies: not isolated", [], devClient, true, NOT_ISOLATED],
  ["a policy selecting other pods does not isolate", [DB_ONLY], devClient, true, NOT_ISOLATED],
  ["default deny: policyTypes Ingress, no rules", [DENY_ALL], web, false, /by shop\/deny-all and no rule/],
  ["default deny: empty ingress, types defaulted", [EMPTY], web, false, /isolated by shop\/empty and/],
  [
    "no from and no ports admit all",
    [DENY_ALL, ALL],
    devClient,
    true,
    /policy shop\/all ingress rule 0/,
    P(1),
  ],
  ["empty from and ports lists admit all", [ALL_EMPTY_LISTS], devClient, true, /shop\/all ingress rule 0/],
  ["podSelector peer: matching pod, same namespace", [FROM_WEB], web, true, /shop\/from-web ingress rule 0/],
  ["podSelector peer: other pod, same namespace", [FROM_WEB], shopMonitor, false, /by shop\/from-web and/],
  ["podSelector peer: same labels, other namespace", [FROM_WEB], opsWeb, false, DENIED],
  ["namespaceSelector: any pod of a matching namespace", [FROM_OPS], opsWeb, true, /from-ops ingress rule 0/],
  ["namespaceSelector: own namespace, not matching", [FROM_OPS], web, false, DENIED],
  ["namespaceSelector: kubernetes.io/metadata.name", [BY_NAME], devClient, true, /by-name ingress rule 0/],
  ["empty namespaceSelector: every namespace", [ANY_NS], { namespace: "x", labels: {} }, true, /any-ns/],
  [
    "both selectors: matching pod and namespace",
    [OPS_MONITOR],
    opsMonitor,
    true,
    /ops-monitor ingress rule 0/,
  ],
  ["both selectors: other pod, matching namespace", [OPS_MONITOR], opsWeb, false, DENIED],
  ["both selectors: matching pod, other namespace", [OPS_MONITOR], shopMonitor, false, DENIED],
  ["two peers are ORed: the namespace alone", [OPS_OR_MONITOR], opsWeb, true, /ops-or-monitor/],
  ["two peers are ORed: the pod alone", [OPS_OR_MONITOR], shopMonitor, true, /ops-or-monitor/],
  ["podSelector with matchExpressions", [NOT_WEB], shopMonitor, true, /shop\/not-web/],
  ["podSelector with matchExpressions, excluded", [NOT_WEB], web, false, DENIED],
  ["numeric port", [PORTS], web, true, /shop\/ports ingress rule 0/, P(443)],
  ["numeric port, another port", [PORTS], web, false, /isolated by shop\/ports/, P(444)],
  ["endPort range, first port", [PORTS], web, true, /ingress rule 1/, P(32000)],
  ["endPort range, last port", [PORTS], web, true, /ingress rule 1/, P(32768)],
  ["endPort range, below", [PORTS], web, false, DENIED, P(31999)],
  ["endPort range, above", [PORTS], web, false, DENIED, P(32769)],
  ["named port resolved through the server", [PORTS], web, true, /ingress rule 2/, P(8080)],
  ["named port, another of the server's ports", [PORTS], web, false, DENIED, P(9090)],
  ["named port the server lacks", [PORTS], web, false, DENIED, { server: { ...api, namedPorts: undefined } }],
  ["protocol given and matching", [PORTS], web, true, /ingress rule 3/, P(53, "UDP")],
  ["protocol mismatch: UDP rule, TCP connection", [PORTS], web, false, DENIED, P(53)],
  ["protocol defaults to TCP in the rule", [PORTS], web, false, DENIED, P(443, "UDP")],
  ["a protocol without a port admits all its ports", [PORTS], web, true, /rule 4/, P(7, "SCTP")],
  ["policies are unioned: one admitting suffices", THREE, web, true, /shop\/from-web ingress rule 0/],
  ["denial names every isolating policy", THREE, devClient, false, BY_ALL_THREE],
  ["an egress-only policy does not isolate ingress", [EGRESS_ONLY], web, true, NOT_ISOLATED],
  ["egress rules alone still isolate ingress", [EGRESS_RULES], web, false, /by shop\/egress and/],
  ["a policy in another namespace does not apply", [OPS_DENY_ALL], devClient, true, NOT_ISOLATED],
  [
    "a policy without namespace applies in default",
    [NO_NAMESPACE],
    devClient,
    false,
    /default\/deny-all/,
    DEFAULT,
  ],
  ["a policy without namespace applies nowhere else", [NO_NAMESPACE], devClient, true, NOT_ISOLATED],
];

describe("NetworkPolicy ingress evaluation", () => {
  for (const [name, policies, client, expected, why, options = {}] of CASES) {
    it(name, () => {
      const { server = api, port = 8080, protocol } = options;
      const { allowed, reason } = ingressAllowed({
        policies,
        namespaces: NAMESPACES,
        server,
        client,
        port,
        protocol,
      });
      assert.equal(allowed, expected, reason);
      assert.match(reason, why);
    });
  }

  it("throws on an ipBlock peer the answer depends on", () => {
    const policies = [toApi("cidr", { from: [{ ipBlock: { cidr: "10.0.0.0/8" } }] })];
    const args = { policies, namespaces: NAMESPACES, server: api, client: web, port: 8080 };
    assert.throws(() => ingressAllowed(args), /ipBlock peers are not evaluated/);
  });

  it("does not consult an ipBlock peer once another peer admits, or when the ports rule it out", () => {
    const ingress: Rule = {
      from: [{ podSelector: { matchLabels: { app: "web" } } }, { ipBlock: { cidr: "10.0.0.0/8" } }],
    };
    const policies = [
      toApi("mixed", ingress),
      toApi("cidr-443", { ports: [{ port: 443 }], from: [{ ipBlock: { cidr: "0.0.0.0/0" } }] }),
    ];
    const base = { policies, namespaces: NAMESPACES, server: api, port: 8080 };
    assert.equal(ingressAllowed({ ...base, client: web }).allowed, true);
    assert.throws(() => ingressAllowed({ ...base, client: opsWeb }), /ipBlock/);
    assert.equal(ingressAllowed({ ...base, policies: policies.slice(1), client: opsWeb }).allowed, false);
  });

  it("throws on an endPort with a named port, which the API rejects", () => {
    const policies = [toApi("named-range", { ports: [{ port: "http", endPort: 8090 }] })];
    assert.throws(
      () => ingressAllowed({ policies, namespaces: NAMESPACES, server: api, client: web, port: 8080 }),
      /endPort needs a numeric port/,
    );
  });

  it("throws on a peer with no selector and no ipBlock, which the API rejects", () => {
    const policies = [toApi("empty-peer", { from: [{}] })];
    assert.throws(
      () => ingressAllowed({ policies, namespaces: NAMESPACES, server: api, client: web, port: 8080 }),
      /peer must give/,
    );
  });
});

describe("label selectors", () => {
  const labels = { app: "api", tier: "backend" };
  const expr = (operator: string, key: string, values?: string[]): LabelSelector => ({
    matchExpressions: [{ key, operator: operator as "In", values }],
  });
  const cases: [string, LabelSelector, boolean][] = [
    ["empty selector", {}, true],
    ["matchLabels, all equal", { matchLabels: { app: "api", tier: "backend" } }, true],
    ["matchLabels, one differs", { matchLabels: { app: "api", tier: "frontend" } }, false],
    ["matchLabels, key absent", { matchLabels: { zone: "a" } }, false],
    ["In, value listed", expr("In", "tier", ["frontend", "backend"]), true],
    ["In, value not listed", expr("In", "tier", ["frontend"]), false],
    ["In, key absent", expr("In", "zone", ["a"]), false],
    ["NotIn, value listed", expr("NotIn", "tier", ["backend"]), false],
    ["NotIn, value not listed", expr("NotIn", "tier", ["frontend"]), true],
    ["NotIn, key absent", expr("NotIn", "zone", ["a"]), true],
    ["Exists, key present", expr("Exists", "tier"), true],
    ["Exists, key absent", expr("Exists", "zone"), false],
    ["DoesNotExist, key present", expr("DoesNotExist", "tier"), false],
    ["DoesNotExist, key absent", expr("DoesNotExist", "zone"), true],
    [
      "matchLabels and matchExpressions are ANDed",
      { ...expr("Exists", "tier"), matchLabels: { app: "web" } },
      false,
    ],
    ["Exists does not see inherited properties", expr("Exists", "toString"), false],
  ];
  for (const [name, selector, expected] of cases) {
    it(name, () => assert.equal(selects(selector, labels), expected));
  }

  it("throws on an unknown operator", () => {
    assert.throws(
      () => selects(expr("Equals", "app", ["api"]), labels),
      /unknown label selector operator "Equals"/,
    );
  });
});

describe("policyTypes and isolation", () => {
  const cases: [string, Partial<Spec>, string[]][] = [
    ["absent, no egress", {}, ["Ingress"]],
    ["absent, egress rules", { egress: [{}] }, ["Ingress", "Egress"]],
    ["absent, empty egress list", { egress: [] }, ["Ingress"]],
    ["empty list is defaulted", { policyTypes: [], egress: [{}] }, ["Ingress", "Egress"]],
    ["given: Egress only", { policyTypes: ["Egress"] }, ["Egress"]],
  ];
  for (const [name, spec, expected] of cases) {
    it(`policyTypes ${name}`, () => assert.deepEqual(policyTypesOf(policy("p", spec)), expected));
  }

  it("isolatingPolicies keeps the policies of the pod's namespace that select it for ingress", () => {
    const policies = [
      DENY_ALL,
      FROM_WEB,
      policy("api-egress", { podSelector: { matchLabels: { app: "api" } }, policyTypes: ["Egress"] }),
      policy("web-only", { podSelector: { matchLabels: { app: "web" } } }),
      policy("ops", {}, "ops"),
      policy("both", { policyTypes: ["Egress", "Ingress"] }),
    ];
    assert.deepEqual(
      isolatingPolicies(policies, api).map((p) => p.metadata.name),
      ["deny-all", "from-web", "both"],
    );
  });
});
