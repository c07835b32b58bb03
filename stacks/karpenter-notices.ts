/**
 * What Karpenter does to its nodes by itself, between updates, said in every plan that has it on: a pool
 * on an AMI alias `@latest` has its nodes replaced whenever AWS publishes a newer AMI (Karpenter's drift,
 * karpenter.sh "Disruption": "Drift"), within the pool's disruption budgets and with no `pulumi up`.
 */
import type { KarpenterConfig } from "./schema/karpenter";

export function karpenterNotices(karpenter: KarpenterConfig): string[] {
  if (!karpenter.enabled) return [];
  return Object.entries(karpenter.nodePools)
    .filter(([, pool]) => pool.amiAlias.endsWith("@latest"))
    .map(
      ([name, pool]) =>
        `karpenter.nodePools.${name}.amiAlias is ${pool.amiAlias}: Karpenter replaces the pool's nodes whenever AWS publishes a newer AMI, as its disruption budgets allow and with no pulumi up; pin a release (${pool.amiAlias.split("@")[0]}@v20261120) to move them only when it changes (docs/karpenter.md#ami-releases)`,
    );
}
