/**
 * NetworkPolicySpec and GlobalNetworkPolicySpec.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/networkpolicy.go and
 * globalnetworkpolicy.go at v3.31.7 and v3.32.1 (rules from policy_common.go, see policy-rules.ts).
 * Both lines have the same fields. v3.32.1 adds `+kubebuilder:validation:MinItems=1`, `MaxItems=2` and
 * `+listType=set` to `types` (3.32 only here), `+kubebuilder:validation:Enum` on PolicyType and
 * PolicyPerformanceHint (the sets v3.31.7 already checks with `validate:"policyType"` and
 * `validate:"...,oneof=AssumeNeededOnEveryNode"`, so both lines), and `+kubebuilder:default=default` on
 * `tier` and GlobalNetworkPolicy `XValidation` rules, which are not rendered (a default would rewrite
 * stored objects; the CEL rules restate checks Calico makes itself).
 */
import type { CalicoMinor } from "../defaults";
import {
  arrayOf,
  boolean,
  listSetOn,
  number,
  object,
  onLine,
  string,
  stringEnum,
  type JsonSchema,
} from "./schema";
import { POLICY_TYPES, rule } from "./policy-rules";

/** `type PolicyPerformanceHint string`: the one hint upstream defines. */
export const PERFORMANCE_HINTS = ["AssumeNeededOnEveryNode"] as const;

/** The fields NetworkPolicySpec and GlobalNetworkPolicySpec share, in networkpolicy.go's order. */
function commonPolicyFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return {
    tier: string(),
    // *float64: a policy's place within its tier; fractional orders are allowed.
    order: number(),
    ingress: arrayOf(rule(minor)),
    egress: arrayOf(rule(minor)),
    selector: string(),
    types: arrayOf(stringEnum(POLICY_TYPES), {
      ...onLine(minor, "3.32", { minItems: 1, maxItems: 2 }),
      ...listSetOn(minor, "3.32"),
    }),
    serviceAccountSelector: string(),
    performanceHints: arrayOf(stringEnum(PERFORMANCE_HINTS)),
  };
}

/** NetworkPolicySpec (namespaced). */
export function networkPolicySpec(minor: CalicoMinor): JsonSchema {
  return object(commonPolicyFields(minor));
}

/** GlobalNetworkPolicySpec: the common fields plus the host-endpoint and namespace ones. */
export function globalNetworkPolicySpec(minor: CalicoMinor): JsonSchema {
  return object({
    ...commonPolicyFields(minor),
    doNotTrack: boolean(),
    preDNAT: boolean(),
    applyOnForward: boolean(),
    namespaceSelector: string(),
  });
}
