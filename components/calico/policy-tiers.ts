/**
 * Which tier a Calico policy lands in on each line, and the policies a change of line would move.
 *
 * Felix orders policy by tier, and each line reads a stored policy's tier from another field:
 * - v3.31.7 from its name. The syncer keys each policy by the object's metadata.name as stored
 *   (libcalico-go/lib/backend/k8s/resources/customresource.go convertResourceToKVPair) and takes the tier
 *   with names.TierFromPolicyName (libcalico-go/lib/names/policy.go): a few fixed prefixes, else the text
 *   before the first dot, else `default` (syncersv1/updateprocessors/networkpolicyprocessor.go,
 *   globalnetworkpolicyprocessor.go, stagednetworkpolicyprocessor.go, stagedglobalnetworkpolicyprocessor.go);
 * - v3.32.1 from `spec.tier`, `default` when empty (the same processors' `tierOrDefault(spec.Tier)`; the
 *   staged kinds copy their spec onto the enforced kind first, api/pkg/apis/projectcalico/v3
 *   stagednetworkpolicy.go ConvertStagedPolicyToEnforced). The name plays no part: v3.32.0 dropped the
 *   `<tier>.` naming rule (release-notes/v3.32.0-release-notes.md, #11232).
 * The Calico API writes both fields alike, but in policy-only mode there is no Calico API server: policies are
 * crd.projectcalico.org/v1 objects written with kubectl, and nothing checks that the two agree. One whose
 * name prefix and spec.tier disagree changes tier with the line, and so changes what traffic it decides.
 */
import { CALICO_CRD_KINDS, type CrdKind } from "./crds";
import type { CalicoMinor } from "./defaults";
import type { Installer } from "./operator/settings";

/** The tier of a policy that names none, on both lines (names.DefaultTierName). */
export const DEFAULT_TIER = "default";

/** How a line takes a stored policy's tier, and where upstream says so. */
export type TierRule =
  | {
      readonly from: "name";
      /** Names that start so are in a fixed tier, checked in this order before the first dot. */
      readonly fixedPrefixes: readonly { readonly prefix: string; readonly tier: string }[];
      readonly source: string;
    }
  | { readonly from: "spec.tier"; readonly source: string };

export const POLICY_TIER_RULES: Readonly<Record<CalicoMinor, TierRule>> = {
  "3.31": {
    from: "name",
    fixedPrefixes: [
      { prefix: "knp.default.", tier: "default" },
      { prefix: "kanp.adminnetworkpolicy.", tier: "adminnetworkpolicy" },
      { prefix: "kbanp.baselineadminnetworkpolicy.", tier: "baselineadminnetworkpolicy" },
      { prefix: "ossg.", tier: "default" },
    ],
    source:
      "projectcalico/calico v3.31.7 libcalico-go/lib/names/policy.go TierFromPolicyName, applied to metadata.name by syncersv1/updateprocessors/*networkpolicyprocessor.go",
  },
  "3.32": {
    from: "spec.tier",
    source:
      "projectcalico/calico v3.32.1 libcalico-go/lib/backend/syncersv1/updateprocessors/networkpolicyprocessor.go and globalnetworkpolicyprocessor.go, Tier: tierOrDefault(spec.Tier)",
  },
};

/**
 * The Calico kinds that carry a tier. StagedKubernetesNetworkPolicy is in `default` on both lines: v3.31.7
 * names it `knp.default.<name>` (stagedkubernetesnetworkpolicyprocessor.go), v3.32.1 converts it to a
 * NetworkPolicy with Tier default (libcalico-go/lib/backend/k8s/conversion/conversion.go).
 */
export const TIERED_POLICY_KINDS: readonly CrdKind[] = [
  "NetworkPolicy",
  "GlobalNetworkPolicy",
  "StagedNetworkPolicy",
  "StagedGlobalNetworkPolicy",
].map((kind) => {
  const found = CALICO_CRD_KINDS.find((k) => k.kind === kind);
  if (found === undefined) throw new Error(`no CRD kind ${kind}`);
  return found;
});

