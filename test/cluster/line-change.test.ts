/**
 * A Calico line change by the real engine on a real control plane. An AdminNetworkPolicy on a v3.31.7
 * install stops the upgrade to v3.32.1, in `pulumi preview` and in `pulumi up`, with calico-node untouched;
 * once it is deleted, the upgrade passes. So does a Calico NetworkPolicy that the upgrade would move to
 * another tier, until its spec.tier agrees. The upgrade rolls calico-node before Typha, and the rollback to
 * v3.31.7 Typha before calico-node: a v3.32 Typha disconnects a v3.31 Felix, a v3.32 Felix keeps a v3.31
 * Typha (components/calico/typha-felix.ts, from projectcalico/calico v3.32.1 typha/pkg/syncserver and
 * syncclient). Both objects' generations are read as `up` runs, and every calico-node pod is judged
 * against the Typhas it can reach (local-cluster/typha-acceptance.ts). The workload that rolls second
 * keeps its ClusterRole until the first has rolled out: each line's role reads other network-policy kinds.
 */
import * as assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { disagreements, summary } from "./agreement";
import type { OperationResult } from "../../local-cluster/pulumi";
import { EngineCase, assertSucceeded, engineChanges } from "./engine-case";
import { type Read, outOfTurn, roleOutOfTurn, rolloutWatcher } from "./rollout-watch";
import { watcher } from "./typha-watch";

/** An AdminNetworkPolicy as a user writes one (network-policy-api v1alpha1): deny from every namespace. */
const ADMIN_POLICY = {
  apiVersion: "policy.networking.k8s.io/v1alpha1",
  kind: "AdminNetworkPolicy",
  metadata: { name: "deny-between-tenants" },
  spec: {
    priority: 10,
    subject: { namespaces: { matchLabels: { tenant: "a" } } },
    ingress: [{ name: "deny-b", action: "Deny", from: [{ namespaces: { matchLabels: { tenant: "b" } } }] }],
  },
};

/** calico-node as it runs: its generation and image. */
function calicoNode(c: EngineCase): { generation: number; image: string } {
  const got = c.cluster.kubectl(["get", "daemonset", "calico-node", "-n", "kube-system", "-o", "json"]);
  assert.ok(got.ok, got.output);
  const ds = JSON.parse(got.output) as {
    metadata: { generation: number };
    spec: { template: { spec: { containers: { name: string; image: string }[] } } };
  };
  const node = ds.spec.template.spec.containers.find((container) => container.name === "calico-node");
  return { generation: ds.metadata.generation, image: node?.image ?? "" };
}

/** What a read shows, for a message: `calico-node g3 rolled out, Typha g2 rolling`. */
const shown = (read: Read) =>
  `calico-node g${read.calicoNode.generation} ${read.calicoNode.rolledOut ? "rolled out" : "rolling"}, ` +
  `Typha g${read.typha.generation} ${read.typha.rolledOut ? "rolled out" : "rolling"}`;

/**
 * `up` to `version`, watched: `first` must roll out its new generation before `second`'s generation
 * changes, both must change, and no calico-node pod may meet a Typha that refuses it.
 */
async function upInOrder(
  c: EngineCase,
  version: string,
  first: keyof Read,
  second: keyof Read,
): Promise<OperationResult> {
  const rollouts = rolloutWatcher(c.cluster, second === "typha" ? "typha" : "calico-node");
  const typhas = watcher(c.cluster);
  const result = await c.up(version, { "eks-calico:calico.version": version }, async (finished) => {
    await Promise.all([rollouts.watch(finished), typhas.watch(finished)]);
  });
  const { reads } = rollouts;
  const [start, end] = [reads[0], reads[reads.length - 1]];
  assert.ok(start !== undefined && end !== undefined, "the workloads were read");
  for (const key of [first, second]) {
    assert.ok(end[key].generation > start[key].generation, `${key} changed: ${shown(start)} → ${shown(end)}`);
  }
  assert.deepEqual(outOfTurn(reads, first, second).map(shown), [], `${second} waits for ${first}'s rollout`);
  // Its ClusterRole waits too: the new line's role reads other network-policy kinds than the running one's.
  assert.notDeepEqual(end[second].policyKinds, start[second].policyKinds, `${second}'s role changed`);
  assert.deepEqual(
    roleOutOfTurn(reads, first, second).map((read) => read[second].policyKinds.join()),
    [],
    `${second}'s role (${start[second].policyKinds.join()}) waits for ${first}'s rollout`,
  );
  assert.ok(
    reads.some(
      (r) =>
        r[first].generation > start[first].generation && r[second].generation === start[second].generation,
    ),
    `a read saw ${first} changed and ${second} not yet: ${[...new Set(reads.map(shown))].join(" | ")}`,
  );
  assert.deepEqual(typhas.watched.refused, [], "every calico-node pod keeps a Typha that accepts it");
  return result;
}

