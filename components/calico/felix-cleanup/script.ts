/**
 * The shell script a calico-node pod runs instead of Felix when Calico is removed (./index.ts): it takes
 * Felix's rules off its node, then marks the node clean for the pod's readiness probe. Felix never removes
 * its rules when it stops, and they drop what they do not know: traffic on the VPC CNI's `eni+`
 * interfaces goes to the workload dispatch chains, which end in a drop for an unknown interface
 * (projectcalico/calico v3.31.7 felix/rules/static.go StaticFilterForwardChains, felix/rules/dispatch.go
 * "Unknown interface"; projectcalico/calico#5100, aws/amazon-vpc-cni-k8s#589), so every pod started on the
 * node afterwards would have no network.
 *
 * Plain POSIX sh with its builtins only, and the binaries the calico/node image installs: iptables-legacy
 * and iptables-nft (both backends' `ip[6]tables-<backend>-save/-restore`), ipset and nft
 * (projectcalico/calico v3.31.7 node/Dockerfile.amd64: the iptables-legacy, iptables-nft and ipset RPMs
 * and the patched nftables RPM). A binary that is missing, or a backend the kernel lacks, is skipped; any
 * other failure to read the rules fails the run, as a failure to remove them does.
 */

/** The directory of the marker: an emptyDir, so the marker dies with the pod. */
export const CLEANUP_DIR = "/felix-cleanup";

/** Where the script leaves its marker once the node is clean; the readiness probe tests for it. */
export const CLEANED_MARKER = `${CLEANUP_DIR}/cleaned`;

/**
 * Every iptables variant Felix may have programmed. Felix picks one backend (legacy or nft) by what the
 * host already uses, or FELIX_IPTABLESBACKEND (felix/environment/feature_detect_linux.go DetectBackend,
 * v3.31.7), and runs `ip[6]tables-<backend>-save/-restore` (FindBestBinary there): the script cleans both
 * backends and both families rather than repeat the detection; one Felix never used has nothing of it.
 */
export const IPTABLES_VARIANTS = ["iptables-legacy", "iptables-nft", "ip6tables-legacy", "ip6tables-nft"];

/**
 * What each tool prints when the kernel lacks its backend, so there is nothing of Felix's to clean; any
 * other failure of the tool is a failure of the cleanup. A kernel lacking a netlink family refuses the
 * socket with EPROTONOSUPPORT, "Protocol not supported" (linux net/netlink/af_netlink.c netlink_create);
 * one with nfnetlink but no nf_tables answers a request for it with EINVAL, "Invalid argument" (linux
 * net/netfilter/nfnetlink.c nfnetlink_rcv_msg: no such subsystem).
 * - `iptables-legacy-save`: nothing. It prints no table and exits 0 when the kernel lacks the family's
 *   x_tables (iptables v1.8.8, the calico/node image's, iptables/iptables-save.c for_each_table: ENOENT on
 *   /proc/net/ip_tables_names is success), so each of its failures is one.
 * - `iptables-nft-save`: it fails only when the nfnetlink socket does not open (iptables v1.8.8
 *   iptables/xtables-save.c xtables_save_main, "Failed to initialize nft: %s"); without nf_tables it
 *   prints no table and exits 0 (iptables/nft-cache.c fetch_table_cache ignores the error).
 * - `nft list tables`: no nfnetlink socket (nftables v1.1.1, the calico/node image's, src/mnl.c
 *   nft_mnl_socket_open, src/netlink.c __netlink_init_error "Unable to initialize Netlink socket: %s"), or
 *   no nf_tables (src/cache.c nft_cache_update "cache initialization failed: %s").
 */
export const KERNEL_LACKS_BACKEND = {
  "iptables-legacy": [],
  "iptables-nft": ["Failed to initialize nft: Protocol not supported"],
  nft: [
    "Unable to initialize Netlink socket: Protocol not supported",
    "cache initialization failed: Invalid argument",
  ],
} as const;

/** A `case` pattern matching a message that says the kernel lacks `backend`, after `prefix`. */
function lacksPattern(backend: keyof typeof KERNEL_LACKS_BACKEND, prefix = ""): string {
  return KERNEL_LACKS_BACKEND[backend].map((m) => `${prefix}*"${m}"*`).join("|");
}

/**
 * The nftables tables of Felix's nftables mode: table `calico` in family `ip` and `ip6`
 * (felix/dataplane/linux/int_dataplane.go `nftables.NewTable("calico", 4|6, ...)`; felix/nftables/table.go
 * NewTable maps 4 and 6 to knftables.IPv4Family and IPv6Family, "ip" and "ip6" in sigs.k8s.io/knftables
 * v0.0.21). Their sets and maps go with them.
 */
export const NFT_TABLES = [
  { family: "ip", name: "calico" },
  { family: "ip6", name: "calico" },
] as const;

/**
 * The prefixes of Felix's IP sets in iptables mode: `cali` + the IP version (felix/ipsets/ipset_defs.go
 * IPSetNamePrefix and NewIPVersionConfig: main sets `cali40`/`cali60`, temporary `cali4t`/`cali6t`).
 * Destroyed last: the kernel refuses to destroy a set an iptables rule still uses.
 */
export const IPSET_PREFIXES = ["cali4", "cali6"];

