/**
 * The Felix cleanup's script (components/calico/felix-cleanup/script.ts), run against stand-ins for
 * `iptables-save`/`iptables-restore`, `nft` and `ipset`: the restore input it writes, applied to the saved
 * rules as the kernel would (./iptables-rules.ts), leaves every rule but Felix's.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { felixCleanupScript } from "../components/calico/felix-cleanup/script";
import { SAVED, WITHOUT_CALICO, applyRestore, parseSaved, render } from "./iptables-rules";

interface Run {
  status: number | null;
  output: string;
  /** Each stand-in call, `<command> <args>`, with what it read on stdin after it. */
  calls: string[];
  restored: Record<string, string>;
  cleaned: boolean;
}

/** A tool that fails: what it prints on stderr, and its exit status. */
interface Failure {
  error: string;
  status?: number;
}

/**
 * Runs the script with stand-ins on an otherwise empty PATH: `saves` maps an iptables variant to what its
 * `-save` prints (a variant not in it is not installed), or how it fails; `nftTables` the tables
 * `nft list tables` lists, or how it fails; `ipsets` what `ipset list -n` prints; `restoreFails` makes
 * every restore fail.
 */
function runScript(options: {
  saves: Record<string, string | Failure>;
  nftTables?: string[] | Failure;
  ipsets?: string[];
  restoreFails?: boolean;
}): Run {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "felix-cleanup-"));
  try {
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin);
    const log = path.join(dir, "calls");
    const stub = (name: string, body: string) =>
      fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho "${name} $*" >> ${log}\n${body}\n`, {
        mode: 0o755,
      });
    const fails = (failure: Failure) => `echo '${failure.error}' >&2\nexit ${failure.status ?? 1}`;
    for (const [variant, saved] of Object.entries(options.saves)) {
      const file = path.join(dir, `${variant}.saved`);
      if (typeof saved === "string") fs.writeFileSync(file, saved);
      stub(`${variant}-save`, typeof saved === "string" ? `/bin/cat ${file}` : fails(saved));
      stub(
        `${variant}-restore`,
        `/bin/cat > ${path.join(dir, `${variant}.restored`)}\nexit ${options.restoreFails ? 1 : 0}`,
      );
    }
    const tables = options.nftTables ?? [];
    const quoted = Array.isArray(tables) ? tables.map((t) => `'${t}'`) : [];
    stub(
      "nft",
      Array.isArray(tables)
        ? [
            'case "$1 $2" in',
            `  "list tables") ${quoted.length > 0 ? `printf 'table %s\\n' ${quoted.join(" ")}` : "true"}; exit 0 ;;`,
            `  "delete table") case "$3 $4" in ${quoted.length > 0 ? quoted.join("|") : "''"}) exit 0 ;; esac ;;`,
            "esac",
            "exit 1",
          ].join("\n")
        : fails(tables),
    );
    stub("ipset", `[ "$1" = list ] && printf '%s\\n' ${(options.ipsets ?? []).join(" ")}\nexit 0`);
    const marker = path.join(dir, "cleaned");
    const script = felixCleanupScript(marker).replace("while :; do", "while false; do");
    const result = spawnSync("/bin/sh", ["-c", script], { env: { PATH: bin }, encoding: "utf8" });
    const restored: Record<string, string> = {};
    for (const variant of Object.keys(options.saves)) {
      const file = path.join(dir, `${variant}.restored`);
      if (fs.existsSync(file)) restored[variant] = fs.readFileSync(file, "utf8");
    }
    return {
      status: result.status,
      output: `${result.stdout}${result.stderr}`,
      calls: fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [],
      restored,
      cleaned: fs.existsSync(marker),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("Felix cleanup: the script", () => {
  it("removes Felix's chains and jumps from every table and leaves every other rule as it was", () => {
    const run = runScript({ saves: { "iptables-legacy": SAVED, "iptables-nft": "" } });
    assert.equal(run.status, 0, run.output);
    assert.ok(run.cleaned, "the marker is written");
    assert.deepEqual(
      Object.keys(run.restored),
      ["iptables-legacy"],
      "nothing to restore where Felix wrote nothing",
    );
    assert.ok(run.calls.includes("iptables-legacy-restore --noflush --wait=10"), run.calls.join("\n"));
    const after = applyRestore(parseSaved(SAVED), run.restored["iptables-legacy"]);
    assert.equal(render(after), render(parseSaved(WITHOUT_CALICO)));
    assert.doesNotMatch(render(after), /cali/);
    // Still there: kube-proxy's and the VPC CNI's.
    assert.match(render(after), /-A POSTROUTING -m comment --comment "AWS SNAT CHAIN" -j AWS-SNAT-CHAIN-0/);
    assert.match(
      render(after),
      /-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD/,
    );
  });

  it("deletes the jumps in the built-in chains first, then flushes every cali- chain, then deletes them", () => {
    const run = runScript({ saves: { "iptables-nft": SAVED } });
    const filter = run.restored["iptables-nft"].split("*filter\n")[1].split("COMMIT")[0].trim().split("\n");
    assert.deepEqual(
      filter.map((l) => l.split(" ").slice(0, 2).join(" ")),
      [
        "-D INPUT",
        "-D FORWARD",
        "-D FORWARD",
        "-D OUTPUT",
        ...["-F", "-X"].flatMap((op) =>
          [
            "cali-FORWARD",
            "cali-INPUT",
            "cali-OUTPUT",
            "cali-from-wl-dispatch",
            "cali-to-wl-dispatch",
            "cali-fw-eni0a1b2c3d4e5",
            "cali-tw-eni0a1b2c3d4e5",
          ].map((c) => `${op} ${c}`),
        ),
      ],
    );
  });

  it("cleans both backends and both families, and skips a variant not installed or a family the kernel lacks", () => {
    // iptables-legacy-save on a kernel without ip6_tables prints no table and exits 0 (iptables v1.8.8
    // iptables/iptables-save.c for_each_table).
    const run = runScript({
      saves: { "iptables-legacy": SAVED, "iptables-nft": SAVED, "ip6tables-legacy": "" },
    });
    assert.equal(run.status, 0, run.output);
    assert.deepEqual(Object.keys(run.restored).sort(), ["iptables-legacy", "iptables-nft"]);
    assert.match(run.output, /ip6tables-legacy: no Calico rules/);
    assert.match(run.output, /ip6tables-nft: not installed/);
  });

  it("fails, leaving no marker, when a save or the nftables listing fails other than for a missing backend", () => {
    for (const [options, said] of [
      [
        {
          saves: {
            "iptables-legacy": {
              error: "iptables-save v1.8.8 (legacy): Cannot initialize: Permission denied",
            },
          },
        },
        "iptables-legacy: iptables-legacy-save failed: iptables-save v1.8.8 (legacy): Cannot initialize: Permission denied",
      ],
      [
        {
          saves: {
            "ip6tables-nft": {
              error: "ip6tables-nft-save/1.8.8 Failed to initialize nft: Operation not permitted",
            },
          },
        },
        "ip6tables-nft: ip6tables-nft-save failed: ip6tables-nft-save/1.8.8 Failed to initialize nft: Operation not permitted",
      ],
      [
        {
          saves: {},
          nftTables: { error: "netlink: Error: cache initialization failed: Operation not permitted" },
        },
        "nft: nft list tables failed: netlink: Error: cache initialization failed: Operation not permitted",
      ],
      // The nft backend's message on a legacy variant says nothing about the legacy backend.
      [
        { saves: { "iptables-legacy": { error: "Failed to initialize nft: Protocol not supported" } } },
        "iptables-legacy: iptables-legacy-save failed: Failed to initialize nft: Protocol not supported",
      ],
    ] as const) {
      const run = runScript(options);
      assert.equal(run.status, 1, run.output);
      assert.equal(run.cleaned, false, said);
      assert.ok(run.output.includes(`${said}\n`), run.output);
    }
  });

  it("skips a backend the kernel lacks: no nfnetlink, or nfnetlink without nf_tables", () => {
    const run = runScript({
      saves: {
        "iptables-legacy": SAVED,
        "iptables-nft": { error: "iptables-nft-save/1.8.8 Failed to initialize nft: Protocol not supported" },
      },
      nftTables: {
        error: "/builddir/src/mnl.c:68: Unable to initialize Netlink socket: Protocol not supported",
        status: 3,
      },
    });
    assert.equal(run.status, 0, run.output);
    assert.ok(run.cleaned);
    assert.match(run.output, /iptables-nft: the kernel lacks the backend \(.*Protocol not supported\)/);
    assert.match(run.output, /nft: the kernel lacks nftables/);
    const noTables = runScript({
      saves: {},
      nftTables: { error: "netlink: Error: cache initialization failed: Invalid argument" },
    });
    assert.equal(noTables.status, 0, noTables.output);
    assert.ok(noTables.cleaned);
  });

  it("deletes the nftables tables ip calico and ip6 calico where they exist", () => {
    const run = runScript({ saves: {}, nftTables: ["ip calico", "ip6 calico", "ip filter"] });
    assert.equal(run.status, 0, run.output);
    assert.deepEqual(
      run.calls.filter((c) => c.startsWith("nft delete")),
      ["nft delete table ip calico", "nft delete table ip6 calico"],
    );
    const only4 = runScript({ saves: {}, nftTables: ["ip calico"] });
    assert.deepEqual(
      only4.calls.filter((c) => c.startsWith("nft delete")),
      ["nft delete table ip calico"],
    );
  });

  it("destroys Felix's IP sets after the rules, and no other set", () => {
    const run = runScript({
      saves: { "iptables-legacy": SAVED },
      ipsets: [
        "cali40s:8bvd2yE7ebC3TtYtw-zRD1P",
        "cali4t-all-hosts",
        "cali60s:x",
        "KUBE-NODE-PORTS",
        "calico-not-ours",
      ],
    });
    assert.equal(run.status, 0, run.output);
    const order = run.calls.filter(
      (c) => c.startsWith("iptables-legacy-restore") || c.startsWith("ipset destroy"),
    );
    assert.deepEqual(order, [
      "iptables-legacy-restore --noflush --wait=10",
      "ipset destroy cali40s:8bvd2yE7ebC3TtYtw-zRD1P",
      "ipset destroy cali4t-all-hosts",
      "ipset destroy cali60s:x",
    ]);
  });

  it("leaves no marker and exits non-zero when a restore fails, so the container runs it again", () => {
    const run = runScript({ saves: { "iptables-legacy": SAVED }, restoreFails: true });
    assert.equal(run.status, 1);
    assert.equal(run.cleaned, false);
    assert.match(run.output, /iptables-legacy-restore failed/);
  });

  it("marks a node with nothing of Felix's clean without restoring anything", () => {
    const run = runScript({ saves: { "iptables-legacy": WITHOUT_CALICO, "iptables-nft": "" } });
    assert.equal(run.status, 0, run.output);
    assert.ok(run.cleaned);
    assert.deepEqual(run.restored, {});
  });
});