/** The refusal, as printed (wrapped): it names the policy and the way forward. */
function assertRefused(result: OperationResult, what: string) {
  assert.equal(result.ok, false, `${what} must refuse the upgrade`);
  const printed = [...result.errors, result.error ?? ""].join("\n").replace(/\s+/g, " ");
  assert.match(
    printed,
    /calico\.version: Calico v3\.32 does not enforce AdminNetworkPolicy, and the cluster has 1/,
  );
  assert.match(printed, /- AdminNetworkPolicy deny-between-tenants/);
  assert.match(printed, /Rewrite each as a ClusterNetworkPolicy/);
}

// --- A Calico policy that a line change would move to another tier (components/calico/policy-tiers.ts) ---

/** The tier the policy below is in on v3.31, by its name's prefix. */
const SECURITY_TIER = {
  apiVersion: "crd.projectcalico.org/v1",
  kind: "Tier",
  metadata: { name: "security" },
  spec: { order: 100 },
};

/**
 * A Calico NetworkPolicy as kubectl writes one (no Calico API server checks it): v3.31 puts it in tier
 * `security` by its name, v3.32 in `default` by its spec, which names no tier.
 */
const TIER_MOVING_POLICY = {
  apiVersion: "crd.projectcalico.org/v1",
  kind: "NetworkPolicy",
  metadata: { name: "security.allow-dns", namespace: "default" },
  spec: { selector: "all()", types: ["Egress"], egress: [{ action: "Allow" }] },
};

/** The tier refusal, as printed (wrapped): it names the policy, both tiers and the fix. */
function assertTierRefused(result: OperationResult, what: string) {
  assert.equal(result.ok, false, `${what} must refuse the upgrade`);
  const printed = [...result.errors, result.error ?? ""].join("\n").replace(/\s+/g, " ");
  assert.match(
    printed,
    /calico\.version: on Calico v3\.32, 1 Calico policy would no longer be evaluated where it is now/,
  );
  assert.match(
    printed,
    /- NetworkPolicy default\/security\.allow-dns: tier security on v3\.31, tier default on v3\.32; set spec\.tier: security/,
  );
  assert.doesNotMatch(printed, /AdminNetworkPolicy deny-between-tenants/, "the admin policy is gone by now");
}

/**
 * On the v3.31.7 install of `c`, about to be upgraded to v3.32.1: the tier-moving policy stops the
 * upgrade in preview and up with nothing changed; once its spec.tier agrees with its name, it is no
 * obstacle (the caller's upgrade passes).
 */
async function refusesTierMove(c: EngineCase) {
  for (const object of [SECURITY_TIER, TIER_MOVING_POLICY]) {
    const applied = c.cluster.kubectl(["apply", "-f", "-"], JSON.stringify(object));
    assert.ok(applied.ok, applied.output);
  }
  const before = calicoNode(c);
  assertTierRefused(await c.engine.run("preview"), "pulumi preview");
  const refused = await c.engine.run("up");
  assertTierRefused(refused, "pulumi up");
  assert.deepEqual(engineChanges(refused.steps), {}, "nothing changed");
  assert.deepEqual(calicoNode(c), before, "calico-node untouched");
  const fixed = c.cluster.kubectl([
    "patch",
    "networkpolicies.crd.projectcalico.org",
    TIER_MOVING_POLICY.metadata.name,
    "-n",
    TIER_MOVING_POLICY.metadata.namespace,
    "--type",
    "merge",
    "-p",
    JSON.stringify({ spec: { tier: "security" } }),
  ]);
  assert.ok(fixed.ok, fixed.output);
}

/**
 * The API server answers 503 for AdminNetworkPolicy while its group is served by an aggregated API whose
 * Service does not exist: the APIService the CRD registration made (label
 * kube-aggregator.kubernetes.io/automanaged, spec without a service) is replaced by one without the
 * label, which the autoregister controller leaves alone (k8s.io/kube-aggregator
 * pkg/controllers/autoregister). Deleting it lets the controller make the CRD's own again. Returns the undo.
 */
