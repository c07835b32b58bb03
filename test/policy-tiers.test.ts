/**
 * Which tier each Calico line puts a stored policy in (components/calico/policy-tiers.ts), held to the
 * cases upstream's own tests expect, and the policies a change of line would move, each with its fix.
 */
import * as assert from "node:assert/strict";
import { SUPPORTED_CALICO_MINORS } from "../components/calico/defaults";
import {
  type StoredPolicy,
  TIERED_POLICY_KINDS,
  tierMoves,
  tierOn,
  tierRefusal,
} from "../components/calico/policy-tiers";
import cases from "./fixtures/policy-tier-cases.json";

const policy = (name: string, tier?: string, namespace?: string): StoredPolicy => ({
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  ...(tier === undefined ? {} : { spec: { tier } }),
});

describe("the tier of a stored Calico policy", () => {
  it("is what each line's upstream tests expect", () => {
    for (const line of SUPPORTED_CALICO_MINORS) {
      for (const c of cases[line] as { name: string; specTier?: string; tier: string; case: string }[]) {
        assert.equal(tierOn(line, policy(c.name, c.specTier)), c.tier, `${line}: ${c.case}`);
      }
    }
  });

  it("is read from the kinds that carry one, staged ones included", () => {
    assert.deepEqual(
      TIERED_POLICY_KINDS.map((k) => `${k.plural}.${k.group}/${k.version} ${k.scope}`),
      [
        "networkpolicies.crd.projectcalico.org/v1 Namespaced",
        "globalnetworkpolicies.crd.projectcalico.org/v1 Cluster",
        "stagednetworkpolicies.crd.projectcalico.org/v1 Namespaced",
        "stagedglobalnetworkpolicies.crd.projectcalico.org/v1 Cluster",
      ],
    );
  });
});

describe("the policies a change of line moves to another tier", () => {
  const mixed = [
    policy("security.allow-dns", undefined, "apps"),
    policy("deny-egress", "security"),
    policy("security.kept", "security", "apps"),
    policy("plain"),
    policy("my.policy", "default"),
  ];

  it("on an upgrade: a name prefix spec.tier does not repeat; fixed by setting spec.tier", () => {
    assert.deepEqual(tierMoves("NetworkPolicy", mixed, "3.31", "3.32", "manifest"), [
      {
        kind: "NetworkPolicy",
        name: "apps/security.allow-dns",
        from: "security",
        to: "default",
        fix: "set spec.tier: security",
      },
      {
        kind: "NetworkPolicy",
        name: "deny-egress",
        from: "default",
        to: "security",
        fix: "set spec.tier: default",
      },
      { kind: "NetworkPolicy", name: "my.policy", from: "my", to: "default", fix: "set spec.tier: my" },
    ]);
  });

  it("on a rollback: a spec.tier the name does not start with; fixed by a new name", () => {
    const moves = tierMoves("GlobalNetworkPolicy", mixed, "3.32", "3.31", "manifest");
    assert.deepEqual(
      moves.map((m) => `${m.name}: ${m.from} -> ${m.to}; ${m.fix}`),
      [
        "apps/security.allow-dns: default -> security; create it again named default.security.allow-dns and delete this one (a name cannot change)",
        "deny-egress: security -> default; create it again named security.deny-egress and delete this one (a name cannot change)",
        "my.policy: default -> my; create it again named default.my.policy and delete this one (a name cannot change)",
      ],
    );
  });

  it("none on a first install with the manifests, where no line enforced them yet", () => {
    assert.deepEqual(tierMoves("NetworkPolicy", mixed, undefined, "3.32", "manifest"), []);
  });

  describe("with the operator, the tier v3.32 retires (allow-tigera, now calico-system)", () => {
    const owned = (name: string, where: "metadata" | "annotation"): StoredPolicy => {
      const owners = [{ apiVersion: "operator.tigera.io/v1", kind: "Installation", name: "default" }];
      return {
        metadata: {
          name,
          namespace: "calico-system",
          ...(where === "metadata"
            ? { ownerReferences: owners }
            : { annotations: { "projectcalico.org/metadata": JSON.stringify({ ownerReferences: owners }) } }),
        },
        spec: { tier: "allow-tigera" },
      };
    };
    const inTier = [
      policy("allow-tigera.team-dns", "allow-tigera", "apps"),
      owned("allow-tigera.kube-controller-access", "annotation"),
      owned("allow-tigera.typha", "metadata"),
    ];

    it("names a user's policy left in it, not the operator's own, on an upgrade and on a first install", () => {
      for (const from of ["3.31", undefined] as const) {
        const moves = tierMoves("NetworkPolicy", inTier, from, "3.32", "operator");
        assert.deepEqual(
          moves.map((m) => [m.name, m.to, m.retired?.successor]),
          [["apps/allow-tigera.team-dns", "allow-tigera", "calico-system"]],
          String(from),
        );
        assert.match(
          moves[0].fix,
          /^create it again as calico-system\.team-dns with spec\.tier: calico-system and delete this one, after creating the Tier calico-system \(order 100/,
        );
      }
    });

    it("names nothing with the manifests, or on v3.31", () => {
      assert.deepEqual(tierMoves("NetworkPolicy", inTier, "3.31", "3.32", "manifest"), []);
      assert.deepEqual(tierMoves("NetworkPolicy", inTier, "3.32", "3.31", "operator"), []);
    });
  });

  it("the refusal names each, both lines' rules with their sources, and the way on", () => {
    const moves = [
      ...tierMoves(
        "NetworkPolicy",
        [policy("security.allow-dns", undefined, "apps")],
        "3.31",
        "3.32",
        "operator",
      ),
      ...tierMoves(
        "StagedGlobalNetworkPolicy",
        [policy("allow-tigera.try", "allow-tigera")],
        "3.31",
        "3.32",
        "operator",
      ),
    ];
    const text = tierRefusal("3.31", "3.32", moves);
    assert.match(
      text,
      /^calico\.version: on Calico v3\.32, 2 Calico policies would no longer be evaluated where they are now/,
    );
    assert.match(
      text,
      /v3\.31 takes a policy's tier from the prefix of its name \(projectcalico\/calico v3\.31\.7 libcalico-go\/lib\/names\/policy\.go/,
    );
    assert.match(text, /v3\.32 takes a policy's tier from its spec\.tier \(projectcalico\/calico v3\.32\.1 /);
    assert.match(
      text,
      /tigera\/operator v1\.42\.3 pkg\/render\/tiers\/tiers\.go .*pkg\/controller\/tiers\/tiers_controller\.go/,
    );
    assert.match(
      text,
      /\n {2}- NetworkPolicy apps\/security\.allow-dns: tier security on v3\.31, tier default on v3\.32; set spec\.tier: security\n/,
    );
    assert.match(
      text,
      /\n {2}- StagedGlobalNetworkPolicy allow-tigera\.try: stays in tier allow-tigera, which the Tigera operator of v3\.32/,
    );
    assert.match(
      text,
      /kubectl get networkpolicies\.crd\.projectcalico\.org,stagedglobalnetworkpolicies\.crd\.projectcalico\.org -A -o yaml/,
    );
    assert.match(text, /Nothing was changed/);
  });
});
