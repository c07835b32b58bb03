/**
 * What a change of Calico line does to the cluster's policies. Felix reads policy through its syncer, and
 * each line lists its own set of the upstream network-policy-api kinds (policy.networking.k8s.io):
 * - v3.31.7 lists AdminNetworkPolicy and BaselineAdminNetworkPolicy (projectcalico/calico v3.31.7
 *   libcalico-go/lib/backend/syncersv1/felixsyncer/felixsyncerv1.go, KindKubernetesAdminNetworkPolicy and
 *   KindKubernetesBaselineAdminNetworkPolicy);
 * - v3.32.1 lists ClusterNetworkPolicy only (same file at v3.32.1, KindKubernetesClusterNetworkPolicy), and
 *   v3.32.0's release notes say "Existing ANP and BANP resources must be removed or rewritten as
 *   `ClusterNetworkPolicy` before upgrading to v3.32, since v3.32 and newer will no longer enforce them"
 *   (release-notes/v3.32.0-release-notes.md).
 * The objects of a kind the new line does not list stay in the cluster (their CRDs are retained) and
 * nothing applies them: cluster-wide deny rules stop silently. So a line change refuses while any exists.
 * The kinds each line enforces are crds.ts KUBERNETES_POLICY_CRD_KINDS; this file adds the way forward.
 */
import { type CrdKind, KUBERNETES_POLICY_CRD_KINDS } from "./crds";
import { type CalicoMinor, SUPPORTED_CALICO_MINORS } from "./defaults";
import type { Installer } from "./operator/settings";
import { RETIRED_TIERS, tierRuleText } from "./policy-tiers";

/** A kind of policy object, as the API lists it: `/apis/<group>/<version>/<plural>` (cluster-scoped). */
export interface PolicyKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

/** Per line: what it enforces instead of the kinds it does not (the rewrite a refusal asks for), and why. */
export const LINE_POLICY_NOTES: Readonly<Record<CalicoMinor, { rewriteAs: string; source: string }>> = {
  "3.31": {
    rewriteAs:
      "an AdminNetworkPolicy or BaselineAdminNetworkPolicy (policy.networking.k8s.io/v1alpha1), or a Calico GlobalNetworkPolicy",
    source:
      "projectcalico/calico v3.31.7 felixsyncerv1.go lists AdminNetworkPolicy and BaselineAdminNetworkPolicy, no ClusterNetworkPolicy",
  },
  "3.32": {
    rewriteAs:
      "a ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2): `tier: Admin` for an AdminNetworkPolicy, `tier: Baseline` for a BaselineAdminNetworkPolicy",
    source:
      "projectcalico/calico release-notes/v3.32.0-release-notes.md: Existing ANP and BANP resources must be removed or rewritten as ClusterNetworkPolicy before upgrading to v3.32",
  },
};

const asPolicyKind = ({ group, version, kind, plural }: CrdKind): PolicyKind => ({
  group,
  version,
  kind,
  plural,
});

/** The upstream policy kinds another supported line enforces and `line` does not. */
export function unenforcedPolicyKinds(line: CalicoMinor): PolicyKind[] {
  const enforced = new Set(KUBERNETES_POLICY_CRD_KINDS[line].map((k) => `${k.plural}.${k.group}`));
  const seen = new Set<string>();
  return SUPPORTED_CALICO_MINORS.flatMap((other) => KUBERNETES_POLICY_CRD_KINDS[other])
    .filter((k) => !enforced.has(`${k.plural}.${k.group}`))
    .filter((k) => !seen.has(`${k.plural}.${k.group}`) && seen.add(`${k.plural}.${k.group}`))
    .map(asPolicyKind);
}

/** The API path that lists every object of `kind` (all cluster-scoped). */
export function policyListPath(kind: PolicyKind): string {
  return `/apis/${kind.group}/${kind.version}/${kind.plural}`;
}

/** An object found of a kind the target line does not enforce. */
export interface UnenforcedPolicy {
  readonly kind: string;
  readonly name: string;
}

/** The refusal of an install of line `line` while `found` exist, naming each and the way on. */
export function lineRefusal(line: CalicoMinor, found: readonly UnenforcedPolicy[]): string {
  const kinds = [...new Set(found.map((p) => p.kind))];
  const plurals = unenforcedPolicyKinds(line)
    .filter((k) => kinds.includes(k.kind))
    .map((k) => k.plural)
    .join(",");
  return [
    `calico.version: Calico v${line} does not enforce ${kinds.join(" or ")}, and the cluster has ${found.length} (${LINE_POLICY_NOTES[line].source}). Nothing was changed; calico-node runs as before. Each of these would stop applying:`,
    ...found.map((p) => `  - ${p.kind} ${p.name}`),
    `Rewrite each as ${LINE_POLICY_NOTES[line].rewriteAs}, delete the old ones (\`kubectl get ${plurals} -o yaml\` shows them), then run \`pulumi up\` again (docs/operating-calico.md, "Upgrading Calico").`,
  ].join("\n");
}

/**
 * The notice for an update that moves the deployed Calico (version `from`) to another line: said by every
 * preview, offline plan and `up`, since only the cluster knows whether such objects exist.
 */
export function lineChangeNotice(
  from: string,
  fromLine: string,
  to: string,
  toLine: CalicoMinor,
  installer: Installer,
) {
  if (fromLine === toLine) return undefined;
  const kinds = unenforcedPolicyKinds(toLine).map((k) => k.kind);
  const rules = (SUPPORTED_CALICO_MINORS as readonly string[]).includes(fromLine)
    ? ` (v${fromLine} takes it from ${tierRuleText(fromLine as CalicoMinor)}, v${toLine} from ${tierRuleText(toLine)})`
    : "";
  const retired = RETIRED_TIERS.filter((r) => r.installer === installer && r.line === toLine).map(
    (r) => `, or stays in tier ${r.tier}, which ${r.by} no longer uses`,
  );
  return `calico.version moves Calico from ${from} to ${to}, another line: ${to} does not enforce ${kinds.join(" or ")}. Before any Calico object changes, the update lists them in the cluster (step calico-line-check) and refuses while any exists, or while a Calico policy would change tier${rules}${retired.join("")}.`;
}
