/**
 * NetworkPolicySpec and GlobalNetworkPolicySpec.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/networkpolicy.go and
 * globalnetworkpolicy.go at v3.31.7 and v3.32.1 (rules from policy_common.go, see policy-rules.ts).
 * Both lines have the same fields. v3.32.1 adds `+kubebuilder:validation:MinItems=1`, `MaxItems=2` and
 * `+listType=set` to `types` (3.32 only here), `+kubebuilder:validation:Enum` on PolicyType and
 * PolicyPerformanceHint (the sets v3.31.7 already checks with `validate:"policyType"` and
 * `validate:"...,oneof=AssumeNeededOnEveryNode"`, so both lines), `+kubebuilder:default=default` on
 * `tier`, rendered on 3.32 (a policy without a tier is in the default tier on both lines; 3.32 stores
 * it so, as upstream's manifest does), and GlobalNetworkPolicy `XValidation` rules, rendered on 3.32.
 */
import type { CalicoMinor } from "../defaults";
import {
  arrayOf,
  boolean,
  defaultedOn,
  listSetOn,
  number,
  object,
  onLine,
  string,
  stringEnum,
  validatedOn,
  type JsonSchema,
  type Validation,
} from "./schema";
import { POLICY_TYPES, rule } from "./policy-rules";

/** `type PolicyPerformanceHint string`: the one hint upstream defines. */
export const PERFORMANCE_HINTS = ["AssumeNeededOnEveryNode"] as const;

/** The fields NetworkPolicySpec and GlobalNetworkPolicySpec share, in networkpolicy.go's order. */
function commonPolicyFields(minor: CalicoMinor): Record<string, JsonSchema> {
  return {
    tier: defaultedOn(minor, "3.32", string(), "default"),
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

/** v3.32.1's XValidation rules on GlobalNetworkPolicySpec: how doNotTrack, preDNAT and applyOnForward combine. */
const GLOBAL_POLICY_VALIDATIONS: readonly Validation[] = [
  {
    rule: "!((has(self.doNotTrack) && self.doNotTrack) && (has(self.preDNAT) && self.preDNAT))",
    message: "preDNAT and doNotTrack cannot both be true",
    reason: "FieldValueForbidden",
  },
  {
    rule: "(!has(self.preDNAT) || !self.preDNAT) || !has(self.egress) || size(self.egress) == 0",
    message: "preDNAT policy cannot have any egress rules",
    reason: "FieldValueForbidden",
  },
  {
    rule: "(!has(self.preDNAT) || !self.preDNAT) || !has(self.types) || !self.types.exists(t, t == 'Egress')",
    message: "preDNAT policy cannot have 'Egress' type",
    reason: "FieldValueForbidden",
  },
  {
    rule: "(has(self.applyOnForward) && self.applyOnForward) || ((!has(self.doNotTrack) || !self.doNotTrack) && (!has(self.preDNAT) || !self.preDNAT))",
    message: "applyOnForward must be true if either preDNAT or doNotTrack is true",
    reason: "FieldValueInvalid",
  },
];

/** GlobalNetworkPolicySpec: the common fields plus the host-endpoint and namespace ones. */
export function globalNetworkPolicySpec(minor: CalicoMinor): JsonSchema {
  return validatedOn(
    minor,
    "3.32",
    object({
      ...commonPolicyFields(minor),
      doNotTrack: boolean(),
      preDNAT: boolean(),
      applyOnForward: boolean(),
      namespaceSelector: string(),
    }),
    GLOBAL_POLICY_VALIDATIONS,
  );
}