/**
 * A tier an installer's release of a line stops using, though it stays in the cluster while policies are
 * in it. Its policies keep the tier, but what the installer put beside them has moved to `successor`.
 */
export interface RetiredTier {
  readonly installer: Installer;
  readonly line: CalicoMinor;
  readonly tier: string;
  readonly successor: string;
  /** The successor's order, as the installer creates it. */
  readonly successorOrder: number;
  /** Who retires it, as the refusal names it. */
  readonly by: string;
  readonly source: string;
}

export const RETIRED_TIERS: readonly RetiredTier[] = [
  {
    installer: "operator",
    line: "3.32",
    tier: "allow-tigera",
    successor: "calico-system",
    successorOrder: 100,
    by: "the Tigera operator of v3.32 (v1.42.0 and v1.42.3)",
    source:
      "tigera/operator v1.42.3 pkg/render/tiers/tiers.go (creates Tier calico-system, order 100, for its policies) and pkg/controller/tiers/tiers_controller.go (deletes Tier allow-tigera, which the Calico API server refuses while a policy is in it: projectcalico/calico v3.32.1 libcalico-go/lib/clientv3/tier.go Delete); projectcalico/calico release-notes/v3.32.0-release-notes.md: custom policies in allow-tigera must be updated to reference calico-system",
  },
];

/** A stored policy as the check lists it: the fields a line reads its tier from. */
export interface StoredPolicy {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly { readonly apiVersion?: string }[];
  };
  readonly spec?: { readonly tier?: string };
}

/** The tier line `line` puts `policy` in (the rules above). */
export function tierOn(line: CalicoMinor, policy: StoredPolicy): string {
  const rule = POLICY_TIER_RULES[line];
  if (rule.from === "spec.tier") {
    const tier = policy.spec?.tier;
    return tier === undefined || tier === "" ? DEFAULT_TIER : tier;
  }
  const name = policy.metadata.name;
  const fixed = rule.fixedPrefixes.find((p) => name.startsWith(p.prefix));
  if (fixed !== undefined) return fixed.tier;
  const dot = name.indexOf(".");
  return dot === -1 ? DEFAULT_TIER : name.slice(0, dot);
}

/**
 * Whether the operator made `policy`: it owns what it creates (tigera/operator pkg/controller/utils/component.go
 * SetControllerReference). Written through the Calico API server, the owners are kept in the
 * `projectcalico.org/metadata` annotation (libcalico-go/lib/backend/k8s/resources/resources.go).
 */
export function ownedByOperator(policy: StoredPolicy): boolean {
  const annotation = policy.metadata.annotations?.["projectcalico.org/metadata"];
  let stored: StoredPolicy["metadata"]["ownerReferences"] = [];
  try {
    stored = (JSON.parse(annotation ?? "{}") as StoredPolicy["metadata"]).ownerReferences ?? [];
  } catch {
    // Not JSON: no owners recorded there.
  }
  return [...(policy.metadata.ownerReferences ?? []), ...stored].some((ref) =>
    (ref.apiVersion ?? "").startsWith("operator.tigera.io/"),
  );
}

/** A policy whose tier a change of line changes, or leaves in a tier the new install retires. */
export interface TierMove {
  readonly kind: string;
  /** `namespace/name`, or the name of a cluster-wide kind. */
  readonly name: string;
  /** Its tier on the deployed line (undefined on a first install, where no line enforced it). */
  readonly from?: string;
  readonly to: string;
  /** Set when `to` is a tier the new install retires. */
  readonly retired?: RetiredTier;
  /** What keeps it in its tier (or, from a retired one, moves it where both lines agree). */
  readonly fix: string;
}

/** A name `line` puts in `tier`: `<tier>.<name>`, unless a fixed prefix of the line gets in the way. */
function nameIn(line: CalicoMinor, tier: string, name: string): string {
  const renamed = `${tier}.${name}`;
  return tierOn(line, { metadata: { name: renamed } }) === tier ? renamed : `<a name starting ${tier}.>`;
}

