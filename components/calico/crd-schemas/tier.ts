/**
 * TierSpec: where a tier sits among tiers and what happens to traffic no policy in it decides.
 *
 * Written from projectcalico/calico api/pkg/apis/projectcalico/v3/tier.go at v3.31.7 and v3.32.1. Both
 * lines: `order *float64`, `defaultAction *Action` with `+kubebuilder:validation:Enum=Pass;Deny`. v3.32.1
 * adds `+kubebuilder:default=Deny`, rendered on 3.32 (a Tier written without an action, the `default`
 * tier too, gets Deny, as upstream's manifest gives it), a status (conditions, kept as given like every
 * other kind's), and `XValidation` rules on the Tier object, rendered on 3.32.
 */
import type { CalicoMinor } from "../defaults";
import { defaultedOn, number, object, stringEnum, type JsonSchema, type Validation } from "./schema";

/** `+kubebuilder:validation:Enum=Pass;Deny` on TierSpec.DefaultAction. */
export const TIER_DEFAULT_ACTIONS = ["Pass", "Deny"] as const;

/** TierSpec: the same fields on both lines, defaultAction defaulted on 3.32. */
export function tierSpec(minor: CalicoMinor): JsonSchema {
  return object({
    order: number(),
    defaultAction: defaultedOn(minor, "3.32", stringEnum(TIER_DEFAULT_ACTIONS), "Deny"),
  });
}

/** v3.32.1's XValidation rules on the Tier object: the default actions of the reserved tiers. */
export const TIER_VALIDATIONS: readonly Validation[] = (
  [
    ["kube-admin", "Pass"],
    ["kube-baseline", "Pass"],
    ["default", "Deny"],
  ] as const
).map(([tier, action]) => ({
  rule: `self.metadata.name == '${tier}' ? (has(self.spec.defaultAction) && self.spec.defaultAction == '${action}') : true`,
  message: `The '${tier}' tier must have default action '${action}'`,
  reason: "FieldValueInvalid" as const,
}));