/**
 * A sh function reading `ip[6]tables-save` output and writing `ip[6]tables-restore --noflush` input that
 * removes Calico's rules and nothing else, table by table:
 * - `-D` for each rule in another chain that jumps (or goes) to a `cali-` chain or carries Felix's rule
 *   comment `cali:<hash>`: the jumps Felix inserts into the built-in chains (int_dataplane.go
 *   setUpIptablesNormal, InsertOrAppendRules into INPUT, FORWARD, OUTPUT, PREROUTING and POSTROUTING of
 *   the raw, mangle, nat and filter tables; felix/rules/rule_defs.go RuleHashPrefix "cali:");
 * - `-F`, then `-X`, for each chain named `cali-*` (rule_defs.go ChainNamePrefix): all flushed before any
 *   is deleted, since they jump to each other.
 * `--noflush` leaves every other chain as it is, so rules kube-proxy or the VPC CNI write meanwhile stay.
 */
const CALICO_RULES_FUNCTION = `calico_rules() {
  table=""; deletes=""; flushes=""; removals=""
  while IFS= read -r line; do
    case "$line" in
      "*"*) table=\${line#?}; deletes=""; flushes=""; removals="" ;;
      ":cali-"*) chain=\${line#?}; chain=\${chain%% *}
        flushes="\${flushes}-F \${chain}
"
        removals="\${removals}-X \${chain}
" ;;
      "-A cali-"*) ;;
      "-A "*) case "$line" in
        *" -j cali-"*|*" -g cali-"*|*'--comment "cali:'*|*"--comment cali:"*) deletes="\${deletes}-D \${line#-A }
" ;;
      esac ;;
      COMMIT) if [ -n "\${deletes}\${flushes}" ]; then
          printf '*%s\\n%s%s%sCOMMIT\\n' "$table" "$deletes" "$flushes" "$removals"
        fi ;;
    esac
  done
}`;

/**
 * A sh function cleaning one iptables variant (`$1`, e.g. iptables-nft); sets `failed` on a failure. A
 * failed save runs once more for its message, kept apart from the rules on stdout: the kernel lacking the
 * backend leaves nothing to clean, anything else is a failure.
 */
const CLEAN_IPTABLES_FUNCTION = `clean_iptables() {
  if ! command -v "$1-save" >/dev/null 2>&1; then echo "$1: not installed, nothing to clean"; return 0; fi
  if ! saved=$("$1-save" 2>/dev/null); then
    why=$("$1-save" 2>&1 >/dev/null)
    case "$1:$why" in
      ${lacksPattern("iptables-nft", "*-nft:")}) echo "$1: the kernel lacks the backend ($why), nothing to clean"; return 0 ;;
    esac
    echo "$1: $1-save failed: $why"; failed=1; return 0
  fi
  input=$(printf '%s\\n' "$saved" | calico_rules)
  if [ -z "$input" ]; then echo "$1: no Calico rules"; return 0; fi
  if printf '%s\\n' "$input" | "$1-restore" --noflush --wait=10; then
    echo "$1: removed Calico's chains and the jumps to them"
  else
    echo "$1: $1-restore failed"; failed=1
  fi
}`;

/**
 * A sh function deleting Felix's nftables tables: it lists every table once (`table <family> <name>` a line,
 * nftables v1.1.1 src/rule.c do_list_tables) and deletes those of NFT_TABLES it finds. A failed listing is a
 * failure unless the kernel lacks nftables.
 */
function cleanNftFunction(): string {
  const deletes = NFT_TABLES.map(
    (t) => `  case "$tables" in *"
table ${t.family} ${t.name}
"*) if nft delete table ${t.family} ${t.name}; then echo "nft: deleted table ${t.family} ${t.name}"; else failed=1; fi ;;
  esac`,
  ).join("\n");
  return `clean_nft() {
  if ! command -v nft >/dev/null 2>&1; then echo "nft: not installed, nothing to clean"; return 0; fi
  if ! tables=$(nft list tables 2>/dev/null); then
    why=$(nft list tables 2>&1 >/dev/null)
    case "$why" in
      ${lacksPattern("nft")}) echo "nft: the kernel lacks nftables ($why), nothing to clean"; return 0 ;;
    esac
    echo "nft: nft list tables failed: $why"; failed=1; return 0
  fi
  tables="
$tables
"
${deletes}
}`;
}

/**
 * The script: both iptables backends for IPv4 and IPv6, the nftables tables, then the IP sets; the marker
 * only when every step succeeded (a failure exits, the kubelet restarts the container, and the script runs
 * again: each step is idempotent). Then it waits, ending at once on SIGTERM (it holds no state).
 */
export function felixCleanupScript(marker: string = CLEANED_MARKER): string {
  const ipsets = IPSET_PREFIXES.map((p) => `${p}*`).join("|");
  return `set -u
failed=0
${CALICO_RULES_FUNCTION}
${CLEAN_IPTABLES_FUNCTION}
${cleanNftFunction()}
${IPTABLES_VARIANTS.map((v) => `clean_iptables ${v}`).join("\n")}
clean_nft
if command -v ipset >/dev/null 2>&1; then
  for set in $(ipset list -n 2>/dev/null); do
    case "$set" in
      ${ipsets}) if ipset destroy "$set"; then echo "ipset: destroyed $set"; else failed=1; fi ;;
    esac
  done
fi
if [ "$failed" -ne 0 ]; then echo "Calico's rules are not all removed; retrying after a restart"; exit 1; fi
: > ${marker}
echo "Calico's rules are removed from this node"
trap 'exit 0' TERM
while :; do sleep 3600 & wait $!; done
`;
}