/** How to keep `policy` in `tier` on `line`. */
function keepIn(line: CalicoMinor, tier: string, policy: StoredPolicy): string {
  if (POLICY_TIER_RULES[line].from === "spec.tier") return `set spec.tier: ${tier}`;
  return `create it again named ${nameIn(line, tier, policy.metadata.name)} and delete this one (a name cannot change)`;
}

/** How to move `policy` out of the retired tier, in a way both lines read alike. */
function leave(retired: RetiredTier, policy: StoredPolicy): string {
  const name = policy.metadata.name;
  const base = name.startsWith(`${retired.tier}.`) ? name.slice(retired.tier.length + 1) : name;
  return `create it again as ${retired.successor}.${base} with spec.tier: ${retired.successor} and delete this one, after creating the Tier ${retired.successor} (order ${retired.successorOrder}, as the operator makes it) if it does not exist; or do the same with a tier of your own`;
}

/**
 * The policies of `kind` that line `to` (installed by `installer`) puts in another tier than line `from`
 * does, or leaves in a tier `installer` retires on `to` (the operator's own policies aside: it moves them
 * itself). `from` undefined: a first install, where only the retired tiers count.
 */
export function tierMoves(
  kind: string,
  policies: readonly StoredPolicy[],
  from: CalicoMinor | undefined,
  to: CalicoMinor,
  installer: Installer,
): TierMove[] {
  const moves: TierMove[] = [];
  for (const policy of policies) {
    const name = [policy.metadata.namespace, policy.metadata.name].filter(Boolean).join("/");
    const was = from === undefined ? undefined : tierOn(from, policy);
    const lands = tierOn(to, policy);
    const retired = RETIRED_TIERS.find((r) => r.installer === installer && r.line === to && r.tier === lands);
    if (was !== undefined && was !== lands) {
      moves.push({ kind, name, from: was, to: lands, fix: keepIn(to, was, policy) });
    } else if (retired !== undefined && !ownedByOperator(policy)) {
      moves.push({ kind, name, from: was, to: lands, retired, fix: leave(retired, policy) });
    }
  }
  return moves;
}

/** Where `move` goes, in words, and the fix. */
function describeMove(move: TierMove, from: CalicoMinor | undefined, to: CalicoMinor): string {
  const where =
    move.retired === undefined
      ? `tier ${move.from} on v${from}, tier ${move.to} on v${to}`
      : `stays in tier ${move.to}, which ${move.retired.by} no longer uses: its own policies moved to tier ${move.retired.successor}`;
  return `  - ${move.kind} ${move.name}: ${where}; ${move.fix}`;
}

/** How line `line` reads a policy's tier, in words. */
export function tierRuleText(line: CalicoMinor): string {
  return POLICY_TIER_RULES[line].from === "name" ? "the prefix of its name" : "its spec.tier";
}

/** The refusal of a change from line `from` to `to` while `moves` exist, naming each and its fix. */
export function tierRefusal(
  from: CalicoMinor | undefined,
  to: CalicoMinor,
  moves: readonly TierMove[],
): string {
  const kinds = [...new Set(moves.map((m) => m.kind))];
  const resources = TIERED_POLICY_KINDS.filter((k) => kinds.includes(k.kind))
    .map((k) => `${k.plural}.${k.group}`)
    .join(",");
  const lines = moves.some((m) => m.retired === undefined) && from !== undefined ? [from, to] : [];
  const reasons = [
    ...lines.map(
      (l) => `v${l} takes a policy's tier from ${tierRuleText(l)} (${POLICY_TIER_RULES[l].source})`,
    ),
    ...new Set(moves.flatMap((m) => (m.retired === undefined ? [] : [m.retired.source]))),
  ];
  const one = moves.length === 1;
  return [
    `calico.version: on Calico v${to}, ${moves.length} Calico ${one ? "policy" : "policies"} would no longer be evaluated where ${one ? "it is" : "they are"} now (${reasons.join("; ")}). Nothing was changed; calico-node runs as before. Each one:`,
    ...moves.map((m) => describeMove(m, from, to)),
    `Fix each (\`kubectl get ${resources} -A -o yaml\` shows them), then run \`pulumi up\` again (docs/operating-calico.md, "Upgrading Calico").`,
  ].join("\n");
}
