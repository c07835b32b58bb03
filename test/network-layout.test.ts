/**
 * The per-AZ subnet slots: an AZ's CIDRs never depend on the AZ count, so adding AZs changes no existing
 * subnet; subnets never overlap and stay inside the VPC; AZs added beside deployed subnets outside their
 * slots take free blocks or find no room. The schema's size check follows the same layout.
 */
import * as assert from "node:assert/strict";
import { allocateZones, isSound, layoutOutput, newLayout } from "../components/network/layout";
import {
  MAX_ZONES,
  PRIVATE_SLOT_BITS,
  PUBLIC_SLOT_BITS,
  type SubnetPair,
  firstFreeBlock,
  parseCidr,
  planSubnets,
  slotPrefixes,
  zoneSlot,
} from "../components/network/subnets";
import { validateConfig } from "../stacks";
import { type RegionZones, type ZoneRequest } from "../stacks/zones";
import { networkLayout } from "../stacks/previous-network";
import { MAX_VPC_PREFIX, MIN_SUBNET_PREFIX } from "../stacks/schema/network";
import { readPage } from "./docs-pages";

const GROUP = { name: "general", minSize: 1, desiredSize: 1, maxSize: 3 };
const ZONES = ["us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d", "us-west-2e", "us-west-2f"];

/** A request for `count` AZs, none listed or left out (network.availabilityZones alone). */
const request = (count: number): ZoneRequest => ({ count, exclude: [] });
/** us-west-2's AZs as aws.getAvailabilityZones lists them, `offered` in state available. */
const usWest2 = (offered: readonly string[] = ZONES): RegionZones => ({
  region: "us-west-2",
  all: ZONES.map((name, i) => ({ name, id: `usw2-az${i + 1}` })),
  offered,
});

/** Each zone of `zones` with the subnets of `plan`, as a deployed stack keeps them. */
function keptOf(zones: readonly string[], plan: { private: string[]; public: string[] }) {
  return new Map<string, SubnetPair>(
    zones.map((zone, i) => [zone, { private: plan.private[i], public: plan.public[i] }]),
  );
}

function pairs(zones: readonly { private: string; public: string }[]): SubnetPair[] {
  return zones.map((z) => ({ private: z.private, public: z.public }));
}

describe("per-AZ subnet slots", () => {
  for (let prefix = 16; prefix <= MAX_VPC_PREFIX; prefix++) {
    const vpc = `10.${prefix}.0.0/${prefix}`;
    it(`in a /${prefix}: every count 2..${MAX_ZONES} keeps the earlier AZs' CIDRs, no overlaps, inside the VPC`, () => {
      for (let count = 2; count <= MAX_ZONES; count++) {
        const plan = planSubnets(vpc, count);
        assert.ok(isSound(vpc, [...keptOf(ZONES.slice(0, count), plan).values()]), `${vpc} x${count}`);
        if (count > 2) {
          const fewer = planSubnets(vpc, count - 1);
          assert.deepEqual(plan.private.slice(0, count - 1), fewer.private, `${vpc} x${count} private`);
          assert.deepEqual(plan.public.slice(0, count - 1), fewer.public, `${vpc} x${count} public`);
        }
        // A deployed stack adding AZs gets the same CIDRs as a new stack with that many.
        const added = allocateZones(
          vpc,
          ZONES.slice(0, count),
          keptOf(ZONES.slice(0, 2), planSubnets(vpc, 2)),
        );
        assert.ok("zones" in added);
        assert.deepEqual(added.zones, newLayout(vpc, ZONES.slice(0, count)).zones);
      }
      const sizes = slotPrefixes(prefix);
      assert.equal(parseCidr(zoneSlot(vpc, 0).private).prefix, sizes.private);
      assert.equal(parseCidr(zoneSlot(vpc, 0).public).prefix, sizes.public);
      assert.ok(sizes.public <= MIN_SUBNET_PREFIX, "every subnet is one AWS accepts");
    });
  }

  it("lays out a /16 as /19 private and /22 public subnets, leaving the last eighth free", () => {
    assert.deepEqual(slotPrefixes(16), { private: 19, public: 22 });
    assert.deepEqual(zoneSlot("10.0.0.0/16", 0), { private: "10.0.0.0/19", public: "10.0.192.0/22" });
    assert.deepEqual(zoneSlot("10.0.0.0/16", 5), { private: "10.0.160.0/19", public: "10.0.212.0/22" });
    const all = planSubnets("10.0.0.0/16", MAX_ZONES);
    assert.equal(firstFreeBlock("10.0.0.0/16", 19, [...all.private, ...all.public]), "10.0.224.0/19");
  });

  it("has no slot beyond the schema's AZ count", () => {
    assert.throws(() => zoneSlot("10.0.0.0/16", MAX_ZONES), /0 to 5/);
    assert.throws(() => planSubnets("10.0.0.0/16", MAX_ZONES + 1), /1 to 6/);
  });

  it("writes the layout as a JSON output listing the AZs in the order the stack uses them", () => {
    assert.deepEqual(layoutOutput(newLayout("10.0.0.0/16", ["us-west-2b", "us-west-2a"])), {
      cidr: "10.0.0.0/16",
      zones: [
        { zone: "us-west-2b", private: "10.0.0.0/19", public: "10.0.192.0/22" },
        { zone: "us-west-2a", private: "10.0.32.0/19", public: "10.0.196.0/22" },
      ],
      clusterZones: ["us-west-2b", "us-west-2a"],
      routes: "own",
    });
  });
});

