/**
 * Which Typha keeps which Felix (components/calico/typha-felix.ts) and the rollout order derived from it
 * (components/calico/rollout-order.ts). The expected answers are written here from projectcalico/calico
 * itself, not from the code: v3.32's Typha disconnects a client whose hello lacks SupportsModernPolicyKeys
 * (v3.32.1 typha/pkg/syncserver/sync_server.go doHandshake), which no v3.31 Felix sends (v3.31.7
 * typha/pkg/syncproto/sync_proto.go); a v3.32 Felix reads a v3.31 Typha's hello and its legacy policy
 * keys (v3.32.1 typha/pkg/syncclient/sync_client.go, libcalico-go/lib/backend/model/keys.go); within a line
 * the handshake does not change.
 */
import * as assert from "node:assert/strict";
import { SUPPORTED_CALICO_MINORS } from "../components/calico/defaults";
import { CALICO_RELEASES } from "../components/calico/releases";
import {
  type Keeps,
  type RolloutOrder,
  keepsFelixConnected,
  releasesThrough,
  rolloutOrder,
} from "../components/calico/rollout-order";
import { TYPHA_FELIX, typhaKeepsFelix } from "../components/calico/typha-felix";

const RELEASES = Object.values(CALICO_RELEASES).flat();
const lineOf = (release: string) => release.split(".").slice(0, 2).join(".");
const OTHER: Readonly<Record<RolloutOrder, RolloutOrder>> = {
  "typha-first": "calico-node-first",
  "calico-node-first": "typha-first",
};

describe("which Typha keeps which Felix connected", () => {
  it("has exactly one row for each pair of supported lines, each citing a tag of projectcalico/calico", () => {
    const pairs = SUPPORTED_CALICO_MINORS.flatMap((typha) =>
      SUPPORTED_CALICO_MINORS.map((felix) => `${typha}/${felix}`),
    );
    assert.deepEqual(TYPHA_FELIX.map((row) => `${row.typha}/${row.felix}`).sort(), pairs.sort());
    for (const row of TYPHA_FELIX) assert.match(row.source, /v3\.\d+\.\d+/, `${row.typha}/${row.felix}`);
  });

  it("says a v3.32 Typha disconnects a v3.31 Felix, and every other pair of releases connects", () => {
    for (const typha of RELEASES) {
      for (const felix of RELEASES) {
        const refused = lineOf(typha) === "v3.32" && lineOf(felix) === "v3.31";
        assert.equal(typhaKeepsFelix(typha, felix), !refused, `Typha ${typha}, Felix ${felix}`);
      }
    }
  });

  it("knows nothing of a line without rows", () => {
    assert.equal(typhaKeepsFelix("v3.30.4", "v3.31.7"), undefined);
    assert.equal(keepsFelixConnected("typha-first", "v3.30.4", "v3.31.7"), undefined);
  });
});

describe("the rollout order of a change of Calico release", () => {
  it("is Typha first for a first install of every release", () => {
    for (const release of RELEASES) assert.equal(rolloutOrder(undefined, release), "typha-first", release);
  });

  it("is calico-node first from v3.31 to v3.32, and Typha first for every other pair of releases", () => {
    for (const from of RELEASES) {
      for (const to of RELEASES) {
        const upgrade = lineOf(from) === "v3.31" && lineOf(to) === "v3.32";
        assert.equal(
          rolloutOrder(from, to),
          upgrade ? "calico-node-first" : "typha-first",
          `${from} → ${to}`,
        );
      }
    }
  });

  it("keeps every Felix connected, and a rollback needs the other order wherever only one works (every pair)", () => {
    for (const from of RELEASES) {
      for (const to of RELEASES) {
        const order = rolloutOrder(from, to);
        assert.ok(order !== undefined, `${from} → ${to} has an order`);
        assert.equal(keepsFelixConnected(order, from, to), true, `${from} → ${to}: ${order}`);
        if (keepsFelixConnected(OTHER[order], from, to) === false) {
          assert.equal(rolloutOrder(to, from), OTHER[order], `${to} → ${from} is rolled the other way`);
        }
      }
    }
  });

  it("takes only the orders allowed: an install that rolls Typha first cannot go from v3.31 to v3.32", () => {
    assert.equal(rolloutOrder("v3.31.7", "v3.32.1", ["typha-first"]), undefined);
    assert.equal(rolloutOrder("v3.32.1", "v3.31.7", ["typha-first"]), "typha-first");
    assert.equal(
      releasesThrough("v3.31.7", "v3.32.1", RELEASES, () => ["typha-first"]),
      undefined,
    );
  });
});

describe("the releases to go through when no order works", () => {
  // Three lines where each Typha keeps the Felix of its own line and the next, both ways, and line 1's and
  // line 3's refuse each other: from line 1 to line 3 no order works, through line 2 each step does.
  const keeps: Keeps = (typha, felix) =>
    Math.abs(Number(typha.split(".")[1]) - Number(felix.split(".")[1])) <= 1;
  const releases = ["v9.1.0", "v9.1.1", "v9.2.0", "v9.3.0"];

  it("names the fewest releases between, each step with an order", () => {
    assert.equal(rolloutOrder("v9.1.0", "v9.3.0", undefined, keeps), undefined);
    assert.deepEqual(releasesThrough("v9.1.0", "v9.3.0", releases, undefined, keeps), ["v9.2.0"]);
    assert.deepEqual(releasesThrough("v9.1.0", "v9.2.0", releases, undefined, keeps), []);
  });

  it("names none when no release leads there", () => {
    assert.equal(
      releasesThrough(
        "v9.1.0",
        "v9.3.0",
        releases.filter((r) => !r.startsWith("v9.2")),
        undefined,
        keeps,
      ),
      undefined,
    );
  });
});