function breakAdminPolicyApi(c: EngineCase): () => Promise<void> {
  const name = "v1alpha1.policy.networking.k8s.io";
  const service = {
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: { name },
    spec: {
      group: "policy.networking.k8s.io",
      version: "v1alpha1",
      groupPriorityMinimum: 1000,
      versionPriority: 100,
      insecureSkipTLSVerify: true,
      service: { namespace: "default", name: "no-such-policy-server", port: 443 },
    },
  };
  const replaced = c.cluster.kubectl(["replace", "-f", "-"], JSON.stringify(service));
  assert.ok(replaced.ok, replaced.output);
  const list = ["get", "--raw", "/apis/policy.networking.k8s.io/v1alpha1/adminnetworkpolicies"];
  const broken = c.cluster.kubectl(list);
  assert.match(broken.output, /ServiceUnavailable/, "the list answers 503");
  return async () => {
    const deleted = c.cluster.kubectl(["delete", "apiservice", name]);
    assert.ok(deleted.ok, deleted.output);
    for (let i = 0; i < 30 && !c.cluster.kubectl(list).ok; i++) await sleep(1000);
    assert.ok(c.cluster.kubectl(list).ok, "AdminNetworkPolicy is served again");
  };
}

/** A line change's preview fails, naming the kind it could not list and the server's answer. */
async function previewReportsUnreadable(c: EngineCase) {
  const undo = breakAdminPolicyApi(c);
  try {
    const preview = await c.engine.run("preview");
    assert.equal(preview.ok, false, "pulumi preview must fail on an answer it cannot read");
    const printed = [...preview.errors, preview.error ?? ""].join("\n").replace(/\s+/g, " ");
    assert.match(
      printed,
      /the line check could not list AdminNetworkPolicy \(adminnetworkpolicies\.policy\.networking\.k8s\.io\): .*(503|unable to handle the request)/i,
    );
  } finally {
    await undo();
  }
}

// --- The cases ---

describe("a Calico line change, by the real engine", function () {
  this.timeout(30 * 60_000);

  it("dev: an AdminNetworkPolicy stops the upgrade to v3.32.1 with calico-node untouched; once deleted, it rolls calico-node then Typha, and back Typha then calico-node", async function () {
    const c = await EngineCase.start("line change", {
      stack: "dev",
      config: { "eks-calico:calico.version": "v3.31.7" },
      // A pod is ready 2 s after it starts: a Typha replica stopped before its successor is ready leaves
      // a moment without one, which the Typha watch sees.
      podStartSeconds: 2,
    });
    try {
      await c.up("v3.31.7");
      const applied = c.cluster.kubectl(["apply", "-f", "-"], JSON.stringify(ADMIN_POLICY));
      assert.ok(applied.ok, applied.output);
      const before = calicoNode(c);
      assert.match(before.image, /:v3\.31\.7$/);

      c.engine.configure({ "eks-calico:calico.version": "v3.32.1" });
      // What the check cannot read fails the preview, naming the kind and the answer (not only `up`).
      await previewReportsUnreadable(c);
      assertRefused(await c.engine.run("preview"), "pulumi preview");
      const refused = await c.engine.run("up");
      assertRefused(refused, "pulumi up");
      // Default providers aside (the engine's own, engine-case.ts), no step changes anything.
      assert.deepEqual(engineChanges(refused.steps), {}, "nothing changed");
      assert.deepEqual(calicoNode(c), before, "calico-node untouched");

      const deleted = c.cluster.kubectl(["delete", "adminnetworkpolicy", ADMIN_POLICY.metadata.name]);
      assert.ok(deleted.ok, deleted.output);
      // A Calico policy the upgrade would move to another tier stops it too, until its spec.tier agrees.
      await refusesTierMove(c);
      const upgraded = await upInOrder(c, "v3.32.1", "calicoNode", "typha");
      assertSucceeded(upgraded, "the upgrade once the policy is gone");
      assert.match(calicoNode(c).image, /:v3\.32\.1$/);
      await c.kubectlAgrees("v3.32.1", upgraded);

      // Back to v3.31.7: Typha first, so each v3.32 Felix meets a v3.31 Typha, which keeps it.
      const rolledBack = await upInOrder(c, "v3.31.7", "typha", "calicoNode");
      assert.match(calicoNode(c).image, /:v3\.31\.7$/);
      await c.kubectlAgrees("v3.31.7", rolledBack);
    } finally {
      await c.stop();
    }
    assert.deepEqual(disagreements(), [], summary().join("\n"));
  });
});