describe("AZs added beside deployed subnets outside their slots", () => {
  // A `network` output whose subnets fill the VPC in equal blocks, private first.
  const quarters = { private: ["10.0.0.0/18", "10.0.64.0/18"], public: ["10.0.128.0/18", "10.0.192.0/18"] };
  const eighths = {
    private: ["10.20.0.0/19", "10.20.32.0/19", "10.20.64.0/19"],
    public: ["10.20.96.0/19", "10.20.128.0/19", "10.20.160.0/19"],
  };

  it("keeps the deployed subnets and puts a new AZ in the free blocks, overlapping nothing", () => {
    const kept = keptOf(ZONES.slice(0, 3), eighths);
    const result = allocateZones("10.20.0.0/16", ZONES.slice(0, 4), kept);
    assert.ok("zones" in result);
    assert.deepEqual(
      result.zones.slice(0, 3),
      [...kept].map(([zone, pair]) => ({ zone, ...pair })),
    );
    // Its own slot (10.20.96.0/19) is a deployed public subnet: the first free /19 and /22 instead.
    assert.deepEqual(result.zones[3], {
      zone: "us-west-2d",
      private: "10.20.192.0/19",
      public: "10.20.224.0/22",
    });
    assert.ok(isSound("10.20.0.0/16", pairs(result.zones)));
  });

  it("finds no room when the deployed subnets fill the VPC, and says what fills it", () => {
    const result = allocateZones("10.0.0.0/16", ZONES.slice(0, 3), keptOf(ZONES.slice(0, 2), quarters));
    assert.deepEqual(result, {
      noRoom: {
        zone: "us-west-2c",
        kind: "private",
        prefix: 19,
        taken: ["10.0.0.0/18", "10.0.64.0/18", "10.0.128.0/18", "10.0.192.0/18"],
      },
    });
    const five = allocateZones("10.20.0.0/16", ZONES.slice(0, 5), keptOf(ZONES.slice(0, 3), eighths));
    // Two more /19s fit (the free quarter), their two /22s no longer do.
    assert.ok("noRoom" in five);
    assert.deepEqual([five.noRoom.zone, five.noRoom.kind, five.noRoom.prefix], ["us-west-2d", "public", 22]);
  });
});

describe("the VPC size check: the schema's, from the slots", () => {
  const problems = (cidr: string, availabilityZones = 2) => {
    const result = validateConfig({ network: { cidr, availabilityZones }, nodeGroups: [GROUP] });
    return result.ok ? [] : result.problems.filter((p) => p.path === "network.cidr");
  };

  it(`lays out a /${MAX_VPC_PREFIX} with any AZ count: its public subnets are /${MIN_SUBNET_PREFIX}`, () => {
    assert.equal(MAX_VPC_PREFIX, 22);
    for (let zones = 2; zones <= MAX_ZONES; zones++) {
      assert.deepEqual(problems("10.0.0.0/22", zones), []);
      assert.ok("layout" in networkLayout("10.0.0.0/22", request(zones), usWest2(), {}), `x${zones}`);
    }
  });

  it("refuses a smaller VPC whatever the AZ count, with the size to use", () => {
    for (const zones of [2, 6]) {
      assert.deepEqual(
        problems("10.0.0.0/23", zones).map((p) => [p.value, p.rule, p.hint]),
        [
          [
            "10.0.0.0/23",
            "too small for the subnet layout: each AZ's public subnet is 1/64 of the VPC, a /29, and AWS's smallest subnet is a /28, so the VPC must be a /22 or larger",
            "use a /22 or larger, such as 10.0.0.0/16",
          ],
        ],
      );
    }
    // A /27's slots hold less than an address: no prefix to name.
    assert.deepEqual(
      problems("10.0.0.0/27").map((p) => p.rule),
      [
        "too small for the subnet layout: each AZ's public subnet is 1/64 of the VPC, and AWS's smallest subnet is a /28, so the VPC must be a /22 or larger",
      ],
    );
  });
});

describe("the docs state the layout the code computes", () => {
  const prose = (page: string) => readPage(page).replace(/\s+/g, " ");

  it("docs/stacks.md: the slot sizes and the /16 table", () => {
    const fractions: Record<number, string> = { 3: "one eighth", 6: "one sixty-fourth" };
    const text = prose("docs/stacks.md");
    assert.ok(text.includes(`is ${fractions[PRIVATE_SLOT_BITS]} of the VPC`), "private slot size");
    assert.ok(text.includes(`public subnet (NAT gateways, load balancers) ${fractions[PUBLIC_SLOT_BITS]}`));
    const rows = readPage("docs/stacks.md")
      .split("\n")
      .filter((line) => /^\| \d(st|nd|rd|th) /.test(line))
      .map((line) =>
        line
          .split("|")
          .slice(2, 4)
          .map((cell) => cell.trim().replaceAll("`", "")),
      );
    assert.deepEqual(
      rows,
      Array.from({ length: MAX_ZONES }, (_, i) => {
        const slot = zoneSlot("10.0.0.0/16", i);
        return [slot.private, slot.public];
      }),
    );
  });
});
